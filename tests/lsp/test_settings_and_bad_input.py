"""Settings fall back to their defaults with a message; bad input gets a clear error or nothing,
and the server keeps serving."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcMethodNotFound

from tests.conftest import HUMAN
from tests.lsp.conftest import PROJECT, project_folder


async def test_invalid_settings_fall_back_to_defaults_and_the_user_is_told(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "requests", reason="blocking I/O", project=PROJECT)
    session = await serve([folder], init_options={"severity": {"project": "loud", "mention": "off"},
                                                  "fileKinds": "everything", "maxFileSize": 10})
    warning = await session.message(types.MessageType.Warning)
    for field in ("severity.project", "fileKinds", "maxFileSize"):
        assert field in warning.message
    assert "mention" not in warning.message  # a valid value beside invalid ones is kept

    uri = session.open(folder / "requirements.txt", "requests\n")
    (flagged,) = await session.diagnostics(uri)
    assert flagged.severity == types.DiagnosticSeverity.Warning  # the default

    # The pull model: `settings` is null and the server asks for the `cenotaph` section.
    session.client.set_configuration({"severity": {"project": "error"}}, section="cenotaph")
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    (flagged,) = await session.diagnostics(uri, lambda d: d and d[0].severity == types.DiagnosticSeverity.Error)

    # Pushed settings: scanning requirements files is switched off, then an invalid value falls back.
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cenotaph": {"fileKinds": ["python"]}}))
    assert await session.diagnostics(uri, lambda d: not d) == []
    messages = len(session.client.messages)
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"cenotaph": {"fileKinds": ["python", "requirements"], "otherProjects": "sometimes"}}))
    (flagged,) = await session.diagnostics(uri, lambda d: bool(d))
    assert flagged.severity == types.DiagnosticSeverity.Warning
    assert "otherProjects" in session.client.messages[messages].message


async def test_bad_input_gets_a_clear_error_or_nothing(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    memory.abandon(HUMAN, "requests", reason="blocking I/O", project=PROJECT)
    session = await serve([folder])
    client = session.client

    with pytest.raises(JsonRpcInvalidParams, match="not defined"):
        await session.execute("cenotaph.noSuchCommand", {})
    with pytest.raises(JsonRpcInvalidParams) as malformed:
        await session.execute("cenotaph.silence", {"name": 5, "scope": "nowhere"})
    assert "name" in malformed.value.message and "scope" in malformed.value.message
    with pytest.raises(JsonRpcInvalidParams, match="expected one object argument"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="cenotaph.showWhy"))
    with pytest.raises(JsonRpcInvalidParams, match="approach_id"):  # the domain's refusal names the field
        await session.execute("cenotaph.showWhy", {"approachId": 999_999})
    with pytest.raises(JsonRpcInvalidParams, match="outside the workspace"):
        await session.execute("cenotaph.remember", {"text": "x", "uri": (outside / "a.py").as_uri()})
    with pytest.raises(JsonRpcInvalidParams, match="outside the workspace"):
        await client.protocol.send_request_async("cenotaph/ledger", {"uri": (outside / "a.py").as_uri()})
    with pytest.raises(JsonRpcInvalidParams):
        await client.protocol.send_request_async("cenotaph/ledger", {"nothing": True})
    with pytest.raises(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("cenotaph/noSuchRequest", {})

    # Documents that are not scanned get nothing: outside the workspace, huge, binary, not a file.
    listing = "requests==2.32.0\n"
    for uri in [session.open(outside / "requirements.txt", listing),
                session.open(folder / "big" / "requirements.txt", listing * 1_200_000),  # ~20 MB
                session.open(folder / "bin" / "requirements.txt", listing + "\x00\x01\x02" * 100)]:
        assert await session.diagnostics(uri, timeout=30) == []
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri="untitled:Untitled-1", language_id="pip-requirements", version=1, text=listing)))
    assert await session.hover(str("untitled:Untitled-1"), 0, 2) is None

    # ...and the server is still serving: the positive control.
    uri = session.open(folder / "requirements.txt", listing)
    (flagged,) = await session.diagnostics(uri)
    assert flagged.data["name"] == "requests"
    assert (await session.hover(uri, 0, 2)) is not None
    assert not isinstance(client.error, JsonRpcException)

"""From memory to policy in the editor (issue 17): an out-of-date managed block is flagged with
an Information diagnostic whose code action proposes an update; `cenotaph/compile` returns the
drafts and diffs; Accept writes only through the sha gate."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from cenotaph.lsp.convert import plain
from cenotaph.lsp.features import compile as compile_feature
from tests.conftest import HUMAN
from tests.lsp.conftest import PROJECT, abandoned, conforms, load_schema, project_folder
from tests.lsp.test_schema import assert_same_shape


def test_the_server_models_match_the_schema():
    schema = load_schema("compile.schema.json")
    defs = schema["$defs"]
    assert_same_shape(compile_feature.CompileParams, schema, defs["params"])
    assert_same_shape(compile_feature.CompileResult, schema, defs["result"])
    assert_same_shape(compile_feature.ProposedFile, schema, defs["result"]["properties"]["files"]["items"])
    assert_same_shape(compile_feature.LessonsChangedData, schema, defs["diagnosticData"])


def _lessons_changed(diagnostics):
    return [d for d in diagnostics if d.code == compile_feature.CODE_LESSONS_CHANGED]


async def test_an_out_of_date_block_is_flagged_and_an_update_proposed_and_accepted(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    (folder / "AGENTS.md").write_text("# Agents\n\nRun `make test`.\n", encoding="utf-8")
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=PROJECT, effort=4)
    first = memory.compile(HUMAN, "agents-md", project=PROJECT, root=folder).proposal
    memory.accept_proposal(HUMAN, first.id)
    written = (folder / "AGENTS.md").read_text(encoding="utf-8")
    memory.abandon(HUMAN, "lxml", reason="wheels missing on the build image", project=PROJECT, effort=5)

    session = await serve([folder])
    uri = session.open(folder / "AGENTS.md", written, "markdown")
    notes = _lessons_changed(await session.diagnostics(uri, lambda d: bool(_lessons_changed(d)), timeout=90))
    [note] = notes
    assert note.severity == types.DiagnosticSeverity.Information and note.source == "cenotaph"
    assert note.message == "1 lesson changed since this block was written"
    assert note.range.start.line == written.splitlines().index("<!-- cenotaph:begin -->")
    conforms("compile.schema.json", note.data, "diagnosticData")

    [action] = [a for a in await session.code_actions(uri, note) if a.title == "Propose an update"]
    assert action.command.command == compile_feature.CLIENT_COMMAND
    assert plain(action.command.arguments) == [{"target": "agents-md", "uri": uri}]

    result = plain(await session.client.protocol.send_request_async(compile_feature.REQUEST,
                                                                    action.command.arguments[0]))
    conforms("compile.schema.json", result, "result")
    [change] = result["files"]
    assert change["uri"] == uri and change["path"] == "AGENTS.md"
    assert "+- Don't: lxml — wheels missing on the build image" in change["diff"]
    assert (folder / "AGENTS.md").read_text(encoding="utf-8") == written  # only proposed

    done = plain(await session.execute("cenotaph.acceptProposal", {"proposalId": result["proposalId"]}))
    assert done["done"] is True and done["message"].endswith("accepted: AGENTS.md written")
    assert (folder / "AGENTS.md").read_text(encoding="utf-8") == change["draft"]
    # A stale notification clicked again is answered plainly: not an error, nothing done twice.
    again = plain(await session.execute("cenotaph.acceptProposal", {"proposalId": result["proposalId"]}))
    assert again["done"] is False and again["message"] == f"proposal #{result['proposalId']} was already accepted"
    again = plain(await session.execute("cenotaph.rejectProposal", {"proposalId": result["proposalId"],
                                                                     "reason": "changed my mind"}))
    assert again["done"] is False and again["message"] == f"proposal #{result['proposalId']} was already accepted"
    session.replace(uri, change["draft"])
    await session.diagnostics(uri, lambda d: not _lessons_changed(d), timeout=60)


async def test_accept_in_the_editor_refuses_a_file_that_moved(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=PROJECT, effort=4)
    session = await serve([folder])
    result = plain(await session.client.protocol.send_request_async(
        compile_feature.REQUEST, {"target": "ruff", "project": PROJECT}))
    assert result["files"][0]["baseSha256"] == "absent"
    (folder / "ruff.toml").write_text("line-length = 100\n", encoding="utf-8")
    with pytest.raises(JsonRpcException,
                       match="ruff.toml changed since the proposal; propose it again with `cenotaph compile --target"):
        await session.execute("cenotaph.acceptProposal", {"proposalId": result["proposalId"]})
    assert (folder / "ruff.toml").read_text(encoding="utf-8") == "line-length = 100\n"


async def test_what_cenotaph_wrote_is_never_flagged_while_the_persons_lines_are(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    (folder / "AGENTS.md").write_text("# Agents\n\nUse flask for the API.\n", encoding="utf-8")
    (folder / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["flask>=3"]\n', encoding="utf-8")
    memory.abandon(HUMAN, "flask", reason="sync workers stalled under load", project=PROJECT, effort=4)
    for target in ("agents-md", "skill", "ruff"):
        memory.accept_proposal(HUMAN, memory.compile(HUMAN, target, project=PROJECT, root=folder).proposal.id)
    agents = (folder / "AGENTS.md").read_text(encoding="utf-8")
    [skill_path] = (folder / ".claude" / "skills").glob("*/SKILL.md")
    skill = skill_path.read_text(encoding="utf-8")
    pyproject = (folder / "pyproject.toml").read_text(encoding="utf-8")
    assert "- Don't: flask — sync workers stalled under load" in agents and "Don't: flask" in skill
    assert '"cenotaph: flask was abandoned' in pyproject

    session = await serve([folder])
    # The person's recommendation above the block is flagged; the block's own "Don't: flask" is not.
    uri = session.open(folder / "AGENTS.md", agents, "markdown")
    found = await session.diagnostics(uri, lambda d: any(x.data["kind"] == "recommendation" for x in d), timeout=90)
    assert [(d.range.start.line, d.data["kind"]) for d in abandoned(found, "flask")] == [(2, "recommendation")]
    # The dependency a person declared is flagged; the ruff entry Cenotaph wrote is not.
    uri = session.open(folder / "pyproject.toml", pyproject, "toml")
    found = abandoned(await session.diagnostics(uri, lambda d: bool(d)), "flask")
    assert [d.range.start.line for d in found] == [pyproject.splitlines().index('dependencies = ["flask>=3"]')]
    # The same skill text is flagged as a person's note, and not as the SKILL.md Cenotaph compiled
    # (with a command in it: a document's prose is not flagged, its code is).
    command = "\n```\npip install flask\n```\n"
    copied = "\n".join(line for line in skill.splitlines() if "Compiled by Cenotaph" not in line) + command
    notes = session.open(folder / "docs" / "notes.md", copied, "markdown")
    assert abandoned(await session.diagnostics(notes, lambda d: bool(d)), "flask")
    uri = session.open(skill_path, skill + command, "markdown")
    assert abandoned(await session.diagnostics(uri), "flask") == []


async def test_accept_refuses_a_file_with_unsaved_edits_in_the_editor(memory, serve, tmp_path):
    # Written under the editor, the person's next save would fail or overwrite the accepted change.
    folder = project_folder(tmp_path, "app", PROJECT)
    on_disk = "# Agents\n\nRun `make test`.\n"
    (folder / "AGENTS.md").write_text(on_disk, encoding="utf-8")
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=PROJECT, effort=4)
    session = await serve([folder])
    uri = session.open(folder / "AGENTS.md", on_disk + "An unsaved note.\n", "markdown")
    result = plain(await session.client.protocol.send_request_async(
        compile_feature.REQUEST, {"target": "agents-md", "uri": uri}))
    refused = plain(await session.execute("cenotaph.acceptProposal", {"proposalId": result["proposalId"]}))
    assert refused["done"] is False and refused["message"].startswith("AGENTS.md has unsaved changes in the editor")
    assert (folder / "AGENTS.md").read_text(encoding="utf-8") == on_disk
    session.replace(uri, on_disk)  # the control: saved (the same text as on disk), it is accepted
    done = plain(await session.execute("cenotaph.acceptProposal", {"proposalId": result["proposalId"]}))
    assert done["done"] is True and (folder / "AGENTS.md").read_text(encoding="utf-8") != on_disk

"""Issue 4's "done when": a requirements.txt that lists an abandoned package shows the Warning at
the right range, hover tells the story, and "Silence" and "Reinstate" each clear it."""

from __future__ import annotations

from lsprotocol import types

from cenotaph.lsp.convert import plain
from tests.conftest import HUMAN
from tests.lsp.conftest import PROJECT, abandoned, conforms, project_folder

REQUIREMENTS = "numpy==2.1.0\nonnxruntime==1.17.0  # inference\npyyaml>=6\n"


async def test_requirements_warning_hover_silence_and_reinstate(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.record_experience(
        HUMAN, "Tried ONNX Runtime for CPU inference in the Alpine image", project=PROJECT, outcome="abandoned",
        effort=4, breakthrough="fastembed on glibc (python:3.12-slim) works", gotchas=["musl wheels are missing"],
        abandoned=[("onnxruntime", "SIGILL crash on Alpine musl libc")])
    memory.abandon(HUMAN, "pyyaml", reason="unsafe load by default", project=PROJECT, effort=2)
    session = await serve([folder], message_answers=["It works now"])

    uri = session.open(folder / "requirements.txt", REQUIREMENTS)
    diagnostics = await session.diagnostics(uri)
    assert [d.data["name"] for d in diagnostics] == ["onnxruntime", "pyyaml"]  # numpy is not flagged
    onnx, yaml = diagnostics
    assert onnx.range == types.Range(start=types.Position(line=1, character=0),
                                     end=types.Position(line=1, character=11))
    assert onnx.severity == types.DiagnosticSeverity.Warning
    assert (onnx.source, onnx.code) == ("cenotaph", "abandoned-approach")
    assert onnx.message == "onnxruntime was abandoned here (effort 4/5, 2026-03-01): SIGILL crash on Alpine musl libc"
    assert onnx.data["type"] == "approach" and onnx.data["project"] == PROJECT and onnx.data["scope"] == "project"
    assert onnx.data["approachId"] == memory.graveyard.find("onnxruntime", PROJECT).id
    for diagnostic in diagnostics:
        conforms("diagnostic-data.schema.json", diagnostic.data)
    assert yaml.range.start == types.Position(line=2, character=0) and yaml.range.end.character == 6

    hover = await session.hover(uri, 1, 4)
    assert hover is not None and hover.contents.kind == types.MarkupKind.Markdown
    story = hover.contents.value
    for part in ("**onnxruntime**", "SIGILL crash on Alpine musl libc", "effort 4/5", "outcome: abandoned",
                 "2026-03-01 by test", "fastembed on glibc", "musl wheels are missing",
                 "Tried ONNX Runtime for CPU inference"):
        assert part in story
    assert await session.hover(uri, 0, 2) is None  # numpy: nothing to tell

    titles = [a.title for a in await session.code_actions(uri, onnx)]
    assert titles == ["Silence 'onnxruntime' in this project", "Silence 'onnxruntime' everywhere",
                      "Reinstate 'onnxruntime' (it works now)", "Show why 'onnxruntime' was abandoned",
                      "Mark this record wrong", "Share 'onnxruntime' with the team"]

    # Silence, with the reason given as the command's argument: only onnxruntime's warning goes.
    silence = (await session.code_actions(uri, onnx))[0].command
    silence.arguments[0]["reason"] = "we build on glibc now"
    conforms("commands.schema.json", {"command": silence.command, "arguments": plain(silence.arguments)})
    result = await session.execute(silence.command, silence.arguments[0])
    assert result["done"] is True
    conforms("commands.schema.json", result, "result")
    remaining = await session.diagnostics(uri, lambda d: not abandoned(d, "onnxruntime"))
    assert [d.data["name"] for d in remaining] == ["pyyaml"]

    # Reinstate, with the reason asked through window/showMessageRequest.
    reinstate = next(a.command for a in await session.code_actions(uri, yaml) if a.title.startswith("Reinstate"))
    result = await session.execute(reinstate.command, reinstate.arguments[0])
    assert result["done"] is True
    assert await session.diagnostics(uri, lambda d: not d) == []
    asked = session.client.message_requests
    assert len(asked) == 1 and "reinstate 'pyyaml'" in asked[0].message.lower()
    assert memory.graveyard.find("pyyaml", PROJECT).status_reason == "It works now"


async def test_show_why_mark_wrong_and_a_cancelled_reason(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    result = memory.abandon(HUMAN, "left-pad", reason="supply-chain risk", project=PROJECT, ecosystem="pypi")
    session = await serve([folder], message_answers=[None])
    uri = session.open(folder / "requirements-dev.txt", "left_pad==1.0\n")
    (flagged,) = await session.diagnostics(uri)
    assert flagged.data["name"] == "left-pad" and flagged.range.end.character == 8

    why = await session.execute("cenotaph.showWhy", {"approachId": result.approach.id})
    assert why["done"] and "supply-chain risk" in why["markdown"]
    assert any("supply-chain risk" in m.message for m in session.client.messages)

    # The user dismisses the question: nothing changes.
    cancelled = await session.execute("cenotaph.markWrong", {"approachId": result.approach.id})
    assert cancelled == {"done": False, "message": "cancelled"}
    assert memory.graveyard.find("left-pad", PROJECT).status == "abandoned"

    wrong = await session.execute("cenotaph.markWrong", {"approachId": result.approach.id, "reason": "never tried"})
    assert wrong["done"]
    assert await session.diagnostics(uri, lambda d: not d) == []
    assert memory.get(result.memory_id).trust == "refuted"


async def test_a_selection_can_be_remembered_or_recorded_as_abandoned(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    text = "# Notes\n\nThe CI cache <broke> twice; we dropped `fast-cache-py` for it.\n"
    uri = session.open(folder / "NOTES.md", text, "markdown")
    assert await session.diagnostics(uri) == []

    async def actions_on(start: int, end: int) -> dict[str, types.Command]:
        found = await session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=2, character=start), end=types.Position(line=2, character=end)),
            context=types.CodeActionContext(diagnostics=[])))
        return {a.title: a.command for a in found or []}

    line = text.splitlines()[2]
    sentence = await actions_on(0, len(line))
    assert list(sentence) == ["Remember this"]  # a sentence is not a package name
    remembered = await session.execute("cenotaph.remember", sentence["Remember this"].arguments[0])
    assert remembered["done"] and memory.get(remembered["id"]).content == line  # verbatim, `<broke>` and all
    assert memory.get(remembered["id"]).project == PROJECT

    start = line.index("fast-cache-py")
    name = await actions_on(start, start + len("fast-cache-py"))
    record = name["Record 'fast-cache-py' as an abandoned approach"]
    result = await session.execute(record.command, {**record.arguments[0], "reason": "corrupts the cache"})
    assert result["done"] and memory.graveyard.find("fast-cache-py", PROJECT).reason == "corrupts the cache"
    (hint,) = await session.diagnostics(uri, lambda d: bool(d))  # the inline code is now flagged
    assert hint.severity == types.DiagnosticSeverity.Hint and hint.range.start.character == start

"""Issue 31: what a reviewer does has an editor path. Through the real `cenotaph serve`: bless a
memory, give an abandoned approach its effort (asked by the server when the client sends none),
and remember a selection with the file and lines it came from."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.conftest import AGENT, HUMAN
from tests.lsp.conftest import PROJECT, conforms, project_folder


def _lessons_blessed(memory, memory_id: int) -> list[list[str]]:
    return [lesson.reinforced_by for lesson in memory.lessons(PROJECT) if memory_id in lesson.memory_ids]


async def test_bless_makes_a_decision_a_lesson_and_only_that_one(memory, serve, tmp_path):
    # An agent's decisions: unverified, so they teach nothing until a person vouches for one.
    blessed = memory.remember(AGENT, "Decided: the API speaks JSON:API.", project=PROJECT, kind="decision").id
    other = memory.remember(AGENT, "Decided: deploys go out on Tuesdays.", project=PROJECT, kind="decision").id
    session = await serve([project_folder(tmp_path, "app", PROJECT)])
    assert _lessons_blessed(memory, blessed) == []

    result = await session.execute("cenotaph.bless", {"memoryId": blessed})
    conforms("commands.schema.json", result, "result")
    assert result["done"] and result["id"] == blessed and "blessed" in result["message"]
    assert _lessons_blessed(memory, blessed) == [["blessing"]]
    assert _lessons_blessed(memory, other) == []  # the control: not blessed, no lesson
    assert session.client.message_requests == []  # nothing asked: the reason is optional
    with pytest.raises(JsonRpcInvalidParams, match="memory_id: no memory #9999"):
        await session.execute("cenotaph.bless", {"memoryId": 9999})


async def test_set_effort_at_four_keeps_the_memories_out_of_recall(memory, serve, tmp_path):
    memory.abandon(HUMAN, "fast-cache-py", reason="corrupts the cache", project=PROJECT)
    memory.abandon(HUMAN, "left-pad", reason="gone from the registry", project=PROJECT)
    session = await serve([project_folder(tmp_path, "app", PROJECT)], message_answers=["2 · an afternoon"])

    result = await session.execute("cenotaph.setEffort", {"name": "fast-cache-py", "project": PROJECT, "effort": 4})
    assert result["done"] and "4/5" in result["message"] and "out of recall" in result["message"]
    assert memory.graveyard.find("fast-cache-py", PROJECT).effort == 4
    recall_silenced = {s.value for s in memory.suppressions(PROJECT) if s.kind == "recall"}
    assert recall_silenced == {"fast-cache-py"}

    # Without an effort the server asks; an effort below 4 silences nothing.
    asked = await session.execute("cenotaph.setEffort", {"name": "left-pad", "project": PROJECT})
    assert asked["done"] and "2/5" in asked["message"] and "recall" not in asked["message"]
    (question,) = session.client.message_requests
    assert "left-pad" in question.message and [a.title for a in question.actions][:5] == [
        "1 · a quick try", "2 · an afternoon", "3 · days", "4 · a week or more", "5 · a major investment"]
    assert memory.graveyard.find("left-pad", PROJECT).effort == 2
    assert {s.value for s in memory.suppressions(PROJECT) if s.kind == "recall"} == {"fast-cache-py"}

    cancelled = await session.execute("cenotaph.setEffort", {"name": "left-pad", "project": PROJECT})
    assert cancelled == {"done": False, "message": "cancelled"}  # no answer left: the person cancelled
    assert memory.graveyard.find("left-pad", PROJECT).effort == 2


async def test_set_effort_on_a_name_not_in_the_graveyard_names_the_field(memory, serve, tmp_path):
    memory.abandon(HUMAN, "left-pad", reason="gone from the registry", project=PROJECT)
    session = await serve([project_folder(tmp_path, "app", PROJECT)])
    ok = await session.execute("cenotaph.setEffort", {"name": "left-pad", "project": PROJECT, "effort": 1})
    assert ok["done"]  # the control
    with pytest.raises(JsonRpcInvalidParams, match="name: 'never-tried' is not in the graveyard"):
        await session.execute("cenotaph.setEffort", {"name": "never-tried", "project": PROJECT, "effort": 3})


async def test_remember_this_keeps_the_selection_file_and_lines(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    (folder / "src").mkdir()
    session = await serve([folder])
    text = "import os\n\n# retries: three, then give up\nRETRIES = 3\nTIMEOUT = 10\n"
    (folder / "src" / "client.py").write_text(text, encoding="utf-8")
    uri = session.open(folder / "src" / "client.py", text, "python")
    await session.diagnostics(uri)
    # Lines 3–4 selected to the start of line 5: the selection ends with line 4.
    found = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=4, character=0)),
        context=types.CodeActionContext(diagnostics=[])))
    (action,) = [a for a in found or [] if a.title == "Remember this"]
    argument = action.command.arguments[0]
    assert argument["lines"] == {"start": 3, "end": 4} and argument["uri"] == uri
    result = await session.execute("cenotaph.remember", {**argument, "kind": "decision"})
    assert result["done"] and "src/client.py:3-4" in result["message"]
    row = memory.get(result["id"])
    # In the project's repository (the folder's `.cenotaph.toml` marks its root): anchored, no label.
    anchored = memory.anchors_in(PROJECT, folder / "src" / "client.py") if memory.attach_repositories(
        [(folder, PROJECT)]) is None else []
    assert [(a.memory_id, a.anchor.path, a.anchor.start_line, a.anchor.end_line) for a in anchored] == [
        (result["id"], "src/client.py", 3, 4)]
    assert row.tags == [] and row.kind == "decision" and row.project == PROJECT
    assert row.content == "# retries: three, then give up\nRETRIES = 3\n"
    opened = await session.execute("cenotaph.showLocation", {"memoryId": result["id"]})  # and back to it
    shown = session.client.shown_documents[-1]
    assert opened["message"] == "src/client.py:3" and shown.uri == uri and shown.selection.start.line == 2

    # The control: remembered without lines, no location.
    plain_result = await session.execute("cenotaph.remember", {"text": "Timeouts are in seconds.", "uri": uri})
    assert plain_result["done"] and memory.get(plain_result["id"]).tags == []
    one_line = await session.execute("cenotaph.remember", {"text": "TIMEOUT = 10", "uri": uri,
                                                           "lines": {"start": 5, "end": 5}})
    assert one_line["message"].startswith(f"remembered #{one_line['id']} (src/client.py:5-5, anchored")
    # Outside any repository of the project: the selection is kept as a label.
    elsewhere = tmp_path / "scratch.txt"
    elsewhere.write_text("one\ntwo\n", encoding="utf-8")
    labelled = await session.execute("cenotaph.remember", {"text": "scratch two", "uri": elsewhere.as_uri(),
                                                           "project": PROJECT, "lines": {"start": 2, "end": 2}})
    assert memory.get(labelled["id"]).tags == [f"at:{elsewhere.as_posix()}:2"]

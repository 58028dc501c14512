"""Anchors in the editor (issue 41), on the real `cenotaph serve`: a selection in a git repository
is remembered anchored; lines typed above move the anchor as a bookmark moves, an edit inside
makes it stale once typing stops; recall answers with the anchor; re-confirm and retire."""

from __future__ import annotations

import asyncio
from typing import Any

from cenotaph.lsp.convert import plain
from cenotaph.lsp.features.anchors import line_edit
from cenotaph.memory.knowledge.anchors.fingerprint import shift
from lsprotocol import types

from tests.gitrepo import GitRepo
from tests.lsp.conftest import PROJECT, conforms
from tests.memory.test_anchors import SOURCE


async def _anchors(session, uri: str, until, timeout: float = 20.0) -> list[dict[str, Any]]:
    """The document's anchors once they satisfy `until` (the write-back waits for typing to stop)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = [plain(a) for a in await session.client.protocol.send_request_async("cenotaph/anchors",
                                                                                       {"uri": uri})]
        if until(found):
            return found
        if loop.time() > deadline:
            raise AssertionError(f"the anchors of {uri} never satisfied the condition; last: {found}")
        await asyncio.sleep(0.1)


def _edit(session, uri: str, line: int, end_line: int, end_character: int, text: str, character: int = 0) -> None:
    session.versions[uri] += 1
    session.client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=session.versions[uri]),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=line, character=character),
                              end=types.Position(line=end_line, character=end_character)), text=text)]))


async def test_a_selection_is_anchored_and_follows_the_edits(memory, serve, tmp_path):
    repo = GitRepo(tmp_path / "app")
    (repo.root / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    repo.commit("start", {"net.py": SOURCE})
    session = await serve([repo.root])
    uri = session.open(repo.root / "net.py", SOURCE, "python")
    await session.diagnostics(uri)
    result = await session.execute("cenotaph.remember", {"text": "retry_after reads Retry-After as seconds",
                                                         "uri": uri, "lines": {"start": 4, "end": 6}})
    other = await session.execute("cenotaph.remember", {"text": "backoff doubles the wait",
                                                        "uri": uri, "lines": {"start": 9, "end": 10}})
    assert result["done"] and "net.py:4-6, anchored" in result["message"]
    first = await _anchors(session, uri, lambda a: len(a) == 2)
    assert first[0] == {"memory_id": result["id"], "start_line": 4, "end_line": 6, "state": "current"}

    _edit(session, uri, 0, 0, 0, "# one\n# two\n")  # two lines above both: they move as bookmarks do
    moved = await _anchors(session, uri, lambda a: a[0]["start_line"] == 6)
    assert [(a["start_line"], a["end_line"]) for a in moved] == [(6, 8), (11, 12)]
    # Inside the first: its body rewritten (lines 7-8 of 12, 0-based 6-7, become one).
    _edit(session, uri, 6, 7, 27, "    raise NotImplementedError('the proxy retries now')")
    judged = await _anchors(session, uri, lambda a: a[0]["state"] == "stale")
    assert (judged[0]["start_line"], judged[0]["end_line"]) == (6, 7)
    assert judged[1]["state"] in ("current", "moved") and (judged[1]["start_line"], judged[1]["end_line"]) == (10, 11)
    # Shown where the code is: a Hint on the stale anchor's lines only (the other one holds).
    hints = [d for d in await session.diagnostics(uri, lambda ds: any(d.code == "anchor-stale" for d in ds))
             if d.code == "anchor-stale"]
    assert [(h.severity, h.range.start.line, h.range.end.line, h.data["memoryId"]) for h in hints] == [
        (types.DiagnosticSeverity.Hint, 5, 6, result["id"])]
    assert "may no longer hold" in hints[0].message
    offered = {a.title: a.command for a in await session.code_actions(uri, hints[0])}
    assert {c.command for c in offered.values()} >= {"cenotaph.reconfirmAnchor", "cenotaph.showAnchor",
                                                     "cenotaph.retireAnchored"}
    shown = await session.execute("cenotaph.showAnchor", {"memoryId": result["id"]})
    then_now = shown["markdown"].split("Now:")
    assert "int(header or 1)" in then_now[0] and "NotImplementedError" not in then_now[0]
    assert "NotImplementedError" in then_now[1]  # now: as the editor has it, not as the disk (unsaved)
    stored = {i.memory_id: i.anchor for i in memory.anchors.listing(PROJECT)} if memory.attach_repositories(
        [(repo.root, PROJECT)]) is None else {}
    assert (stored[result["id"]].start_line, stored[other["id"]].start_line) == (4, 9)  # the disk is unsaved

    # Recall, in the editor: the same shape as the CLI's, the anchor checked against the disk.
    answer = await session.client.protocol.send_request_async("cenotaph/recall", {
        "query": "retry_after reads Retry-After as seconds", "uri": uri})
    answer = plain(answer)
    conforms("recall.schema.json", answer, "recallResult")
    assert answer["results"][0]["anchor"]["path"] == "net.py"

    again = await session.execute("cenotaph.reconfirmAnchor", {"memoryId": result["id"]})
    assert again["done"] and "re-anchored to net.py:" in again["message"]
    await session.diagnostics(uri, lambda ds: not any(d.code == "anchor-stale" for d in ds))  # the hint goes
    retired = await session.execute("cenotaph.retireAnchored", {"memoryId": other["id"], "reason": "rewritten"})
    assert retired["done"] and memory.get(other["id"]).state == "archived"
    assert memory.get(result["id"]).state == "active"  # the control


async def _lenses(session, uri: str, until, timeout: float = 20.0) -> list[tuple[int, str, str, Any]]:
    """The document's code lenses (line, title, command, argument) once they satisfy `until`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = [(lens.range.start.line, lens.command.title, lens.command.command, plain(lens.command.arguments[0]))
                 for lens in await session.client.text_document_code_lens_async(types.CodeLensParams(
                     text_document=types.TextDocumentIdentifier(uri=uri))) or []]
        if until(found):
            return found
        if loop.time() > deadline:
            raise AssertionError(f"the code lenses of {uri} never satisfied the condition; last: {found}")
        await asyncio.sleep(0.1)


async def test_a_lens_names_the_memory_above_each_anchor_that_holds_and_a_stale_one_has_the_hint(memory, serve,
                                                                                                 tmp_path):
    repo = GitRepo(tmp_path / "app")
    (repo.root / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    repo.commit("start", {"net.py": SOURCE})
    session = await serve([repo.root])
    refreshes: list[None] = []
    session.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(lambda params: refreshes.append(params))
    assert session.initialized.capabilities.code_lens_provider is not None
    long_text = "retry_after reads Retry-After as seconds, never as an HTTP date, which the proxy sends instead"
    first = await session.execute("cenotaph.remember", {"text": long_text, "uri": (repo.root / "net.py").as_uri(),
                                                        "lines": {"start": 4, "end": 6}})
    second = await session.execute("cenotaph.remember", {"text": "backoff doubles the wait",
                                                         "uri": (repo.root / "net.py").as_uri(),
                                                         "lines": {"start": 9, "end": 10}})
    uri = session.open(repo.root / "net.py", SOURCE, "python")
    lenses = await _lenses(session, uri, lambda found: len(found) == 2)
    assert lenses[1] == (8, f"memory #{second['id']}: backoff doubles the wait", "cenotaph.showAnchor",
                         {"memoryId": second["id"]})
    line, title, command, argument = lenses[0]
    assert (line, command, argument) == (3, "cenotaph.showAnchor", {"memoryId": first["id"]})
    assert title.startswith(f"memory #{first['id']}: retry_after reads Retry-After") and title.endswith("…")
    assert len(title) < len(long_text)
    shown = await session.execute(command, argument)  # the lens's command shows the memory and its lines
    assert shown["done"] and long_text in shown["markdown"] and "current" in shown["message"]

    # The first anchor's body rewritten: once judged, it is stale: the Hint, and no lens (the
    # other one keeps its lens, moved with the line typed above both).
    _edit(session, uri, 0, 0, 0, "# one\n")
    _edit(session, uri, 5, 6, 27, "    raise NotImplementedError('the proxy retries now')")
    hints = await session.diagnostics(uri, lambda ds: any(d.code == "anchor-stale" for d in ds))
    assert [d.data["memoryId"] for d in hints if d.code == "anchor-stale"] == [first["id"]]
    lenses = await _lenses(session, uri, lambda found: len(found) == 1)
    assert [(line, argument) for line, _, _, argument in lenses] == [(8, {"memoryId": second["id"]})]
    assert refreshes  # the client was asked to request them again when the verdict came

    # Retired, its lens goes too; re-confirmed, the stale one's lens comes back.
    await session.execute("cenotaph.retireAnchored", {"memoryId": second["id"], "reason": "rewritten"})
    await _lenses(session, uri, lambda found: found == [])
    await session.execute("cenotaph.reconfirmAnchor", {"memoryId": first["id"]})
    lenses = await _lenses(session, uri, lambda found: len(found) == 1)
    assert lenses[0][3] == {"memoryId": first["id"]}


def _change(start: tuple[int, int], end: tuple[int, int], text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=start[0], character=start[1]),
                          end=types.Position(line=end[0], character=end[1])), text=text)


def test_whole_lines_inserted_or_deleted_move_an_anchor_below_in_every_form_an_editor_sends():
    # Lines 1-3 (0-based 0-2) "import os", "import sys", "import time"; the anchor on lines 4-5.
    forms = {
        "at the start of a line": _change((1, 0), (1, 0), "a\nb\n"),
        "from the end of the line above, to the next line's start (Neovim's `o`)": _change((0, 9), (1, 0), "\na\nb\n"),
        "at the end of the line above": _change((0, 9), (0, 9), "\na\nb"),
    }
    for form, change in forms.items():
        assert shift(4, 5, *line_edit(change)) == (6, 7, False), form
    deleted = _change((0, 9), (2, 11), "")  # "\nimport sys\nimport time" from the end of line 1
    assert shift(4, 5, *line_edit(deleted)) == (2, 3, False)
    # Control: an edit inside the anchored lines touches it, in place.
    assert shift(4, 5, *line_edit(_change((3, 0), (3, 5), "X"))) == (4, 5, True)

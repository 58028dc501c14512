"""Anchors in the documents an editor has open (memory/knowledge/anchors/): read when a document opens, moved
with each edit as bookmarks move (lines inserted above shift them; an edit inside changes their
text), and written back, with whether their text still holds, a moment after the typing stops.
The request `cenotaph/anchors` answers an open document's anchors where its edits left them."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from cenotaph.lsp.convert import SOURCE, Wire, code_action, file_path
from cenotaph.lsp.features.commands import parse
from cenotaph.memory.knowledge.anchors.fingerprint import shift
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import AnchoredMemory, as_json

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

ANCHORS = "cenotaph/anchors"
CODE_STALE = "anchor-stale"
MAX_COLUMN = 10_000  # to the end of the last line, however long
# Typing pauses this long before the followed anchors are written (and re-judged) in the store.
FOLLOW_AFTER_SECONDS = 1.0
LENS_TEXT = 60  # characters of the memory's first line a code lens shows
# No lens on these: a stale or lost anchor's memory may no longer hold (the Hint says so instead).
NO_LENS = frozenset({"stale", "lost"})

log = logging.getLogger(__name__)


@dataclass(slots=True)
class OpenAnchors:
    """One open document's anchored memories, as last checked, and where its edits have moved
    their anchors since: held here and shifted by each edit, never re-read while typing."""

    project: str
    items: list[AnchoredMemory]
    places: dict[int, tuple[int, int]]
    states: dict[int, str] = field(default_factory=dict)
    timer: asyncio.TimerHandle | None = None

    @classmethod
    def of(cls, project: str, items: list[AnchoredMemory]) -> OpenAnchors:
        return cls(project, items, {i.memory_id: (i.anchor.start_line, i.anchor.end_line) for i in items},
                   {i.memory_id: i.anchor.state for i in items})


def line_edit(change: types.TextDocumentContentChangePartial) -> tuple[int, int, int]:
    """An edit as whole lines (fingerprint.shift's terms, 1-based): the first and last line it
    replaces and how many lines replace them. An edit that ends at the start of a line, with text
    that ends a line (or none), leaves the line it ends on untouched: that is how an editor inserts
    or deletes whole lines, from the start of a line or (as Neovim sends `o`) from the end of the
    line above."""
    start, end, text = change.range.start, change.range.end, change.text
    if end.character == 0 and (start.character == 0 or end.line > start.line) and (text == "" or text.endswith("\n")):
        return start.line + 1, end.line, text.count("\n")
    return start.line + 1, end.line + 1, text.count("\n") + 1


def opened(ls: ServerContext, uri: str) -> None:
    """The document's anchors, each checked against the text as the editor holds it (a pull or a
    checkout may have moved or changed its code since it was last seen; the file on disk may
    already hold edits the editor has yet to send, which would move the anchors twice; and, read
    again after a command, the editor's edits may be unsaved)."""
    path, project = file_path(uri), ls.project_for(uri)
    document = ls.workspace.text_documents.get(uri)
    if path is None or project is None or document is None:
        return
    try:
        ls.anchored[uri] = OpenAnchors.of(project, ls.memory.anchors_in(project, path, document.source.splitlines()))
    except CenotaphError as exc:
        log.warning("anchors of %s: %s", uri, exc)


def reread(ls: ServerContext, uri: str) -> OpenAnchors | None:
    """An open document's anchors, read again when a command anchored, re-confirmed or retired
    a memory (they dropped every document's): the client's lenses are then out of date."""
    if uri not in ls.anchored and uri in ls.workspace.text_documents:
        opened(ls, uri)
        refresh_lenses(ls)
    return ls.anchored.get(uri)


def edited(ls: ServerContext, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    document = reread(ls, uri)
    if document is None or not document.items:
        return
    for change in params.content_changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            continue  # the whole text replaced: the fingerprint finds them when they are written back
        edit = line_edit(change)
        for memory_id, (start, end) in document.places.items():
            start, end, touched = shift(start, end, *edit)
            document.places[memory_id] = (start, end)
            if touched:
                document.states[memory_id] = "edited"
    if document.timer is not None:
        document.timer.cancel()
    document.timer = asyncio.get_running_loop().call_later(FOLLOW_AFTER_SECONDS,
                                                           lambda: ls.spawn(_write_back(ls, uri)))


async def _write_back(ls: ServerContext, uri: str) -> None:
    document, text = ls.anchored.get(uri), ls.workspace.text_documents.get(uri)
    if document is None or text is None:
        return
    document.timer = None
    lines, places = text.source.splitlines(), dict(document.places)

    try:
        found = await asyncio.to_thread(ls.memory.follow_edits, document.items, lines, places)
    except CenotaphError as exc:
        log.warning("following the anchors of %s: %s", uri, exc)
        return
    if ls.anchored.get(uri) is document and document.places == places:  # no edit came meanwhile
        before = dict(document.states)
        ls.anchored[uri] = OpenAnchors.of(document.project, [replace(i, anchor=a) for i, a in
                                                             zip(document.items, found, strict=True)])
        ls.publish_diagnostics(uri, only_changed=True)  # a stale anchor's hint, or its end
        if ls.anchored[uri].states != before:
            refresh_lenses(ls)  # a lens goes with staleness, or comes back


def closed(ls: ServerContext, uri: str) -> None:
    document = ls.anchored.pop(uri, None)
    if document is not None and document.timer is not None:
        document.timer.cancel()


def diagnostics(ls: ServerContext, uri: str) -> list[types.Diagnostic]:
    """A Hint on each stale anchor of an open document: the memory written about these lines may
    no longer hold (its actions: re-confirm, show the memory, retire)."""
    document = reread(ls, uri)
    if document is None:
        return []
    found = []
    for memory_id, (start, end) in sorted(document.places.items()):
        if document.states.get(memory_id) != "stale":
            continue
        found.append(types.Diagnostic(
            range=types.Range(start=types.Position(line=start - 1, character=0),
                              end=types.Position(line=max(start, end) - 1, character=MAX_COLUMN)),
            message=f"memory #{memory_id} was written about these lines, and their code has changed since: "
                    "it may no longer hold", severity=types.DiagnosticSeverity.Hint, source=SOURCE,
            code=CODE_STALE, data={"memoryId": memory_id}))
    return found


def code_actions(ls: ServerContext, params: types.CodeActionParams) -> list[types.CodeAction]:
    actions = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE or diagnostic.code != CODE_STALE or not isinstance(diagnostic.data, dict):
            continue
        memory_id = diagnostic.data.get("memoryId")
        if not isinstance(memory_id, int):
            continue
        argument = {"memoryId": memory_id}
        actions += [code_action(f"Re-confirm memory #{memory_id} (it still holds for the code as it is)",
                                "cenotaph.reconfirmAnchor", argument, diagnostic=diagnostic),
                    code_action(f"Show what changed under memory #{memory_id}", "cenotaph.showAnchor", argument,
                                diagnostic=diagnostic),
                    code_action(f"Retire memory #{memory_id} (it no longer holds)", "cenotaph.retireAnchored",
                                argument, diagnostic=diagnostic)]
    return actions


def lenses(ls: ServerContext, uri: str) -> list[types.CodeLens]:
    """A lens above each anchor of an open document whose memory still holds as far as is known
    (current, moved, or typed into and not yet judged), naming the memory; it shows the memory
    and its lines (cenotaph.showAnchor). A stale or lost anchor has the Hint instead."""
    document = reread(ls, uri)
    if document is None:
        return []
    found = []
    for item in document.items:
        if document.states.get(item.memory_id) in NO_LENS:
            continue
        start = document.places[item.memory_id][0] - 1
        first = item.content.strip().split("\n", 1)[0]
        short = first if len(first) <= LENS_TEXT else first[:LENS_TEXT - 1].rstrip() + "…"
        found.append(types.CodeLens(
            range=types.Range(start=types.Position(line=start, character=0), end=types.Position(line=start, character=0)),
            command=types.Command(title=f"memory #{item.memory_id}: {short}", command="cenotaph.showAnchor",
                                  arguments=[{"memoryId": item.memory_id}])))
    return sorted(found, key=lambda lens: lens.range.start.line)


def refresh_lenses(ls: ServerContext) -> None:
    """Ask the client to request its code lenses again (once per turn of the event loop, however
    many documents changed), when it says it can."""
    workspace = ls.client_capabilities.workspace
    support = workspace.code_lens if workspace is not None else None
    if support is None or not support.refresh_support or ls.lens_refresh_due:
        return
    ls.lens_refresh_due = True

    def send() -> None:
        ls.lens_refresh_due = False
        ls.workspace_code_lens_refresh(None)

    asyncio.get_running_loop().call_soon(send)


class AnchorsParams(Wire):
    uri: str


@dataclass(slots=True)
class OpenAnchor:
    """An anchor of an open document, where its edits have left it (1-based, inclusive lines);
    `edited`: typed into since it was last judged."""

    memory_id: int
    start_line: int
    end_line: int
    state: str


def register(server: ServerContext) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: ServerContext, params: types.CodeLensParams) -> list[types.CodeLens]:
        return lenses(ls, params.text_document.uri)

    @server.feature(ANCHORS)
    async def anchors_request(ls: ServerContext, params: Any) -> list[dict[str, Any]]:
        uri = parse(ANCHORS, AnchorsParams, (params,)).uri
        document = reread(ls, uri)
        if document is None:
            return []
        return [as_json(OpenAnchor(memory_id, start, end, document.states.get(memory_id, "current")))
                for memory_id, (start, end) in sorted(document.places.items())]

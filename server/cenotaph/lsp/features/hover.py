"""Hover on a flagged name: the whole story of the approach, from the graveyard record and the
memory that recorded it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from cenotaph.lsp.convert import CODE_ABANDONED, approach_story, shared_by
from cenotaph.memory.errors import CenotaphError, NotFound
from cenotaph.store.records import ApproachRow

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)


def _contains(span: types.Range, position: types.Position) -> bool:
    start, end = span.start, span.end
    return (start.line, start.character) <= (position.line, position.character) <= (end.line, end.character)


def story(ls: ServerContext, approach_id: int, scope: str | None, *, name: str | None = None,
          document_project: str | None = None) -> str:
    """The approach's story; given the name and the document's project, also the stories of the
    other records that abandon it there (the person's own and the repository's: one verdict)."""
    approach = ls.memory.graveyard.get(approach_id)
    text = _one_story(ls, approach, scope)
    if name is not None and document_project is not None:
        verdict = ls.memory.check_approaches([name], project=document_project, detected=True)[0]
        if verdict.approach is not None and verdict.approach.id == approach.id:
            told = {approach.reason.strip()}
            for other in verdict.also:
                if other.reason.strip() in told:  # the same story, shared: told once
                    text += f"\n\n*Also {shared_by(other) or ('everywhere' if other.project == '' else 'here')}.*"
                else:
                    text += "\n---\n\n" + _one_story(ls, other, "global" if other.project == "" else "project")
                told.add(other.reason.strip())
    return text


def _one_story(ls: ServerContext, approach: ApproachRow, scope: str | None) -> str:
    record = None
    if approach.memory_id is not None:
        try:
            record = ls.memory.get(approach.memory_id)
        except NotFound:
            record = None
    return approach_story(approach, scope, record)


def register(server: ServerContext) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: ServerContext, params: types.HoverParams) -> types.Hover | None:
        # What is flagged is what the client shows: hover explains the published diagnostics.
        for diagnostic in ls.published.get(params.text_document.uri, ()):
            data = diagnostic.data
            if diagnostic.code != CODE_ABANDONED or not isinstance(data, dict):
                continue
            if not _contains(diagnostic.range, params.position):
                continue
            try:
                text = story(ls, data["approachId"], data.get("scope"), name=data.get("name"),
                             document_project=data.get("documentProject"))
            except CenotaphError as exc:  # removed since it was published
                log.info("hover: %s", exc)
                return None
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                               range=diagnostic.range)
        return None

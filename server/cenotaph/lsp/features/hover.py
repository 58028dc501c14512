"""Hover on a flagged name: the whole story of the approach, from the graveyard record and the
memory that recorded it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from cenotaph.lsp.convert import CODE_ABANDONED, approach_story
from cenotaph.memory.errors import CenotaphError, NotFound

if TYPE_CHECKING:
    from cenotaph.lsp.server import CenotaphServer

log = logging.getLogger(__name__)


def _contains(span: types.Range, position: types.Position) -> bool:
    start, end = span.start, span.end
    return (start.line, start.character) <= (position.line, position.character) <= (end.line, end.character)


def story(ls: CenotaphServer, approach_id: int, scope: str | None) -> str:
    approach = ls.memory.graveyard.get(approach_id)
    record = None
    if approach.memory_id is not None:
        try:
            record = ls.memory.get(approach.memory_id)
        except NotFound:
            record = None
    return approach_story(approach, scope, record)


def register(server: CenotaphServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: CenotaphServer, params: types.HoverParams) -> types.Hover | None:
        # What is flagged is what the client shows: hover explains the published diagnostics.
        for diagnostic in ls.published.get(params.text_document.uri, ()):
            data = diagnostic.data
            if diagnostic.code != CODE_ABANDONED or not isinstance(data, dict):
                continue
            if not _contains(diagnostic.range, params.position):
                continue
            try:
                text = story(ls, data["approachId"], data.get("scope"))
            except CenotaphError as exc:  # removed since it was published
                log.info("hover: %s", exc)
                return None
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                               range=diagnostic.range)
        return None

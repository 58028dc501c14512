"""Knowledge the workspace keeps current by itself: a saved document that matches
`documents.include` is ingested again (debounced, in a worker thread), and due feeds are pulled on
a timer (`feeds.interval` hours; 0 = never). Neither runs on a request's path."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from cenotaph.lsp.convert import file_path
from cenotaph.lsp.features import ANNOUNCED

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)

SAVE_DEBOUNCE_SECONDS = 1.0
FIRST_FEED_PULL_SECONDS = 30.0


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    """A workspace glob (`docs/**/*.md`, `**/adr/**/*.md`) as a regular expression over a
    folder-relative POSIX path."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def included(relative: str, patterns: list[str]) -> bool:
    return any(_glob(p).match(relative) for p in patterns)


def _folder_of(ls: ServerContext, path: Path) -> tuple[Path, str] | None:
    for folder, project in ls.folders:
        if path.is_relative_to(folder):
            return folder, project
    return None


def on_save(ls: ServerContext, uri: str) -> None:
    path = file_path(uri)
    found = _folder_of(ls, path) if path is not None else None
    if found is None or not ls.settings.documents.include:
        return
    folder, project = found
    if not included(path.relative_to(folder).as_posix(), ls.settings.documents.include):
        return
    key = f"ingest:{uri}"
    if key in ls.pending:
        ls.pending.pop(key).cancel()
    loop = asyncio.get_running_loop()
    ls.pending[key] = loop.call_later(SAVE_DEBOUNCE_SECONDS, lambda: (ls.pending.pop(key, None),
                                                                       ls.spawn(_ingest(ls, path, folder, project))))


async def _ingest(ls: ServerContext, path: Path, folder: Path, project: str) -> None:
    try:
        await asyncio.to_thread(ls.memory.ingest, ls.actor, [str(path)], project=project, root=folder)
    except Exception:  # noqa: BLE001 - a document that cannot be ingested must not stop the server
        log.exception("ingesting %s", path)


async def pull_feeds(ls: ServerContext, first_after: float = FIRST_FEED_PULL_SECONDS) -> None:
    """Pull the workspace projects' feeds that are due, then again every `feeds.interval` hours."""
    await asyncio.sleep(first_after)
    while True:
        hours = ls.settings.feeds.interval
        if hours > 0:
            for project in dict.fromkeys(project for _, project in ls.folders):
                try:
                    await asyncio.to_thread(ls.memory.feed_pull, ls.actor, project=project,
                                            due_after=timedelta(hours=hours))
                except Exception:  # noqa: BLE001 - the next round tries again
                    log.exception("pulling the feeds of %s", project)
        # Settings may change meanwhile: look again at least every minute.
        await asyncio.sleep(min(max(hours, 0) * 3600 or 60, 60))


def register(server: ServerContext) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, ANNOUNCED[types.TEXT_DOCUMENT_DID_SAVE])
    def did_save(ls: ServerContext, params: types.DidSaveTextDocumentParams) -> None:
        on_save(ls, params.text_document.uri)

"""Live refresh: another process's write (the CLI, `cenotaph mcp`, another editor window) moves
the event log's head, and a `git pull` or a branch switch changes a repository's `.cenotaph/`
files; one `MAX(seq)` query and a stat of the shared folders' files every quarter second notice,
and only then are the open documents and ledgers brought up to date."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25


async def watch(ls: ServerContext, interval: float = POLL_SECONDS) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            await ls.refresh_if_changed()
        except Exception:  # noqa: BLE001 - a failed round must not end the watch
            log.exception("live refresh")

"""Live refresh: another process's write (the CLI, `cenotaph mcp`, another editor window) moves
the event log's head; one `MAX(seq)` query every quarter second notices, and only then are the
open documents and ledgers brought up to date."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cenotaph.lsp.server import CenotaphServer

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25


async def watch(ls: CenotaphServer, interval: float = POLL_SECONDS) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            if ls.memory.change_seq() != ls.seen_seq:
                ls.store_changed()
        except Exception:  # noqa: BLE001 - a failed round must not end the watch
            log.exception("live refresh")

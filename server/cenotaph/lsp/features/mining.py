"""Mining a workspace folder's past for graveyard candidates: in the background when the folder
opens (only with the setting `mine.onOpen`), on the `cenotaph.mine` command, and from the one
notification per workspace folder that tells of candidates waiting for review ("Review" opens the
ledger; "Mine now" offers what `mine.onOpen` would have done)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from cenotaph.lsp.features import ledger
from cenotaph.memory.errors import CenotaphError, InvalidInput, Unavailable

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)

REVIEW = "Review"
MINE_NOW = "Mine now"
LATER = "Later"


@dataclass(frozen=True, slots=True)
class MineSummary:
    message: str
    proposed: int


def folder_of(ls: ServerContext, project: str) -> Path | None:
    return next((folder for folder, p in ls.folders if p == project), None)


def mine_history(ls: ServerContext, folder: Path, project: str) -> MineSummary:
    """Every miner the server runs over a folder's past, in the calling thread (not the event
    loop's): the repository's manifest history (when the folder is in a git repository), then the
    agent transcripts."""
    from cenotaph import paths
    from cenotaph.project import repository_root

    parts, proposed = [], 0
    if repository_root(folder) is not None:
        try:
            history = ls.memory.mine_git(ls.actor, str(folder), project=project)
        except (InvalidInput, Unavailable) as exc:  # not a git repository, or no git: no history to read
            log.info("no git history mined in %s: %s", folder, exc)
        else:
            proposed += len(history.proposals.proposed)
            parts.append(f"read {history.history.commits_read} commits touching manifests")
    report = ls.memory.mine_transcripts(ls.actor, project, folder, claude_dir=paths.claude_home(),
                                        codex_dir=paths.codex_home())
    proposed += len(report.proposals.proposed)
    parts.append(f"read {report.files_read} transcript files ({report.sessions} sessions of this project)")
    return MineSummary(f"{'; '.join(parts)}: {proposed} new candidate{'' if proposed == 1 else 's'} from history",
                       proposed)


async def on_open(ls: ServerContext) -> None:
    """For each workspace folder: mine when the setting says so, then tell once about candidates."""
    for folder, project in list(ls.folders):
        try:
            if ls.settings.mine.on_open:
                summary = await asyncio.to_thread(mine_history, ls, folder, project)
                log.info("mined %s: %s", folder, summary.message)
                if summary.proposed:
                    ls.store_changed()
            await _tell(ls, folder, project)
        except CenotaphError as exc:
            log.warning("mining %s: %s", folder, exc)


async def _tell(ls: ServerContext, folder: Path, project: str) -> None:
    count = await asyncio.to_thread(ls.memory.pending_candidates, project)
    if not count or not await asyncio.to_thread(ls.memory.first_notice, project, str(folder)):
        return
    actions = [REVIEW, *([] if ls.settings.mine.on_open else [MINE_NOW]), LATER]
    message = (f"Cenotaph: {count} candidate{'' if count == 1 else 's'} from history (packages this project may "
               f"have abandoned) wait for your review in the ledger.")
    try:
        answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
            type=types.MessageType.Info, message=message, actions=[types.MessageActionItem(title=a) for a in actions]))
    except JsonRpcException as exc:
        log.info("the client could not show the candidates notice: %s", exc.message)
        return
    title = answer.get("title") if isinstance(answer, dict) else getattr(answer, "title", None)
    if title == MINE_NOW:
        summary = await asyncio.to_thread(mine_history, ls, folder, project)
        ls.store_changed()
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=f"Cenotaph: {summary.message}"))
    if title in (REVIEW, MINE_NOW):
        await ls.window_show_document_async(types.ShowDocumentParams(uri=ledger.ledger_uri(project), take_focus=True))

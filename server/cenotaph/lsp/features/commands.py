"""Commands (`workspace/executeCommand`, shared_schema/commands.schema.json): each takes one
object argument, asks the user for a missing reason with `window/showMessageRequest`, calls one
domain verb off the event loop, then brings every open document up to date."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from cenotaph.lsp.convert import Wire, approach_summary, file_path, one_line, plain, rpc_error
from cenotaph.lsp.features import compile as compile_feature
from cenotaph.lsp.features import mining
from cenotaph.lsp.features.command_args import (
    AbandonArgs, AcceptCandidateArgs, AcceptProposalArgs, AnchorArgs, BlessArgs, CommandResult, DecideCandidatesArgs,
    DismissContradictionArgs, LiftSilenceArgs, Lines, MarkWrongArgs, MemoryArgs, MineArgs, ReinstateArgs,
    RejectProposalArgs, RememberArgs, ReopenCandidatesArgs, ResolveContradictionArgs, SetEffortArgs,
    SetTrustArgs, ShareArgs, ShowLocationArgs, ShowWhyArgs, SilenceArgs, UnshareArgs, _ProjectOrUri,
)
from cenotaph.lsp.features.hover import story
from cenotaph.memory.knowledge.anchors.follow import Place
from cenotaph.memory.errors import AlreadyDecided, Ambiguous, CenotaphError
from cenotaph.memory.models import location_tag
from cenotaph.memory.team.folder import source_of
from cenotaph.store.connect import StoreUnavailable
from cenotaph.store.records import ProposalRow, SuppressionRow

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

CANCEL = "Cancel"
# A domain call still waiting for another process's write lock after this long is shown in the
# editor as in progress, instead of a silent wait; whether it waits is looked at this often.
PROGRESS_AFTER_SECONDS = 0.3
LOCK_POLL_SECONDS = 0.1
PROGRESS_CREATE_SECONDS = 2.0  # how long the client may take to accept a progress token

log = logging.getLogger(__name__)
LIFT = "Lift the silence"
STOP_SHARING = "Stop sharing it"


# --- the verbs -------------------------------------------------------------------------------------


async def _ask(ls: ServerContext, given: str | None, question: str, choices: list[str]) -> str | None:
    """The reason given as an argument, else one the user picks; None when the user cancels."""
    if given is not None:
        return given
    try:
        answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
            type=types.MessageType.Info, message=question,
            actions=[types.MessageActionItem(title=c) for c in [*choices, CANCEL]]))
    except JsonRpcException as exc:
        raise JsonRpcInvalidParams(message=f"reason: required (the client could not ask: {exc.message})") from None
    title = answer.get("title") if isinstance(answer, dict) else getattr(answer, "title", None)
    return None if title in (None, CANCEL) else title


def _project(ls: ServerContext, args: _ProjectOrUri) -> str:
    if args.project is not None:
        return args.project
    project = ls.project_for(args.uri or "")
    if project is None:
        raise JsonRpcInvalidParams(message=f"uri: {args.uri!r} is outside the workspace folders")
    return project


async def _domain(ls: ServerContext, call: Callable[[], Any]) -> Any:
    """A domain call off the event loop (a write may wait for the model or for another writer);
    one that waits for another process's write lock shows the editor a progress notification
    while it waits. Only that: a call slow on its own (loading the model, mining) is no wait for
    the store."""
    task = asyncio.ensure_future(asyncio.to_thread(call))
    store = ls.memory.ctx.store
    try:
        done, _ = await asyncio.wait({task}, timeout=PROGRESS_AFTER_SECONDS)
        while not done and not store.waiting_for_lock:
            done, _ = await asyncio.wait({task}, timeout=LOCK_POLL_SECONDS)
        if not done:
            async with _progress(ls, "Cenotaph: waiting for the store",
                                 f"{store.holder() or 'another process'} is writing to the store"):
                await asyncio.wait({task})
        return task.result()
    except (CenotaphError, StoreUnavailable) as exc:
        raise rpc_error(exc) from None


@asynccontextmanager
async def _progress(ls: ServerContext, title: str, message: str) -> AsyncIterator[None]:
    """window/workDoneProgress around the block, when the client shows it."""
    window = ls.client_capabilities.window
    if not (window and window.work_done_progress):
        yield
        return
    token = f"cenotaph-{uuid.uuid4()}"
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), PROGRESS_CREATE_SECONDS)
    except Exception as exc:  # noqa: BLE001 - no progress shown, the call goes on
        log.info("the client did not create a progress token: %s", exc)
        yield
        return
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
        title=title, message=message, cancellable=False))
    try:
        yield
    finally:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd())


def _cancelled() -> dict[str, Any]:
    return CommandResult(done=False, message="cancelled").dump()


def _done(message: str, record_id: int | None = None, markdown: str | None = None) -> dict[str, Any]:
    return CommandResult(done=True, message=message, id=record_id, markdown=markdown).dump()


def _proposed(result: Any, fallback: str) -> str:
    if isinstance(result, ProposalRow):
        return f"proposal #{result.id} is waiting for a person to accept it"
    return fallback


async def silence(ls: ServerContext, args: SilenceArgs) -> dict[str, Any]:
    where = "in this project" if args.scope == "project" else "everywhere"
    project = _project(ls, args) if args.scope == "project" else ""
    reason = await _ask(ls, args.reason, f"Why silence '{args.name}' {where}?",
                        ["It is intended here", "Not relevant"])
    if reason is None:
        return _cancelled()
    row = await _domain(ls, lambda: ls.memory.suppress(ls.actor, args.name, kind="diagnostic", project=project,
                                                   reason=reason))
    return _done(f"'{args.name}' is no longer flagged {where}", row.id)


async def lift_silence(ls: ServerContext, args: LiftSilenceArgs) -> dict[str, Any]:
    where = "everywhere" if args.project == "" else "in this project"
    reason = await _ask(ls, args.reason, f"Why lift the silence of '{args.name}' {where}?",
                        ["It should be flagged again"])
    if reason is None:
        return _cancelled()
    row = await _domain(ls, lambda: ls.memory.unsuppress(ls.actor, args.name, kind=args.kind, project=args.project,
                                                     reason=reason))
    what = "flagged in editors" if args.kind == "diagnostic" else "recalled"
    return _done(_proposed(row, f"'{args.name}' is {what} again {where}"), row.id)


async def reinstate(ls: ServerContext, args: ReinstateArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why reinstate '{args.name}'?",
                        ["It works now", "The reason no longer applies"])
    if reason is None:
        return _cancelled()
    approach = await _domain(ls, lambda: ls.memory.reinstate_approach(ls.actor, args.name, reason=reason,
                                                                  project=args.project))
    verdict = (await _domain(ls, lambda: ls.memory.check_approaches([approach.name], project=args.project)))[0]
    shared = [a for a in (verdict.approach, *verdict.also) if a is not None and source_of(a) == "repo"]
    if verdict.status != "abandoned" or not shared:
        return _done(f"'{approach.display_name}' is out of the graveyard: {reason}", approach.id)
    # The team's copy still abandons it: out of the person's graveyard, still flagged for everyone.
    path = getattr(shared[0], "path", "")
    question = f"'{approach.display_name}' is still shared with the team ({path}), which keeps it flagged. Stop sharing it too?"
    if await _ask(ls, None, question, [STOP_SHARING]) != STOP_SHARING:
        return _done(f"'{approach.display_name}' is out of your graveyard, but still shared with the team ({path})",
                     approach.id)
    await _domain(ls, lambda: ls.memory.unshare(ls.actor, path, project=args.project))
    return _done(f"'{approach.display_name}' is out of the graveyard and no longer shared: removed {path}, "
                 "commit it to stop sharing it", approach.id)


async def show_why(ls: ServerContext, args: ShowWhyArgs) -> dict[str, Any]:
    approach = await _domain(ls, lambda: ls.memory.graveyard.get(args.approach_id))
    markdown = await _domain(ls, lambda: story(ls, approach.id, None))
    summary = approach_summary(approach, None)
    if approach.memory_id is not None:
        summary += f" (memory #{approach.memory_id})"
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=summary))
    return _done(summary, approach.id, markdown)


async def mark_wrong(ls: ServerContext, args: MarkWrongArgs) -> dict[str, Any]:
    approach = await _domain(ls, lambda: ls.memory.graveyard.get(args.approach_id))
    reason = await _ask(ls, args.reason, f"What is wrong with the record of '{approach.display_name}'?",
                        ["It was never abandoned", "The reason is wrong"])
    if reason is None:
        return _cancelled()

    def verdict() -> None:
        # The record's memory is refuted and the name no longer flagged.
        if approach.memory_id is not None:
            ls.memory.set_trust(ls.actor, approach.memory_id, "refuted", reason=reason)
        ls.memory.reinstate_approach(ls.actor, approach.name, reason=f"the record was wrong: {reason}",
                                     project=approach.project)

    await _domain(ls, verdict)
    return _done(f"the record of '{approach.display_name}' is marked wrong", approach.id)


def _location(ls: ServerContext, uri: str, lines: Lines) -> str:
    """Where a selection lies: its file relative to the workspace folder holding it (else absolute)."""
    path = file_path(uri)
    if path is None:
        raise JsonRpcInvalidParams(message=f"uri: {uri!r} is not a file, so `lines` locate nothing")
    folder = next((f for f, _ in ls.folders if path.is_relative_to(f)), None)
    where = path.relative_to(folder).as_posix() if folder is not None else path.as_posix()
    return location_tag(where, lines.start, lines.end)


async def remember(ls: ServerContext, args: RememberArgs) -> dict[str, Any]:
    """A selection in a file of the project's repository is remembered anchored to its lines (the
    anchor follows them); elsewhere, or in a file never saved (nothing on disk to follow), it keeps
    them as a label."""
    project = _project(ls, args)
    path = None if args.lines is None else file_path(args.uri or "")
    root = None if path is None else ls.memory.working_tree(project)
    at, tags = None, []
    if args.lines is not None and path is not None and root is not None and path.is_relative_to(root) \
            and path.is_file():
        document = ls.workspace.text_documents.get(args.uri or "")
        at = Place(str(path), args.lines.start, args.lines.end,
                   None if document is None else tuple(document.source.splitlines()))
    elif args.lines is not None:
        tags = [_location(ls, args.uri or "", args.lines)]
    result = await _domain(ls, lambda: ls.memory.remember(ls.actor, args.text, project=project, kind=args.kind,
                                                      tags=tags, at=at))
    if not result.stored:
        return CommandResult(done=False, id=result.duplicate_of,
                             message=f"not stored: memory #{result.duplicate_of} already says this").dump()
    if at is not None:
        ls.anchored.pop(args.uri or "", None)  # read again with this anchor (features/anchors.py)
    warnings = "".join(f"; contradicts #{w.other_id}" for w in result.contradictions)
    where = f"{path.relative_to(root).as_posix()}:{args.lines.start}-{args.lines.end}, anchored" if at else \
        tags[0].removeprefix("at:") if tags else ""
    return _done(f"remembered #{result.id}{f' ({where})' if where else ''}{warnings}", result.id)


def _open_place(ls: ServerContext, memory_id: int) -> tuple[Place, str] | None:
    """Where an open document's edits (saved or not) have moved a memory's anchor, with the
    document's lines, and its state there."""
    for uri, document in ls.anchored.items():
        text, path = ls.workspace.text_documents.get(uri), file_path(uri)
        if memory_id in document.places and text is not None and path is not None:
            start, end = document.places[memory_id]
            return Place(str(path), start, end, tuple(text.source.splitlines())), document.states.get(memory_id, "current")
    return None


async def reconfirm_anchor(ls: ServerContext, args: AnchorArgs) -> dict[str, Any]:
    """Re-anchored to the code as the person sees it: in an open document, its lines as edited
    (saved or not) where the edits moved them; else as the file is."""
    opened = _open_place(ls, args.memory_id)
    item = await _domain(ls, lambda: ls.memory.reconfirm_anchor(ls.actor, args.memory_id, opened and opened[0]))
    ls.anchored.clear()  # every open document's anchors are read again
    a = item.anchor
    return _done(f"memory #{item.memory_id} re-anchored to {a.path}:{a.start_line}-{a.end_line}", item.memory_id)


async def show_anchor(ls: ServerContext, args: AnchorArgs) -> dict[str, Any]:
    """A memory, and its anchored lines as they were taken and as they are now (Markdown)."""
    item = await _domain(ls, lambda: ls.memory.anchors.one(args.memory_id))
    a, fence, now = item.anchor, "~~~~", item.now
    place, state, caution = (a.path, a.start_line, a.end_line), a.state, a.caution
    if (opened := _open_place(ls, args.memory_id)) is not None:  # as the editor has it, saved or not
        at, state = opened
        now, place, caution = "\n".join((at.lines or ())[at.start_line - 1:at.end_line]), (a.path, at.start_line, at.end_line), ""
    lines = [f"**memory #{item.memory_id}** · {state}" + (f": {caution}" if caution else ""), "",
             item.content, "", "Anchored to `{}:{}-{}`".format(*place)
             + (f", taken at commit `{item.revision[:12]}`" if item.revision else "") + f" ({item.taken_at[:10]}).", "",
             "Then:", "", fence, item.then, fence, "", "Now:", "", fence, now or "(gone)", fence]
    return CommandResult(done=True, message=f"memory #{item.memory_id}: {state}", id=item.memory_id,
                         markdown="\n".join(lines)).dump()


async def retire_anchored(ls: ServerContext, args: MemoryArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why does memory #{args.memory_id} no longer hold?", ["Its code changed"])
    if reason is None:
        return _cancelled()
    await _domain(ls, lambda: ls.memory.retire_anchored(ls.actor, args.memory_id, reason=reason))
    ls.anchored.clear()
    return _done(f"memory #{args.memory_id} retired (archived): {reason}", args.memory_id)


async def bless(ls: ServerContext, args: BlessArgs) -> dict[str, Any]:
    """A person vouches for a memory: its lessons compile without waiting to recur (the reason is
    optional, as for `cenotaph bless`)."""
    row = await _domain(ls, lambda: ls.memory.bless(ls.actor, args.memory_id, reason=args.reason))
    return _done(f"memory #{row.memory_id} is blessed: its lessons compile without waiting to recur", row.memory_id)


EFFORT_CHOICES = ("1 · a quick try", "2 · an afternoon", "3 · days", "4 · a week or more", "5 · a major investment")


async def set_effort(ls: ServerContext, args: SetEffortArgs) -> dict[str, Any]:
    effort = args.effort
    if effort is None:
        answer = await _ask(ls, None, f"What did '{args.name}' cost before it was abandoned?", list(EFFORT_CHOICES))
        if answer is None:
            return _cancelled()
        effort = EFFORT_CHOICES.index(answer) + 1
    approach, suppressed = await _domain(ls, lambda: ls.memory.set_effort(ls.actor, args.name, effort=effort,
                                                                          project=args.project, reason=args.reason))
    left = "; memories naming it now stay out of recall" if suppressed else ""
    return _done(f"'{approach.display_name}' cost {effort}/5{left}", approach.id)


def _workspace(ls: ServerContext, args: _ProjectOrUri, project: str) -> Path | None:
    """The workspace folder whose manifests tell an abandoned name's ecosystem: the document's,
    else the project's (the only folder, for a name abandoned everywhere)."""
    path = file_path(args.uri) if args.uri else None
    for folder, folder_project in ls.folders:  # deepest first
        if (path is not None and path.is_relative_to(folder)) or (path is None and project and folder_project == project):
            return folder
    return ls.folders[0][0] if len(ls.folders) == 1 else None


async def abandon(ls: ServerContext, args: AbandonArgs) -> dict[str, Any]:
    project = _project(ls, args) if args.scope == "project" else ""
    reason = await _ask(ls, args.reason, f"Why was '{args.name}' abandoned?",
                        ["It did not work", "Too slow", "Unmaintained"])
    if reason is None:
        return _cancelled()
    workspace = _workspace(ls, args, project)

    def record(ecosystem: str | None) -> Any:
        try:
            return ls.memory.abandon(ls.actor, args.name, reason=reason, project=project, effort=args.effort,
                                     ecosystem=ecosystem, workspace=workspace)
        except Ambiguous as exc:  # the person picks one of the ecosystems that fit
            return exc

    result = await _domain(ls, lambda: record(args.ecosystem))
    if isinstance(result, Ambiguous):
        try:
            ecosystem = await _ask(ls, None, f"Which ecosystem is '{args.name}' in? {result.message}",
                                   list(result.choices))
        except JsonRpcInvalidParams:  # the client cannot ask: the refusal, with its choices
            raise rpc_error(result) from None
        if ecosystem is None:
            return _cancelled()
        result = await _domain(ls, lambda: record(ecosystem))
    summary = approach_summary(result.approach, "project" if project else "global") + \
        f" ({result.approach.ecosystem}: {result.decided_by})"
    if result.silenced:
        summary += await _offer_lift(ls, result.approach.display_name, result.silenced)
    return _done(summary, result.approach.id)


async def _offer_lift(ls: ServerContext, name: str, silenced: list[SuppressionRow]) -> str:
    """A name abandoned while a silence still holds would be flagged nowhere: say so, and lift the
    silence if the person says so."""
    scopes = ", ".join("everywhere" if s.project == "" else f"in {s.project}" for s in silenced)
    question = f"'{name}' is still silenced {scopes} ({silenced[0].reason}): editors will not flag it. Lift the silence?"
    if await _ask(ls, None, question, [LIFT]) != LIFT:
        return f"; still silenced {scopes}, so editors will not flag it"
    for silence in silenced:
        await _domain(ls, lambda s=silence: ls.memory.unsuppress(ls.actor, s.value, kind="diagnostic", project=s.project,
                                                             reason=f"abandoned again: {name}"))
    return "; its silence is lifted"


async def share(ls: ServerContext, args: ShareArgs) -> dict[str, Any]:
    project = _project(ls, args)
    target = args.name if args.name is not None else args.memory_id
    result = await _domain(ls, lambda: ls.memory.share(ls.actor, target, project=project))
    if not result.changed:
        return _done(f"{result.path} already says this")
    return _done(f"shared in {result.path}: commit it to share it with the team")


async def unshare(ls: ServerContext, args: UnshareArgs) -> dict[str, Any]:
    project = _project(ls, args)
    target = next(v for v in (args.name, args.memory_id, args.path) if v is not None)
    result = await _domain(ls, lambda: ls.memory.unshare(ls.actor, target, project=project))
    return _done(f"removed {result.path}: commit it to stop sharing it" if result.changed
                 else f"{result.path} was already gone")


async def resolve_contradiction(ls: ServerContext, args: ResolveContradictionArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why resolve contradiction #{args.contradiction_id} this way?",
                        ["Checked by hand"])
    if reason is None:
        return _cancelled()
    result = await _domain(ls, lambda: ls.memory.resolve_contradiction(ls.actor, args.contradiction_id, keep=args.keep,
                                                                   reason=reason))
    return _done(_proposed(result, f"contradiction #{args.contradiction_id} resolved ({args.keep})"),
                 args.contradiction_id)


async def dismiss_contradiction(ls: ServerContext, args: DismissContradictionArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why is #{args.contradiction_id} not a contradiction?",
                        ["They do not disagree"])
    if reason is None:
        return _cancelled()
    await _domain(ls, lambda: ls.memory.dismiss_contradiction(ls.actor, args.contradiction_id, reason=reason))
    return _done(f"contradiction #{args.contradiction_id} dismissed", args.contradiction_id)


_TRUST_CHOICES = {"confirmed": "Checked: it is true", "refuted": "Checked: it is wrong",
                  "disputed": "Not sure any more", "unverified": "Needs checking"}


async def set_trust(ls: ServerContext, args: SetTrustArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why is memory #{args.memory_id} {args.trust}?", [_TRUST_CHOICES[args.trust]])
    if reason is None:
        return _cancelled()
    result = await _domain(ls, lambda: ls.memory.set_trust(ls.actor, args.memory_id, args.trust, reason=reason))
    return _done(_proposed(result, f"memory #{args.memory_id} is {args.trust}"), args.memory_id)


async def archive(ls: ServerContext, args: MemoryArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why archive memory #{args.memory_id}?", ["No longer relevant"])
    if reason is None:
        return _cancelled()
    await _domain(ls, lambda: ls.memory.archive(ls.actor, args.memory_id, reason=reason))
    return _done(f"memory #{args.memory_id} archived", args.memory_id)


async def reinstate_memory(ls: ServerContext, args: MemoryArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why bring memory #{args.memory_id} back?", ["Relevant again"])
    if reason is None:
        return _cancelled()
    await _domain(ls, lambda: ls.memory.reinstate(ls.actor, args.memory_id, reason=reason))
    return _done(f"memory #{args.memory_id} is active again", args.memory_id)


async def _decide(ls: ServerContext, call: Callable[[], Any]) -> tuple[Any, dict[str, Any] | None]:
    """A decision on a proposal; one already decided (a stale notification clicked, a second
    editor) answers plainly instead of as an error."""
    def attempt() -> tuple[Any, dict[str, Any] | None]:
        try:
            return call(), None
        except AlreadyDecided as exc:
            return None, CommandResult(done=False, message=exc.message).dump()

    return await _domain(ls, attempt)


def _written(result: Any) -> str:
    """Which files a compile proposal's accept wrote (or deleted)."""
    files = getattr(result, "files", None)
    if not files:
        return ""
    return ": " + ", ".join(f"{f.path} {'deleted' if f.sha256 == 'absent' else 'written'}" for f in files)


async def accept_proposal(ls: ServerContext, args: AcceptProposalArgs) -> dict[str, Any]:
    proposal = await _domain(ls, lambda: ls.memory.proposal(args.proposal_id))
    unsaved = compile_feature.unsaved_file(ls, proposal) if proposal.status == "pending" else None
    if unsaved is not None:
        return CommandResult(done=False, message=f"{unsaved} has unsaved changes in the editor: save or revert them, "
                                                 f"then accept proposal #{args.proposal_id} again (nothing was written)").dump()
    result, stale = await _decide(ls, lambda: ls.memory.accept_proposal(ls.actor, args.proposal_id, reason=args.reason))
    if stale is not None:
        return stale
    return _done(f"proposal #{args.proposal_id} accepted{_written(result)}", args.proposal_id)


async def accept_candidate(ls: ServerContext, args: AcceptCandidateArgs) -> dict[str, Any]:
    """A mined candidate accepted with the person's own reason (a client asks for it, the drafted
    one filled in; a client that cannot ask free text gets the drafted one offered)."""
    reason = await _ask(ls, args.reason, f"Why was candidate #{args.proposal_id} abandoned?",
                        [one_line(args.draft, 200)] if args.draft else [])
    if reason is None:
        return _cancelled()
    result, stale = await _decide(ls, lambda: ls.memory.accept_proposal(ls.actor, args.proposal_id, reason=reason,
                                                                    effort=args.effort))
    if stale is not None:
        return stale
    return _done(f"proposal #{args.proposal_id} accepted: "
                 f"{approach_summary(result.approach, 'project' if result.approach.project else 'global')}",
                 args.proposal_id)


async def mine(ls: ServerContext, args: MineArgs) -> dict[str, Any]:
    project = _project(ls, args)
    folder = mining.folder_of(ls, project)
    if folder is None:
        raise JsonRpcInvalidParams(message=f"project: {project!r} is not a workspace folder's project")
    summary = await _domain(ls, lambda: mining.mine_history(ls, folder, project))
    return _done(summary.message)


async def reject_proposal(ls: ServerContext, args: RejectProposalArgs) -> dict[str, Any]:
    reason = await _ask(ls, args.reason, f"Why reject proposal #{args.proposal_id}?", ["Not wanted"])
    if reason is None:
        return _cancelled()
    _, stale = await _decide(ls, lambda: ls.memory.reject_proposal(ls.actor, args.proposal_id, reason=reason))
    return stale or _done(f"proposal #{args.proposal_id} rejected", args.proposal_id)


def _candidate_list(rows: list[ProposalRow]) -> str:
    """`- #4 nose (pypi) · confidence 0.30 — reason`, one line each: what a bulk decision touches."""
    from cenotaph.memory.mining.candidates import ACTION as CANDIDATE

    return "\n".join(f"- #{p.id} {p.arguments.get('name', p.target)}"
                     + (f" ({p.arguments['ecosystem']}) · confidence {p.arguments['confidence']:.2f}"
                        if p.action == CANDIDATE else f" · {p.action}")
                     + f" — {one_line(p.reason, 200)}" for p in rows)


async def decide_candidates(ls: ServerContext, args: DecideCandidatesArgs) -> dict[str, Any]:
    """Accept or reject candidates in bulk; `preview` answers with what it would touch (`ids`, and
    the list as markdown) and decides nothing, for the editor to show and confirm."""
    from cenotaph.memory.mining.candidates import counted

    decision = "accepted" if args.decision == "accept" else "rejected"
    selection = args.selection()
    project = _project(ls, args) if selection.filtered else None
    if args.preview:
        batch = await _domain(ls, lambda: ls.memory.decide_proposals(ls.actor, decision, selection, project=project,
                                                                     preview=True))
        return CommandResult(done=True, message=f"{args.decision} {counted(batch.proposals)}?",
                             markdown=_candidate_list(batch.proposals), ids=[p.id for p in batch.proposals]).dump()
    reason = args.reason
    if decision == "rejected":
        reason = await _ask(ls, args.reason, "Why reject them?", ["Not wanted"])
        if reason is None:
            return _cancelled()
    batch = await _domain(ls, lambda: ls.memory.decide_proposals(ls.actor, decision, selection, project=project,
                                                                 reason=reason))
    undo = f"; undo with Reopen batch #{batch.batch}" if decision == "rejected" and batch.count else ""
    return CommandResult(done=True, message=f"{decision} {counted(batch.proposals)} (batch #{batch.batch}){undo}",
                         id=batch.batch, markdown=_candidate_list(batch.proposals),
                         ids=[p.id for p in batch.proposals]).dump()


async def reopen_candidates(ls: ServerContext, args: ReopenCandidatesArgs) -> dict[str, Any]:
    from cenotaph.memory.mining.candidates import counted

    rows = await _domain(ls, lambda: ls.memory.reopen_proposals(ls.actor, batch=args.batch,
                                                                proposal_ids=args.proposal_ids))
    return CommandResult(done=True, message=f"reopened {counted(rows)}: pending again", id=args.batch,
                         markdown=_candidate_list(rows), ids=[p.id for p in rows]).dump()


async def show_location(ls: ServerContext, args: ShowLocationArgs) -> dict[str, Any]:
    """Open a document memory's file at its lines, or a remembered selection's (`window/showDocument`),
    in the workspace folder of the memory's project."""
    row = await _domain(ls, lambda: ls.memory.get(args.memory_id))
    location = await _domain(ls, lambda: ls.memory.location(args.memory_id))
    if location is None:
        raise JsonRpcInvalidParams(message=f"memoryId: memory #{args.memory_id} is from no document or selection")
    path = Path(location.path)
    if not path.is_absolute():
        folders = [f for f, project in ls.folders if project == row.project and (f / path).exists()]
        if not folders:
            raise JsonRpcInvalidParams(message=f"memoryId: {location.path} is in no workspace folder of {row.project}")
        path = folders[0] / path
    selection = types.Range(start=types.Position(line=location.start_line - 1, character=0),
                            end=types.Position(line=location.end_line, character=0))
    shown = await ls.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True,
                                                                         selection=selection))
    if not shown.success:
        return CommandResult(done=False, message=f"the editor did not open {location.path}").dump()
    return _done(f"{location.path}:{location.start_line}", args.memory_id)


Handler = Callable[["ServerContext", Any], Awaitable[dict[str, Any]]]
COMMANDS: dict[str, tuple[type[Wire], Handler]] = {
    "cenotaph.silence": (SilenceArgs, silence),
    "cenotaph.reinstate": (ReinstateArgs, reinstate),
    "cenotaph.liftSilence": (LiftSilenceArgs, lift_silence),
    "cenotaph.showWhy": (ShowWhyArgs, show_why),
    "cenotaph.markWrong": (MarkWrongArgs, mark_wrong),
    "cenotaph.remember": (RememberArgs, remember),
    "cenotaph.abandon": (AbandonArgs, abandon),
    "cenotaph.resolveContradiction": (ResolveContradictionArgs, resolve_contradiction),
    "cenotaph.dismissContradiction": (DismissContradictionArgs, dismiss_contradiction),
    "cenotaph.setTrust": (SetTrustArgs, set_trust),
    "cenotaph.archive": (MemoryArgs, archive),
    "cenotaph.reinstateMemory": (MemoryArgs, reinstate_memory),
    "cenotaph.acceptProposal": (AcceptProposalArgs, accept_proposal),
    "cenotaph.rejectProposal": (RejectProposalArgs, reject_proposal),
    "cenotaph.acceptCandidate": (AcceptCandidateArgs, accept_candidate),
    "cenotaph.mine": (MineArgs, mine),
    "cenotaph.decideCandidates": (DecideCandidatesArgs, decide_candidates),
    "cenotaph.reopenCandidates": (ReopenCandidatesArgs, reopen_candidates),
    "cenotaph.showLocation": (ShowLocationArgs, show_location),
    "cenotaph.share": (ShareArgs, share),
    "cenotaph.unshare": (UnshareArgs, unshare),
    "cenotaph.bless": (BlessArgs, bless),
    "cenotaph.setEffort": (SetEffortArgs, set_effort),
    "cenotaph.reconfirmAnchor": (AnchorArgs, reconfirm_anchor),
    "cenotaph.retireAnchored": (MemoryArgs, retire_anchored),
    "cenotaph.showAnchor": (AnchorArgs, show_anchor),
}


READ_ONLY = frozenset({"cenotaph.showWhy", "cenotaph.showLocation", "cenotaph.showAnchor"})


def parse(name: str, model: type[Wire], arguments: tuple[Any, ...]) -> Wire:
    values = plain(list(arguments))
    if len(values) != 1 or not isinstance(values[0], dict):
        raise JsonRpcInvalidParams(message=f"{name}: expected one object argument, got {len(values)} arguments")
    try:
        return model.from_wire(values[0])
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'argument'}: {e['msg']}" for e in exc.errors())
        raise JsonRpcInvalidParams(message=f"{name}: {problems}") from None


def register(server: ServerContext) -> None:
    for name, (model, handler) in COMMANDS.items():
        def bind(name: str = name, model: type[Wire] = model, handler: Handler = handler):
            # pygls reads this signature at run time (`ls` first, the arguments raw): no annotations.
            async def command(ls, *arguments):  # type: ignore[no-untyped-def]
                result = await handler(ls, parse(name, model, arguments))
                if result["done"] and name not in READ_ONLY:
                    ls.store_changed()
                return result
            return command

        server.command(name)(bind())

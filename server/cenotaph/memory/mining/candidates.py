"""Graveyard candidates mined from the past (a repository's manifests, agent transcripts). A
candidate is never a graveyard entry by itself: it becomes an `abandon` proposal that a person
accepts (the approach is abandoned with the drafted or edited reason) or rejects (a dismissal keyed
on the normalized name, so that no later run proposes it again)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatch
from typing import Any

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import AlreadyDecided, Conflict, InvalidInput, NotFound
from cenotaph.memory.graveyard.approaches import Graveyard
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems
from cenotaph.store import events, mining, proposals
from cenotaph.store import proposals as store_proposals
from cenotaph.store.records import ProposalRow

ACTION = "abandon"


@dataclass(frozen=True, slots=True)
class Evidence:
    """One fact behind a candidate: a commit that added or removed it, a rejected tool call, a
    person's words."""

    origin: str  # "git", "claude", "codex"
    role: str  # "added", "removed", "rejected", "undone", "said"
    ref: str  # a commit sha, or a transcript's session id and record id
    summary: str  # the commit's subject, or what the person said
    at: str  # ISO 8601
    author: str | None = None
    path: str | None = None  # the manifest or transcript file


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str  # as declared or written
    ecosystem: str
    reason: str  # drafted from the evidence
    confidence: float  # 0..1, from the signals
    evidence: tuple[Evidence, ...]
    classes: tuple[str, ...] = ()  # what a person weighs differently: "dev", "types", "backport", ...
    replacement: str | None = None
    lived_days: int | None = None  # from its addition to its removal, when both are known
    revert: bool = False  # its removal reverted its addition
    commit: str | None = None  # the short sha of the commit that dropped it: the reason's citation
    grounds: tuple[str, ...] = ()  # the evidence the confidence is computed from, each with its weight
    features: tuple[str, ...] = ()  # the kinds of those grounds (evidence.WEIGHTS keys), as the bench fits them

    @property
    def key(self) -> str:
        return ecosystems.normalize(self.name, self.ecosystem)

    @property
    def target(self) -> str:
        return target(self.ecosystem, self.key)


def target(ecosystem: str, key: str) -> str:
    return f"approach:{ecosystem}/{key}"


@dataclass(slots=True)
class ProposeReport:
    proposed: list[ProposalRow] = field(default_factory=list)
    already_pending: list[str] = field(default_factory=list)
    in_graveyard: list[str] = field(default_factory=list)
    suppressed: list[str] = field(default_factory=list)
    dismissed: list[str] = field(default_factory=list)


def propose(ctx: Context, graveyard: Graveyard, actor: Actor, project: str,
            candidates: Iterable[Candidate]) -> ProposeReport:
    """One `abandon` proposal per new candidate, all in one transaction. Left out: names already in
    the graveyard (abandoned or reinstated: a person has judged them), suppressed names, names a
    person dismissed, and names with a proposal still pending."""
    project = validate.project(project)
    report = ProposeReport()
    with ctx.store.write() as tx:
        dismissed = mining.dismissed(tx, project)
        pending = proposals.pending_targets(tx, ACTION, project)
        for candidate in candidates:
            validate.choice(candidate.ecosystem, "ecosystem", ecosystems.NAMES)
            key = candidate.key
            verdict = graveyard.check([key], project, include_other_projects=False, ecosystem=candidate.ecosystem)[0]
            if verdict.approach is not None:
                report.in_graveyard.append(key)
            elif _suppressed(graveyard, key, candidate.ecosystem, project):
                report.suppressed.append(key)
            elif (candidate.ecosystem, key) in dismissed:
                report.dismissed.append(key)
            elif candidate.target in pending:
                report.already_pending.append(key)
            else:
                arguments = {
                    "name": candidate.name, "key": key, "ecosystem": candidate.ecosystem, "reason": candidate.reason,
                    "confidence": round(candidate.confidence, 3), "classes": list(candidate.classes),
                    "replacement": candidate.replacement, "evidence": [asdict(e) for e in candidate.evidence],
                    "lived_days": candidate.lived_days, "revert": candidate.revert, "commit": candidate.commit,
                    "grounds": list(candidate.grounds),
                }
                proposal_id = proposals.add(tx, project=project, action=ACTION, target=candidate.target,
                                            arguments=arguments, reason=candidate.reason, actor=actor.name,
                                            at=ctx.now())
                ctx.event(tx, actor=actor.name, action="propose", target=f"proposal:{proposal_id}", project=project,
                          after={"action": ACTION, "target": candidate.target}, reason=candidate.reason)
                pending.add(candidate.target)
                found = proposals.get(tx, proposal_id)
                assert found is not None
                report.proposed.append(found)
    return report


def _suppressed(graveyard: Graveyard, key: str, ecosystem: str, project: str) -> bool:
    index = graveyard.index()
    return any(s.project in ("", project)
               for k in ecosystems.lookup_keys(key, ecosystem)
               for s in (*index.diagnostic_suppressions.get(k, ()), *index.recall_suppressions.get(k, ())))


def dismiss(ctx: Context, actor: Actor, proposal: ProposalRow, reason: str) -> None:
    """A rejected candidate stays rejected: re-mining never proposes it again in this project."""
    args = proposal.arguments
    with ctx.store.write() as tx:
        mining.dismiss(tx, project=proposal.project, ecosystem=args["ecosystem"], name=args["key"], reason=reason,
                       actor=actor.name, at=ctx.now())


def classes_of(proposal: ProposalRow) -> set[str]:
    """A mined candidate's classes; `plain` when it has none."""
    return set(proposal.arguments.get("classes") or ["plain"])


def evidence(proposal: ProposalRow) -> list[dict]:
    """A candidate's evidence, the removal that makes it a candidate first (its drafted reason
    quotes it), then the rest newest first: the commit that added it is context, not the story."""
    found = [e for e in proposal.arguments.get("evidence") or [] if isinstance(e, dict)]
    found.sort(key=lambda e: str(e.get("at", "")), reverse=True)
    found.sort(key=lambda e: e.get("role") == "added")
    return found


_SHA = re.compile(r"[0-9a-f]{4,40}")


@dataclass(frozen=True, slots=True)
class Selection:
    """What a bulk decision touches: the proposals named by `ids`, and the pending mined candidates
    that match every filter given (a class, a glob over their evidence's files, the commit that
    removed them, a confidence below a value). No filter selects no candidate."""

    ids: tuple[int, ...] = ()
    classes: tuple[str, ...] = ()
    path: str | None = None
    commit: str | None = None
    below: float | None = None

    @property
    def filtered(self) -> bool:
        return bool(self.classes) or self.path is not None or self.commit is not None or self.below is not None

    def checked(self) -> Selection:
        path = None if self.path is None else validate.text(self.path, "path", max_length=1000)
        commit = None if self.commit is None else self.commit.strip().lower()
        if commit is not None and not _SHA.fullmatch(commit):
            raise InvalidInput(f"commit: {self.commit!r} is not a commit sha (4 to 40 hex digits)", field="commit")
        if self.below is not None and not (isinstance(self.below, (int, float)) and 0.0 <= self.below <= 1.0):
            raise InvalidInput(f"below: {self.below!r} is not a confidence between 0 and 1", field="below")
        return Selection(ids=tuple(self.ids), classes=tuple(self.classes), path=path, commit=commit, below=self.below)

    def matches(self, row: ProposalRow) -> bool:
        if not self.filtered or row.action != ACTION or row.status != "pending":
            return False
        args = row.arguments
        removed = [str(e.get("ref", "")) for e in evidence(row) if e.get("role") != "added"]
        return ((not self.classes or bool(classes_of(row) & set(self.classes)))
                and (self.path is None or any(fnmatch(e.get("path") or "", self.path) for e in evidence(row)))
                and (self.commit is None
                     or any(ref.startswith(self.commit) for ref in [str(args.get("commit") or ""), *removed] if ref))
                and (self.below is None or float(args.get("confidence", 1.0)) < self.below))


def select(rows: Iterable[ProposalRow], selection: Selection) -> list[ProposalRow]:
    """The pending candidates among `rows` that `selection`'s filters pick: what a person turns
    down (or accepts) at once."""
    return [row for row in rows if selection.matches(row)]


def counted(rows: Iterable[ProposalRow]) -> str:
    """`3 candidates`, `1 proposal`, `2 candidates and 1 proposal`: mined candidates and an agent's
    proposals by their own names, as the ledger and the editors count them."""
    rows = list(rows)
    mined = sum(row.action == ACTION for row in rows)
    parts = [f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((mined, "candidate"), (len(rows) - mined, "proposal"))
             if n]
    return " and ".join(parts) or "0 candidates"


BATCH = "proposals:batch"  # the event that records a decision on several proposals at once


@dataclass(slots=True)
class Batch:
    """A decision on every proposal a selection picked; `batch` is the event that records it (what
    `reopen` undoes), None in a preview, which decides nothing."""

    decision: str  # "accepted" or "rejected"
    proposals: list[ProposalRow]
    preview: bool
    batch: int | None = None
    results: list[Any] = field(default_factory=list)  # what each accept did, in order

    @property
    def count(self) -> int:
        return len(self.proposals)


def record_batch(ctx: Context, tx: Any, actor: Actor, batch: Batch, reason: str | None) -> None:
    projects = {row.project for row in batch.proposals}
    batch.batch = ctx.event(tx, actor=actor.name, action=BATCH, target=f"proposals:{batch.decision}",
                            project=projects.pop() if len(projects) == 1 else "",
                            after={"decision": batch.decision, "ids": [row.id for row in batch.proposals]},
                            reason=reason)


def batch_ids(ctx: Context, batch: int) -> tuple[str, list[int]]:
    """The decision and the proposal ids of the bulk decision recorded as event `batch`."""
    batch = validate.integer(batch, "batch", low=1, high=2**62)
    with ctx.store.read() as conn:
        found = events.get(conn, batch)
    if found is None or found.action != BATCH or found.after is None:
        raise NotFound(f"no bulk decision #{batch} (the number `reject` or `accept` printed)", field="batch")
    after = json.loads(found.after)
    return after["decision"], [int(i) for i in after["ids"]]


def reopen(ctx: Context, actor: Actor, proposal: ProposalRow) -> None:
    """Undo a rejection: the proposal is pending again and, for a candidate, re-mining may propose
    its name again. An accepted candidate is in the graveyard; reinstating it is a decision of its own."""
    if proposal.status == "accepted":
        raise Conflict(f"proposal #{proposal.id} was accepted: its approach is in the graveyard; "
                       f"reinstate it (`cenotaph reinstate NAME`) to bring it back", field="id")
    if proposal.status != "rejected":
        raise AlreadyDecided(f"proposal #{proposal.id} is {proposal.status}, not rejected", field="id")
    with ctx.store.write() as tx:
        if proposal.action == ACTION:
            args = proposal.arguments
            mining.undismiss(tx, project=proposal.project, ecosystem=args["ecosystem"], name=args["key"])
        store_proposals.reopen(tx, proposal.id)
        ctx.event(tx, actor=actor.name, action="proposal:reopened", target=f"proposal:{proposal.id}",
                  project=proposal.project, before={"status": proposal.status}, after={"status": "pending"},
                  reason=None)


NOTICE = "notice"  # the mining cursor source that remembers which workspaces were told


def pending_count(ctx: Context, project: str) -> int:
    with ctx.store.read() as conn:
        return len(proposals.pending_targets(conn, ACTION, validate.project(project)))


def first_notice(ctx: Context, project: str, workspace: str) -> bool:
    """True the first time it is asked for `workspace` (a folder) in `project`, and never again:
    editors tell a person about candidates once per workspace, not on every start."""
    project = validate.project(project)
    with ctx.store.write() as tx:
        if mining.cursor(tx, project, NOTICE, workspace) is not None:
            return False
        mining.set_cursor(tx, project, NOTICE, workspace, ctx.now(), ctx.now())
        return True

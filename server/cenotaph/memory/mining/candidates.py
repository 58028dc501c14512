"""Graveyard candidates mined from the past (a repository's manifests, agent transcripts). A
candidate is never a graveyard entry by itself: it becomes an `abandon` proposal that a person
accepts (the approach is abandoned with the drafted or edited reason) or rejects (a dismissal keyed
on the normalized name, so that no later run proposes it again)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatch

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.graveyard.approaches import Graveyard
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems
from cenotaph.store import mining, proposals
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


def select(rows: Iterable[ProposalRow], *, classes: Iterable[str] = (), path: str | None = None) -> list[ProposalRow]:
    """The pending candidates among `rows` of any of `classes`, or with evidence in a file
    matching the glob `path` (`playground/**`, `*/fixtures/*`): what a person turns down at once."""
    wanted = set(classes)
    return [row for row in rows if row.action == ACTION and row.status == "pending"
            and ((wanted and classes_of(row) & wanted)
                 or (path is not None and any(fnmatch(e.get("path") or "", path)
                                              for e in row.arguments.get("evidence", []))))]


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

"""mine: read the past for abandoned approaches. What it yields are proposals a person accepts or
rejects, never graveyard entries."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from cenotaph import paths
from cenotaph.mcp.tools.base import READ_ONLY, WRITE, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import reply
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.mining.candidates import ACTION as CANDIDATE
from cenotaph.memory.mining.candidates import Batch, ProposeReport, Selection
from cenotaph.memory.mining.git import GitMiningReport
from cenotaph.memory.mining.transcripts import TranscriptReport
from cenotaph.project import repository_root

TOOLS = ToolGroup()


class MinedProposal(BaseModel):
    proposal_id: int
    name: str
    ecosystem: str
    reason: str  # drafted from the evidence
    confidence: float
    classes: list[str]  # dev, types, backport, build, subproject: what a person weighs differently
    replacement: str | None


class MineOutcome(BaseModel):
    source: Literal["git", "transcripts"]
    proposed: list[MinedProposal]
    not_proposed: dict[str, list[str]]  # why -> names: already pending, in the graveyard, suppressed, dismissed
    note: str
    # git
    commits_read: int | None = None
    manifests_parsed: int | None = None
    parse_failures: int | None = None
    shallow: bool | None = None
    oldest_commit_seen: str | None = None
    only_new_commits: bool | None = None
    # transcripts
    transcript_files_read: int | None = None
    sessions: int | None = None
    corrupt_lines: int | None = None
    missing_folders: list[str] | None = None

    @staticmethod
    def _proposals(proposals: ProposeReport) -> dict[str, Any]:
        return {
            "proposed": [MinedProposal(proposal_id=p.id, name=p.arguments["name"], ecosystem=p.arguments["ecosystem"],
                                       reason=p.reason, confidence=p.arguments["confidence"],
                                       classes=p.arguments["classes"], replacement=p.arguments["replacement"])
                         for p in proposals.proposed],
            "not_proposed": {why: names for why, names in (
                ("already_pending", proposals.already_pending), ("in_graveyard", proposals.in_graveyard),
                ("suppressed", proposals.suppressed), ("dismissed", proposals.dismissed)) if names},
            "note": "These are proposals: nothing is abandoned until a person accepts one.",
        }

    @staticmethod
    def of_git(report: GitMiningReport) -> MineOutcome:
        history = report.history
        return MineOutcome(
            source="git", commits_read=history.commits_read, manifests_parsed=history.manifests_parsed,
            parse_failures=history.parse_failures, shallow=history.shallow,
            oldest_commit_seen=history.oldest_seen.sha if history.oldest_seen else None,
            only_new_commits=history.incremental, **MineOutcome._proposals(report.proposals),
        )

    @staticmethod
    def of_transcripts(report: TranscriptReport) -> MineOutcome:
        return MineOutcome(source="transcripts", transcript_files_read=report.files_read, sessions=report.sessions,
                           corrupt_lines=report.corrupt_lines, missing_folders=report.missing,
                           **MineOutcome._proposals(report.proposals))


@TOOLS.add(WRITE)
def mine(
    ctx: Context,
    source: Annotated[Literal["git", "transcripts"], Field(
        description="`git`: the manifests' history; `transcripts`: this repository's Claude Code and Codex "
                    "sessions.",
    )] = "git",
    path: Annotated[str, Field(min_length=1, max_length=4096,
                               description="A directory inside the repository.")] = ".",
    since: Annotated[str | None, Field(max_length=100, description="Only commits after this date (e.g. 2024-01-01).")] = None,
    max_commits: Annotated[int | None, Field(ge=1, le=1_000_000,
                                             description="Only the latest N commits that touch manifests.")] = None,
) -> CallToolResult:
    """Find approaches this project dropped in the past (dependencies removed from its manifests,
    installs the person undid); each becomes a proposal a person accepts or rejects."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        if source == "transcripts":
            root = repository_root(Path(path).resolve())
            if root is None:
                raise InvalidInput(f"{path} is not inside a git repository", field="path")
            return reply(MineOutcome.of_transcripts(memory.mine_transcripts(
                env.actor(ctx), env.project, root, claude_dir=paths.claude_home(), codex_dir=paths.codex_home())))
        report = memory.mine_git(env.actor(ctx), path, project=env.project, since=since, max_commits=max_commits)
    return reply(MineOutcome.of_git(report))


class Candidate(BaseModel):
    proposal_id: int
    name: str
    ecosystem: str
    confidence: float
    classes: list[str]
    reason: str
    commit: str | None  # the commit that removed it


class CandidateSelection(BaseModel):
    decision: Literal["accept", "reject"]
    count: int
    candidates: list[Candidate]
    preview: bool
    command: str  # what the person runs to decide them, in a terminal of their own


def _command(decision: str, selection: Selection) -> str:
    parts = ["cenotaph", decision, *map(str, selection.ids), *(f"--class {c}" for c in selection.classes)]
    parts += [f"--path '{selection.path}'"] if selection.path is not None else []
    parts += [f"--commit {selection.commit}"] if selection.commit is not None else []
    parts += [f"--below {selection.below}"] if selection.below is not None else []
    return " ".join(parts + (["--reason '…'"] if decision == "reject" else []))


@TOOLS.add(READ_ONLY)
def candidates(
    ctx: Context,
    decision: Annotated[Literal["accept", "reject"], Field(description="What the person would do with them.")],
    ids: Annotated[list[Annotated[int, Field(ge=1)]], Field(max_length=1000, description="Candidates by number.")] = [],  # noqa: B006
    classes: Annotated[list[Literal["dev", "types", "backport", "build", "subproject", "moved-out", "plain"]],
                       Field(max_length=7, description="Pending candidates of any of these classes.")] = [],  # noqa: B006
    path: Annotated[str | None, Field(max_length=1000, description="... with evidence in files matching this glob.")] = None,
    commit: Annotated[str | None, Field(max_length=40, description="... that this commit removed.")] = None,
    below: Annotated[float | None, Field(ge=0, le=1, description="... with a confidence below this.")] = None,
    preview: Annotated[bool, Field(description="List what the decision would touch (only a person decides).")] = True,
) -> CallToolResult:
    """Which mined candidates a bulk accept or reject would touch: those named by id, and those
    matching every filter given. Only a person decides; the result names the command they run."""
    env = ToolEnv.of(ctx)
    selection = Selection(ids=tuple(ids), classes=tuple(classes), path=path, commit=commit, below=below)
    with env.domain() as memory:
        batch: Batch = memory.decide_proposals(env.actor(ctx), "accepted" if decision == "accept" else "rejected",
                                               selection, project=env.project, preview=preview)
    rows = [p for p in batch.proposals if p.action == CANDIDATE]
    return reply(CandidateSelection(
        decision=decision, count=len(rows), preview=batch.preview, command=_command(decision, selection.checked()),
        candidates=[Candidate(proposal_id=p.id, name=p.arguments["name"], ecosystem=p.arguments["ecosystem"],
                              confidence=p.arguments["confidence"], classes=p.arguments.get("classes") or [],
                              reason=p.reason, commit=p.arguments.get("commit")) for p in rows]))

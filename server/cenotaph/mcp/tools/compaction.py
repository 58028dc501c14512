"""compact: an agent reads a cluster of similar
older memories and writes the summary that would stand for them. Its summary is a proposal a person
accepts (`cenotaph accept`, or the ledger); accepting it supersedes the sources, nothing is deleted."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import WRITE, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import MemoryBrief, Result, reply, result
from cenotaph.memory.knowledge.compaction import DEFAULT_OLDER_THAN_DAYS, Cluster, CompactResult
from cenotaph.store.records import MemoryRow, ProposalRow

TOOLS = ToolGroup()

OlderThan = Annotated[int, Field(ge=0, le=100_000, description="Only memories valid since more than this many days.")]


class ClusterBrief(BaseModel):
    """A candidate: memories similar enough for one summary to stand for them."""

    id: str
    member_ids: list[int]
    cohesion: float  # the mean cosine between its members
    members: list[MemoryBrief]

    @staticmethod
    def of(cluster: Cluster) -> ClusterBrief:
        return ClusterBrief(id=cluster.id, member_ids=cluster.member_ids, cohesion=cluster.cohesion,
                            members=[MemoryBrief.of(r) for r in cluster.members])


class ClusterCandidates(BaseModel):
    clusters: list[ClusterBrief]


class SummaryOutcome(BaseModel):
    """`proposed`: waits for a person (the usual case for an agent). `applied`: the user's policy
    lets agents compact; the summary is stored and its sources superseded."""

    status: Literal["applied", "proposed"]
    cluster_id: str
    proposal: Result[ProposalRow] | None = None
    summary: Result[MemoryRow] | None = None
    superseded: list[int] = []

    @staticmethod
    def of(cluster_id: str, compacted: CompactResult | ProposalRow) -> SummaryOutcome:
        if isinstance(compacted, ProposalRow):
            return SummaryOutcome(status="proposed", cluster_id=cluster_id, proposal=result(compacted))
        return SummaryOutcome(status="applied", cluster_id=compacted.cluster_id, summary=result(compacted.summary),
                              superseded=compacted.superseded)


@TOOLS.add(WRITE)
def compact(
    ctx: Context,
    cluster_id: Annotated[str | None, Field(min_length=1, max_length=100, description=(
        "Omitted: list the candidate clusters. Given: that cluster with its members' full text."))] = None,
    summary: Annotated[str | None, Field(min_length=1, max_length=50_000, description=(
        "With `cluster_id`: propose this text to stand for every member (keep each fact, date and name "
        "that still matters)."))] = None,
    reason: Annotated[str | None, Field(max_length=2000)] = None,
    older_than_days: OlderThan = DEFAULT_OLDER_THAN_DAYS,
) -> CallToolResult:
    """Fold clusters of similar older memories into one summary: list them, read one, then
    propose its summary; once a person accepts, the members leave recall (nothing is deleted)."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        if cluster_id is None:
            clusters = memory.compact_candidates(env.project, older_than_days=older_than_days)
            return reply(ClusterCandidates(clusters=[ClusterBrief.of(c) for c in clusters]))
        if summary is None:
            return reply(result(memory.compact_cluster(env.project, cluster_id, older_than_days=older_than_days)))
        compacted = memory.compact_apply(env.actor(ctx), env.project, cluster_id, summary=summary, reason=reason,
                                         older_than_days=older_than_days)
    return reply(SummaryOutcome.of(cluster_id, compacted))

"""compaction_candidates, compaction_cluster, propose_summary: an agent reads a cluster of similar
older memories and writes the summary that would stand for them. Its summary is a proposal a person
accepts (`cenotaph accept`, or the ledger); accepting it supersedes the sources, nothing is deleted."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import MemoryBrief, Result, result
from cenotaph.memory.knowledge.compaction import DEFAULT_OLDER_THAN_DAYS, Cluster, CompactResult
from cenotaph.store.records import MemoryRow, ProposalRow

TOOLS = ToolGroup()

ClusterId = Annotated[str, Field(min_length=1, max_length=100, description="A cluster's id, from compaction_candidates.")]
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


@TOOLS.add(READ_ONLY)
def compaction_candidates(ctx: Context, older_than_days: OlderThan = DEFAULT_OLDER_THAN_DAYS) -> ClusterCandidates:
    """Clusters of similar older memories of this project that one summary could stand for,
    largest first, each with its id, its members' ids and a brief of each."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        clusters = memory.compact_candidates(env.project, older_than_days=older_than_days)
    return ClusterCandidates(clusters=[ClusterBrief.of(c) for c in clusters])


@TOOLS.add(READ_ONLY)
def compaction_cluster(ctx: Context, cluster_id: ClusterId,
                       older_than_days: OlderThan = DEFAULT_OLDER_THAN_DAYS) -> Result[Cluster]:
    """One cluster with the full text of every member: read it before writing its summary."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return result(memory.compact_cluster(env.project, cluster_id, older_than_days=older_than_days))


@TOOLS.add(WRITE)
def propose_summary(
    ctx: Context, cluster_id: ClusterId,
    summary: Annotated[str, Field(min_length=1, max_length=50_000,
                                  description="The text that stands for every member: keep each fact, date and "
                                              "name they hold that still matters.")],
    reason: Annotated[str | None, Field(max_length=2000, description="Why these belong together.")] = None,
    older_than_days: OlderThan = DEFAULT_OLDER_THAN_DAYS,
) -> SummaryOutcome:
    """Submit a summary for a cluster. It becomes a proposal a person accepts or rejects; once
    accepted the summary is stored and the members leave recall (superseded, not deleted:
    forgetting or refuting the summary brings them back)."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        compacted = memory.compact_apply(env.actor(ctx), env.project, cluster_id, summary=summary, reason=reason,
                                         older_than_days=older_than_days)
    return SummaryOutcome.of(cluster_id, compacted)

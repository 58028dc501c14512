"""Compaction: clusters of similar older memories of one project, each summarised by a person
(or by an agent, as a proposal a person accepts). The summary is stored as a memory of its own,
its sources move to the state `superseded` (out of recall, kept whole, still in history and as-of
reads) linked to it, and forgetting or refuting the summary restores them
(lifecycle.restore_summarised). Nothing is deleted."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import numpy as np

from cenotaph.memory import proposals, secrets, validate
from cenotaph.memory.context import Context, format_time
from cenotaph.memory.core import lifecycle
from cenotaph.memory.core.remember import remember
from cenotaph.memory.errors import Conflict, NotFound, Unavailable
from cenotaph.memory.models import KINDS, Actor
from cenotaph.store import memories, summaries, vectors
from cenotaph.store.records import MemoryRow, ProposalRow

# Two memories are about the same thing, and may share a summary, at cosine ≥ 0.75 (on the stored
# all-MiniLM-L6-v2 vectors). bench/compaction.py measured 24 same-subject pairs (one
# decision or fact said twice) at 0.804–0.943 and 24 pairs of different subjects of one project
# (many sharing a library or a word) at 0.064–0.665: 0.75 sits in the middle of that gap, rounded
# (figures in docs/benchmarks-history.md, "Compaction threshold"). It lies between the store's two other
# thresholds: below 0.92 (a near-duplicate is refused at write) and above 0.70 (contradiction
# detection's "same topic", wide on purpose: a false contradiction costs a look, a false
# compaction hides a memory).
COMPACT_SIMILARITY = 0.75
# A summary a person can check against its sources in one screen.
MAX_CLUSTER = 12
DEFAULT_OLDER_THAN_DAYS = 30
# What a person or agent wrote in the conversation; document chunks and feed entries have their
# own lifecycle (re-ingest, expiry) that a superseded state would break.
COMPACTABLE_KINDS = KINDS
ACTION = "compact"  # the proposal an agent's summary becomes
SUMMARY_TAG = "summary"
_BLOCK_CELLS = 2**24  # similarities computed at once (64 MB of float32), whatever the number of rows


@dataclass(slots=True)
class Cluster:
    """Memories of one project a summary could stand for. `id` is a digest of the members' ids
    and versions: the same on every run while the members are unchanged, a different one when a
    member is edited, joins or leaves (so a summary is never applied to texts nobody read)."""

    id: str
    project: str
    member_ids: list[int]
    cohesion: float  # the mean cosine between its members
    members: list[MemoryRow] = field(default_factory=list)


@dataclass(slots=True)
class CompactResult:
    cluster_id: str
    summary: MemoryRow
    superseded: list[int]


def cluster_id(project: str, rows: Sequence[MemoryRow]) -> str:
    key = project + "\n" + ",".join(f"{r.memory_id}.{r.version}" for r in sorted(rows, key=lambda r: r.memory_id))
    return "c" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _cutoff(ctx: Context, older_than_days: int) -> str:
    days = validate.integer(older_than_days, "older_than_days", low=0, high=100_000)
    return format_time(ctx.clock() - timedelta(days=days))


def find(ctx: Context, project: str, *, older_than_days: int = DEFAULT_OLDER_THAN_DAYS) -> list[Cluster]:
    """The project's clusters, largest first: memories valid since before the cutoff (valid time,
    so imported history counts by when it held), joined strongest pair first while the cosine is
    at least COMPACT_SIMILARITY and no cluster outgrows MAX_CLUSTER (connected components of the
    similarity graph, bounded by refusing a join that would make one too large)."""
    project = validate.project(project)
    valid_until = _cutoff(ctx, older_than_days)
    with ctx.store.read() as conn:
        if vectors.dimension(conn) is None:  # nothing was ever embedded: a new store
            return []
        if not ctx.vectors_current():
            raise Unavailable("the vectors were built by another model: run `cenotaph reindex` first", field="model")
        rows = memories.compactable(conn, project, valid_until=valid_until, kinds=COMPACTABLE_KINDS)
        found = vectors.embeddings(conn, [r.id for r in rows])
    rows = [r for r in rows if r.id in found]
    if len(rows) < 2:
        return []
    matrix = np.stack([found[r.id] for r in rows]).astype(np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    groups = _components(matrix)
    clusters = []
    for members in groups:
        block = matrix[members] @ matrix[members].T
        n = len(members)
        cohesion = float((block.sum() - n) / (n * (n - 1)))
        member_rows = [rows[i] for i in sorted(members, key=lambda i: rows[i].memory_id)]
        clusters.append(Cluster(id=cluster_id(project, member_rows), project=project,
                                member_ids=[r.memory_id for r in member_rows], cohesion=round(cohesion, 4),
                                members=member_rows))
    clusters.sort(key=lambda c: (-len(c.member_ids), min(r.valid_from for r in c.members), c.id))
    return clusters


def _components(matrix: np.ndarray) -> list[list[int]]:
    """Groups (indices, two or more) joined along edges of cosine ≥ COMPACT_SIMILARITY, strongest
    first, each at most MAX_CLUSTER. Each row keeps its MAX_CLUSTER strongest edges: a join beyond
    them could only be refused."""
    n = len(matrix)
    block = max(1, _BLOCK_CELLS // n)
    sims_found, lefts, rights = [], [], []
    for start in range(0, n, block):
        sims = matrix[start:start + block] @ matrix.T
        rows, cols = np.nonzero(sims >= COMPACT_SIMILARITY)
        ahead = cols > rows + start  # each pair once, never with itself
        rows, cols = rows[ahead], cols[ahead]
        values = sims[rows, cols]
        order = np.lexsort((cols, -values, rows))  # by row, strongest first
        rows, cols, values = rows[order], cols[order], values[order]
        rank = np.arange(len(rows)) - np.searchsorted(rows, rows, side="left")
        kept = rank < MAX_CLUSTER
        sims_found.append(values[kept])
        lefts.append(rows[kept] + start)
        rights.append(cols[kept])
    values, left, right = (np.concatenate(parts) for parts in (sims_found, lefts, rights))
    order = np.lexsort((right, left, -values))  # strongest first; ties in index order
    edges = zip(left[order].tolist(), right[order].tolist())
    parent = list(range(n))
    size = [1] * n

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb and size[ra] + size[rb] <= MAX_CLUSTER:
            parent[rb] = ra
            size[ra] += size[rb]
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def get(ctx: Context, project: str, cid: str, *, older_than_days: int = DEFAULT_OLDER_THAN_DAYS) -> Cluster:
    cid = validate.text(cid, "cluster_id", max_length=100)
    for cluster in find(ctx, project, older_than_days=older_than_days):
        if cluster.id == cid:
            return cluster
    raise NotFound(f"no cluster {cid} among the memories older than {older_than_days} days: it changed since it "
                   f"was listed (a member was edited, summarised or joined by another); run `cenotaph compact` again",
                   field="cluster_id")


def _summary_kind(rows: Sequence[MemoryRow]) -> str:
    """The members' kind when they share one that a summary can carry, else a note (an experience's
    effort and outcome belong to one attempt, not to a summary of several)."""
    kinds = {r.kind for r in rows}
    return kinds.pop() if len(kinds) == 1 and kinds <= {"decision", "preference", "fact"} else "note"


def summarise(ctx: Context, actor: Actor, project: str, member_ids: Sequence[int], *, summary: str,
              expected_cluster: str | None = None, reason: str | None = None,
              vocabulary: frozenset[str] = frozenset()) -> CompactResult:
    """Store `summary` for the memories `member_ids` of `project` and supersede them, in one
    transaction. With `expected_cluster`, refuse when the members are no longer what that id was
    computed from."""
    summary = secrets.screen(validate.text(summary, "summary", max_length=validate.MAX_CONTENT), "summary", actor)
    reason = secrets.screen_optional(validate.optional_text(reason, "reason"), "reason", actor)
    ids = sorted({validate.integer(m, "member_ids", low=1, high=2**62) for m in member_ids})
    if len(ids) < 2:
        raise validate.InvalidInput("a summary stands for two memories or more", field="member_ids")
    with ctx.store.write() as tx:
        rows = []
        for memory_id in ids:
            row = memories.current(tx, memory_id)
            if row is None:
                raise NotFound(f"no memory #{memory_id}", field="member_ids")
            if row.project != project or row.state not in ("active", "deprioritised"):
                raise Conflict(f"memory #{memory_id} is {row.state} in {row.project or 'the global scope'}: "
                               f"only active or deprioritised memories of {project or 'the global scope'} "
                               f"can be summarised", field="member_ids")
            rows.append(row)
        cid = cluster_id(project, rows)
        if expected_cluster is not None and cid != expected_cluster:
            raise Conflict(f"cluster {expected_cluster} changed since it was read (a member was edited): "
                           f"run `cenotaph compact` again", field="cluster_id")
        # The summary's id, taken now so that its sources can name it; nobody else writes while this
        # transaction holds the store. Sources go first, so the summary is not checked against them
        # as a contradiction.
        summary_id = memories.next_memory_id(tx)
        note = f"summarised in memory #{summary_id}" + (f": {reason}" if reason else "")
        for row in rows:
            lifecycle.apply(ctx, tx, row, "superseded", reason=note, actor=actor.name,
                            note={"summary_id": summary_id, "cluster_id": cid})
        shared_tags = set.intersection(*(set(r.tags) for r in rows)) - {SUMMARY_TAG}
        stored = remember(ctx, actor, summary, project=project, kind=_summary_kind(rows),
                          tags=[SUMMARY_TAG, *sorted(shared_tags)], force=True,
                          valid_from=min(r.valid_from for r in rows), vocabulary=vocabulary)
        assert stored.id == summary_id and stored.memory is not None
        summaries.link(tx, summary_id=summary_id, project=project, cluster_id=cid,
                       sources=[(r.memory_id, r.state) for r in rows], at=ctx.now())
        ctx.event(tx, actor=actor.name, action=ACTION, target=f"memory:{summary_id}", project=project,
                  after={"cluster_id": cid, "sources": ids}, reason=reason)
        summary_row = memories.current(tx, summary_id)
    assert summary_row is not None
    return CompactResult(cluster_id=cid, summary=summary_row, superseded=ids)


def propose(ctx: Context, actor: Actor, cluster: Cluster, *, summary: str, reason: str | None) -> ProposalRow:
    """An agent's summary, waiting for a person: the members it was written from travel with it."""
    summary = secrets.screen(validate.text(summary, "summary", max_length=validate.MAX_CONTENT), "summary", actor)
    return proposals.propose(
        ctx, actor, action=ACTION, target=f"cluster:{cluster.id}", project=cluster.project,
        arguments={"cluster_id": cluster.id, "member_ids": cluster.member_ids, "summary": summary},
        reason=validate.optional_text(reason, "reason") or f"a summary of {len(cluster.member_ids)} memories")


def accept(ctx: Context, actor: Actor, proposal: ProposalRow, note: str,
           vocabulary: frozenset[str] = frozenset()) -> CompactResult:
    args: dict[str, Any] = proposal.arguments
    return summarise(ctx, actor, proposal.project, args["member_ids"], summary=args["summary"],
                     expected_cluster=args["cluster_id"], reason=note, vocabulary=vocabulary)

"""Time: a change to what a memory says, or to when it held, is a new version; the old one's
record time is closed (`superseded_at`), never overwritten, so as-of reads see it as it was."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context, content_hash
from cenotaph.memory.core import concepts
from cenotaph.memory.core.lifecycle import live
from cenotaph.memory.core.remember import find_contradictions
from cenotaph.memory.core.trust import set_trust
from cenotaph.memory.errors import NotFound
from cenotaph.memory.models import Actor, MemoryHistory
from cenotaph.nlp.analysis import Analysis
from cenotaph.store import concepts as store_concepts
from cenotaph.store import events, memories, summaries, transitions, vectors
from cenotaph.store.records import MemoryRow


def new_version(ctx: Context, conn: Any, row: MemoryRow, *, vector: np.ndarray | None = None,
                entities: list[str] | None = None, analysis: Analysis | None = None, **changes: Any) -> MemoryRow:
    """Close `row` and insert its successor with `changes`, inside the caller's write transaction.
    Without a new vector or entities, the successor keeps those of `row`; without the new
    content's `analysis`, its concepts."""
    now = ctx.now()
    memories.set_fields(conn, row.id, superseded_at=now)
    successor = dataclasses.replace(row, id=0, version=row.version + 1, recorded_at=now, superseded_at=None,
                                    recall_count=0, last_recalled_at=None, **changes)
    successor.id = memories.insert(conn, successor)
    if ctx.vectors_current():
        if vector is None:
            vector = vectors.get(conn, row.id)
        if vector is not None:
            vectors.insert(conn, successor.id, successor.project, vector)
    memories.insert_entities(conn, successor.id, memories.entities_of(conn, row.id) if entities is None else entities)
    if analysis is None:
        store_concepts.copy(conn, row.id, successor.id)
    else:
        concepts.attach(conn, successor, analysis)
    found = memories.current(conn, row.memory_id)
    assert found is not None
    return found


def hold_until(ctx: Context, conn: Any, actor: Actor, row: MemoryRow, until: str | None, *, reason: str) -> MemoryRow:
    """`row` holds until `until` (valid time; None: it holds again): a new version, inside the
    caller's write."""
    closed = new_version(ctx, conn, row, valid_to=until)
    ctx.event(conn, actor=actor.name, action="valid_to", target=f"memory:{row.memory_id}", project=row.project,
              before={"version": row.version, "valid_to": row.valid_to},
              after={"version": closed.version, "valid_to": closed.valid_to}, reason=reason)
    return closed


def update(ctx: Context, actor: Actor, memory_id: int, *, content: str, reason: str | None,
           vocabulary: frozenset[str]) -> MemoryRow:
    """New content as a new version. An agent's edit of a confirmed memory is no longer confirmed:
    the person confirmed the old words, not these."""
    content = validate.text(content, "content", max_length=validate.MAX_CONTENT)
    reason = validate.optional_text(reason, "reason")
    content = secrets.screen(content, "content", actor)
    reason = secrets.screen_optional(reason, "reason", actor)
    with ctx.store.read() as conn:
        row = live(conn, memory_id)
    digest = content_hash(content)
    if digest == row.content_hash:
        return row
    vector = ctx.embed(content)
    ctx.analyzer.set_vocabulary(vocabulary)
    analysis = ctx.analyzer.analyze(content)
    ctx.ensure_vectors()
    with ctx.store.write() as tx:
        row = live(tx, row.memory_id)
        updated = new_version(ctx, tx, row, vector=vector, entities=sorted(analysis.entities), analysis=analysis,
                              content=content,
                              content_hash=digest, lemmas=analysis.lemmas, polarity=analysis.polarity,
                              source=actor.source, actor=actor.name)
        ctx.event(tx, actor=actor.name, action="update", target=f"memory:{row.memory_id}", project=row.project,
                  before={"version": row.version, "content_hash": row.content_hash},
                  after={"version": updated.version, "content_hash": digest}, reason=reason)
        if actor.kind == "agent" and updated.trust == "confirmed":
            set_trust(ctx, tx, updated, "unverified", reason="content edited by an agent", actor=actor.name)
        if ctx.vectors_current():
            find_contradictions(ctx, tx, memories.current(tx, row.memory_id), vector, actor.name)
        found = memories.current(tx, row.memory_id)
    assert found is not None
    return found


def history(ctx: Context, memory_id: int) -> MemoryHistory:
    memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
    with ctx.store.read() as conn:
        versions = memories.versions(conn, memory_id)
        if not versions:
            raise NotFound(f"no memory #{memory_id}", field="memory_id")
        return MemoryHistory(
            memory_id=memory_id, versions=versions, transitions=transitions.history(conn, memory_id),
            events=events.query(conn, target=f"memory:{memory_id}", since_at=None, limit=100_000),
            tombstone=transitions.tombstone(conn, memory_id),
            summarised_by=summaries.summarised_by(conn, memory_id) if versions[-1].state == "superseded" else None,
            summarises=summaries.sources_of(conn, memory_id),
        )

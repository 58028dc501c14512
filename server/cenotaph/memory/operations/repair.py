"""Checking and repairing what a crash can leave out of step. Every write keeps the full-text
index and the vectors in step with the memory rows inside its own transaction, so a killed
writer loses only its unfinished write; `reindex` alone spans many transactions, and a crash in
it leaves the vectors part-built (the store's model is then recorded as ""). `repair` finishes
that work, mends any other disagreement it finds, and records what it did."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cenotaph.memory import secrets
from cenotaph.memory.context import Context
from cenotaph.memory.core import audit
from cenotaph.memory.errors import Conflict
from cenotaph.memory.models import Actor, AuditReport
from cenotaph.store import health, vectors

BATCH = 64


@dataclass(slots=True)
class StoreCheck:
    integrity: list[str]  # SQLite's and FTS5's complaints; empty when the file is sound
    fts_missing: list[int]
    fts_orphans: list[int]
    fts_stale: list[int]
    substrings_in_step: bool  # the trigram index holds exactly the memories' content
    vector_model: str | None  # the model that built the vectors; "" while a reindex is unfinished
    vectors_checked: bool  # False when the vectors belong to another model (`cenotaph reindex`)
    vectors_missing: list[int]
    vectors_orphans: list[int]
    audit: AuditReport
    # Memories stored before every write was screened for secrets: "memory #3 v1 content: AWS
    # Access Key at 11–31". Repair cannot mend them: they are to be forgotten.
    secrets: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (not self.secrets and not self.integrity and not self.fts_missing and not self.fts_orphans and not self.fts_stale
                and self.substrings_in_step and self.vector_model != "" and not self.vectors_missing and not self.vectors_orphans
                and self.audit.ok)


@dataclass(slots=True)
class RepairReport:
    before: StoreCheck
    after: StoreCheck
    fts_rewritten: int = 0
    substrings_rebuilt: bool = False
    vectors_added: int = 0
    vectors_removed: int = 0
    reindex_finished: bool = False
    notes: list[str] = field(default_factory=list)


def _vectors_in_scope(ctx: Context, conn: Any) -> tuple[str | None, bool]:
    """(the vectors' model, whether they are this model's or a reindex of it left unfinished)."""
    model = ctx.store.get_meta("embedding_model")
    dim = vectors.dimension(conn)
    return model, dim is not None and dim == ctx.embedder.dim and model in ("", ctx.embedder.model_name)


def check(ctx: Context) -> StoreCheck:
    with ctx.store.read() as conn:
        integrity = health.integrity_problems(conn)
        fts_missing, fts_orphans, fts_stale = health.fts_out_of_step(conn)
        substrings_in_step = health.substrings_in_step(conn)
        model, in_scope = _vectors_in_scope(ctx, conn)
        missing, orphans = health.vectors_out_of_step(conn) if in_scope else ([], [])
        held = stored_secrets(conn)
    return StoreCheck(secrets=held, integrity=integrity, fts_missing=fts_missing, fts_orphans=fts_orphans, fts_stale=fts_stale,
                      substrings_in_step=substrings_in_step, vector_model=model, vectors_checked=in_scope, vectors_missing=missing,
                      vectors_orphans=orphans, audit=audit.verify(ctx))


def stored_secrets(conn: Any) -> list[str]:
    """What `check` reports of secrets in stored memories (each named by field, kind and range)."""
    found = []
    for memory_id, version, _, content, tags, breakthrough, gotchas in health.stored_texts(conn):
        fields = [("content", content), *((f"tags[{i}]", t) for i, t in enumerate(json.loads(tags))),
                  ("breakthrough", breakthrough or ""), *((f"gotchas[{i}]", g) for i, g in enumerate(json.loads(gotchas)))]
        for name, text in fields:
            hits = secrets.scan(text) if text else []
            if hits:
                found.append(f"memory #{memory_id} v{version} {name}: {'; '.join(h.describe() for h in hits)}")
    return found


def sync_vectors(ctx: Context, conn: Any) -> tuple[int, int]:
    """Inside the caller's write transaction: a vector for every row that should have one and
    none for the others; returns (added, removed). Used as reindex's last step, it catches the
    writes other processes made while it ran."""
    missing, orphans = health.vectors_out_of_step(conn)
    for row_id in orphans:
        vectors.delete(conn, row_id)
    rows = health.contents(conn, missing)
    for start in range(0, len(rows), BATCH):
        chunk = rows[start:start + BATCH]
        for (row_id, project, _), vector in zip(chunk, ctx.embedder.embed([c for _, _, c in chunk]), strict=True):
            vectors.insert(conn, row_id, project, vector)
    return len(rows), len(orphans)


def repair(ctx: Context, actor: Actor, progress: Callable[[int, int], None] | None = None) -> RepairReport:
    before = check(ctx)
    if before.integrity:
        # Rewriting indexes on a damaged file could spread the damage: restore a backup instead.
        raise Conflict("the database file is damaged (" + "; ".join(before.integrity[:5]) + "): restore a backup",
                       field="store")
    report = RepairReport(before=before, after=before)
    store = ctx.store
    if before.vectors_checked:
        # Embed outside the write lock, a batch at a time, so that other writers keep going.
        total, done = len(before.vectors_missing), 0
        while True:
            with store.read() as conn:
                missing, _ = health.vectors_out_of_step(conn)
                rows = health.contents(conn, missing[:BATCH])
            if not rows or done >= total:
                break
            embedded = ctx.embedder.embed([content for _, _, content in rows])
            with store.write() as conn:
                still, _ = health.vectors_out_of_step(conn)
                wanted = set(still)
                for (row_id, project, _), vector in zip(rows, embedded, strict=True):
                    if row_id in wanted:
                        vectors.insert(conn, row_id, project, vector)
                        report.vectors_added += 1
            done += len(rows)
            if progress:
                progress(min(done, total), total)
    elif before.vector_model is not None:
        report.notes.append("the vectors were built by another model: run `cenotaph reindex`")
    with store.write() as conn:
        fts_missing, fts_orphans, fts_stale = health.fts_out_of_step(conn)
        health.fts_rewrite(conn, [*fts_missing, *fts_orphans, *fts_stale])
        report.fts_rewritten = len(fts_missing) + len(fts_orphans) + len(fts_stale)
        if not health.substrings_in_step(conn):
            health.substrings_rebuild(conn)
            report.substrings_rebuilt = True
        if before.vectors_checked:
            added, removed = sync_vectors(ctx, conn)
            report.vectors_added += added
            report.vectors_removed += removed
            if before.vector_model == "":
                store.set_meta(conn, "embedding_model", ctx.embedder.model_name)
                store.set_meta(conn, "embedding_dim", str(ctx.embedder.dim))
                report.reindex_finished = True
        if (report.fts_rewritten or report.substrings_rebuilt or report.vectors_added or report.vectors_removed
                or report.reindex_finished):
            ctx.event(conn, actor=actor.name, action="repair", target="store", project="",
                      after={"fts_rewritten": report.fts_rewritten, "substrings_rebuilt": report.substrings_rebuilt,
                             "vectors_added": report.vectors_added,
                             "vectors_removed": report.vectors_removed,
                             "reindex_finished": report.reindex_finished})
    report.after = check(ctx)
    if not report.after.audit.ok:
        report.notes.append(f"the event log is broken: {report.after.audit.problem}")
    return report

"""Taking memories out for good: forgetting one (after a preview of what goes with it), and
archiving near-duplicates. Both settle what depended on the memory: a forgotten side of a
contradiction leaves the other standing, a forgotten summary gives back its sources."""

from __future__ import annotations

from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.core import lifecycle
from cenotaph.memory.core.lifecycle import FORGOTTEN, apply, check_transition, live
from cenotaph.memory.core.remember import DUPLICATE_SIMILARITY
from cenotaph.memory.core.trust import undispute
from cenotaph.memory.models import Actor, ForgetPreview, MaintenanceReport
from cenotaph.store import approaches, concepts, contradictions, memories, recall_log, transitions, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.records import MemoryRow


def _linked_approaches(conn: Any, memory_id: int) -> list[str]:
    return [a.name for a in approaches.all_rows(conn) if a.memory_id == memory_id]


def forget_preview(ctx: Context, memory_id: int) -> ForgetPreview:
    with ctx.store.read() as conn:
        row = live(conn, memory_id)
        check_transition(row, "deleted")
        return ForgetPreview(
            memory_id=row.memory_id, project=row.project, kind=row.kind, content=row.content,
            versions=len(memories.row_ids_of(conn, row.memory_id)),
            open_contradictions=[c.id for c in contradictions.open_for_memory(conn, row.memory_id)],
            approaches=_linked_approaches(conn, row.memory_id),
        )


def forget(ctx: Context, actor: Actor, memory_id: int, *, reason: str) -> MemoryRow:
    """Remove the content and tags of every version, its vectors and entities, its words from the
    full-text indexes and the recalls that returned it; keep a tombstone (id, content hash, reason,
    who, when) so no restore or import brings it back. Events carry only hashes. Freed pages are
    zeroed (`secure_delete`) and the WAL is emptied after the commit, so no byte of it stays in
    the file or its `-wal`. Returns the emptied row (state `deleted`); the tombstone is in `history`."""
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    now = ctx.now()
    with ctx.store.write() as tx:
        row = live(tx, memory_id)
        check_transition(row, "deleted")
        transitions.add_tombstone(tx, memory_id=row.memory_id, content_hash=row.content_hash, reason=reason,
                                  actor=actor.name, at=now)
        row_ids = memories.row_ids_of(tx, row.memory_id)
        memories.erase_content(tx, row.memory_id)
        concepts.forget_memory(tx, row.memory_id)
        memories.purge_deleted_terms(tx)
        recall_log.forget_memory(tx, row.memory_id)
        if vectors.dimension(tx) is not None:
            for rid in row_ids:
                vectors.delete(tx, rid)
        ctx.store.truncate_wal_after_commit()
        apply(ctx, tx, row, "deleted", reason=reason, actor=actor.name, note={"content_hash": row.content_hash})
        lifecycle.restore_summarised(ctx, tx, row.memory_id, why=FORGOTTEN, actor=actor.name)
        # A contradiction with a forgotten memory is settled: the other side stands.
        for link in contradictions.open_for_memory(tx, row.memory_id):
            kept = link.memory_b if link.memory_a == row.memory_id else link.memory_a
            resolution = "keep_b" if kept == link.memory_b else "keep_a"
            note = f"memory #{row.memory_id} was forgotten"
            contradictions.decide(tx, link.id, status="resolved", resolution=resolution, reason=note,
                                  actor=actor.name, at=now)
            ctx.event(tx, actor=actor.name, action="resolve", target=f"contradiction:{link.id}", project=link.project,
                      before={"status": "open"}, after={"status": "resolved", "resolution": resolution}, reason=note)
            undispute(ctx, tx, kept, reason=f"contradiction #{link.id} settled: {note}", actor=actor.name)
        found = memories.current(tx, row.memory_id)
    assert found is not None
    return found


_TRUST_RANK = {"confirmed": 0, "unverified": 1, "disputed": 2}


def archive_duplicates(ctx: Context, actor: Actor, project: str | None = None) -> MaintenanceReport:
    """Archive near-duplicates (cosine ≥ 0.92 or the same content; same project, kind and polarity;
    not linked as a contradiction), keeping the most trusted, then the oldest. Each archived row's
    reason is "duplicate of <id>"."""
    archived: list[tuple[int, int]] = []
    use_vectors = ctx.vectors_current()
    with ctx.store.write() as tx:
        projects = memories.projects(tx) if project is None else [validate.project(project)]
        for p in projects:
            rows = memories.list_rows(tx, Scope(projects=(p,)), limit=1_000_000, order="m.id")
            rows.sort(key=lambda r: (_TRUST_RANK.get(r.trust, 3), r.state != "active", r.memory_id))
            rank = {r.id: i for i, r in enumerate(rows)}
            same_content: dict[tuple[str, str], list[MemoryRow]] = {}
            for r in rows:
                same_content.setdefault((r.kind, r.content_hash), []).append(r)
            gone: set[int] = set()
            for keep in rows:
                if keep.memory_id in gone:
                    continue
                twins = [r for r in same_content[(keep.kind, keep.content_hash)] if rank[r.id] > rank[keep.id]]
                vector = vectors.get(tx, keep.id) if use_vectors else None
                if vector is not None:
                    for rid, similarity in vectors.knn(tx, p, vector, 6):
                        if similarity < DUPLICATE_SIMILARITY:
                            break
                        if rank.get(rid, -1) > rank[keep.id]:
                            twins.append(rows[rank[rid]])
                for twin in twins:
                    if (twin.memory_id in gone or twin.kind != keep.kind or twin.polarity != keep.polarity
                            or contradictions.is_linked(tx, keep.memory_id, twin.memory_id)):
                        continue
                    apply(ctx, tx, twin, "archived", reason=f"duplicate of {keep.memory_id}", actor=actor.name)
                    gone.add(twin.memory_id)
                    archived.append((twin.memory_id, keep.memory_id))
    return MaintenanceReport(archived=archived)

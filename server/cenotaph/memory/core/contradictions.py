"""Contradictions land somewhere: `resolve` refutes the loser (or, for `both`, closes the older
side's valid time where the newer one starts), `dismiss` records "not a contradiction" on the two
content hashes so the pair is never flagged again, and either clears the warning on both sides.
`scan` finds what write-time detection missed, comparing each memory with its near neighbours only."""

from __future__ import annotations

from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.core.remember import find_contradictions
from cenotaph.memory.core.timeline import hold_until
from cenotaph.memory.core.trust import set_trust, undispute
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.models import Actor, ContradictionView, ScanReport
from cenotaph.store import contradictions, memories, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.records import ContradictionRow

STATUSES = ("open", "resolved", "dismissed")
KEEP = ("a", "b", "both", "neither")


def _view(conn: Any, link: ContradictionRow) -> ContradictionView:
    return ContradictionView(
        id=link.id, project=link.project, status=link.status, resolution=link.resolution, found_by=link.found_by,
        explanation=link.explanation, reason=link.reason, created_at=link.created_at, decided_at=link.decided_at,
        decided_by=link.decided_by, memory_a=memories.current(conn, link.memory_a),
        memory_b=memories.current(conn, link.memory_b),
    )


def listing(ctx: Context, project: str | None, status: str | None = "open") -> list[ContradictionView]:
    if status is not None:
        validate.choice(status, "status", STATUSES)
    with ctx.store.read() as conn:
        links = contradictions.listing(conn, project=None if project is None else validate.project(project),
                                       status=status)
        return [_view(conn, link) for link in links]


def get_open(conn: Any, contradiction_id: Any) -> ContradictionRow:
    contradiction_id = validate.integer(contradiction_id, "contradiction_id", low=1, high=2**62)
    link = contradictions.get(conn, contradiction_id)
    if link is None:
        raise NotFound(f"no contradiction #{contradiction_id}", field="contradiction_id")
    if link.status != "open":
        raise Conflict(f"contradiction #{contradiction_id} is already {link.status}", field="contradiction_id")
    return link


def resolve(ctx: Context, actor: Actor, contradiction_id: int, *, keep: str, reason: str) -> ContradictionView:
    keep = validate.choice(keep, "keep", KEEP)
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    with ctx.store.write() as tx:
        link = get_open(tx, contradiction_id)
        a, b = memories.current(tx, link.memory_a), memories.current(tx, link.memory_b)
        if a is None or b is None or "deleted" in (a.state, b.state):
            raise Conflict(f"a side of contradiction #{link.id} no longer exists", field="contradiction_id")
        resolution = {"a": "keep_a", "b": "keep_b", "both": "both", "neither": "neither"}[keep]
        note = f"contradiction #{link.id} resolved ({resolution}): {reason}"
        after: dict[str, Any] = {"status": "resolved", "resolution": resolution}
        if keep == "both":
            older, newer = sorted((a, b), key=lambda r: (r.valid_from, r.memory_id))
            if newer.valid_from <= older.valid_from:
                raise Conflict(f"#{a.memory_id} and #{b.memory_id} hold from the same time, so neither can end "
                               "where the other starts: keep one, or set their valid times first", field="keep")
            if older.valid_to is None or older.valid_to > newer.valid_from:
                hold_until(ctx, tx, actor, older, newer.valid_from,
                           reason=f"contradiction #{link.id} resolved (both): #{newer.memory_id} holds from then")
                after["closed"] = {"memory_id": older.memory_id, "valid_to": newer.valid_from}
        contradictions.decide(tx, link.id, status="resolved", resolution=resolution, reason=reason,
                              actor=actor.name, at=ctx.now())
        ctx.event(tx, actor=actor.name, action="resolve", target=f"contradiction:{link.id}", project=link.project,
                  before={"status": "open"}, after=after, reason=reason)
        losers = {"a": [b], "b": [a], "both": [], "neither": [a, b]}[keep]
        for loser in losers:
            current = memories.current(tx, loser.memory_id)
            assert current is not None
            if current.trust != "refuted":
                set_trust(ctx, tx, current, "refuted", reason=note, actor=actor.name)
        for side in (a, b):
            undispute(ctx, tx, side.memory_id, reason=note, actor=actor.name)
        found = contradictions.get(tx, link.id)
        assert found is not None
        return _view(tx, found)


def dismiss(ctx: Context, actor: Actor, contradiction_id: int, *, reason: str) -> ContradictionView:
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    with ctx.store.write() as tx:
        link = get_open(tx, contradiction_id)
        a, b = memories.current(tx, link.memory_a), memories.current(tx, link.memory_b)
        if a is None or b is None:
            raise Conflict(f"a side of contradiction #{link.id} no longer exists", field="contradiction_id")
        now = ctx.now()
        contradictions.dismiss_pair(tx, a.content_hash, b.content_hash, reason=reason, actor=actor.name, at=now)
        contradictions.decide(tx, link.id, status="dismissed", resolution=None, reason=reason, actor=actor.name, at=now)
        ctx.event(tx, actor=actor.name, action="dismiss", target=f"contradiction:{link.id}", project=link.project,
                  before={"status": "open"},
                  after={"status": "dismissed", "hashes": sorted((a.content_hash, b.content_hash))}, reason=reason)
        note = f"contradiction #{link.id} dismissed: {reason}"
        for side in (a, b):
            undispute(ctx, tx, side.memory_id, reason=note, actor=actor.name)
        found = contradictions.get(tx, link.id)
        assert found is not None
        return _view(tx, found)


def scan(ctx: Context, actor: Actor, project: str) -> ScanReport:
    """Compare each active memory that takes a side (non-zero polarity) with its near neighbours;
    pairs already linked or dismissed are skipped."""
    project = validate.project(project)
    if not ctx.vectors_current():
        raise Conflict("the store's vectors were built by another model: run `cenotaph reindex` first")
    found = []
    with ctx.store.write() as tx:
        rows = [r for r in memories.list_rows(tx, Scope(projects=(project,)), limit=1_000_000, order="m.id")
                if r.polarity != 0]
        for row in rows:
            current = memories.current(tx, row.memory_id)
            vector = vectors.get(tx, row.id)
            if current is None or current.trust == "refuted" or vector is None:
                continue
            found.extend(find_contradictions(ctx, tx, current, vector, actor.name))
    return ScanReport(project=project, compared=len(rows), found=found)

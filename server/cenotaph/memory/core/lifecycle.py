"""Visibility: `active` → `deprioritised` (reason, reinstate hints) → `archived` (reason) →
`deleted` (forgotten: content removed, a tombstone kept); `superseded` (a summary stands for it,
memory/knowledge/compaction.py; it comes back when the summary is forgotten or refuted). Every transition is in TRANSITIONS,
keeps its reason and who made it, and is replayed by as-of reads."""

from __future__ import annotations

from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.models import Actor
from cenotaph.store import memories, summaries, transitions
from cenotaph.store.records import MemoryRow

# Why a summary stopped standing for its sources, in their state reasons.
REFUTED = "was refuted"
FORGOTTEN = "was forgotten"
# From each state, the states a memory may move to. `deleted` is terminal.
TRANSITIONS: dict[str, frozenset[str]] = {
    "active": frozenset({"deprioritised", "archived", "deleted", "superseded"}),
    "deprioritised": frozenset({"active", "archived", "deleted", "superseded"}),
    "archived": frozenset({"active", "deleted"}),
    "deleted": frozenset(),
    # Back to the state it had (active or deprioritised) when its summary goes, or by a person's
    # reinstate; a superseded memory can be forgotten like any other.
    "superseded": frozenset({"active", "deprioritised", "deleted"}),
}
# The verb that moves a memory into each state.
VERBS = {"deprioritised": "deprioritise", "archived": "archive", "active": "reinstate", "deleted": "forget",
         "superseded": "supersede"}


def live(conn: Any, memory_id: Any) -> MemoryRow:
    """The current version of a memory that has not been forgotten."""
    memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
    row = memories.current(conn, memory_id)
    if row is None:
        raise NotFound(f"no memory #{memory_id}", field="memory_id")
    if row.state == "deleted":
        raise Conflict(f"memory #{memory_id} was forgotten", field="memory_id")
    return row


def check_transition(row: MemoryRow, to_state: str) -> None:
    if to_state not in TRANSITIONS[row.state]:
        verb = VERBS[to_state]
        raise Conflict(f"cannot {verb} memory #{row.memory_id}: it is {row.state}"
                       + (" (forgotten for good)" if row.state == "deleted" else ""), field="memory_id")


def apply(ctx: Context, conn: Any, row: MemoryRow, to_state: str, *, reason: str, actor: str,
          hints: list[str] | None = None, note: dict[str, Any] | None = None) -> None:
    """Move `row` to `to_state` inside the caller's write transaction."""
    check_transition(row, to_state)
    fields: dict[str, Any] = {"state": to_state, "state_reason": reason}
    if hints is not None:
        fields["reinstate_hints"] = hints
    memories.set_fields(conn, row.id, **fields)
    transitions.add(conn, memory_id=row.memory_id, field="state", from_value=row.state, to_value=to_state,
                    reason=reason, actor=actor, at=ctx.now())
    after: dict[str, Any] = {"state": to_state}
    if hints:
        after["reinstate_hints"] = hints
    after.update(note or {})
    ctx.event(conn, actor=actor, action=VERBS[to_state], target=f"memory:{row.memory_id}", project=row.project,
              before={"state": row.state}, after=after, reason=reason)


def move(ctx: Context, actor: Actor, memory_id: int, to_state: str, *, reason: str,
         hints: list[str] | None = None) -> MemoryRow:
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    if hints is not None:
        hints = secrets.screen_list(validate.text_list(hints, "hints"), "hints", actor)
    with ctx.store.write() as tx:
        row = live(tx, memory_id)
        apply(ctx, tx, row, to_state, reason=reason, actor=actor.name, hints=hints)
        found = memories.current(tx, row.memory_id)
    assert found is not None
    return found


def _restored_reason(summary_id: int, why: str) -> str:
    """A restored source's state reason: supersede_again recognises by it a source nothing has
    moved since its summary's refutation restored it."""
    return f"its summary #{summary_id} {why}"


def restore_summarised(ctx: Context, conn: Any, summary_id: int, *, why: str, actor: str) -> list[int]:
    """When a summary is forgotten or refuted, every source it still stands for goes back to the
    state it had before (a source reinstated or forgotten meanwhile stays as it is). Returns the
    ids restored."""
    restored = []
    for source_id, previous_state in summaries.standing(conn, summary_id):
        row = memories.current(conn, source_id)
        if row is not None and row.state == "superseded":
            apply(ctx, conn, row, previous_state, reason=_restored_reason(summary_id, why), actor=actor,
                  note={"summary_id": summary_id})
            restored.append(source_id)
    summaries.mark_restored(conn, summary_id, ctx.now())
    return restored


def supersede_again(ctx: Context, conn: Any, summary_id: int, *, actor: str) -> list[int]:
    """A refuted summary believed again stands again for the sources its refutation restored,
    each one that nothing has moved or edited since (a source reinstated, forgotten, edited or
    summarised elsewhere meanwhile stays as it is). Returns the ids superseded again."""
    why = _restored_reason(summary_id, REFUTED)
    again = []
    for source_id, previous_state, restored_at in summaries.restored(conn, summary_id):
        row = memories.current(conn, source_id)
        if (row is not None and row.state == previous_state and row.state_reason == why
                and row.recorded_at <= restored_at):
            apply(ctx, conn, row, "superseded", reason=f"summarised in memory #{summary_id}, believed again",
                  actor=actor, note={"summary_id": summary_id})
            summaries.stand_again(conn, summary_id, source_id)
            again.append(source_id)
    return again

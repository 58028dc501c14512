"""Belief: `unverified`, `confirmed`, `disputed`, `refuted`, each change with its reason. State
says whether a memory may surface; trust says whether it is true."""

from __future__ import annotations

from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.core.lifecycle import REFUTED, live, restore_summarised, supersede_again
from cenotaph.memory.models import TRUSTS, Actor
from cenotaph.store import contradictions, memories, transitions
from cenotaph.store.records import MemoryRow

# The CLI's verbs and the trust each one sets.
VERBS = {"confirm": "confirmed", "dispute": "disputed", "refute": "refuted", "unverify": "unverified"}


def set_trust(ctx: Context, conn: Any, row: MemoryRow, trust: str, *, reason: str, actor: str) -> None:
    """Change a memory's belief state, keeping the transition and its reason."""
    memories.set_fields(conn, row.id, trust=trust, trust_reason=reason)
    transitions.add(conn, memory_id=row.memory_id, field="trust", from_value=row.trust, to_value=trust,
                    reason=reason, actor=actor, at=ctx.now())
    ctx.event(conn, actor=actor, action=f"trust:{trust}", target=f"memory:{row.memory_id}", project=row.project,
              before={"trust": row.trust}, after={"trust": trust}, reason=reason)
    # A refuted summary stands for nothing: its sources come back; believed again, it stands for
    # them again.
    if trust == "refuted":
        restore_summarised(ctx, conn, row.memory_id, why=REFUTED, actor=actor)
    elif row.trust == "refuted":
        supersede_again(ctx, conn, row.memory_id, actor=actor)


def change(ctx: Context, actor: Actor, memory_id: int, trust: str, *, reason: str) -> MemoryRow:
    trust = validate.choice(trust, "trust", TRUSTS)
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    with ctx.store.write() as tx:
        row = live(tx, memory_id)
        if row.trust != trust:
            set_trust(ctx, tx, row, trust, reason=reason, actor=actor.name)
        found = memories.current(tx, row.memory_id)
    assert found is not None
    return found


def undispute(ctx: Context, conn: Any, memory_id: int, *, reason: str, actor: str) -> None:
    """Clear the warning on a side of a decided contradiction: back to the trust it had before it
    was disputed, unless another open contradiction still disputes it."""
    row = memories.current(conn, memory_id)
    if row is None or row.trust != "disputed" or contradictions.open_for_memory(conn, memory_id):
        return
    previous = "unverified"
    for t in transitions.history(conn, memory_id):
        if t.field == "trust" and t.to_value == "disputed" and t.from_value not in (None, "disputed"):
            previous = t.from_value
    set_trust(ctx, conn, row, previous, reason=reason, actor=actor)

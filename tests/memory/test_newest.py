"""The newest memories (`Memory.recent`: the console's /memories and /knowledge, briefings) are read
by one index walk per project and kind, merged (store/memories.py `newest`): the same rows in the
same order as sorting them all, and on SQLite no walk sorts."""

from __future__ import annotations

import pytest
from cenotaph.store import memories
from cenotaph.store.memories import Scope

from tests.conftest import HUMAN

P = "github.com/acme/app"


@pytest.fixture
def mixed(memory, clock):
    """The project, the global scope and another project interleaved, two kinds, record times
    shared by neighbours (ties), one memory archived."""
    for i in range(24):
        memory.remember(HUMAN, f"Step {i} of the deploy script checks host {i * 7}", project=(P, "", "other")[i % 3],
                        kind=("note", "decision")[i % 2], force=True)
        if i % 4 == 3:
            clock.advance(seconds=1)
    memory.archive(HUMAN, memory.recent(P, limit=3)[1].memory_id, reason="old")
    return memory


def sorted_all(memory, scope: Scope) -> list[int]:
    with memory.ctx.store.read() as conn:
        rows = memories.list_rows(conn, scope, limit=1000)
    return [r.id for r in sorted(rows, key=lambda r: (r.recorded_at, r.id), reverse=True)]


@pytest.mark.parametrize("kinds", [(), ("decision",), ("note", "decision"), ("document",)])
@pytest.mark.parametrize("limit", [1, 5, 100])
def test_the_newest_are_those_of_sorting_every_row(mixed, kinds, limit):
    scope = Scope(projects=(P, ""), states=("active",), kinds=kinds)
    newest = [r.id for r in mixed.recent(P, kinds=kinds, limit=limit)]
    assert newest == sorted_all(mixed, scope)[:limit]
    if kinds != ("document",):
        assert newest  # positive control: there is something to list


@pytest.mark.sqlite_only
def test_each_walk_reads_an_index_in_order_without_sorting(mixed):
    statements: list[str] = []
    with mixed.ctx.store.read() as conn:
        conn.set_trace_callback(statements.append)  # statements with their values bound
        try:
            for kinds in ((), ("note", "decision")):
                memories.newest(conn, Scope(projects=(P, ""), states=("active",), kinds=kinds), limit=5)
        finally:
            conn.set_trace_callback(None)
        plans = [" ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)) for sql in statements]
    assert len(plans) == 2 + 4  # a walk per project, then per project and kind
    assert all("memories_newest" in plan and "TEMP B-TREE" not in plan for plan in plans), plans

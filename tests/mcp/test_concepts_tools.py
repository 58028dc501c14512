"""inspect (concepts, related) and review_concept over MCP (issue 19): an agent reads the concept graph, and
its verdict is a proposal that changes nothing until a person accepts it."""

from __future__ import annotations

from tests.conftest import HUMAN
from tests.mcp.conftest import PROJECT, call, call_error, connect


async def test_an_agents_review_is_a_proposal_and_the_graph_is_readable(memory, server):
    pg = memory.remember(HUMAN, "The pg dump runs nightly", project=PROJECT)
    postgres = memory.remember(HUMAN, "PostgreSQL dump files go to the backup bucket", project=PROJECT)
    async with connect(server) as client:
        proposal = await call(client, "review_concept", verb="merge", a="pg", b="PostgreSQL", reason="one database")
        assert (proposal["status"], proposal["action"], proposal["arguments"]) == (
            "pending", "concept", {"verb": "merge", "a": "pg", "b": "postgresql"})
        listed = {c["name"]: c for c in (await call(client, "inspect", what="concepts"))["concepts"]}
        assert "pg" in listed and listed["postgresql"]["aliases"] == []  # nothing changed yet
        memory.accept_proposal(HUMAN, proposal["id"])
        listed = {c["name"]: c for c in (await call(client, "inspect", what="concepts"))["concepts"]}
        assert listed["postgresql"]["aliases"] == ["pg"] and listed["postgresql"]["count"] == 2
        related = (await call(client, "inspect", what="related", memory_id=pg.id))["related"]
        assert related[0]["memory"]["id"] == postgres.id and "postgresql" in related[0]["shared"]
        assert (await call_error(client, "review_concept", verb="merge", a="pg", reason="x")).startswith("b: ")

"""Compaction for agents (issue 19): read a cluster, submit its summary, which waits for a person."""

from __future__ import annotations

from tests.conftest import HUMAN, person_of
from tests.mcp.conftest import CLIENT_NAME, PROJECT, call, call_error, connect

DEPLOY = ["Deploys go out from the release branch every Tuesday.",
          "We deploy the release branch on Tuesdays after the QA sign-off.",
          "Tuesday is deploy day: the release branch goes out to production."]
SUMMARY = "Releases: the release branch is deployed every Tuesday, after the QA sign-off."


async def test_an_agent_reads_a_cluster_and_its_summary_waits_for_a_person(server, memory, db_path):
    ids = [memory.remember(HUMAN, text, project=PROJECT, valid_from="2025-06-01", force=True).id for text in DEPLOY]
    memory.remember(HUMAN, "Logs are shipped to Loki and kept for 14 days.", project=PROJECT, valid_from="2025-06-01")
    async with connect(server) as client:
        listed = (await call(client, "compact"))["clusters"]
        assert [c["member_ids"] for c in listed] == [ids]
        cluster_id = listed[0]["id"]
        texts = await call(client, "compact", cluster_id=cluster_id)
        assert [m["content"] for m in texts["members"]] == DEPLOY and [m["id"] for m in texts["members"]] == ids
        outcome = await call(client, "compact", cluster_id=cluster_id, summary=SUMMARY, reason="one rule")
        missing = await call_error(client, "compact", cluster_id="c0000")
    assert outcome["status"] == "proposed" and "summary" not in outcome
    proposal = outcome["proposal"]
    assert (proposal["action"], proposal["actor"], proposal["arguments"]["member_ids"]) == (
        "compact", f"mcp:{CLIENT_NAME} for {person_of(db_path)}", ids)
    assert "no cluster c0000" in missing
    assert [memory.get(i).state for i in ids] == ["active"] * 3  # nothing changes before a person accepts

    result = memory.accept_proposal(HUMAN, proposal["id"])
    assert [memory.get(i).state for i in ids] == ["superseded"] * 3
    async with connect(server) as client:
        history = await call(client, "inspect", what="history", memory_id=ids[0])
        assert history["summarised_by"] == result.summary.memory_id
        assert history["versions"][-1]["state"] == "superseded"
        recalled = await call(client, "recall", query="which day do we deploy the release branch")
    found = [r["id"] for r in recalled["results"] if r["kind"] != "abandoned"]
    assert result.summary.memory_id in found and not set(ids) & set(found)

"""Compaction from the real `cenotaph` command (issue 19 "Done when"): `compact` proposes a
cluster, applying a summary keeps its sources out of recall until the summary is forgotten."""

from __future__ import annotations

from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.operations.importing import ImportItem
from cenotaph.memory.service import Memory
from tests.conftest import AGENT, HUMAN, cli_memory, cli_store
from tests.e2e.test_cli_trust import js, run

P = ("--project", "p")
DEPLOY = ["Deploys go out from the release branch every Tuesday.",
          "We deploy the release branch on Tuesdays after the QA sign-off.",
          "Tuesday is deploy day: the release branch goes out to production."]
QUERY = "which day do we deploy the release branch"


def recalled(env):
    return [r["id"] for r in js(env, "recall", QUERY, *P)["results"] if r["result_type"] == "memory"]


def test_compact_apply_then_forget_the_summary(cli_env, embedder, analyzer):
    with cli_memory(cli_env, embedder, analyzer) as memory:  # the history to compact: the setting, not the test
        texts = [*DEPLOY, "Logs are shipped to Loki and kept for 14 days."]
        items = [ImportItem(t, valid_from="2025-06-01") for t in texts]
        assert memory.import_memories(HUMAN, items, project="p").imported == 4
        too_recent = memory.remember(HUMAN, "The release branch is deployed on Tuesdays, every week.", project="p",
                                     force=True)
        assert too_recent.id == 5

    clusters = js(cli_env, "compact", *P)["clusters"]
    assert [c["member_ids"] for c in clusters] == [[1, 2, 3]]
    cluster_id = clusters[0]["id"]
    listing = run(cli_env, "compact", "--older-than", "30", *P).stdout
    assert f"cluster {cluster_id}: 3 memories" in listing and "#4" not in listing
    assert {1, 2, 3} <= set(recalled(cli_env))  # positive control

    missing = run(cli_env, "compact", "apply", cluster_id, *P, check=False)
    assert missing.returncode == 2 and "summary" in missing.stderr
    applied = js(cli_env, "compact", "apply", cluster_id, "--summary", "Releases go out every Tuesday.",
                 "--reason", "one rule", *P)
    summary_id = applied["summary"]["memory_id"]
    assert applied["superseded"] == [1, 2, 3]
    found = recalled(cli_env)
    assert summary_id in found and not {1, 2, 3} & set(found)
    text = run(cli_env, "history", "1").stdout
    assert "state active → superseded" in text and f"summary #{summary_id} stands for it" in text

    run(cli_env, "forget", str(summary_id), "--reason", "too coarse", "--confirm", *P)
    assert {1, 2, 3} <= set(recalled(cli_env))


def test_an_agents_summary_is_listed_with_its_text_and_accepted_from_the_command_line(cli_env, embedder, analyzer):
    store = open_store(cli_store(cli_env))
    try:
        memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
        for text in DEPLOY:
            memory.remember(AGENT, text, project="p", valid_from="2025-06-01", force=True)
        cluster = memory.compact_candidates("p")[0]
        memory.compact_apply(AGENT, "p", cluster.id, summary="Releases go out every Tuesday.", reason="one rule")
    finally:
        store.close()
    listing = run(cli_env, "proposals", *P).stdout
    assert "mcp:test-agent proposes a summary of #1, #2, #3: one rule" in listing
    assert "    Releases go out every Tuesday." in listing
    accepted = js(cli_env, "accept", "1", *P)
    assert accepted["superseded"] == [1, 2, 3] and accepted["summary"]["content"] == "Releases go out every Tuesday."

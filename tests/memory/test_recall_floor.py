"""Recall's relevance floor (memory/core/recall.py): a memory the query gave no evidence for (its
cosine and its share of the query's words both below the floor) is not returned to fill k, and
every edge says that nothing else matched. The real embedding model ranks."""

from __future__ import annotations

import subprocess

from cenotaph.mcp.tools.results import recall_reply
from tests.conftest import CENOTAPH, HUMAN, cli_memory

PROJECT = "acme/dashboard"
ANSWER = "We display times with moment.js in the dashboard because date-fns lacked timezone support."
# The control: relevant too, in other words (no word of the query's).
REPHRASED = "The UI formats timestamps through a date library that understands time zones."
UNRELATED = ["The staging database is reset every Monday at 6am.",
             "Alice prefers tabs over spaces in Makefiles.",
             "Deploys go through the blue-green pipeline in CI.",
             "Use pytest fixtures instead of setUp methods."]
QUERY = "which library shows the times in the dashboard"


def seed(memory) -> tuple[int, int, set[int]]:
    answer = memory.remember(HUMAN, ANSWER, project=PROJECT).id
    rephrased = memory.remember(HUMAN, REPHRASED, project=PROJECT).id
    unrelated = {memory.remember(HUMAN, text, project=PROJECT).id for text in UNRELATED}
    return answer, rephrased, unrelated


def test_recall_returns_the_relevant_and_says_nothing_else_matched(memory):
    answer, rephrased, unrelated = seed(memory)
    response = memory.recall(HUMAN, QUERY, project=PROJECT, k=5, log=False)
    assert {r.id for r in response.results} == {answer, rephrased}
    assert response.nothing_else_matched and response.below_floor == 3  # k = 5: three left out to fill it

    # Without the floor the same store pads the list with the unrelated ones.
    memory.recaller.rules = type(memory.recaller.rules)(floor=0.0)
    padded = memory.recall(HUMAN, QUERY, project=PROJECT, k=5, log=False)
    assert len(padded.results) == 5 and set(r.id for r in padded.results) & unrelated
    assert not padded.nothing_else_matched and padded.below_floor == 0


def test_the_time_a_question_asks_about_is_evidence(memory):
    """A memory from the period a question names is an answer even in other words; one from
    another month with the same (lack of) words is left out (the control)."""
    then = memory.remember(HUMAN, "Staging moved to the new cluster.", project=PROJECT,
                           valid_from="2026-01-14T10:00:00Z").id
    other = memory.remember(HUMAN, "Staging got a bigger disk.", project=PROJECT,
                            valid_from="2025-07-02T10:00:00Z").id
    response = memory.recall(HUMAN, "what did the team decide in January 2026", project=PROJECT, k=5, log=False)
    found = {r.id for r in response.results}
    assert then in found and other not in found


def test_a_full_list_does_not_say_nothing_else_matched(memory):
    seed(memory)
    response = memory.recall(HUMAN, QUERY, project=PROJECT, k=2, log=False)
    assert len(response.results) == 2 and not response.nothing_else_matched


def test_the_exact_lane_has_no_floor(memory):
    """A syntax-shaped query is answered by exact matches; `moment.js` finds its one memory
    without a claim about the rest."""
    answer, _, _ = seed(memory)
    response = memory.recall(HUMAN, "moment.js", project=PROJECT, k=5, log=False)
    assert response.lane == "exact" and response.results[0].id == answer
    assert not response.nothing_else_matched


def test_the_mcp_reply_says_nothing_else_matched(memory):
    seed(memory)
    reply = recall_reply(memory.recall(HUMAN, QUERY, project=PROJECT, k=5, log=False), explain=False)
    assert reply.structured_content["nothing_else_matched"] is True
    assert reply.content[0].text.endswith("note: nothing else matched (3 weaker left out)")
    full = recall_reply(memory.recall(HUMAN, QUERY, project=PROJECT, k=2, log=False), explain=False)  # the control
    assert "nothing_else_matched" not in full.structured_content
    assert "nothing else matched" not in full.content[0].text


def test_the_cli_says_nothing_else_matched(cli_env, embedder, analyzer):
    with cli_memory(cli_env, embedder, analyzer) as memory:
        answer, rephrased, unrelated = seed(memory)
    out = subprocess.run([CENOTAPH, "recall", "--project", PROJECT, "-k", "5", "--", QUERY], env=cli_env,
                         capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    assert f"#{answer} " in out and f"#{rephrased} " in out
    assert not any(f"#{u} " in out for u in unrelated)
    assert lines[-1] == "Nothing else matched (3 weaker left out)."

"""Recall quality rules (issue 8), each with a positive control in the same fixture: the context
of a sitting, the answer after a question, periods and "when" questions, query stop words, and
the bench's single lanes ranking by their own score alone."""

from __future__ import annotations

from datetime import date

import pytest
from cenotaph.memory.core import recall
from cenotaph.memory.core.remember import SITTING_MINUTES
from cenotaph.nlp import dates
from cenotaph.nlp.analysis import query_stop_words

from tests.conftest import HUMAN

P = "github.com/acme/app"
QUESTION = "Which queue should the mailer use for retries?"
ANSWER = "We settled on a dedicated RabbitMQ vhost, with dead-lettering after five attempts."


def by_id(response):
    return {r.id: r for r in response.results if r.result_type == "memory"}


def test_a_memory_is_indexed_with_what_was_written_just_before_it_in_the_sitting(memory, clock):
    question = memory.remember(HUMAN, QUESTION, project=P)
    clock.advance(minutes=2)
    answer = memory.remember(HUMAN, ANSWER, project=P)
    clock.advance(minutes=SITTING_MINUTES + 1)
    later = memory.remember(HUMAN, "The mailer templates live in the design repo.", project=P)
    memory.remember(HUMAN, "Unrelated: the CDN cache is purged on deploy.", project="github.com/acme/other")
    assert QUESTION in memory.get(answer.id).context
    # Positive control: a memory written after the sitting ended, or in another project, carries none.
    assert memory.get(later.id).context == ""
    assert memory.get(question.id).context == ""
    # The answer never says "queue" or "mailer"; its context does, so the full-text lane finds it.
    found = by_id(memory.recall(HUMAN, "mailer retry queue", project=P, lane="bm25"))
    assert answer.id in found and found[answer.id].components.bm25 is not None


def test_forgetting_a_memory_removes_its_words_from_the_context_of_the_next(memory, clock):
    question = memory.remember(HUMAN, QUESTION, project=P)
    answer = memory.remember(HUMAN, ANSWER, project=P)
    other = memory.remember(HUMAN, "The retry budget for webhooks is three attempts.", project=P)
    assert QUESTION in memory.get(answer.id).context and QUESTION in memory.get(other.id).context
    memory.forget(HUMAN, question.id, reason="wrong project", confirm=True)
    assert QUESTION not in memory.get(answer.id).context
    assert QUESTION not in memory.get(other.id).context
    # Positive control: the context the answer gave the next memory stays.
    assert ANSWER in memory.get(other.id).context


def test_a_question_passes_part_of_its_score_to_the_answer_written_next(memory, clock):
    memory.remember(HUMAN, "What port does the staging API listen on?", project=P)
    answer = memory.remember(HUMAN, "8443, behind the nginx proxy.", project=P)
    clock.advance(minutes=SITTING_MINUTES + 5)
    memory.remember(HUMAN, "Which port does the metrics exporter use?", project=P)
    clock.advance(minutes=SITTING_MINUTES + 5)
    late = memory.remember(HUMAN, "9100, like every node exporter.", project=P)
    results = by_id(memory.recall(HUMAN, "staging API port", project=P))
    assert results[answer.id].components.passed_on > 0
    assert list(results).index(answer.id) < 3
    # Positive control: an answer written in a later sitting gets nothing from its question.
    results = by_id(memory.recall(HUMAN, "metrics exporter port", project=P))
    assert results[late.id].components.passed_on == 0


def test_a_memory_that_only_asks_ranks_a_little_below_one_that_tells(memory, clock):
    asks = memory.remember(HUMAN, "Does the staging API still listen on 8443?", project=P)
    clock.advance(minutes=SITTING_MINUTES + 1)
    tells = memory.remember(HUMAN, "The staging API listens on 8443 behind nginx.", project=P)
    results = by_id(memory.recall(HUMAN, "staging API port 8443", project=P))
    best = max(r.components.bm25 or 0.0 for r in results.values())

    def fused(result):
        c = result.components
        return recall.BM25_WEIGHT * (c.bm25 or 0.0) / best + (1 - recall.BM25_WEIGHT) * c.cosine

    assert results[asks.id].components.relevance == pytest.approx(recall.QUESTION_FACTOR * fused(results[asks.id]),
                                                                  abs=1e-5)
    # Positive control: a memory that tells keeps its fused relevance whole.
    assert results[tells.id].components.relevance == pytest.approx(fused(results[tells.id]), abs=1e-5)


def test_a_named_period_boosts_memories_that_held_then(memory, clock):
    may = memory.remember(HUMAN, "The deploy script moved to GitHub Actions.", project=P, force=True,
                          valid_from="2023-05-10")
    clock.advance(minutes=SITTING_MINUTES + 1)
    september = memory.remember(HUMAN, "The deploy script moved to GitHub Actions.", project=P, force=True,
                                valid_from="2023-09-02")
    response = memory.recall(HUMAN, "what happened to the deploy script in May 2023", project=P)
    results = by_id(response)
    assert list(results)[0] == may.id
    assert results[may.id].components.temporal_boost > 1.5
    # Positive control: the same words valid months away get no boost.
    assert results[september.id].components.temporal_boost == 1.0


def test_a_period_draws_matches_that_the_whole_store_ranking_would_miss(memory):
    for i in range(recall.CANDIDATES + 10):
        memory.remember(HUMAN, f"Deploy script run {i}: the deploy script deployed bundle {i}.", project=P,
                        force=True, valid_from="2024-01-10")
    inside = memory.remember(HUMAN, "Old notes: the script behind releases was retired, with other tools nobody "
                             "used any more.", project=P, valid_from="2023-05-10")
    found = by_id(memory.recall(HUMAN, "deploy script in May 2023", project=P))
    assert inside.id in found and found[inside.id].components.temporal_boost > 1.5
    # Positive control: a month without a year boosts but reaches no single range to draw from, and
    # the weaker match is then not even a candidate (it would show, boosted, if it were).
    assert inside.id not in by_id(memory.recall(HUMAN, "deploy script in May", project=P))


def test_a_when_question_prefers_memories_that_say_when(memory):
    dated = memory.remember(HUMAN, "We migrated the billing database to Postgres 16 last week.", project=P)
    undated = memory.remember(HUMAN, "The billing database runs on Postgres 16.", project=P)
    results = by_id(memory.recall(HUMAN, "when did the billing database move to Postgres 16?", project=P))
    assert results[dated.id].components.temporal_boost == 1 + recall.WHEN_BOOST
    # Positive control: a memory that says nothing about time, and a question that asks no "when".
    assert results[undated.id].components.temporal_boost == 1.0
    results = by_id(memory.recall(HUMAN, "which Postgres does the billing database run on", project=P))
    assert results[dated.id].components.temporal_boost == 1.0


def test_the_single_lanes_rank_by_their_own_score_alone(memory):
    dated = memory.remember(HUMAN, "The search index was rebuilt in March 2024.", project=P,
                            valid_from="2024-03-05")
    semantic = by_id(memory.recall(HUMAN, "search index rebuild in March 2024", project=P))
    bm25 = by_id(memory.recall(HUMAN, "search index rebuild in March 2024", project=P, lane="bm25"))
    assert bm25[dated.id].components.temporal_boost == 1.0
    # Positive control: the shipped lane reads the period.
    assert semantic[dated.id].components.temporal_boost > 1.0


def test_query_stop_words_drop_function_words_and_keep_meaningful_ones():
    stop = query_stop_words()
    assert {"what", "when", "did", "the", "of"} <= stop
    assert not {"show", "first", "name", "take", "move"} & stop


def test_periods_named_in_english():
    today = date(2025, 3, 12)  # a Wednesday

    def spans(text):
        return [(p.start.isoformat(), p.end.isoformat(), p.every_year) for p in dates.periods(text, today)]

    assert spans("what did we ship on 8 May, 2023") == [("2023-05-08", "2023-05-09", False)]
    assert spans("decisions from May 2023") == [("2023-05-01", "2023-06-01", False)]
    assert spans("between August 11 and August 15 2023") == [
        ("2023-08-11", "2023-08-12", False), ("2023-08-15", "2023-08-16", False)]
    assert spans("what broke in July") == [("2000-07-01", "2000-08-01", True)]
    assert spans("the outage in 2022") == [("2022-01-01", "2023-01-01", False)]
    assert spans("what changed last week") == [("2025-03-03", "2025-03-10", False)]
    assert spans("yesterday") == [("2025-03-11", "2025-03-12", False)]
    assert spans("2024-02-29") == [("2024-02-29", "2024-03-01", False)]
    # Positive controls: "may" the verb, a bare number and a name are not dates.
    assert spans("may I restart the worker on port 2022") == []
    assert spans("what did Jan say") == []
    assert dates.asks_when("When did we move to Postgres?") and not dates.asks_when("Where is the config?")
    assert dates.mentions_time("we moved it last Friday") and not dates.mentions_time("we may move it")


def pipeline_runs(memory, monkeypatch):
    """Twelve memories that say "pipeline run", one that says "pipeline" among rarer words, and a
    full-text budget of 5 rows; returns the rare one."""
    for i in range(12):
        memory.remember(HUMAN, f"Pipeline run {i} finished green.", project=P, force=True)
    rare = memory.remember(HUMAN, "The pipeline publishes wheels to the internal index.", project=P)
    monkeypatch.setattr(recall, "FTS_ROW_BUDGET", 5)
    return rare


def test_words_in_too_many_memories_are_left_to_the_vector_lane(memory, monkeypatch):
    rare = pipeline_runs(memory, monkeypatch)
    response = memory.recall(HUMAN, "pipeline wheels", project=P, lane="bm25")
    assert response.notices == ["words in too many memories to rank by full text: pipeline"]
    assert [r.id for r in response.results] == [rare.id]  # matched by "wheels" alone
    # Positive control: within the budget the common word ranks too.
    monkeypatch.setattr(recall, "FTS_ROW_BUDGET", 10_000)
    response = memory.recall(HUMAN, "pipeline wheels", project=P, lane="bm25")
    assert response.notices == [] and len(response.results) == 10 and response.results[0].id == rare.id


def test_a_stop_word_lends_no_lemma_to_the_full_text_query(memory):
    doe = memory.remember(HUMAN, "A doe crossed the test track behind the lab.", project=P)
    assert doe.id not in by_id(memory.recall(HUMAN, "does it close early", project=P, lane="bm25"))
    # Positive control: the word itself finds it.
    assert doe.id in by_id(memory.recall(HUMAN, "doe", project=P, lane="bm25"))


def test_a_compound_term_costs_the_rows_of_each_of_its_tokens(memory, monkeypatch):
    rare = pipeline_runs(memory, monkeypatch)
    # "pipeline_run" is the phrase "pipeline run" to FTS5: 25 rows of tokens, over the budget.
    response = memory.recall(HUMAN, "pipeline_run wheels", project=P, lane="bm25")
    assert response.notices == ["words in too many memories to rank by full text: pipeline_run"]
    assert [r.id for r in response.results] == [rare.id]
    # Positive control: a compound of rare tokens stays in the query.
    response = memory.recall(HUMAN, "internal_index wheels", project=P, lane="bm25")
    assert response.notices == [] and [r.id for r in response.results] == [rare.id]


# --- issue 20: rules that hold on conversations they were not tuned on ---------------------------------

def _ledger_and_quorum(memory, clock):
    """"ledger" is rare in the store but in most of this project's memories; "quorum" is the reverse."""
    for i in range(14):
        memory.remember(HUMAN, f"Quorum reads on replica {i} of the other service.", project="github.com/acme/other",
                        force=True)
        clock.advance(minutes=SITTING_MINUTES + 1)
    for i in range(6):
        memory.remember(HUMAN, f"Ledger entry {i} was reconciled.", project=P, force=True)
        clock.advance(minutes=SITTING_MINUTES + 1)
    ledger = memory.remember(HUMAN, "The ledger export runs nightly.", project=P)
    clock.advance(minutes=SITTING_MINUTES + 1)
    quorum = memory.remember(HUMAN, "Writes need a quorum of three nodes.", project=P)
    for i in range(3):
        clock.advance(minutes=SITTING_MINUTES + 1)
        memory.remember(HUMAN, f"Dashboard panel {i} was renamed.", project=P, force=True)
    return ledger, quorum


def test_full_text_weighs_a_word_by_its_rarity_in_the_project_not_the_whole_store(memory, clock):
    ledger, quorum = _ledger_and_quorum(memory, clock)
    ranked = [r.id for r in memory.recall(HUMAN, "ledger quorum", project=P, lane="bm25").results]
    assert ranked.index(quorum.id) < ranked.index(ledger.id)


@pytest.mark.sqlite_only("FTS5 weighs terms over the whole index; PostgreSQL's lane counts them in scope already")
def test_without_the_scope_statistics_the_projects_common_word_wins(memory, clock):
    # Positive control for the rule above: with the whole store's statistics the ranking flips.
    ledger, quorum = _ledger_and_quorum(memory, clock)
    memory.recaller.rules = recall.Rules(scope_idf=False)
    ranked = [r.id for r in memory.recall(HUMAN, "ledger quorum", project=P, lane="bm25").results]
    assert ranked.index(ledger.id) < ranked.index(quorum.id)


def test_a_scope_holding_most_of_the_store_keeps_the_stores_statistics(memory, clock, monkeypatch):
    ledger, quorum = _ledger_and_quorum(memory, clock)
    searched: list[str] = []
    term_hits = recall.memories.fts_term_hits

    def counted(conn, match, *rest):
        searched.append(match)
        return term_hits(conn, match, *rest)
    monkeypatch.setattr(recall.memories, "fts_term_hits", counted)
    # The other project holds 14 of the store's 25 memories: this one's own statistics rank.
    memory.recall(HUMAN, "ledger quorum", project=P, lane="bm25")
    assert searched
    # Its 14 memories are 56 % of the store, under the 80 % above which the store's statistics serve.
    searched.clear()
    ranked = [r.id for r in memory.recall(HUMAN, "quorum replica", project="github.com/acme/other", lane="bm25").results]
    assert searched and ranked
    # A scope holding all but one memory of the store: FTS5's own ranked query, no per-term search.
    searched.clear()
    for i in range(60):
        memory.remember(HUMAN, f"Ledger line {i} was reconciled by the night job.", project=P, force=True)
    ranked = [r.id for r in memory.recall(HUMAN, "ledger quorum", project=P, lane="bm25").results]
    assert not searched and quorum.id in ranked and ledger.id in ranked


def test_periods_stated_against_a_day():
    today = date(2025, 3, 12)

    def spans(text, anchored=True):
        return [(p.start.isoformat(), p.end.isoformat()) for p in dates.periods(text, today, anchored=anchored)]

    assert spans("the week before 9 June 2023") == [("2023-06-02", "2023-06-09")]
    assert spans("two weeks before August 11, 2023") == [("2023-07-25", "2023-08-01")]
    assert spans("on the Sunday before October 25, 2022") == [("2022-10-23", "2022-10-24")]
    assert spans("last weekend before April 10, 2023") == [("2023-04-08", "2023-04-10")]
    assert spans("the week of 23 August 2023") == [("2023-08-21", "2023-08-28")]
    assert spans("the day after 1 May 2023") == [("2023-05-02", "2023-05-03")]
    # Positive controls: a day alone, and the rule switched off, read the day.
    assert spans("on 9 June 2023") == [("2023-06-09", "2023-06-10")]
    assert spans("the week before 9 June 2023", anchored=False) == [("2023-06-09", "2023-06-10")]


def test_a_period_stated_against_a_day_boosts_the_memories_of_that_period(memory, clock):
    that_week = memory.remember(HUMAN, "The release train left on time.", project=P, force=True,
                                valid_from="2023-06-05")
    clock.advance(minutes=SITTING_MINUTES + 1)
    that_day = memory.remember(HUMAN, "The release train left on time.", project=P, force=True,
                               valid_from="2023-06-12")
    query = "what happened to the release train the week before 12 June 2023"
    ranked = [r.id for r in memory.recall(HUMAN, query, project=P).results]
    assert ranked.index(that_week.id) < ranked.index(that_day.id)
    # Positive control: read as the day alone, the same words favour the day.
    memory.recaller.rules = recall.Rules(anchored_dates=False)
    ranked = [r.id for r in memory.recall(HUMAN, query, project=P).results]
    assert ranked.index(that_day.id) < ranked.index(that_week.id)


def test_a_memory_relative_date_is_read_from_its_own_valid_time(memory, clock):
    told = memory.remember(HUMAN, "Last week we moved the staging cluster to the new region.", project=P,
                           valid_from="2023-06-30")
    clock.advance(minutes=SITTING_MINUTES + 1)
    planned = memory.remember(HUMAN, "Next month we move the staging cluster to the new region.", project=P,
                              force=True, valid_from="2023-06-30")
    query = "what happened to the staging cluster on 21 June 2023"
    results = by_id(memory.recall(HUMAN, query, project=P))
    assert results[told.id].components.temporal_boost > 1.5
    # Positive controls: a memory whose own dates lie elsewhere, and the rule switched off.
    assert results[planned.id].components.temporal_boost == 1.0
    memory.recaller.rules = recall.Rules(memory_dates=False)
    assert by_id(memory.recall(HUMAN, query, project=P))[told.id].components.temporal_boost == 1.0


def test_a_word_is_found_with_or_without_its_accents(memory):
    # Written first, so that the café's words are not in its sitting's context.
    memory.remember(HUMAN, "The deploy window closes at noon on Fridays.", project=P)
    cafe = memory.remember(HUMAN, "The team lunch is at the café on Rue Cler.", project=P).id
    for query in ("cafe", "café", "CAFÉ", "Cafe"):
        ranked = memory.recall(HUMAN, query, project=P, k=5, lane="bm25").results
        assert [r.id for r in ranked] == [cafe], query

"""One answer on either store (issue 30): the same memories and questions rank alike on SQLite and
PostgreSQL. PostgreSQL computes FTS5's own BM25 (store/postgres/memories.py), so the `bm25`
component is one number on both, and ties fall to the older memory on both."""

from __future__ import annotations

import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.core.recall import Rules
from cenotaph.memory.service import Memory

from tests.conftest import HUMAN, STORES, Clock

P = "github.com/acme/app"
OTHER = "github.com/acme/billing"
MEMORIES = [
    (P, "Tests run on the self-hosted CI runner ci-runner-03, a 16-core box in the office rack."),
    (P, "The CI pipeline caches pip wheels between runs; a cache miss costs four minutes."),
    (P, "We moved the nightly build off GitHub-hosted runners because of the 6 hour limit."),
    (P, "Which CI runner do the integration tests use? They need Docker with privileged mode."),
    (P, "The integration tests use the docker_runner label: only ci-runner-03 has privileged Docker."),
    (P, "Retry flaky tests at most twice; a test that needs three retries is quarantined."),
    (P, "The staging_database is refreshed from a production snapshot every Sunday night."),
    (P, "Staging database credentials rotate monthly; the deploy job reads them from Vault."),
    (P, "Deploys go out on Tuesdays and Thursdays, never on Fridays."),
    (P, "runner runner runner: the word repeated, to check how term frequency saturates."),
    (P, "A long note about runners. " + "The build farm has many machines and many queues, and the "
        "scheduler assigns jobs by label, by size and by the age of the queue; " * 6),
    (P, "Café opening hours do not matter to the build, but the diacritics must fold alike."),
    ("", "Prefer ruff over flake8 in every repository; it is faster and one tool."),
    ("", "Tests that touch the network are marked and skipped on CI runners without egress."),
    (OTHER, "Billing tests run on the shared CI runner pool, not on the office rack."),
    (OTHER, "Invoices are rendered by a worker; the worker queue is drained before deploys."),
    (OTHER, "The billing staging database is separate from the app's staging database."),
    (OTHER, "Runner images for billing are rebuilt weekly from the base image."),
]
QUESTIONS = [
    "which CI runner do tests use",
    "where do the integration tests run with Docker",
    "how often is the staging database refreshed",
    "staging_database refresh",
    "when do deploys happen",
    "runner",
    "flaky test retries",
    "cafe hours",
    "which linter do we prefer",
    "build scheduler queues and labels",
]


def _stores(tmp_path, pg_url, embedder, analyzer):
    if "postgres" not in STORES:
        pytest.skip("CENOTAPH_TEST_STORES leaves PostgreSQL out")
    opened = []
    for db in (tmp_path / "cenotaph.db", pg_url):
        memory = Memory(Context(store=open_store(db), embedder=embedder, analyzer=analyzer, clock=Clock()))
        for project, content in MEMORIES:
            memory.remember(HUMAN, content, project=project, force=True)
            memory.ctx.clock.advance(minutes=7)
        opened.append(memory)
    return opened


def _ranked(memory: Memory, question: str, project: str, lane: str | None) -> list[tuple[str, float | None, float]]:
    response = memory.recall(HUMAN, question, project=project, lane=lane, log=False)
    return [(r.content, None if r.components.bm25 is None else round(r.components.bm25, 9), r.score)
            for r in response.results if r.result_type == "memory"]


@pytest.mark.parametrize("scope_idf", [True, False], ids=["scope-idf", "store-idf"])
def test_the_same_questions_rank_alike_on_sqlite_and_postgresql(tmp_path, pg_url, embedder, analyzer, scope_idf):
    sqlite, postgres = _stores(tmp_path, pg_url, embedder, analyzer)
    try:
        for memory in (sqlite, postgres):
            memory.recaller.rules = Rules(scope_idf=scope_idf)
        compared = 0
        for question in QUESTIONS:
            for project in (P, ""):
                for lane in ("bm25", None):
                    on_sqlite = _ranked(sqlite, question, project, lane)
                    on_postgres = _ranked(postgres, question, project, lane)
                    assert [c for c, _, _ in on_postgres] == [c for c, _, _ in on_sqlite], (question, project, lane)
                    # The BM25 component itself is one number on both stores, not two scales.
                    assert [b for _, b, _ in on_postgres] == [b for _, b, _ in on_sqlite], (question, project, lane)
                    compared += len(on_sqlite)
        # Positive control: the lists compared are full ones, ranked by full-text scores.
        first = _ranked(sqlite, QUESTIONS[0], P, "bm25")
        assert len(first) == 10 and all(b is not None for _, b, _ in first)
        assert compared > 100  # recall's floor leaves out what a question gave no evidence for
    finally:
        for memory in (sqlite, postgres):
            memory.ctx.store.close()


def test_the_exact_lane_ranks_alike_on_both_stores(tmp_path, pg_url, embedder, analyzer):
    sqlite, postgres = _stores(tmp_path, pg_url, embedder, analyzer)
    try:
        for question in ("ci-runner-03", "staging_database", "docker_runner label"):
            on_sqlite = _ranked(sqlite, question, P, "exact")
            assert on_sqlite, question
            assert _ranked(postgres, question, P, "exact") == on_sqlite, question
    finally:
        for memory in (sqlite, postgres):
            memory.ctx.store.close()


# More memories in one project than the vector lane's candidates (vectors.MIN_CANDIDATES, 40), each
# sentence twice: identical vectors, so ties at the candidates' cut and in the cosine order.
MANY = [f"Service {name} {verb} its {thing} on the {place}." for name, verb, thing, place in zip(
    ["billing", "search", "auth", "mailer", "exporter", "scheduler", "ingest", "gateway", "cache", "ledger",
     "reports", "thumbnails", "webhooks", "audit", "payments", "notifier", "crawler", "indexer", "backup",
     "metrics", "tracing", "quotas", "uploads", "sessions", "pricing"],
    ["rotates", "compacts", "replicates", "drains", "archives"] * 5,
    ["logs", "queue", "tokens", "shards", "snapshots"] * 5,
    ["Sunday night", "first of the month", "staging cluster", "office rack", "spare node"] * 5, strict=True)]


def test_the_vector_lane_draws_and_ranks_the_same_neighbours_on_both_stores(tmp_path, pg_url, embedder, analyzer):
    """The vector lane alone, over more memories than its candidates: the same neighbours in the
    same order with the same cosine on both stores (before, sqlite-vec's binary index and
    pgvector's HNSW index drew different candidates, and the two computed cosine apart)."""
    opened = []
    for db in (tmp_path / "many.db", pg_url):
        memory = Memory(Context(store=open_store(db), embedder=embedder, analyzer=analyzer, clock=Clock()))
        for content in MANY * 2:
            memory.remember(HUMAN, content, project=P, force=True)
        opened.append(memory)
    sqlite, postgres = opened
    try:
        for question in ("which service drains its queue", "snapshots on the spare node", "billing logs", "tokens"):
            for k in (3, 10, 50):
                on_sqlite = _ranked_k(sqlite, question, k)
                assert _ranked_k(postgres, question, k) == on_sqlite, (question, k)
        # Positive control: the lists hold tied neighbours (each sentence twice), older first, and
        # more than the candidates' cut when asked for 50.
        ranked = _ranked_k(sqlite, "billing logs", 50)
        assert len(ranked) == 50 and ranked[0][1] == ranked[1][1] and ranked[0][2] < ranked[1][2]
    finally:
        for memory in opened:
            memory.ctx.store.close()


def _ranked_k(memory: Memory, question: str, k: int) -> list[tuple[str, float, int]]:
    response = memory.recall(HUMAN, question, project=P, k=k, lane="vector", log=False)
    return [(r.content, r.components.cosine, r.id) for r in response.results if r.result_type == "memory"]


def test_a_long_lived_process_answers_as_a_fresh_one_after_another_writes(db_path, embedder, analyzer):
    """The scope's row counts (which BM25 weighs terms by) are kept per log head (Context.per_head):
    another process's write moves the head, and the kept counts with it."""
    def bm25(memory: Memory) -> list[tuple[int, float | None]]:
        return [(r.id, r.components.bm25) for r in memory.recall(HUMAN, "invoice queue", project=P, k=50).results]

    def opened() -> Memory:
        return Memory(Context(store=open_store(db_path), embedder=embedder, analyzer=analyzer))

    memory = opened()
    for i in range(9):
        memory.remember(HUMAN, f"Billing worker {i} drains the invoice queue at night", project=OTHER, force=True)
    memory.remember(HUMAN, "The invoice queue is drained before deploys", project=P)
    before = bm25(memory)  # the project is a tenth of the store: terms weighed by their rarity in it
    writer = opened()
    for i in range(40):  # now four fifths of it: weighed by the store's
        writer.remember(HUMAN, f"App job {i} reads the invoice queue", project=P, force=True)
    writer.close()
    fresh = opened()
    assert bm25(memory) == bm25(fresh) != before
    fresh.close()
    memory.close()

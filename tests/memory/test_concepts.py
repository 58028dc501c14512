"""Concepts (issue 19): extraction, each verdict surviving a rebuild (with a concept nobody reviewed
coming back as a positive control), alias expansion in recall (failing without the merge in the
same fixture), related memories, forgetting, and an agent's verdict as a proposal."""

from __future__ import annotations

import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict
from cenotaph.memory.service import Memory
from cenotaph.store import concepts as store_concepts
from cenotaph.store import events

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"
POSTGRES = [
    "PostgreSQL runs out of slots when every worker opens its own session",
    "We tuned postgres max_connections after the outage",
    "The pg dump runs nightly at 3am",
]
OTHERS = [
    "The HTTP connection pool of the API client holds 10 sockets",
    "Redis connection pool size is 50 per worker",
    "The thread pool for image resizing has 8 workers",
    "Connection pool timeouts show up in the gateway logs",
]


@pytest.fixture
def stored(memory):
    return [memory.remember(HUMAN, text, project=P).id for text in POSTGRES + OTHERS]


def names(memory) -> dict[str, object]:
    return {c.name: c for c in memory.concepts(P, limit=500)}


def pairs(memory) -> set[tuple[str, str]]:
    with memory.ctx.store.read() as conn:
        return {(low, high) for low, high, _ in store_concepts.pair_counts(conn, P, list(names(memory)), 1000)}


def test_extraction_finds_packages_paths_identifiers_and_word_runs(analyzer):
    analyzer.set_vocabulary(frozenset({"pgbouncer"}))
    found = dict(analyzer.analyze(
        "Put pgbouncer before PostgreSQL; see src/app/db.py and settings.toml, call open_pool() "
        "or db.connect from DatabasePool, the connection pools https://example.com/a/b").concepts)
    assert found["pgbouncer"] == "package"
    assert found["src/app/db.py"] == found["settings.toml"] == "path"
    assert found["postgresql"] == found["db.connect"] == found["databasepool"] == "identifier"
    assert found["open-pool"] == "package"  # snake_case names fold like package names (PEP 503)
    assert found["connection pool"] == found["connection"] == found["pool"] == "phrase"  # lemmatized
    # Stop words, polar words and URLs make no concept; the words beside them do.
    assert not {"the", "or", "before", "see", "put", "example.com", "https"} & set(found)


def test_each_memory_links_its_concepts_and_its_pairs_are_bounded(memory, stored):
    listed = names(memory)
    assert listed["pool"].count == 4 and listed["connection"].count == 3
    with memory.ctx.store.read() as conn:
        per_row = conn.execute("SELECT memory_row, COUNT(*) FROM concept_pairs GROUP BY memory_row").fetchall()
        links = conn.execute("SELECT COUNT(*) FROM memory_concepts").fetchone()[0]
    assert max(n for _, n in per_row) == 10  # 5 strongest concepts, not every pair
    assert links > 10 * len(stored) / 2


def test_merge_survives_rebuild_and_an_unreviewed_concept_comes_back(memory, stored):
    memory.concept_verdict(HUMAN, "merge", "pg", "PostgreSQL", project=P, reason="one database")
    memory.concept_verdict(HUMAN, "merge", "postgres", "postgresql", project=P)
    for _ in range(2):
        listed = names(memory)
        assert listed["postgresql"].aliases == ["pg", "postgres"] and listed["postgresql"].count == 3
        assert "pg" not in listed and "postgres" not in listed
        assert listed["redis"].count == 1  # positive control: nobody reviewed it, it is derived again
        memory.concepts_rebuild(HUMAN)
    # A memory written after the merge is linked to the canonical concept.
    later = memory.remember(HUMAN, "pg restarts drop every session", project=P)
    assert "postgresql" in {c for r in memory.related(later.id) for c in r.shared}


def test_remove_survives_rebuild_and_is_never_extracted_again(memory, stored):
    assert "worker" in names(memory)
    memory.concept_verdict(HUMAN, "remove", "workers", project=P, reason="noise")
    assert "worker" not in names(memory)
    memory.remember(HUMAN, "Every worker restarts at midnight", project=P)
    memory.concepts_rebuild(HUMAN)
    listed = names(memory)
    assert "worker" not in listed
    assert listed["pool"].count == 4  # positive control


def test_dismiss_survives_rebuild(memory, stored):
    assert ("connection", "pool") in pairs(memory)
    memory.concept_verdict(HUMAN, "dismiss", "pool", "connection", project=P, reason="not related")
    memory.concepts_rebuild(HUMAN)
    found = pairs(memory)
    assert ("connection", "pool") not in found
    assert ("connection", "redis") in found  # positive control: another pair of the same memory
    assert names(memory)["connection"].count == 3  # the concepts stay, only their link goes


def test_rename_survives_rebuild_and_refuses_a_name_in_use(memory, stored):
    memory.concept_verdict(HUMAN, "rename", "redis", "redis server", project=P)
    memory.concepts_rebuild(HUMAN)
    listed = names(memory)
    assert "redis" not in listed and listed["redis server"].aliases == ["redis"]
    assert "pool" in listed  # positive control
    with pytest.raises(Conflict):
        memory.concept_verdict(HUMAN, "rename", "pool", "connection", project=P)


def test_every_verdict_is_an_event_in_the_audit_log(memory, stored):
    memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=P)
    memory.concept_verdict(HUMAN, "remove", "worker", project=P)
    memory.concept_verdict(HUMAN, "dismiss", "connection", "pool", project=P)
    memory.concept_verdict(HUMAN, "rename", "redis", "redis server", project=P)
    with memory.ctx.store.read() as conn:
        logged = [(e.action, e.target) for e in events.query(conn, target=None, since_at=None, limit=1000)
                  if e.action.startswith("concept:")]
    assert logged == [("concept:merge", "concept:pg"), ("concept:remove", "concept:worker"),
                      ("concept:dismiss", "concept:connection"), ("concept:rename", "concept:redis")]
    assert memory.audit_verify().ok


def test_an_alias_in_the_query_draws_its_concepts_memories(memory, stored):
    postgres = set(stored[:len(POSTGRES)])

    def top(k: int = 4) -> list:
        return [r for r in memory.recall(HUMAN, "pg connection pool", project=P, k=k).results]

    # Without the merge the memories that say PostgreSQL or postgres (not pg) stay out of the top four.
    assert not set(stored[:2]) & {r.id for r in top()}
    assert all(r.components.concept == 0 and r.components.concepts == [] for r in top())
    memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=P)
    memory.concept_verdict(HUMAN, "merge", "postgres", "postgresql", project=P)
    found = top()
    assert postgres <= {r.id for r in found}
    for r in found:
        if r.id in postgres:
            assert r.components.concepts == ["postgresql"] and r.components.concept > 0
        else:
            assert r.components.concept == 0
    # The canonical name finds the memories that say only an alias, too.
    assert stored[2] in {r.id for r in memory.recall(HUMAN, "postgresql backups", project=P, k=3).results}


def test_related_lists_memories_sharing_concepts(memory, stored):
    found = {r.memory.memory_id: r.shared for r in memory.related(stored[4])}  # the Redis pool memory
    assert found[stored[3]] == ["connection", "pool"]  # the HTTP pool memory
    assert stored[4] not in found
    assert stored[2] not in found  # positive control: the pg dump memory shares nothing with it


def test_a_forgotten_memory_takes_its_concepts_with_it(memory, stored):
    assert "redis" in names(memory)
    memory.forget(HUMAN, stored[4], reason="wrong", confirm=True)
    assert "redis" not in names(memory)
    memory.concepts_rebuild(HUMAN)
    assert "redis" not in names(memory)
    assert "pool" in names(memory)


def test_an_agents_verdict_is_a_proposal_a_person_accepts(memory, stored):
    proposal = memory.concept_verdict(AGENT, "merge", "pg", "postgresql", project=P, reason="same database")
    assert proposal.status == "pending" and proposal.arguments == {"verb": "merge", "a": "pg", "b": "postgresql"}
    assert "pg" in names(memory)  # nothing changed yet
    memory.accept_proposal(HUMAN, proposal.id)
    assert names(memory)["postgresql"].aliases == ["pg"]
    with pytest.raises(Conflict):
        memory.accept_proposal(AGENT, proposal.id)


def test_a_verdict_on_a_removed_concept_or_on_one_concept_is_refused(memory, stored):
    memory.concept_verdict(HUMAN, "remove", "redis", project=P)
    with pytest.raises(Conflict):
        memory.concept_verdict(HUMAN, "merge", "pool", "redis", project=P)
    memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=P)
    with pytest.raises(Conflict):
        memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=P)


def test_a_listing_is_kept_until_any_process_writes(memory, stored, db_path, embedder, analyzer):
    first = names(memory)
    row = memory.recent(P, limit=1)[0].id
    with memory.ctx.store.write() as conn:  # behind the log's back: no event, the head stays
        conn.execute("INSERT INTO memory_concepts (memory_row, concept, kind) VALUES (?, 'hidden-link', 'phrase')",
                     (row,))
    assert names(memory).keys() == first.keys()  # kept: the head did not move
    other = open_store(db_path)  # another process's write moves the head the listing is kept for
    try:
        Memory(Context(store=other, embedder=embedder, analyzer=analyzer)).remember(HUMAN, "Kafka lags at night",
                                                                                    project=P)
    finally:
        other.close()
    fresh = names(memory)
    assert "hidden-link" in fresh and "kafka" in fresh and fresh["pool"].count == first["pool"].count


def test_the_kept_counts_equal_the_links_counted_through_every_kind_of_change(memory, stored):
    """The counts the triggers keep (what ranks a project's concepts) against a count of the links
    of the current rows, after each way a link or a row comes and goes; a count at zero is gone."""
    def kept_and_counted() -> tuple[list, list]:
        with memory.ctx.store.read() as conn:
            kept = conn.execute("SELECT concept, kind, memories FROM concept_counts WHERE project = ? "
                                "ORDER BY concept, kind", (P,)).fetchall()
            counted = conn.execute(
                "SELECT c.concept, c.kind, COUNT(*) FROM memory_concepts c JOIN memories m ON m.id = c.memory_row "
                "WHERE m.project = ? AND m.superseded_at IS NULL AND m.state IN ('active','deprioritised') "
                "GROUP BY c.concept, c.kind ORDER BY c.concept, c.kind", (P,)).fetchall()
        return [tuple(r) for r in kept], [tuple(r) for r in counted]

    pools = names(memory)["pool"].count
    assert pools == 4  # the control: the counts are there and count memories
    steps = [
        lambda: memory.update(HUMAN, stored[3], content="The HTTP client keeps 10 sockets open", reason="reworded"),
        lambda: memory.archive(HUMAN, stored[4], reason="old"),
        lambda: memory.deprioritise(HUMAN, stored[5], reason="minor"),
        lambda: memory.forget(HUMAN, stored[6], reason="wrong", confirm=True),
        lambda: memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=P),
        lambda: memory.concept_verdict(HUMAN, "remove", "thread", project=P),
        lambda: memory.remember(HUMAN, "The pool of Kafka consumers has 4 members", project=P),
        lambda: memory.concepts_rebuild(HUMAN),
    ]
    for step in steps:
        step()
        kept, counted = kept_and_counted()
        assert kept == counted and counted
    # The HTTP memory reworded without "pool", the Redis one archived, the timeouts forgotten; Kafka's came.
    assert names(memory)["pool"].count == pools - 3 + 1

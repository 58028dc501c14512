"""Compaction (issue 19): clusters of similar older memories, a summary that supersedes them
without deleting anything, and the sources' return when the summary is forgotten or refuted."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cenotaph.memory.context import Context, format_time
from cenotaph.memory.core.remember import CONTRADICTION_SIMILARITY, DUPLICATE_SIMILARITY
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.knowledge import compaction
from cenotaph.memory.service import Memory
from cenotaph.store import events
from cenotaph.store.db import Store

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"
OLD = "2025-06-01"  # nine months before the test clock (2026-03-01)
DEPLOY = ["Deploys go out from the release branch every Tuesday.",
          "We deploy the release branch on Tuesdays after the QA sign-off.",
          "Tuesday is deploy day: the release branch goes out to production."]
LOKI = "Logs are shipped to Loki and kept for 14 days."
QUERY = "which day do we deploy the release branch"
SUMMARY = "Releases: the release branch is deployed every Tuesday, after the QA sign-off."


def old(memory, text, **fields):
    return memory.remember(HUMAN, text, project=P, valid_from=OLD, force=True, **fields).id


def recalled(memory, query=QUERY, **options):
    return [r.id for r in memory.recall(HUMAN, query, project=P, k=20, **options).results
            if r.result_type == "memory"]


def one_cluster(memory, **options):
    clusters = memory.compact_candidates(P, **options)
    assert len(clusters) == 1, [c.member_ids for c in clusters]
    return clusters[0]


def _actions(memory, target):
    with memory.ctx.store.read() as conn:
        return [(e.action, e.reason) for e in events.query(conn, target=target, since_at=None, limit=1000)]


def test_the_threshold_lies_between_the_contradiction_and_duplicate_ones():
    assert CONTRADICTION_SIMILARITY < compaction.COMPACT_SIMILARITY < DUPLICATE_SIMILARITY


def test_a_new_store_has_no_clusters(memory):
    assert memory.compact_candidates(P) == []


def test_similar_old_memories_cluster_and_a_dissimilar_or_recent_one_does_not(memory):
    ids = [old(memory, text) for text in DEPLOY]
    loki = old(memory, LOKI)
    recent = memory.remember(HUMAN, "The release branch is deployed on Tuesdays, every week.", project=P).id
    cluster = one_cluster(memory)
    assert cluster.member_ids == ids
    assert loki not in cluster.member_ids and recent not in cluster.member_ids
    assert cluster.cohesion >= compaction.COMPACT_SIMILARITY
    # The recent one joins once it is old enough for the cutoff asked for.
    assert recent in one_cluster(memory, older_than_days=0).member_ids
    # Another project's twin never joins.
    memory.remember(HUMAN, DEPLOY[0], project="other", valid_from=OLD)
    assert one_cluster(memory).member_ids == ids


def test_age_is_valid_time_so_imported_history_compacts(memory):
    report = memory.import_jsonl(HUMAN, [json.dumps({"content": text, "valid_from": OLD}) for text in DEPLOY],
                                 project=P)
    assert report.imported == 3
    assert one_cluster(memory).member_ids == report.memory_ids


def test_the_cluster_id_is_stable_until_a_member_changes(memory):
    ids = [old(memory, text) for text in DEPLOY]
    first = one_cluster(memory).id
    assert one_cluster(memory).id == first
    memory.update(HUMAN, ids[1], content="We deploy the release branch on Tuesdays, after QA signs off.")
    changed = one_cluster(memory)
    assert changed.member_ids == ids and changed.id != first
    with pytest.raises(NotFound) as refused:
        memory.compact_apply(HUMAN, P, first, summary=SUMMARY)
    assert refused.value.field == "cluster_id"


def test_a_graveyard_story_is_not_compacted(memory):
    ids = [old(memory, text) for text in DEPLOY]
    story = "Tuesday is deploy day: the release branch goes out to production, without jenkins."
    cited = memory.record_experience(HUMAN, story, project=P, outcome="success", effort=3,
                                     abandoned=[("jenkins", "too slow for Tuesday deploys")]).id
    twin = memory.remember(HUMAN, story, project=P).id  # the same words, not cited by the graveyard
    members = one_cluster(memory, older_than_days=0).member_ids
    assert twin in members and set(ids) <= set(members)  # positive control: these words do cluster
    assert cited not in members


def test_a_disputed_memory_is_not_compacted(memory):
    ids = [old(memory, text) for text in DEPLOY]
    always = old(memory, "Always deploy the release branch on Tuesdays.")
    assert always in one_cluster(memory).member_ids  # positive control
    written = memory.remember(HUMAN, "Never deploy the release branch on Tuesdays.", project=P, valid_from=OLD)
    assert written.contradictions and memory.get(always).trust == "disputed"
    assert one_cluster(memory).member_ids == ids


def test_a_cluster_never_grows_past_its_bound():
    rng = np.random.default_rng(7)
    base = rng.normal(size=16)
    matrix = np.stack([base + rng.normal(scale=0.01, size=16) for _ in range(compaction.MAX_CLUSTER + 5)])
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    groups = compaction._components(matrix.astype(np.float32))
    assert sorted(len(g) for g in groups) == [5, compaction.MAX_CLUSTER]


def test_a_superseded_source_leaves_recall_while_the_summary_stands_and_returns_when_it_is_forgotten(memory, clock):
    ids = [old(memory, text) for text in DEPLOY]
    memory.deprioritise(HUMAN, ids[2], reason="rarely asked", hints=["deploy"])
    before = recalled(memory)
    assert set(ids) <= set(before)  # positive control
    t_before = format_time(clock.now)
    clock.advance(minutes=5)

    result = memory.compact_apply(HUMAN, P, one_cluster(memory).id, summary=SUMMARY, reason="one rule")
    summary_id = result.summary.memory_id
    assert result.superseded == ids
    assert (result.summary.kind, result.summary.tags, result.summary.trust) == ("note", ["summary"], "confirmed")
    during = recalled(memory)
    assert summary_id in during and not set(ids) & set(during)
    for memory_id in ids:
        row = memory.get(memory_id)
        assert (row.state, row.state_reason) == ("superseded", f"summarised in memory #{summary_id}: one rule")
        assert row.content in DEPLOY and row.superseded_at is None  # nothing deleted; no version closed
        history = memory.history(memory_id)
        assert history.summarised_by == summary_id
        assert history.transitions[-1].to_value == "superseded"
    assert memory.history(summary_id).summarises == ids
    assert ("compact", "one rule") in _actions(memory, f"memory:{summary_id}")
    assert [a for a, _ in _actions(memory, f"memory:{ids[0]}")][-1] == "supersede"
    assert memory.compact_candidates(P) == []  # nothing left to compact: the summary alone

    # As-of reads still see the sources as they were before the summary; now they do not.
    assert set(ids) <= set(recalled(memory, as_of=t_before))
    assert not set(ids) & set(recalled(memory, as_of=format_time(clock.now)))

    clock.advance(minutes=5)
    memory.forget(HUMAN, summary_id, reason="too coarse", confirm=True)
    after = recalled(memory)
    assert set(ids) <= set(after) and summary_id not in after
    assert [memory.get(i).state for i in ids] == ["active", "active", "deprioritised"]  # each as it was
    last = memory.history(ids[2]).transitions[-1]
    assert (last.from_value, last.to_value, last.reason) == ("superseded", "deprioritised",
                                                             f"its summary #{summary_id} was forgotten")
    assert memory.history(ids[0]).summarised_by is None
    assert memory.audit_verify().ok


def test_refuting_the_summary_restores_its_sources(memory):
    ids = [old(memory, text) for text in DEPLOY]
    summary_id = memory.compact_apply(HUMAN, P, one_cluster(memory).id, summary=SUMMARY).summary.memory_id
    assert not set(ids) & set(recalled(memory))  # while it stands
    memory.set_trust(HUMAN, summary_id, "refuted", reason="Tuesdays ended in 2025")
    assert set(ids) <= set(recalled(memory)) and summary_id not in recalled(memory)
    assert memory.history(ids[0]).transitions[-1].reason == f"its summary #{summary_id} was refuted"


def test_a_refuted_summary_believed_again_stands_again_for_the_sources_nothing_moved(memory):
    ids = [old(memory, text) for text in DEPLOY]
    summary_id = memory.compact_apply(HUMAN, P, one_cluster(memory).id, summary=SUMMARY).summary.memory_id
    memory.set_trust(HUMAN, summary_id, "refuted", reason="Tuesdays ended in 2025")
    memory.deprioritise(HUMAN, ids[1], reason="read on its own now")
    memory.set_trust(HUMAN, summary_id, "confirmed", reason="they did not end after all")
    # The two untouched sources are superseded again; the one moved meanwhile stays as it is.
    assert [memory.get(i).state for i in ids] == ["superseded", "deprioritised", "superseded"]
    assert memory.history(ids[0]).transitions[-1].reason == f"summarised in memory #{summary_id}, believed again"
    found = recalled(memory)
    assert summary_id in found and ids[1] in found and not {ids[0], ids[2]} & set(found)
    # Refuted once more, it restores them once more.
    memory.set_trust(HUMAN, summary_id, "refuted", reason="they did end")
    assert [memory.get(i).state for i in ids] == ["active", "deprioritised", "active"]
    assert memory.audit_verify().ok


def test_a_source_reinstated_meanwhile_is_left_as_it_is(memory):
    ids = [old(memory, text) for text in DEPLOY]
    summary_id = memory.compact_apply(HUMAN, P, one_cluster(memory).id, summary=SUMMARY).summary.memory_id
    memory.reinstate(HUMAN, ids[0], reason="needed on its own")
    memory.forget(HUMAN, ids[1], reason="wrong", confirm=True)
    memory.forget(HUMAN, summary_id, reason="undo", confirm=True)
    assert [memory.get(i).state for i in ids] == ["active", "deleted", "active"]
    assert len([t for t in memory.history(ids[0]).transitions if t.to_value == "active"]) == 1


def test_only_live_memories_of_the_project_can_be_summarised(memory):
    ids = [old(memory, text) for text in DEPLOY]
    memory.archive(HUMAN, ids[0], reason="old")
    with pytest.raises(Conflict) as refused:
        compaction.summarise(memory.ctx, HUMAN, P, ids, summary=SUMMARY)
    assert refused.value.field == "member_ids" and memory.get(ids[1]).state == "active"


def test_an_agents_summary_is_a_proposal_until_a_person_accepts_it(memory):
    ids = [old(memory, text) for text in DEPLOY]
    cluster = one_cluster(memory)
    proposal = memory.compact_apply(AGENT, P, cluster.id, summary=SUMMARY, reason="same rule")
    assert (proposal.action, proposal.target, proposal.status) == ("compact", f"cluster:{cluster.id}", "pending")
    assert proposal.arguments == {"cluster_id": cluster.id, "member_ids": ids, "summary": SUMMARY}
    assert [memory.get(i).state for i in ids] == ["active"] * 3 and set(ids) <= set(recalled(memory))
    with pytest.raises(Conflict):
        memory.accept_proposal(AGENT, proposal.id)

    result = memory.accept_proposal(HUMAN, proposal.id)
    assert result.superseded == ids and result.summary.content == SUMMARY
    assert not set(ids) & set(recalled(memory))
    assert memory.get(ids[0]).state_reason.startswith(f"summarised in memory #{result.summary.memory_id}: same rule")
    assert memory.proposals(P, status="accepted")[0].id == proposal.id


def test_an_agents_summary_of_a_changed_cluster_is_refused_at_acceptance(memory):
    ids = [old(memory, text) for text in DEPLOY]
    proposal = memory.compact_apply(AGENT, P, one_cluster(memory).id, summary=SUMMARY)
    memory.update(HUMAN, ids[0], content="Deploys go out from the release branch every Wednesday now.")
    with pytest.raises(Conflict) as refused:
        memory.accept_proposal(HUMAN, proposal.id)
    assert refused.value.field == "cluster_id"
    assert memory.get(ids[1]).state == "active" and memory.proposals(P)[0].id == proposal.id


@pytest.mark.sqlite_only("a file backup of the SQLite store")
def test_a_restored_backup_keeps_the_link_between_a_summary_and_its_sources(memory, tmp_path, embedder, analyzer):
    ids = [old(memory, text) for text in DEPLOY]
    summary_id = memory.compact_apply(HUMAN, P, one_cluster(memory).id, summary=SUMMARY).summary.memory_id
    memory.backup(HUMAN, str(tmp_path / "backup.db"))
    store = Store(tmp_path / "other.db")
    try:
        other = Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=memory.ctx.clock))
        other.remember(HUMAN, LOKI, project=P)  # memory #1 is taken here: the backup's ids move
        other.restore(HUMAN, str(tmp_path / "backup.db"))
        sources = [r.id for r in other.recall(HUMAN, SUMMARY, project=P, k=20).results if r.result_type == "memory"]
        ours = other.history(next(i for i in sources if other.get(i).content == SUMMARY))
        assert len(ours.summarises) == 3 and ours.memory_id != summary_id
        assert [other.get(i).state for i in ours.summarises] == ["superseded"] * 3
        other.forget(HUMAN, ours.memory_id, reason="undo", confirm=True)
        assert [other.get(i).state for i in ours.summarises] == ["active"] * 3
        assert sorted(other.get(i).content for i in ours.summarises) == sorted(DEPLOY)
    finally:
        store.close()
    assert [memory.get(i).state for i in ids] == ["superseded"] * 3

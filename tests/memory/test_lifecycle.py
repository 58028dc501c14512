"""Lifecycle (issue 3): the allowed-transition table, transition by transition; reasons kept;
forget with preview and tombstone; the maintenance pass that archives duplicates."""

from __future__ import annotations

import json

import pytest
from cenotaph.memory.context import content_hash
from cenotaph.memory.core.lifecycle import TRANSITIONS
from cenotaph.memory.errors import Conflict
from cenotaph.memory.knowledge import compaction
from cenotaph.memory.models import ForgetPreview
from cenotaph.store import memories

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"
VERB_TARGET = {"deprioritise": "deprioritised", "archive": "archived", "reinstate": "active", "forget": "deleted"}
EXPECTED_TABLE = {
    ("active", "deprioritise"): True, ("active", "archive"): True, ("active", "reinstate"): False,
    ("active", "forget"): True,
    ("deprioritised", "deprioritise"): False, ("deprioritised", "archive"): True,
    ("deprioritised", "reinstate"): True, ("deprioritised", "forget"): True,
    ("archived", "deprioritise"): False, ("archived", "archive"): False, ("archived", "reinstate"): True,
    ("archived", "forget"): True,
    ("deleted", "deprioritise"): False, ("deleted", "archive"): False, ("deleted", "reinstate"): False,
    ("deleted", "forget"): False,
    # A summary stands for it (memory/knowledge/compaction.py); a person may still reinstate, deprioritise or
    # forget it, and it comes back by itself when the summary goes.
    ("superseded", "deprioritise"): True, ("superseded", "archive"): False, ("superseded", "reinstate"): True,
    ("superseded", "forget"): True,
}


def do(memory, verb, memory_id, actor=HUMAN):
    reason = f"{verb} for the test"
    if verb == "forget":
        return memory.forget(actor, memory_id, reason=reason, confirm=True)
    return getattr(memory, verb)(actor, memory_id, reason=reason)


def bring_to(memory, memory_id, state):
    if state == "superseded":
        twin = memory.remember(HUMAN, "The on-call engineer writes the release notes", project=P, force=True).id
        compaction.summarise(memory.ctx, HUMAN, P, [memory_id, twin], summary="Release notes: the on-call engineer")
        assert memory.get(memory_id).state == state
        return
    path = {"active": [], "deprioritised": ["deprioritise"], "archived": ["archive"], "deleted": ["forget"]}[state]
    for verb in path:
        do(memory, verb, memory_id)
    assert memory.get(memory_id).state == state


def test_the_table_is_the_one_documented():
    allowed = {(s, v): VERB_TARGET[v] in TRANSITIONS[s] for s in TRANSITIONS for v in VERB_TARGET}
    assert allowed == EXPECTED_TABLE
    assert TRANSITIONS["deleted"] == frozenset()


@pytest.mark.parametrize(("start", "verb"), sorted(EXPECTED_TABLE))
def test_each_transition_is_allowed_or_refused_as_the_table_says(memory, start, verb):
    stored = memory.remember(HUMAN, f"Release notes are written by the on-call engineer ({start}, {verb})", project=P)
    bring_to(memory, stored.id, start)
    before = memory.history(stored.id)
    if EXPECTED_TABLE[(start, verb)]:
        do(memory, verb, stored.id)
        row = memory.get(stored.id)
        assert row.state == VERB_TARGET[verb]
        assert row.state_reason == f"{verb} for the test"
        last = memory.history(stored.id).transitions[-1]
        assert (last.field, last.from_value, last.to_value, last.actor) == ("state", start, VERB_TARGET[verb], HUMAN.name)
    else:
        with pytest.raises(Conflict) as caught:
            do(memory, verb, stored.id)
        assert caught.value.field == "memory_id"
        after = memory.history(stored.id)
        assert memory.get(stored.id).state == start
        assert len(after.transitions) == len(before.transitions) and len(after.events) == len(before.events)


def test_every_transition_keeps_its_reason_and_who_made_it(memory):
    stored = memory.remember(HUMAN, "The staging database is refreshed from production every Sunday", project=P)
    memory.deprioritise(AGENT, stored.id, reason="rarely asked about", hints=["staging refresh"])
    memory.archive(HUMAN, stored.id, reason="the refresh job was retired")
    memory.reinstate(HUMAN, stored.id, reason="the job is back")
    transitions = [(t.to_value, t.reason, t.actor) for t in memory.history(stored.id).transitions]
    assert transitions == [("deprioritised", "rarely asked about", AGENT.name),
                           ("archived", "the refresh job was retired", HUMAN.name),
                           ("active", "the job is back", HUMAN.name)]
    events = memory.audit_log(target=f"memory:{stored.id}")
    assert [(e.action, e.actor, e.reason) for e in events[1:]] == [
        ("deprioritise", AGENT.name, "rarely asked about"), ("archive", HUMAN.name, "the refresh job was retired"),
        ("reinstate", HUMAN.name, "the job is back")]
    assert json.loads(events[1].after)["reinstate_hints"] == ["staging refresh"]


def test_archived_memories_leave_recall_and_come_back_when_reinstated(memory):
    target = memory.remember(HUMAN, "The payments webhook retries five times with exponential backoff", project=P)
    other = memory.remember(HUMAN, "The payments dashboard refreshes every minute", project=P)
    memory.archive(HUMAN, target.id, reason="superseded by the new queue")
    found = [r.id for r in memory.recall(HUMAN, "payments webhook retries", project=P).results]
    assert target.id not in found and other.id in found
    memory.reinstate(HUMAN, target.id, reason="the queue was rolled back")
    assert target.id in [r.id for r in memory.recall(HUMAN, "payments webhook retries", project=P).results]


def test_deprioritised_memory_ranks_low_unless_a_hint_matches(memory):
    low = memory.remember(HUMAN, "The search index is rebuilt nightly by a cron job", project=P)
    memory.deprioritise(HUMAN, low.id, reason="rarely relevant", hints=["reindex"])
    plain = next(r for r in memory.recall(HUMAN, "search index rebuilt nightly", project=P).results if r.id == low.id)
    assert plain.components.state_factor == 0.2 and not plain.reinstate_hint_matched
    hinted = next(r for r in memory.recall(HUMAN, "search index reindex nightly", project=P).results if r.id == low.id)
    assert hinted.reinstate_hint_matched and hinted.score >= 0.6
    assert [r.id for r in memory.deprioritised(P)] == [low.id]


def test_forget_previews_by_default_and_changes_nothing(memory):
    stored = memory.remember(HUMAN, "The admin password rotation runbook lives in the ops vault", project=P)
    seq = memory.change_seq()
    preview = memory.forget(HUMAN, stored.id, reason="sensitive")
    assert isinstance(preview, ForgetPreview)
    assert preview.content == "The admin password rotation runbook lives in the ops vault" and preview.versions == 1
    assert memory.change_seq() == seq
    assert memory.get(stored.id).state == "active"


def test_forget_removes_content_everywhere_and_keeps_a_tombstone(memory):
    secret = "The legacy billing API key is kept in the shared drive folder Finance-Old"
    stored = memory.remember(HUMAN, secret, project=P)
    memory.update(HUMAN, stored.id, content=secret + " (moved to the vault in March)")
    kept = memory.remember(HUMAN, "The billing service exports invoices as PDF", project=P)
    assert stored.id in [r.id for r in memory.recall(HUMAN, "legacy billing API key", project=P).results]

    row = memory.forget(HUMAN, stored.id, reason="a credential location", confirm=True)
    assert row.state == "deleted" and row.content == ""
    history = memory.history(stored.id)
    assert [v.content for v in history.versions] == ["", ""]
    assert history.tombstone.reason == "a credential location" and history.tombstone.actor == HUMAN.name
    assert history.tombstone.content_hash == content_hash(secret + " (moved to the vault in March)")
    conn = memory.ctx.store.conn
    # No trace of the words: not in full text, entities, vectors or any event.
    assert memories.term_documents(conn, ["shared"]) == {"shared": 0}
    row_ids = [v.id for v in history.versions]
    marks = ",".join("?" * len(row_ids))
    assert conn.execute(f"SELECT COUNT(*) FROM memory_vectors WHERE row_id IN ({marks})", row_ids).fetchone()[0] == 0
    assert conn.execute(f"SELECT COUNT(*) FROM memory_entities WHERE memory_row IN ({marks})", row_ids).fetchone()[0] == 0
    for event in memory.audit_log():
        assert "Finance-Old" not in f"{event.before}{event.after}{event.reason}"
    # Gone from both recall lanes; the other memory still answers (positive control).
    semantic = [r.id for r in memory.recall(HUMAN, "legacy billing API key", project=P).results]
    exact = [r.id for r in memory.recall(HUMAN, "Finance-Old", project=P, lane="exact").results]
    assert stored.id not in semantic and stored.id not in exact and kept.id in semantic
    # Deleted is terminal.
    with pytest.raises(Conflict):
        memory.reinstate(HUMAN, stored.id, reason="oops")


def test_forgetting_a_side_settles_its_open_contradiction(memory):
    a = memory.remember(HUMAN, "Prefer SQLAlchemy for database access in the billing service.", project=P)
    b = memory.remember(HUMAN, "SQLAlchemy sessions leak connections in the billing service; drop it.", project=P)
    link = b.contradictions[0].contradiction_id
    memory.forget(HUMAN, a.id, reason="wrong all along", confirm=True)
    view = memory.contradictions(P, status="resolved")[0]
    assert view.id == link and view.resolution == "keep_b"
    assert memory.get(b.id).trust == "confirmed"


def test_maintenance_archives_duplicates_with_the_reason(memory):
    first = memory.remember(HUMAN, "Feature flags are stored in LaunchDarkly", project=P)
    twin = memory.remember(AGENT, "Feature flags are stored in LaunchDarkly.", project=P, force=True)
    same = memory.remember(HUMAN, "Feature flags are stored in LaunchDarkly", project=P, force=True)
    distinct = memory.remember(HUMAN, "Database migrations run before each deploy", project=P)
    report = memory.maintain(HUMAN, P)
    assert sorted(report.archived) == sorted([(twin.id, first.id), (same.id, first.id)])
    assert memory.get(twin.id).state == "archived"
    assert memory.get(twin.id).state_reason == f"duplicate of {first.id}"
    assert memory.get(same.id).state_reason == f"duplicate of {first.id}"
    assert memory.get(first.id).state == "active" and memory.get(distinct.id).state == "active"
    assert memory.maintain(HUMAN, P).archived == []


def test_maintenance_keeps_the_more_trusted_twin_and_leaves_contradictions_alone(memory):
    agent_first = memory.remember(AGENT, "Logs are shipped to Loki by promtail", project=P)
    human_later = memory.remember(HUMAN, "Logs are shipped to Loki by promtail.", project=P, force=True)
    use = memory.remember(HUMAN, "Always run mypy in strict mode on the API package.", project=P)
    never = memory.remember(HUMAN, "Never run mypy in strict mode on the API package.", project=P, force=True)
    assert never.contradictions  # the pair is similar enough to be duplicates, but it disagrees
    report = memory.maintain(HUMAN, P)
    assert report.archived == [(agent_first.id, human_later.id)]
    assert memory.get(use.id).state == "active" and memory.get(never.id).state == "active"

"""Audit (issue 3): one event per change, append-only, hash-chained; `audit verify` names the first
bad row after tampering; the log is readable by target and time; `why` reads the recall log."""

from __future__ import annotations

import pytest
from cenotaph.memory.context import format_time
from cenotaph.store import events
from cenotaph.store.dialect import is_postgres

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"


def populate(memory):
    a = memory.remember(HUMAN, "The build cache lives in an S3 bucket", project=P)
    b = memory.remember(AGENT, "The build cache is pruned weekly", project=P)
    memory.archive(HUMAN, a.id, reason="moved to GCS")
    memory.set_trust(HUMAN, b.id, "confirmed", reason="checked the job")
    memory.suppress(HUMAN, "boto3", kind="recall", project=P, reason="no more AWS")
    return a.id, b.id


def test_every_change_is_an_event_with_actor_action_target_reason(memory):
    a, b = populate(memory)
    rows = memory.audit_log()
    assert [(e.seq, e.actor, e.action, e.target, e.reason) for e in rows] == [
        (1, HUMAN.name, "remember", f"memory:{a}", None),
        (2, AGENT.name, "remember", f"memory:{b}", None),
        (3, HUMAN.name, "archive", f"memory:{a}", "moved to GCS"),
        (4, HUMAN.name, "trust:confirmed", f"memory:{b}", "checked the job"),
        (5, HUMAN.name, "suppress", "suppression:boto3", "no more AWS"),
    ]
    assert memory.change_seq() == 5
    assert [e.seq for e in memory.audit_log(target=str(a))] == [1, 3]


def test_the_log_reads_since_a_time(memory, clock):
    memory.remember(HUMAN, "Old fact about the build farm", project=P)
    clock.advance(days=2)
    cut = format_time(clock.now)
    memory.remember(HUMAN, "New fact about the release train", project=P)
    assert [e.seq for e in memory.audit_log(since=cut)] == [2]
    assert [e.seq for e in memory.audit_log()] == [1, 2]


def test_events_reject_update_and_delete(memory):
    populate(memory)
    conn = memory.ctx.store.conn
    with pytest.raises(Exception, match="append-only"):
        conn.execute("UPDATE events SET reason = 'edited' WHERE seq = 3")
    with pytest.raises(Exception, match="append-only"):
        conn.execute("DELETE FROM events WHERE seq = 3")
    assert memory.audit_verify().ok


def _without_triggers(conn, statement, params=()):
    if is_postgres(conn):
        conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
    else:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("DROP TRIGGER events_no_delete")
    conn.execute(statement, params)


def test_an_edited_row_is_named(memory):
    populate(memory)
    report = memory.audit_verify()
    assert report.ok and report.checked == 5 and report.head == 5  # positive control
    _without_triggers(memory.ctx.store.conn, "UPDATE events SET reason = 'covered up' WHERE seq = 3")
    report = memory.audit_verify()
    assert not report.ok and report.first_bad_seq == 3
    assert "event #3" in report.problem and "altered" in report.problem


# Every column the event's hash covers (store/events.py: event_hash), each edited alone.
HASHED = {
    "at": "'2020-01-01T00:00:00.000000Z'", "actor": "'someone-else'", "action": "'restore'",
    "target": "'memory:999'", "project": "'github.com/acme/other'", "before": """'{"state": "deleted"}'""",
    "after": """'{"state": "active"}'""", "reason": "'covered up'", "prev_hash": "'" + "0" * 64 + "'",
}


@pytest.mark.parametrize("column", sorted(HASHED))
def test_an_edit_to_any_hashed_column_is_named(memory, column):
    populate(memory)
    assert memory.audit_verify().ok  # positive control: the untouched chain verifies
    _without_triggers(memory.ctx.store.conn, f"UPDATE events SET {column} = {HASHED[column]} WHERE seq = 3")
    report = memory.audit_verify()
    assert not report.ok and report.first_bad_seq == 3 and "event #3" in report.problem


def test_a_rehashed_edit_breaks_the_next_link(memory):
    from cenotaph.store.events import event_hash

    populate(memory)
    conn = memory.ctx.store.conn
    row = conn.execute("SELECT prev_hash, at, actor, action, target, project, before, after FROM events WHERE seq = 2"
                       ).fetchone()
    forged = event_hash(*row, "forged")
    _without_triggers(conn, "UPDATE events SET reason = 'forged', hash = ? WHERE seq = 2", (forged,))
    report = memory.audit_verify()
    assert not report.ok and report.first_bad_seq == 3 and "does not chain" in report.problem


def test_deleted_rows_are_found_in_the_middle_and_at_the_end(memory):
    populate(memory)
    _without_triggers(memory.ctx.store.conn, "DELETE FROM events WHERE seq = 2")
    report = memory.audit_verify()
    assert not report.ok and report.first_bad_seq == 3 and "missing" in report.problem
    memory.ctx.store.conn.execute("DELETE FROM events WHERE seq >= 2")
    report = memory.audit_verify()
    assert not report.ok and report.first_bad_seq == 2 and "removed from the end" in report.problem


def test_why_finds_the_recalls_that_surfaced_a_topic(memory, clock):
    about = memory.remember(HUMAN, "Terraform state is locked in DynamoDB", project=P)
    other = memory.remember(HUMAN, "The on-call rotation changes on Mondays", project=P)
    memory.recall(AGENT, "where is terraform state locked", project=P)
    # k=1: in a store this small every recall would surface every memory.
    assert [r.id for r in memory.recall(HUMAN, "who is on call this week", project=P, k=1).results] == [other.id]
    report = memory.why("terraform", P)
    assert [(r.actor, r.query) for r in report.recalls] == [(AGENT.name, "where is terraform state locked")]
    assert about.id in report.recalls[0].memory_ids and other.id not in report.recalls[0].memory_ids
    assert "who is on call this week" in [r.query for r in memory.why("on-call rotation", P).recalls]
    clock.advance(days=31)
    assert memory.why("terraform", P).recalls == []


def test_why_names_graveyard_warnings(memory):
    memory.abandon(HUMAN, "left-pad", reason="unpublished", project=P, effort=2)
    memory.recall(HUMAN, "should we use left-pad", project=P)
    report = memory.why("left_pad", P)
    assert [r.approaches for r in report.recalls] == [["left-pad"]]


def test_a_check_resumed_from_a_whole_chain_reads_only_the_new_events(memory):
    populate(memory)
    first = memory.audit_verify()
    memory.remember(HUMAN, "The release train leaves on Thursdays", project=P)
    with memory.ctx.store.write() as conn:  # a scrub after the resumed head, attesting an event before it
        events.attest_scrubs(conn, [(2, events.get(conn, 2).hash)], at=memory.ctx.now(), reason="a scrub")
    resumed = memory.audit_verify(first)
    assert resumed == memory.audit_verify()  # the same report as a check from the start
    assert resumed.ok and resumed.checked == resumed.head == 7 and resumed.head_hash
    # Only what follows the head is read: an edit behind it waits for a check from the start ...
    _without_triggers(memory.ctx.store.conn, "UPDATE events SET reason = 'covered up' WHERE seq = 3")
    memory.remember(HUMAN, "The release train leaves on Fridays too", project=P)
    assert memory.audit_verify(resumed).ok
    assert memory.audit_verify().first_bad_seq == 3
    # ... while one after it is found as before.
    memory.ctx.store.conn.execute("UPDATE events SET reason = 'covered up' WHERE seq = 8")  # triggers off already
    assert memory.audit_verify(resumed).first_bad_seq == 8


def test_a_resumed_check_whose_head_was_rewritten_checks_from_the_start(memory):
    populate(memory)
    report = memory.audit_verify()
    _without_triggers(memory.ctx.store.conn, "UPDATE events SET hash = ? WHERE seq = 5", ("f" * 64,))
    again = memory.audit_verify(report)
    assert not again.ok and again.first_bad_seq == 5 and again.checked == 5  # read from event #1
    broken = memory.audit_verify()
    assert memory.audit_verify(broken) == broken  # a broken report is no place to resume from

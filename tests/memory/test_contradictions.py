"""Contradictions (issue 3): detected on write, resolved by a verb that lands the judgement,
dismissed for good on the two content hashes, and found later by a bounded scan."""

from __future__ import annotations

import pytest

from cenotaph.memory.context import format_time
from cenotaph.memory.errors import Conflict
from tests.conftest import HUMAN

P = "github.com/acme/app"
ORM = ("Prefer SQLAlchemy for database access in the billing service.",
       "SQLAlchemy sessions leak connections in the billing service; drop it.")
QUEUE = ("Use Celery for background jobs in the mailer.",
         "Celery workers hang on the mailer queue; avoid Celery there.")
SERVER = ("Keep gunicorn as the web server for the admin site.",
          "Gunicorn workers crash on the admin site; remove gunicorn.")


def pair(memory, texts, clock=None):
    a = memory.remember(HUMAN, texts[0], project=P)
    if clock is not None:
        clock.advance(days=1)
    b = memory.remember(HUMAN, texts[1], project=P)
    assert len(b.contradictions) == 1
    assert a.memory.trust == "confirmed" and b.memory.trust == "disputed"  # each as it stood when written
    return a.id, b.id, b.contradictions[0].contradiction_id


def test_detected_on_write_both_sides_disputed_link_explained(memory):
    a, b, link = pair(memory, ORM)
    views = memory.contradictions(P)
    assert [v.id for v in views] == [link]
    view = views[0]
    assert (view.memory_a.memory_id, view.memory_b.memory_id, view.status) == (a, b, "open")
    assert "opposite in polarity" in view.explanation and view.found_by == "heuristic"
    assert memory.get(a).trust == "disputed" and memory.get(b).trust == "disputed"
    flagged = {r.id: r.disputed for r in memory.recall(HUMAN, "SQLAlchemy billing service", project=P).results}
    assert flagged == {a: True, b: True}


@pytest.mark.parametrize(("keep", "winner_index"), [("a", 0), ("b", 1)])
def test_resolve_keep_one_refutes_the_other_and_clears_both_warnings(memory, keep, winner_index):
    a, b, link = pair(memory, ORM)
    winner, loser = (a, b) if winner_index == 0 else (b, a)
    view = memory.resolve_contradiction(HUMAN, link, keep=keep, reason="we measured it")
    assert (view.status, view.resolution, view.reason, view.decided_by) == (
        "resolved", f"keep_{keep}", "we measured it", HUMAN.name)
    assert memory.get(loser).trust == "refuted"
    assert memory.get(winner).trust == "confirmed"
    assert memory.contradictions(P) == []
    results = memory.recall(HUMAN, "SQLAlchemy billing service", project=P).results
    assert [r.id for r in results] == [winner] and not results[0].disputed
    with pytest.raises(Conflict):
        memory.resolve_contradiction(HUMAN, link, keep="b", reason="changed my mind")


def test_resolve_both_closes_the_older_valid_time_where_the_newer_starts(memory, clock):
    t1 = format_time(clock.now)
    old, new, link = pair(memory, SERVER, clock)
    t2 = format_time(clock.now)
    memory.resolve_contradiction(HUMAN, link, keep="both", reason="true until the upgrade")
    older, newer = memory.get(old), memory.get(new)
    assert older.valid_to == newer.valid_from == t2 and older.valid_from == t1
    assert older.trust == "confirmed" and newer.trust == "confirmed"
    assert older.version == 2  # the change of valid time is a new version
    clock.advance(days=1)
    before = [r.id for r in memory.recall(HUMAN, "gunicorn admin site", project=P, valid_at=t1).results]
    after = [r.id for r in memory.recall(HUMAN, "gunicorn admin site", project=P, valid_at=t2).results]
    assert old in before and new not in before
    assert new in after and old not in after
    now = {r.id: r.disputed for r in memory.recall(HUMAN, "gunicorn admin site", project=P).results}
    assert now == {old: False, new: False}


def test_resolve_neither_refutes_both(memory):
    a, b, link = pair(memory, QUEUE)
    memory.resolve_contradiction(HUMAN, link, keep="neither", reason="we moved to RQ")
    assert memory.get(a).trust == "refuted" and memory.get(b).trust == "refuted"
    assert [r.id for r in memory.recall(HUMAN, "Celery mailer", project=P).results] == []


def test_dismiss_clears_the_warning_and_the_pair_is_never_flagged_again(memory):
    a, b, link = pair(memory, ORM)
    view = memory.dismiss_contradiction(HUMAN, link, reason="different services after all")
    assert view.status == "dismissed"
    assert memory.get(a).trust == "confirmed" and memory.get(b).trust == "confirmed"
    assert memory.scan_contradictions(HUMAN, P).found == []
    # The same words written again (after the old copy was archived) are not flagged either.
    memory.archive(HUMAN, b, reason="restating it")
    again = memory.remember(HUMAN, ORM[1], project=P)
    assert again.stored and again.contradictions == []
    # Positive control: another pair in the same store is still flagged.
    other = memory.remember(HUMAN, QUEUE[0], project=P)
    assert memory.remember(HUMAN, QUEUE[1], project=P).contradictions[0].other_id == other.id


def test_scan_finds_what_write_time_missed_and_never_links_twice(memory):
    a = memory.remember(HUMAN, SERVER[0], project=P)
    memory.archive(HUMAN, a.id, reason="parked")
    b = memory.remember(HUMAN, SERVER[1], project=P)
    assert b.contradictions == []  # an archived memory is not compared on write
    memory.reinstate(HUMAN, a.id, reason="back in use")
    unrelated = memory.remember(HUMAN, "The admin site is deployed to the eu-west region", project=P)
    report = memory.scan_contradictions(HUMAN, P)
    assert report.compared == 2  # only memories that take a side; the neutral one is not compared
    assert [(w.other_id, w.contradiction_id) for w in report.found] in ([(a.id, 1)], [(b.id, 1)])
    assert memory.get(a.id).trust == "disputed" and memory.get(b.id).trust == "disputed"
    assert memory.get(unrelated.id).trust == "confirmed"
    assert memory.scan_contradictions(HUMAN, P).found == []
    assert len(memory.contradictions(P)) == 1


def test_a_memory_in_two_open_contradictions_stays_disputed_until_both_are_settled(memory):
    hub = memory.remember(HUMAN, "Use Pydantic models to validate webhook payloads.", project=P)
    first = memory.remember(HUMAN, "Pydantic validation of webhook payloads is broken, avoid it.", project=P)
    second = memory.remember(HUMAN, "Webhook payload validation with Pydantic fails on nested lists; drop it.",
                             project=P)
    links = sorted({w.contradiction_id for w in first.contradictions + second.contradictions})
    assert len(links) == 2
    memory.resolve_contradiction(HUMAN, links[0], keep="a", reason="fixed upstream")
    assert memory.get(hub.id).trust == "disputed"
    memory.resolve_contradiction(HUMAN, links[1], keep="a", reason="fixed upstream")
    assert memory.get(hub.id).trust == "confirmed"


def test_opposite_sides_about_different_things_are_no_contradiction(memory):
    """Chat idioms take sides ("keep going", "hang in there") about nothing the other memory
    names; similar (cosine ≥ 0.7) and of opposite polarity, they are still no contradiction."""
    cheer = memory.remember(HUMAN, "Thanks, Jon! I will try my best. You are gonna do great with your dance "
                                   "studio, just keep going and stay positive!", project=P)
    idiom = memory.remember(HUMAN, "Searching for the perfect dance studio is a tough job, Jon. Hang in there "
                                   "and you will find it soon!", project=P)
    assert idiom.contradictions == []
    assert memory.get(cheer.id).trust == memory.get(idiom.id).trust == "confirmed"
    # Positive control, in the same project: a side taken about what the other names.
    a, b, _ = pair(memory, QUEUE)
    assert memory.get(a).trust == memory.get(b).trust == "disputed"
    assert [v.status for v in memory.contradictions(P)] == ["open"]

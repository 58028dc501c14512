"""Trust (issue 3): belief states set with reasons; refuted never surfaces unless asked for;
disputed is flagged; an agent never confirms."""

from __future__ import annotations

import pytest

from cenotaph.memory.errors import Conflict, InvalidInput, NotFound
from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"


def test_defaults_a_person_confirms_an_agent_does_not(memory):
    assert memory.remember(HUMAN, "The API gateway terminates TLS", project=P).memory.trust == "confirmed"
    assert memory.remember(AGENT, "The gateway forwards client IPs in X-Real-IP", project=P).memory.trust == "unverified"


def test_confirm_dispute_refute_keep_their_reasons(memory):
    stored = memory.remember(AGENT, "The nightly export runs at 02:00 UTC", project=P)
    memory.set_trust(HUMAN, stored.id, "confirmed", reason="checked the crontab")
    memory.set_trust(HUMAN, stored.id, "disputed", reason="ops says it moved")
    memory.set_trust(HUMAN, stored.id, "refuted", reason="it runs at 03:00 now")
    row = memory.get(stored.id)
    assert (row.trust, row.trust_reason) == ("refuted", "it runs at 03:00 now")
    trail = [(t.from_value, t.to_value, t.reason) for t in memory.history(stored.id).transitions]
    assert trail == [("unverified", "confirmed", "checked the crontab"), ("confirmed", "disputed", "ops says it moved"),
                     ("disputed", "refuted", "it runs at 03:00 now")]
    assert [e.action for e in memory.audit_log(target=f"memory:{stored.id}")][1:] == [
        "trust:confirmed", "trust:disputed", "trust:refuted"]


def test_refuted_never_surfaces_unless_asked_for(memory):
    wrong = memory.remember(HUMAN, "The cache TTL for product pages is ten minutes", project=P)
    right = memory.remember(HUMAN, "The cache for product pages is purged on every price change", project=P)
    before = [r.id for r in memory.recall(HUMAN, "product pages cache TTL", project=P).results]
    assert wrong.id in before  # positive control
    memory.set_trust(HUMAN, wrong.id, "refuted", reason="it is sixty seconds")
    for lane in ("semantic", "exact", "bm25", "vector"):
        query = "product pages cache TTL" if lane != "exact" else "cache TTL"
        found = [r.id for r in memory.recall(HUMAN, query, project=P, lane=lane).results]
        assert wrong.id not in found, lane
    visible = memory.recall(HUMAN, "product pages cache TTL", project=P).results
    assert right.id in [r.id for r in visible]
    asked = memory.recall(HUMAN, "product pages cache TTL", project=P, include_refuted=True).results
    flagged = next(r for r in asked if r.id == wrong.id)
    assert flagged.trust == "refuted"


def test_disputed_is_flagged_in_results(memory):
    doubtful = memory.remember(HUMAN, "The mobile app supports Android 8 and later", project=P)
    sure = memory.remember(HUMAN, "The mobile app is released every other Thursday", project=P)
    memory.set_trust(HUMAN, doubtful.id, "disputed", reason="QA dropped Android 8")
    results = {r.id: r for r in memory.recall(HUMAN, "mobile app Android releases", project=P).results}
    assert results[doubtful.id].disputed and results[doubtful.id].trust == "disputed"
    assert not results[sure.id].disputed


def test_an_agent_never_confirms_but_may_dispute(memory):
    stored = memory.remember(HUMAN, "The search service is written in Go", project=P)
    memory.set_trust(HUMAN, stored.id, "unverified", reason="not sure anymore")
    with pytest.raises(Conflict) as caught:
        memory.set_trust(AGENT, stored.id, "confirmed", reason="I looked at the repo")
    assert caught.value.field == "trust"
    assert memory.get(stored.id).trust == "unverified"
    assert memory.set_trust(AGENT, stored.id, "disputed", reason="the repo has Rust files").trust == "disputed"


def test_bad_trust_calls_are_refused(memory):
    stored = memory.remember(HUMAN, "Metrics are scraped every 15 seconds", project=P)
    with pytest.raises(InvalidInput) as caught:
        memory.set_trust(HUMAN, stored.id, "believed", reason="x")
    assert caught.value.field == "trust"
    with pytest.raises(InvalidInput) as caught:
        memory.set_trust(HUMAN, stored.id, "disputed", reason="  ")
    assert caught.value.field == "reason"
    with pytest.raises(NotFound):
        memory.set_trust(HUMAN, 999, "disputed", reason="x")
    memory.forget(HUMAN, stored.id, reason="obsolete", confirm=True)
    with pytest.raises(Conflict):
        memory.set_trust(HUMAN, stored.id, "confirmed", reason="x")

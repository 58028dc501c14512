"""Time (issue 3): updates are new versions; as-of reads answer with what the store held then,
in the state and trust it had then; valid-time reads answer with what held in the world."""

from __future__ import annotations

import json

import pytest

from cenotaph.memory.context import format_time
from cenotaph.memory.errors import Conflict
from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"


def seen(memory, query, **options):
    return {r.id: r for r in memory.recall(HUMAN, query, project=P, k=20, **options).results
            if r.result_type == "memory"}


def test_update_writes_a_new_version_and_closes_the_old_record_time(memory, clock):
    stored = memory.remember(HUMAN, "The release branch is cut on Mondays", project=P)
    t1 = format_time(clock.now)
    clock.advance(hours=5)
    updated = memory.update(HUMAN, stored.id, content="The release branch is cut on Wednesdays", reason="new cadence")
    t2 = format_time(clock.now)
    assert (updated.memory_id, updated.version, updated.recorded_at) == (stored.id, 2, t2)
    history = memory.history(stored.id)
    assert [(v.version, v.content, v.recorded_at, v.superseded_at) for v in history.versions] == [
        (1, "The release branch is cut on Mondays", t1, t2),
        (2, "The release branch is cut on Wednesdays", t2, None)]
    update_event = [e for e in history.events if e.action == "update"][0]
    assert update_event.reason == "new cadence"
    assert json.loads(update_event.after) == {"version": 2, "content_hash": updated.content_hash}
    assert "Wednesdays" not in update_event.after and "Mondays" not in (update_event.before or "")
    now = seen(memory, "release branch cut")
    assert now[stored.id].content == "The release branch is cut on Wednesdays"
    then = seen(memory, "release branch cut", as_of=t1)
    assert then[stored.id].content == "The release branch is cut on Mondays"
    # A re-embedding keeps the old version findable by meaning as it was then.
    assert memory.reindex().memories == 1
    vector_then = seen(memory, "which weekday is the release branch cut", as_of=t1, lane="vector")
    assert vector_then[stored.id].content == "The release branch is cut on Mondays"
    # The same content again changes nothing.
    seq = memory.change_seq()
    assert memory.update(HUMAN, stored.id, content="The release branch is cut on Wednesdays").version == 2
    assert memory.change_seq() == seq


def test_an_agent_edit_of_a_confirmed_memory_needs_confirming_again(memory):
    stored = memory.remember(HUMAN, "Staging uses the eu-west-1 region", project=P)
    edited = memory.update(AGENT, stored.id, content="Staging uses the eu-central-1 region", reason="moved")
    assert edited.trust == "unverified" and edited.actor == AGENT.name
    assert memory.history(stored.id).versions[0].trust == "confirmed"


def test_update_of_a_forgotten_memory_is_refused(memory):
    stored = memory.remember(HUMAN, "The VPN profile is in the onboarding doc", project=P)
    memory.forget(HUMAN, stored.id, reason="obsolete", confirm=True)
    with pytest.raises(Conflict):
        memory.update(HUMAN, stored.id, content="The VPN profile is in the wiki")


def test_as_of_at_three_times_sees_writes_transitions_and_resolutions_as_they_were(memory, clock):
    # T1: two facts written.
    keep = memory.remember(HUMAN, "Keep gunicorn as the web server for the admin site.", project=P)
    deploy = memory.remember(HUMAN, "The admin site deploys with a blue-green switch on the load balancer", project=P)
    t1 = format_time(clock.now)
    # T2: a contradiction arrives, another memory is archived and one refuted.
    clock.advance(days=1)
    crash = memory.remember(HUMAN, "Gunicorn workers crash on the admin site; remove gunicorn.", project=P)
    link = crash.contradictions[0].contradiction_id
    memory.archive(HUMAN, deploy.id, reason="blue-green was replaced by canaries")
    t2 = format_time(clock.now)
    # T3: the contradiction is resolved for the newer side; a memory is edited.
    clock.advance(days=1)
    memory.resolve_contradiction(HUMAN, link, keep="b", reason="the crash is reproducible")
    memory.update(HUMAN, crash.id, content="Gunicorn workers crash on the admin site under load; remove gunicorn.")
    t3 = format_time(clock.now)
    clock.advance(days=1)

    query = "gunicorn admin site web server deploys"
    at1 = seen(memory, query, as_of=t1)
    assert set(at1) == {keep.id, deploy.id}
    assert at1[keep.id].trust == "confirmed" and not at1[keep.id].disputed

    at2 = seen(memory, query, as_of=t2)
    assert set(at2) == {keep.id, crash.id}  # the archived one is gone, the new one is there
    assert at2[keep.id].disputed and at2[crash.id].disputed
    assert at2[crash.id].content == "Gunicorn workers crash on the admin site; remove gunicorn."

    at3 = seen(memory, query, as_of=t3)
    assert set(at3) == {crash.id}  # the loser is refuted
    assert at3[crash.id].trust == "confirmed" and not at3[crash.id].disputed
    assert at3[crash.id].content.endswith("under load; remove gunicorn.")
    assert seen(memory, query, as_of=t3, include_refuted=True)[keep.id].trust == "refuted"
    # Before anything was written, nothing.
    assert seen(memory, query, as_of="2026-01-01") == {}


def test_valid_at_reads_what_held_in_the_world(memory, clock):
    old = memory.remember(HUMAN, "The office wifi network is called acme-guest", project=P,
                          valid_from="2025-01-01", valid_to="2026-01-01")
    new = memory.remember(HUMAN, "The office wifi network is called acme-visitors", project=P,
                          valid_from="2026-01-01")
    assert set(seen(memory, "office wifi network", valid_at="2025-06-01")) == {old.id}
    assert set(seen(memory, "office wifi network", valid_at="2026-02-01")) == {new.id}
    assert set(seen(memory, "office wifi network")) == {old.id, new.id}

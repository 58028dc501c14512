"""Mined candidates become `abandon` proposals; a person accepts (the graveyard gains it) or
rejects (a dismissal keyed on the name keeps it from being proposed again)."""

import pytest
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.mining.candidates import Candidate, Evidence
from cenotaph.memory.service import Memory
from cenotaph.store.db import Store

from tests.conftest import AGENT, HUMAN

MINER = HUMAN


def candidate(name: str, ecosystem: str = "pypi", reason: str | None = None) -> Candidate:
    return Candidate(
        name=name, ecosystem=ecosystem, reason=reason or f"removed in a1b2c3d \"Drop {name}\"", confidence=0.7,
        evidence=(Evidence(origin="git", role="removed", ref="a1b2c3d", summary=f"Drop {name}",
                           at="2026-01-02T00:00:00Z", author="Jane Doe", path="requirements.txt"),),
        replacement="httpx" if name == "requests" else None,
    )


def test_candidates_become_pending_abandon_proposals_with_their_evidence(memory):
    report = memory.propose_candidates(MINER, "p", [candidate("requests"), candidate("left-pad", "npm")])
    assert [p.target for p in report.proposed] == ["approach:pypi/requests", "approach:npm/left-pad"]
    first = memory.proposals("p")[0]
    assert first.action == "abandon" and first.status == "pending"
    assert first.arguments["replacement"] == "httpx"
    assert first.arguments["evidence"][0]["ref"] == "a1b2c3d"
    # Nothing entered the graveyard by itself.
    assert memory.check_approaches(["requests", "left-pad"], project="p")[0].status == "clear"


def test_names_already_judged_or_pending_are_not_proposed_again(memory):
    memory.abandon(HUMAN, "numpy", reason="too heavy", project="p")
    memory.abandon(HUMAN, "pandas", reason="slow", project="p")
    memory.reinstate_approach(HUMAN, "pandas", reason="fine again", project="p")
    memory.suppress(HUMAN, "flask", kind="diagnostic", project="p", reason="not ours")
    memory.propose_candidates(MINER, "p", [candidate("Requests")])
    report = memory.propose_candidates(MINER, "p", [candidate("numpy"), candidate("pandas"), candidate("flask"),
                                                     candidate("requests"), candidate("httpx")])
    assert report.in_graveyard == ["numpy", "pandas"]
    assert report.suppressed == ["flask"]
    assert report.already_pending == ["requests"]
    assert [p.target for p in report.proposed] == ["approach:pypi/httpx"]  # the positive control


def test_accepting_abandons_with_the_drafted_reason_and_the_given_effort(memory):
    proposal = memory.propose_candidates(MINER, "p", [candidate("requests")]).proposed[0]
    result = memory.accept_proposal(HUMAN, proposal.id, effort=3)
    verdict = memory.check_approaches(["requests"], project="p")[0]
    assert verdict.status == "abandoned"
    assert verdict.approach.reason == 'removed in a1b2c3d "Drop requests"'
    assert verdict.approach.effort == 3 and result.approach.ecosystem == "pypi"
    assert memory.proposals("p", status="accepted")[0].id == proposal.id


def test_accepting_with_a_reason_replaces_the_drafted_one(memory):
    proposal = memory.propose_candidates(MINER, "p", [candidate("requests")]).proposed[0]
    memory.accept_proposal(HUMAN, proposal.id, reason="no async support")
    assert memory.check_approaches(["requests"], project="p")[0].approach.reason == "no async support"


def test_rejecting_dismisses_the_name_for_later_runs_in_that_project(memory):
    proposal = memory.propose_candidates(MINER, "p", [candidate("requests")]).proposed[0]
    memory.reject_proposal(HUMAN, proposal.id, reason="we still want it")
    again = memory.propose_candidates(MINER, "p", [candidate("requests"), candidate("httpx")])
    assert again.dismissed == ["requests"]
    assert [p.target for p in again.proposed] == ["approach:pypi/httpx"]
    # Another project's run is not bound by this project's verdict.
    assert [p.target for p in memory.propose_candidates(MINER, "q", [candidate("requests")]).proposed] == [
        "approach:pypi/requests"]


def test_an_agent_cannot_accept_a_candidate_and_effort_is_only_for_candidates(memory):
    proposal = memory.propose_candidates(AGENT, "p", [candidate("requests")]).proposed[0]
    with pytest.raises(Conflict):
        memory.accept_proposal(AGENT, proposal.id)
    memory.abandon(HUMAN, "numpy", reason="too heavy", project="p")
    memory.forget(AGENT, memory.remember(HUMAN, "a note to forget", project="p").id, reason="stale", confirm=True)
    forget_proposal = next(p for p in memory.proposals("p") if p.action == "forget")
    with pytest.raises(InvalidInput):
        memory.accept_proposal(HUMAN, forget_proposal.id, effort=2)
    memory.accept_proposal(HUMAN, proposal.id)  # the positive control: a person may
    assert memory.check_approaches(["requests"], project="p")[0].status == "abandoned"


def test_an_unknown_ecosystem_is_refused_and_nothing_is_proposed(memory):
    with pytest.raises(InvalidInput):
        memory.propose_candidates(MINER, "p", [candidate("requests"), candidate("thing", "cpan")])
    assert memory.proposals("p") == []


@pytest.mark.sqlite_only("a file backup, which a PostgreSQL store leaves to pg_dump")
def test_rejected_candidates_travel_with_a_backup(memory, tmp_path, embedder, analyzer, clock):
    rejected = memory.propose_candidates(MINER, "p", [candidate("requests"), candidate("flask")]).proposed
    memory.reject_proposal(HUMAN, rejected[0].id, reason="we still want it")
    memory.backup(HUMAN, tmp_path / "backup.db")
    store = Store(tmp_path / "other.db")
    try:
        other = Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
        other.propose_candidates(MINER, "p", [candidate("ujson")])
        other.reject_proposal(HUMAN, other.proposals("p")[0].id, reason="ours")
        report = other.restore(HUMAN, tmp_path / "backup.db")
        assert report.candidate_dismissals == 1
        again = other.propose_candidates(MINER, "p", [candidate("requests"), candidate("ujson"), candidate("flask")])
        assert again.dismissed == ["requests", "ujson"]
        assert [p.target for p in again.proposed] == ["approach:pypi/flask"]  # only pending in the backup
    finally:
        store.close()


def test_a_drafted_reason_is_the_sentence_that_says_why_never_a_version_merge_bump_or_list():
    from cenotaph.memory.mining.messages import commit_why

    for noise in ("Version 0.11", "v1.2.3", "merge", "Merge branch 'dev'\n\nmerge", "Bump requests from 2.0 to 2.1",
                  "build(deps): bump foo from 1 to 2", "- drop six\n- drop mock", "Tidy"):
        assert commit_why(noise) == "", noise
    # Positive controls: a subject that says what was done stays; the why is found behind a release or a list.
    assert commit_why("Replace requests with httpx") == "Replace requests with httpx"
    assert commit_why("Release 2.0\n\nDropped nose because it is unmaintained.") == "Dropped nose because it is unmaintained."
    assert commit_why("Remove the pin\n\n- tidy\n- drop greenlet since 2.0 is out") == \
        "Remove the pin: drop greenlet since 2.0 is out"
    assert commit_why("Tidy deps\n\nWe remove ujson since it\ncrashes on 3.12.") == \
        "Tidy deps: We remove ujson since it crashes on 3.12."


def test_a_candidates_removal_is_its_first_evidence():
    from cenotaph.memory.mining.candidates import evidence
    from cenotaph.store.records import ProposalRow

    row = ProposalRow(1, "p", "abandon", "approach:pypi/x", {"evidence": [
        {"role": "added", "ref": "a" * 40, "at": "2024-01-01"}, {"role": "removed", "ref": "b" * 40, "at": "2024-02-01"}]},
        "r", "cli", "pending", "2024-03-01", None, None, None)
    assert [e["role"] for e in evidence(row)] == ["removed", "added"]

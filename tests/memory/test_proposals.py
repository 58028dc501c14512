"""Agent policy (issue 3): an agent's forget, refute, resolve and unsuppress become proposals a
person accepts or rejects, unless the configuration allows them; an agent never confirms and
never decides a proposal."""

from __future__ import annotations

import pytest

from cenotaph.config import Settings, load
from cenotaph.memory.errors import Conflict
from cenotaph.memory.service import Memory
from cenotaph.store.records import MemoryRow, ProposalRow
from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"


def test_agent_forget_is_a_proposal_until_a_person_accepts_it(memory):
    stored = memory.remember(HUMAN, "The old CI runners are in the basement rack", project=P)
    preview = memory.forget(AGENT, stored.id, reason="obsolete")
    assert preview.content.startswith("The old CI runners")  # a preview is only a read
    proposal = memory.forget(AGENT, stored.id, reason="the runners were decommissioned", confirm=True)
    assert isinstance(proposal, ProposalRow)
    assert (proposal.action, proposal.target, proposal.status, proposal.actor) == (
        "forget", f"memory:{stored.id}", "pending", AGENT.name)
    assert memory.get(stored.id).state == "active"
    assert [p.id for p in memory.proposals(P)] == [proposal.id]
    # Asking again adds nothing.
    assert memory.forget(AGENT, stored.id, reason="the runners were decommissioned", confirm=True).id == proposal.id

    result = memory.accept_proposal(HUMAN, proposal.id, reason="agreed")
    assert isinstance(result, MemoryRow) and result.state == "deleted"
    decided = memory.proposals(P, status="accepted")[0]
    assert (decided.decided_by, decided.decision_reason) == (HUMAN.name, "agreed")
    transition = memory.history(stored.id).transitions[-1]
    assert transition.actor == HUMAN.name and f"proposed by {AGENT.name}" in transition.reason
    assert memory.proposals(P) == []


def test_agent_refute_is_a_proposal_and_a_rejection_changes_nothing(memory):
    stored = memory.remember(HUMAN, "The mobile app supports offline mode", project=P)
    proposal = memory.set_trust(AGENT, stored.id, "refuted", reason="I saw no offline code")
    assert isinstance(proposal, ProposalRow) and memory.get(stored.id).trust == "confirmed"
    rejected = memory.reject_proposal(HUMAN, proposal.id, reason="it is behind a flag")
    assert (rejected.status, rejected.decision_reason) == ("rejected", "it is behind a flag")
    assert memory.get(stored.id).trust == "confirmed"
    with pytest.raises(Conflict):
        memory.accept_proposal(HUMAN, proposal.id)
    # Positive control: verbs outside the policy act directly for an agent.
    assert memory.set_trust(AGENT, stored.id, "disputed", reason="unsure").trust == "disputed"
    assert memory.deprioritise(AGENT, stored.id, reason="rarely relevant").state == "deprioritised"


def test_agent_resolve_and_unsuppress_are_proposals(memory):
    memory.remember(HUMAN, "Prefer SQLAlchemy for database access in the billing service.", project=P)
    b = memory.remember(HUMAN, "SQLAlchemy sessions leak connections in the billing service; drop it.", project=P)
    link = b.contradictions[0].contradiction_id
    proposal = memory.resolve_contradiction(AGENT, link, keep="b", reason="the leak is reproducible")
    assert isinstance(proposal, ProposalRow) and memory.contradictions(P)[0].status == "open"
    view = memory.accept_proposal(HUMAN, proposal.id)
    assert view.status == "resolved" and view.resolution == "keep_b"

    memory.suppress(HUMAN, "webpack", kind="recall", project=P, reason="migrating")
    lift = memory.unsuppress(AGENT, "webpack", kind="recall", project=P, reason="we still use it")
    assert isinstance(lift, ProposalRow)
    assert "webpack" in memory.graveyard.recall_suppressed_values(P)
    lifted = memory.accept_proposal(HUMAN, lift.id)
    assert lifted.lifted_at is not None and "webpack" not in memory.graveyard.recall_suppressed_values(P)


def test_an_agent_never_decides_a_proposal(memory):
    stored = memory.remember(HUMAN, "The feature freeze starts two weeks before release", project=P)
    proposal = memory.set_trust(AGENT, stored.id, "refuted", reason="it is one week now")
    for decide in (lambda: memory.accept_proposal(AGENT, proposal.id),
                   lambda: memory.reject_proposal(AGENT, proposal.id, reason="no")):
        with pytest.raises(Conflict, match="only a person"):
            decide()
    assert memory.proposals(P)[0].status == "pending"


def test_configuration_lets_an_agent_act_directly_but_never_confirm(memory):
    permissive = Memory(memory.ctx, Settings(agent_allowed=frozenset({"forget", "refute", "resolve", "unsuppress"})))
    stored = memory.remember(HUMAN, "The load balancer health check hits /healthz", project=P)
    assert permissive.set_trust(AGENT, stored.id, "refuted", reason="it is /ready now").trust == "refuted"
    with pytest.raises(Conflict, match="only a person can confirm"):
        permissive.set_trust(AGENT, stored.id, "confirmed", reason="I checked")
    assert permissive.forget(AGENT, stored.id, reason="wrong", confirm=True).state == "deleted"
    assert permissive.proposals(P) == []
    # Positive control: the default policy proposes the same verbs.
    other = memory.remember(HUMAN, "The load balancer drains connections for 30 seconds", project=P)
    assert isinstance(memory.forget(AGENT, other.id, reason="wrong", confirm=True), ProposalRow)


def test_the_policy_is_read_from_config_toml(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[agent_policy]\nallow = ["forget"]\n')
    assert load(path).agent_allowed == frozenset({"forget"})
    assert load(tmp_path / "missing.toml").agent_allowed == frozenset()

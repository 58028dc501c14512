"""Agent policy: an agent's destructive or epistemic verbs (forget, refute, resolve) and those that
lift a block (suppress, unsuppress, reinstate) become proposals a person accepts or rejects, unless
the user's configuration lets the agent act directly; its share and unshare always do (writing
into the repository is a person's act). No agent accepts or rejects a proposal, its own or
another's. An agent is an MCP client, or a `cenotaph` command its shell tool runs (cli/authority.py)."""

from __future__ import annotations

from typing import Any

from cenotaph.config import Settings
from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import AlreadyDecided, Conflict, NotFound
from cenotaph.memory.models import Actor
from cenotaph.store import proposals
from cenotaph.store.records import ProposalRow

PROPOSABLE = ("forget", "refute", "resolve", "suppress", "unsuppress", "reinstate", "share", "unshare", "compact")
STATUSES = ("pending", "accepted", "rejected")


def must_propose(settings: Settings, actor: Actor, verb: str) -> bool:
    return actor.kind == "agent" and verb not in settings.agent_allowed


def propose(ctx: Context, actor: Actor, *, action: str, target: str, project: str, arguments: dict[str, Any],
            reason: str) -> ProposalRow:
    """Store the proposal (or return the same one still pending: an agent repeating itself adds nothing)."""
    reason = secrets.screen(reason, "reason", actor)
    with ctx.store.write() as tx:
        existing = proposals.find_pending(tx, action=action, target=target, arguments=arguments)
        if existing is not None:
            return existing
        proposal_id = proposals.add(tx, project=project, action=action, target=target, arguments=arguments,
                                    reason=reason, actor=actor.name, at=ctx.now())
        ctx.event(tx, actor=actor.name, action="propose", target=f"proposal:{proposal_id}", project=project,
                  after={"action": action, "target": target, "arguments": arguments}, reason=reason)
        found = proposals.get(tx, proposal_id)
    assert found is not None
    return found


def listing(ctx: Context, project: str | None, status: str | None = "pending") -> list[ProposalRow]:
    if status is not None:
        validate.choice(status, "status", STATUSES)
    with ctx.store.read() as conn:
        return proposals.listing(conn, project=None if project is None else validate.project(project), status=status)


def get(ctx: Context, proposal_id: int) -> ProposalRow:
    proposal_id = validate.integer(proposal_id, "proposal_id", low=1, high=2**62)
    with ctx.store.read() as conn:
        found = proposals.get(conn, proposal_id)
    if found is None:
        raise NotFound(f"no proposal #{proposal_id}", field="proposal_id")
    return found


def only_a_person(actor: Actor, what: str, command: str) -> None:
    if actor.kind != "human":
        raise Conflict(f"only a person can accept or reject a proposal: ask the person to decide {what} "
                       f"(the editor's ledger, or `{command}` in a terminal of their own)", field="actor")


def decided(ctx: Context, actor: Actor, proposal_id: int) -> ProposalRow:
    """The proposal a person is about to decide on (or to reopen)."""
    only_a_person(actor, f"#{proposal_id}", f"cenotaph accept {proposal_id}")
    return get(ctx, proposal_id)


def pending(ctx: Context, actor: Actor, proposal_id: int) -> ProposalRow:
    """The pending proposal a person is about to decide on."""
    found = decided(ctx, actor, proposal_id)
    if found.status != "pending":
        raise AlreadyDecided(f"proposal #{proposal_id} was already {found.status}", field="proposal_id")
    return found


def decide(ctx: Context, actor: Actor, proposal: ProposalRow, status: str, reason: str | None) -> ProposalRow:
    reason = secrets.screen_optional(reason, "reason", actor)
    with ctx.store.write() as tx:
        proposals.decide(tx, proposal.id, status=status, actor=actor.name, at=ctx.now(), reason=reason)
        ctx.event(tx, actor=actor.name, action=f"proposal:{status}", target=f"proposal:{proposal.id}",
                  project=proposal.project, before={"status": "pending"},
                  after={"status": status, "action": proposal.action, "target": proposal.target}, reason=reason)
        found = proposals.get(tx, proposal.id)
    assert found is not None
    return found

"""briefing: what to know before working on this project, in one compact call."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel

from cenotaph.mcp.tools.base import READ_ONLY, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import MemoryBrief, Result, brief, reply, result
from cenotaph.memory.models import ContradictionView

# Caps that keep the briefing to a screenful.
LIMITS = {"graveyard": 30, "open_contradictions": 10, "pending_proposals": 10, "preferences": 10,
          "recent_decisions": 10}

TOOLS = ToolGroup()


class GraveyardEntry(BaseModel):
    name: str
    ecosystem: str
    reason: str
    effort: int | None
    scope: Literal["project", "global"]
    approach_id: int


class ProposalBrief(BaseModel):
    id: int
    action: str
    target: str
    reason: str
    actor: str


class Briefing(BaseModel):
    """What to know before working on this project. Lists are capped; `truncated` names those
    that hold more than shown."""

    project: str
    graveyard: list[GraveyardEntry]
    open_contradictions: list[Result[ContradictionView]]
    pending_proposals: list[ProposalBrief]
    preferences: list[MemoryBrief]
    recent_decisions: list[MemoryBrief]
    truncated: list[str] = []


def _in_brief(contradiction: ContradictionView) -> BaseModel:
    """A contradiction with both sides' text in brief: the briefing is a screenful."""
    shown = result(contradiction)
    for side in (shown.a, shown.b):
        if side is not None:
            side.content = brief(side.content)
    return shown


@TOOLS.add(READ_ONLY)
def briefing(ctx: Context) -> CallToolResult:
    """Call first on this project: the abandoned approaches (never suggest them), open
    contradictions, pending proposals, the user's preferences and recent decisions."""
    return reply(brief_of(ctx))


def brief_of(ctx: Context) -> Briefing:
    """The briefing (the `session-start` prompt shows it too)."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        lists = {
            "graveyard": sorted(memory.graveyard.in_scope(env.project), key=lambda a: a.updated_at, reverse=True),
            "open_contradictions": memory.contradictions(env.project, status="open"),
            "pending_proposals": memory.proposals(env.project, status="pending"),
            "preferences": memory.recent(env.project, kinds=("preference",), limit=LIMITS["preferences"] + 1),
            "recent_decisions": memory.recent(env.project, kinds=("decision",),
                                              limit=LIMITS["recent_decisions"] + 1),
        }
    truncated = [name for name, items in lists.items() if len(items) > LIMITS[name]]
    shown = {name: items[:LIMITS[name]] for name, items in lists.items()}
    return Briefing(
        project=env.project,
        graveyard=[GraveyardEntry(name=a.display_name, ecosystem=a.ecosystem, reason=a.reason, effort=a.effort,
                                  scope="global" if a.project == "" else "project", approach_id=a.id)
                   for a in shown["graveyard"]],
        open_contradictions=[_in_brief(c) for c in shown["open_contradictions"]],
        pending_proposals=[ProposalBrief(id=p.id, action=p.action, target=p.target, reason=p.reason, actor=p.actor)
                           for p in shown["pending_proposals"]],
        preferences=[MemoryBrief.of(m) for m in shown["preferences"]],
        recent_decisions=[MemoryBrief.of(m) for m in shown["recent_decisions"]],
        truncated=truncated,
    )

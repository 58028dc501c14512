"""contradictions, resolve_contradiction, dismiss_contradiction."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome, Result, result
from cenotaph.memory.models import ContradictionView

ContradictionId = Annotated[int, Field(ge=1, description="The contradiction's id (from contradictions or briefing).")]

TOOLS = ToolGroup()


class ContradictionList(BaseModel):
    contradictions: list[Result[ContradictionView]]
    more: int = 0


@TOOLS.add(READ_ONLY)
def contradictions(
    ctx: Context,
    status: Literal["open", "resolved", "dismissed"] = "open",
    limit: Annotated[int, Field(ge=1, le=50)] = 20,
) -> ContradictionList:
    """Pairs of memories that seem to say opposite things (both sides are `disputed` while
    open). Call it before relying on a disputed memory, or when the user asks what is
    unsettled; settle one with resolve_contradiction or dismiss_contradiction."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        found = memory.contradictions(env.project, status=status)
    return ContradictionList(contradictions=[result(c) for c in found[:limit]],
                             more=max(0, len(found) - limit))


@TOOLS.add(WRITE)
def resolve_contradiction(
    ctx: Context, contradiction_id: ContradictionId,
    keep: Annotated[Literal["a", "b", "both", "neither"], Field(
        description="Which side is right: the other is refuted. `both`: both hold (the older one's validity ends).")],
    reason: Reason,
) -> ChangeOutcome:
    """Settle a contradiction by saying which side is true. From an agent this becomes a
    proposal that a person accepts in the editor."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.resolve_contradiction(env.actor(ctx), contradiction_id, keep=keep,
                                                             reason=reason))


@TOOLS.add(WRITE)
def dismiss_contradiction(ctx: Context, contradiction_id: ContradictionId, reason: Reason) -> ChangeOutcome:
    """Say the two memories do not actually conflict; the pair is not flagged again."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.dismiss_contradiction(env.actor(ctx), contradiction_id, reason=reason))

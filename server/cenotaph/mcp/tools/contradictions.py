"""settle: say which side of a contradiction is right, or that it is none."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from cenotaph.mcp.tools.base import WRITE, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome, reply

TOOLS = ToolGroup()


@TOOLS.add(WRITE)
def settle(
    ctx: Context,
    contradiction_id: Annotated[int, Field(ge=1, description="From briefing or inspect(what=contradictions).")],
    keep: Annotated[Literal["a", "b", "both", "neither", "no_conflict"], Field(
        description="a / b: that side is right (the other is refuted); both: both hold (the older one's validity "
                    "ends); neither; no_conflict: they do not actually disagree (not flagged again).")],
    reason: Reason,
) -> CallToolResult:
    """Settle a contradiction between two memories. Except `no_conflict`, it becomes a proposal
    a person accepts in the editor."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        if keep == "no_conflict":
            return reply(ChangeOutcome.of(memory.dismiss_contradiction(env.actor(ctx), contradiction_id,
                                                                       reason=reason)))
        return reply(ChangeOutcome.of(memory.resolve_contradiction(env.actor(ctx), contradiction_id, keep=keep,
                                                                   reason=reason)))

"""deprioritise, archive, reinstate_memory, forget: what may surface, and what is gone."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from cenotaph.mcp.tools.base import DESTRUCTIVE, WRITE, MemoryId, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome

TOOLS = ToolGroup()


@TOOLS.add(WRITE)
def deprioritise(
    ctx: Context, memory_id: MemoryId, reason: Reason,
    hints: Annotated[list[str] | None, Field(description="Words that bring it back to the top when a query names them.")] = None,
) -> ChangeOutcome:
    """Push a memory down in recall without hiding it (it scores ×0.2), e.g. when it is
    still true but rarely relevant. `hints` name the topics where it matters again."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.deprioritise(env.actor(ctx), memory_id, reason=reason, hints=tuple(hints or ())))


@TOOLS.add(WRITE)
def archive(ctx: Context, memory_id: MemoryId, reason: Reason) -> ChangeOutcome:
    """Keep a memory out of recall (it stays in history and can be reinstated), e.g. when it
    no longer applies. For a memory that is wrong, use set_trust with `refuted` instead."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.archive(env.actor(ctx), memory_id, reason=reason))


@TOOLS.add(WRITE)
def reinstate_memory(ctx: Context, memory_id: MemoryId, reason: Reason) -> ChangeOutcome:
    """Make a deprioritised or archived memory active again, e.g. when recall missed it
    because it was pushed down or archived too early."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.reinstate(env.actor(ctx), memory_id, reason=reason))


@TOOLS.add(DESTRUCTIVE)
def forget(
    ctx: Context, memory_id: MemoryId, reason: Reason,
    confirm: Annotated[bool, Field(description="False (default): only show what would be forgotten.")] = False,
) -> ChangeOutcome:
    """Remove a memory's content for good (a tombstone keeps it from coming back). Without
    confirm=true nothing changes: the result previews what would go. From an agent the
    confirmed call becomes a proposal that a person accepts in the editor."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.forget(env.actor(ctx), memory_id, reason=reason, confirm=confirm))

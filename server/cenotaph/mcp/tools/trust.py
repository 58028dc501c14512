"""set_trust: whether a memory is believed."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context

from cenotaph.mcp.tools.base import WRITE, MemoryId, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome

TOOLS = ToolGroup()


@TOOLS.add(WRITE)
def set_trust(ctx: Context, memory_id: MemoryId,
              trust: Literal["disputed", "refuted", "unverified"], reason: Reason) -> ChangeOutcome:
    """Say that a recalled memory looks wrong: `disputed` (there is evidence against it),
    `refuted` (known wrong: recall stops returning it), or `unverified` (back to unknown).
    Call it when what you observe contradicts a memory. `refuted` becomes a proposal that
    a person accepts in the editor; only a person confirms a memory."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.set_trust(env.actor(ctx), memory_id, trust, reason=reason))

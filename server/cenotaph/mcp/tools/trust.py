"""set_trust: whether a memory is believed."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context, MCPServer

from cenotaph.mcp.tools.base import WRITE, MemoryId, Reason, ToolEnv
from cenotaph.mcp.tools.models import ChangeOutcome


def register(server: MCPServer, env: ToolEnv) -> None:
    @server.tool(annotations=WRITE)
    def set_trust(ctx: Context, memory_id: MemoryId,
                  trust: Literal["confirmed", "disputed", "refuted", "unverified"], reason: Reason) -> ChangeOutcome:
        """Say whether a memory is true: `confirmed` (verified, e.g. by a test or the user),
        `disputed` (evidence against it), `refuted` (known wrong: recall stops returning it),
        `unverified`. Call it when what you observe confirms or contradicts a recalled memory.
        From an agent, `refuted` becomes a proposal that a person accepts in the editor."""
        with env.domain() as memory:
            return ChangeOutcome.of(memory.set_trust(env.actor(ctx), memory_id, trust, reason=reason))

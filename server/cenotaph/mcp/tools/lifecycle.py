"""change: a memory's content, whether it may surface, whether it is believed, and forgetting it."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from cenotaph.mcp.tools.base import DESTRUCTIVE, MemoryId, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome, reply, result
from cenotaph.memory.errors import InvalidInput

Action = Literal["update", "deprioritise", "archive", "reinstate", "forget", "dispute", "refute", "unverify",
                 "reconfirm"]
TRUST = {"dispute": "disputed", "refute": "refuted", "unverify": "unverified"}

TOOLS = ToolGroup()


@TOOLS.add(DESTRUCTIVE)
def change(
    ctx: Context,
    memory_id: MemoryId,
    action: Annotated[Action, Field(description=(
        "update: new `content` (the old version stays in history); deprioritise: ×0.2 in recall unless a query "
        "names one of `hints`; archive: out of recall; reinstate: active again; forget: erase (a preview unless "
        "`confirm`); dispute / refute / unverify: how far it is believed; reconfirm: re-anchor it to its code as "
        "it is now (it still holds)."))],
    reason: Reason,
    content: Annotated[str | None, Field(description="update only: the corrected memory, verbatim.")] = None,
    hints: list[str] | None = None,
    confirm: bool = False,
) -> CallToolResult:
    """Correct, demote, archive, reinstate, forget or (dis)believe a memory. Refuting, forgetting
    and similar person-only changes come back as proposals a person accepts in the editor."""
    env = ToolEnv.of(ctx)
    actor = env.actor(ctx)
    with env.domain() as memory:
        if action == "update":
            if content is None:
                raise InvalidInput("update needs the corrected content", field="content")
            changed = memory.update(actor, memory_id, content=content, reason=reason)
        elif action == "deprioritise":
            changed = memory.deprioritise(actor, memory_id, reason=reason, hints=tuple(hints or ()))
        elif action == "archive":
            changed = memory.archive(actor, memory_id, reason=reason)
        elif action == "reinstate":
            changed = memory.reinstate(actor, memory_id, reason=reason)
        elif action == "reconfirm":
            return reply(result(memory.reconfirm_anchor(actor, memory_id)))
        elif action == "forget":
            changed = memory.forget(actor, memory_id, reason=reason, confirm=confirm)
        else:
            changed = memory.set_trust(actor, memory_id, TRUST[action], reason=reason)
    return reply(ChangeOutcome.of(changed))

"""suppress, unsuppress: silence a name in editors or keep it out of recall."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from cenotaph.mcp.tools.base import WRITE, GlobalScope, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome

SuppressionKind = Annotated[Literal["diagnostic", "recall"], Field(
    description="`diagnostic`: editors stop flagging the name; `recall`: memories mentioning it leave recall.")]
Name = Annotated[str, Field(min_length=1, max_length=300, description="A package, library or tool name.")]

TOOLS = ToolGroup()


@TOOLS.add(WRITE)
def suppress(ctx: Context, name: Name, kind: SuppressionKind, reason: Reason,
             global_scope: GlobalScope = False) -> ChangeOutcome:
    """Silence a name: stop editors flagging it (`diagnostic`), or keep memories that mention
    it out of recall (`recall`; the graveyard record explaining it stays visible). Call it
    when the user says a warning or a topic is noise here."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.suppress(env.actor(ctx), name, kind=kind, project=env.scope(global_scope),
                                                reason=reason))


@TOOLS.add(WRITE)
def unsuppress(ctx: Context, name: Name, kind: SuppressionKind, reason: Reason,
               global_scope: GlobalScope = False) -> ChangeOutcome:
    """Lift a suppression, with the reason. From an agent this becomes a proposal that a
    person accepts in the editor."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.unsuppress(env.actor(ctx), name, kind=kind, project=env.scope(global_scope),
                                                  reason=reason))

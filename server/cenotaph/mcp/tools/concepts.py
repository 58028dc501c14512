"""review_concept: a correction to the concept graph, proposed to a person."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from cenotaph.mcp.tools.base import WRITE, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import reply, result

TOOLS = ToolGroup()


@TOOLS.add(WRITE)
def review_concept(
    ctx: Context,
    verb: Annotated[Literal["merge", "remove", "dismiss", "rename"],
                    Field(description="merge: `a` becomes an alias of `b`; remove: `a` is noise; "
                                      "dismiss: `a` and `b` are wrongly linked; rename: `a` is called `b`.")],
    a: Annotated[str, Field(min_length=1, max_length=2000)],
    reason: Reason,
    b: Annotated[str | None, Field(max_length=2000)] = None,
) -> CallToolResult:
    """Propose a correction to the project's concepts (see inspect(what=concepts)); a person
    accepts it, and it outlives every rebuild."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return reply(result(memory.concept_verdict(env.actor(ctx), verb, a, b, project=env.project, reason=reason)))

"""inspect: read-only looks around a memory or the project: a memory's history, what else shares
its concepts, why a topic came up, the open contradictions, the project's concepts."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import Result, reply, result
from cenotaph.memory.core.concepts import ConceptView, RelatedMemory
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.models import ContradictionView

TOOLS = ToolGroup()


class ContradictionList(BaseModel):
    contradictions: list[Result[ContradictionView]]
    more: int = 0


class ConceptsOutput(BaseModel):
    concepts: list[Result[ConceptView]]


class RelatedOutput(BaseModel):
    related: list[Result[RelatedMemory]]


@TOOLS.add(READ_ONLY)
def inspect(
    ctx: Context,
    what: Annotated[Literal["history", "related", "why", "contradictions", "concepts"], Field(description=(
        "history: every version and change of `memory_id`, by whom and why; related: memories sharing its "
        "concepts; why: the recent recalls whose results mention `topic`; contradictions: pairs that disagree "
        "(`status`); concepts: what the project's memories are about."))],
    memory_id: Annotated[int | None, Field(ge=1)] = None,
    topic: str | None = None,
    status: Literal["open", "resolved", "dismissed"] = "open",
    limit: Annotated[int, Field(ge=1, le=500)] = 20,
) -> CallToolResult:
    """Look closer before you change or rely on something: a memory's history, its related
    memories, why a topic came up, the contradictions, the project's concepts."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        if what in ("history", "related"):
            if memory_id is None:
                raise InvalidInput(f"{what} needs a memory_id", field="memory_id")
            if what == "history":
                return reply(result(memory.history(memory_id)))
            return reply(RelatedOutput(related=[result(r) for r in memory.related(memory_id, min(limit, 50))]))
        if what == "why":
            if not topic:
                raise InvalidInput("why needs a topic", field="topic")
            return reply(result(memory.why(topic, env.project)))
        if what == "concepts":
            return reply(ConceptsOutput(concepts=[result(c) for c in memory.concepts(env.project, limit)]))
        found = memory.contradictions(env.project, status=status)
    return reply(ContradictionList(contradictions=[result(c) for c in found[:limit]], more=max(0, len(found) - limit)))

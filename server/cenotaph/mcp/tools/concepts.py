"""concepts, related, review_concept: the concept graph (memory/core/concepts.py). An agent's verdict
is a proposal a person accepts: the concept graph is a person's review."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, MemoryId, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import Result, result
from cenotaph.memory.core.concepts import ConceptView, RelatedMemory
from cenotaph.store.records import ProposalRow

TOOLS = ToolGroup()

ConceptName = Annotated[str, Field(min_length=1, max_length=2000, description="A concept as `concepts` lists it.")]


class ConceptsOutput(BaseModel):
    concepts: list[Result[ConceptView]]


class RelatedOutput(BaseModel):
    related: list[Result[RelatedMemory]]


@TOOLS.add(READ_ONLY)
def concepts(ctx: Context, limit: Annotated[int, Field(ge=1, le=500, description="How many concepts.")] = 50
             ) -> ConceptsOutput:
    """The project's concepts (packages, paths, identifiers and phrases its memories are about),
    most memories first, each with its aliases and the concepts it most often appears with.
    Use it to see what the project's memory covers, or before proposing a review."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ConceptsOutput(concepts=[result(c) for c in memory.concepts(env.project, limit)])


@TOOLS.add(READ_ONLY)
def related(ctx: Context, memory_id: MemoryId,
            k: Annotated[int, Field(ge=1, le=50, description="How many memories at most.")] = 10) -> RelatedOutput:
    """Memories that share concepts with one memory, most shared first, each with the concepts
    they share: what else the project knows about the same things."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return RelatedOutput(related=[result(r) for r in memory.related(memory_id, k)])


@TOOLS.add(WRITE)
def review_concept(
    ctx: Context,
    verb: Annotated[Literal["merge", "remove", "dismiss", "rename"],
                    Field(description="merge: `a` becomes an alias of `b`; remove: `a` is never extracted again; "
                                      "dismiss: `a` and `b` are wrongly linked; rename: `a` is called `b`.")],
    a: ConceptName,
    reason: Reason,
    b: Annotated[str | None, Field(max_length=2000, description="The second concept (not for remove).")] = None,
) -> Result[ProposalRow]:
    """Propose a correction to the concept graph: two spellings of one thing (merge), a concept
    that is noise (remove), a wrong link (dismiss), a better name (rename). A person accepts or
    rejects the proposal; accepted, it outlives every rebuild."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return result(memory.concept_verdict(env.actor(ctx), verb, a, b, project=env.project, reason=reason))

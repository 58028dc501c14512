"""remember, recall, update, history, why."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, GlobalScope, MemoryId, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome, Result, result
from cenotaph.memory.models import KINDS, MemoryHistory, RecallResponse, RememberResult, WhyReport

MAX_RECALL = 50

Kind = Literal[KINDS]  # type: ignore[valid-type]
Moment = Annotated[str | None, Field(description="ISO 8601 date or date-time (UTC when no offset is given).")]

TOOLS = ToolGroup()


@TOOLS.add(WRITE)
def remember(
    ctx: Context,
    content: Annotated[str, Field(description="The memory, verbatim (at most 50,000 characters).")],
    kind: Kind = "note",
    tags: list[str] | None = None,
    force: Annotated[bool, Field(description="Store even if a near-duplicate exists.")] = False,
    global_scope: GlobalScope = False,
    valid_from: Moment = None,
    valid_to: Moment = None,
) -> Result[RememberResult]:
    """Store something a later session (yours, another agent's or the person's) should know:
    a decision and its reason, a preference the user stated, a fact about this codebase.
    Call it when such a thing is settled, not for transient chatter. Refused with
    `duplicate_of` when a near-duplicate exists; a likely contradiction is stored and
    reported in `contradictions`. For what was tried and how it went use record_experience;
    for a library or tool that must not be used again use abandon. Text that holds a secret
    (a key, token or password) is refused with its kind and range: remove it and call again."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        remembered = memory.remember(env.actor(ctx), content, project=env.scope(global_scope), kind=kind,
                                     tags=tags, force=force, valid_from=valid_from, valid_to=valid_to)
    return result(remembered)


@TOOLS.add(READ_ONLY)
def recall(
    ctx: Context,
    query: Annotated[str, Field(description="What you want to know; a file path, flag or identifier is matched exactly.")],
    k: Annotated[int, Field(ge=1, le=MAX_RECALL, description="How many memories at most.")] = 10,
    kinds: list[Kind] | None = None,
    as_of: Annotated[str | None, Field(description="Answer with what the store held at this time (ISO 8601).")] = None,
    valid_at: Annotated[str | None, Field(description="Answer with what was true in the world at this time (ISO 8601).")] = None,
    include_refuted: Annotated[bool, Field(description="Also return memories known to be wrong.")] = False,
) -> Result[RecallResponse]:
    """Search the memory this project shares with its people and other agents. Call it before
    re-deriving a decision, re-asking the user, or proposing an approach: the answer may
    already be here. Abandoned approaches named in the query come first as
    `abandoned_warning` results with the reason they were dropped."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        response = memory.recall(env.actor(ctx), query, project=env.project, k=k, kinds=kinds, as_of=as_of,
                                 valid_at=valid_at, include_refuted=include_refuted)
    return result(response)


@TOOLS.add(WRITE)
def update(ctx: Context, memory_id: MemoryId,
           content: Annotated[str, Field(description="The corrected memory, verbatim.")],
           reason: Reason | None = None) -> ChangeOutcome:
    """Correct a memory's content. A new version is recorded and the old one stays in its
    history (see `history`); use it when a memory is outdated or imprecise rather than
    storing a second, conflicting one."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ChangeOutcome.of(memory.update(env.actor(ctx), memory_id, content=content, reason=reason))


@TOOLS.add(READ_ONLY)
def history(ctx: Context, memory_id: MemoryId) -> Result[MemoryHistory]:
    """Every version of a memory and every change to its state and trust, with who made it
    and why. Call it before changing a memory whose story you do not know."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return result(memory.history(memory_id))


@TOOLS.add(READ_ONLY)
def why(ctx: Context,
        topic: Annotated[str, Field(description="A word, name or phrase you mentioned.")]) -> Result[WhyReport]:
    """Why did you (or another agent) bring up this topic? Lists the recent recalls in this
    project whose results mention it, with the queries that found them."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return result(memory.why(topic, env.project))

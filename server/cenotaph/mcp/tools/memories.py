"""remember, recall."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, GlobalScope, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import recall_reply, reply, result
from cenotaph.memory.knowledge.anchors.follow import Place
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.models import KINDS

MAX_RECALL = 50

Kind = Literal[KINDS]  # type: ignore[valid-type]
Moment = Annotated[str | None, Field(description="ISO 8601 date or date-time (UTC when no offset is given).")]

TOOLS = ToolGroup()


class AnchorAt(BaseModel):
    """Lines of a file in the repository the memory is about (1-based, inclusive)."""

    path: Annotated[str, Field(min_length=1, description="Relative to the repository root.")]
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int | None, Field(ge=1, description="Default: start_line.")] = None

    def place(self, workspace) -> Place:
        if workspace is None:
            raise InvalidInput("at: this server runs in no repository to anchor to", field="at")
        return Place(str(workspace / self.path), self.start_line, self.end_line or self.start_line)


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
    at: Annotated[AnchorAt | None, Field(description=(
        "Anchor it to code: recall then says when those lines changed (stale) or moved."))] = None,
) -> CallToolResult:
    """Store a settled decision, a stated preference or a fact a later session should know. A
    near-duplicate is refused (`duplicate_of`), a likely contradiction stored and reported."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        remembered = memory.remember(env.actor(ctx), content, project=env.scope(global_scope), kind=kind,
                                     tags=tags, force=force, valid_from=valid_from, valid_to=valid_to,
                                     at=None if at is None else at.place(env.workspace))
    return reply(result(remembered))


@TOOLS.add(READ_ONLY)
def recall(
    ctx: Context,
    query: Annotated[str, Field(description="What you want to know; a path, flag or identifier is matched exactly.")],
    k: Annotated[int, Field(ge=1, le=MAX_RECALL, description="How many memories at most.")] = 10,
    kinds: list[Kind] | None = None,
    as_of: Annotated[str | None, Field(description="What the store held at this time (ISO 8601).")] = None,
    valid_at: Annotated[str | None, Field(description="What was true in the world at this time (ISO 8601).")] = None,
    include_refuted: bool = False,
    explain: Annotated[bool, Field(description="Every field, with the score's components.")] = False,
) -> CallToolResult:
    """Search the project's shared memory before re-deriving a decision or re-asking the user.
    Abandoned approaches the query names come first, with their reason and effort."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        response = memory.recall(env.actor(ctx), query, project=env.project, k=k, kinds=kinds, as_of=as_of,
                                 valid_at=valid_at, include_refuted=include_refuted)
    return recall_reply(response, explain=explain)

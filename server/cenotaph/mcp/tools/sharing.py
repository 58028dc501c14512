"""share, unshare: team memory in the repository's `.cenotaph/` folder. From an agent both are
proposals a person accepts: writing into the repository is a person's act."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import WRITE, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import Result, result
from cenotaph.memory.models import ShareResult
from cenotaph.store.records import ProposalRow

TOOLS = ToolGroup()

Target = Annotated[str, Field(min_length=1, max_length=1000,
                              description="A memory id (as returned by remember or recall), or the name of an "
                                          "abandoned approach.")]


class ShareOutcome(BaseModel):
    """`proposed`: waiting for a person to accept it (writing into the repository is a person's
    act); `applied`: the file `path` in the repository's `.cenotaph/` folder was written or removed."""

    status: Literal["applied", "proposed"]
    proposal: Result[ProposalRow] | None = None
    path: str | None = None
    changed: bool | None = None

    @classmethod
    def of(cls, shared: ShareResult | ProposalRow) -> ShareOutcome:
        if isinstance(shared, ProposalRow):
            return cls(status="proposed", proposal=result(shared))
        return cls(status="applied", path=shared.path, changed=shared.changed)


@TOOLS.add(WRITE)
def share(ctx: Context, target: Target, reason: Reason) -> ShareOutcome:
    """Propose sharing a memory or an abandoned approach with the team: once a person accepts,
    it is written into the repository's `.cenotaph/` folder, where the team reviews and commits
    it. Share what everyone working here must know (a dead end and why, a decision), not
    personal notes."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ShareOutcome.of(memory.share(env.actor(ctx), target, project=env.project, reason=reason))


@TOOLS.add(WRITE)
def unshare(
    ctx: Context,
    target: Annotated[str, Field(min_length=1, max_length=1000,
                                 description="An approach name, a memory id, or the shared file's path.")],
    reason: Reason,
) -> ShareOutcome:
    """Propose removing an entry shared in the repository (e.g. an approach that works again):
    once a person accepts, its file leaves `.cenotaph/` (git keeps its history)."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return ShareOutcome.of(memory.unshare(env.actor(ctx), target, project=env.project, reason=reason))

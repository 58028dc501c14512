"""share: team memory in the repository's `.cenotaph/` folder. From an agent both are
proposals a person accepts (sharing or removing): writing into the repository is a person's act."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import WRITE, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import Result, reply, result
from cenotaph.memory.models import ShareResult
from cenotaph.store.records import ProposalRow

TOOLS = ToolGroup()

Target = Annotated[str, Field(min_length=1, max_length=1000,
                              description="A memory id, an abandoned approach's name, or (unshare) the shared "
                                          "file's path.")]


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
def share(ctx: Context, target: Target, reason: Reason,
          action: Literal["share", "unshare"] = "share") -> CallToolResult:
    """Propose writing a memory or an abandoned approach into the repository's `.cenotaph/`
    folder for the team (or removing it: `unshare`); a person accepts it."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        verb = memory.share if action == "share" else memory.unshare
        return reply(ShareOutcome.of(verb(env.actor(ctx), target, project=env.project, reason=reason)))

"""check_approaches, abandon, record_experience, approach (reinstate, suppress, unsuppress): the graveyard
of abandoned approaches and the names silenced here."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, GlobalScope, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import ChangeOutcome, reply, result
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.models import OUTCOMES, ApproachCheck
from cenotaph.memory.team.folder import source_of
from cenotaph.nlp import ecosystems

Ecosystem = Annotated[Literal[ecosystems.NAMES] | None,  # type: ignore[valid-type]
                      Field(description="Where the name lives. When omitted: from its spelling, else from the "
                                        "workspace manifest that declares it, else none in particular.")]
Effort = Annotated[int, Field(ge=1, le=5, description="1–5: what it cost (5 = days of work).")]
ApproachName = Annotated[str, Field(min_length=1, max_length=300,
                                    description="A package, library, tool or image name as it is installed or imported.")]


class AbandonedApproach(BaseModel):
    name: ApproachName
    reason: Reason


class AlsoAbandoned(BaseModel):
    """Another record that abandons the same name here or everywhere, with its own reason."""

    source: Literal["store", "repo"]
    project: str
    reason: str
    effort: int | None = None
    by: str


class ApproachVerdict(BaseModel):
    """`abandoned`: do not suggest it (see reason); `reinstated`: it was abandoned once and
    brought back; `clear`: nothing recorded. `scope` says where the record applies; `source`
    `repo`: the team shared it in the repository (`shared_by`, `shared_path`); `also`: the
    other records that abandon it, each with its reason."""

    name: str
    key: str
    status: Literal["abandoned", "reinstated", "clear"]
    scope: Literal["project", "global", "other_project"] | None = None
    reason: str | None = None
    effort: int | None = None
    ecosystem: str | None = None
    project: str | None = None
    approach_id: int | None = None
    memory_id: int | None = None
    status_reason: str | None = None
    diagnostic_suppressed: bool | None = None  # shown only when true
    source: Literal["store", "repo"] | None = None
    shared_by: str | None = None
    shared_path: str | None = None
    also: list[AlsoAbandoned] | None = None

    @classmethod
    def of(cls, check: ApproachCheck) -> ApproachVerdict:
        a = check.approach
        shared = a is not None and source_of(a) == "repo"
        return cls(name=check.name, key=check.key, status=check.status, scope=check.scope,
                   diagnostic_suppressed=check.diagnostic_suppressed or None, source=check.source,
                   shared_by=a.actor if shared else None, shared_path=getattr(a, "path", None) if shared else None,
                   also=[AlsoAbandoned(source=source_of(o), project=o.project, reason=o.reason, effort=o.effort,
                                       by=o.actor) for o in check.also] or None,
                   **({} if a is None else dict(reason=a.reason, effort=a.effort, ecosystem=a.ecosystem,
                                               project=a.project, approach_id=a.id, memory_id=a.memory_id,
                                               status_reason=a.status_reason)))


    def line(self) -> str:
        """The verdict in one line: what an agent reads."""
        if self.status == "clear":
            return f"{self.name}: clear"
        where = (self.scope or "").replace("_", " ")
        effort = f", effort {self.effort}/5" if self.effort else ""
        shared = f", shared in {self.shared_path}" if self.shared_path else ""
        line = f"{self.name}: {self.status.upper()} ({where}{effort}{shared}): {self.status_reason or self.reason}"
        return line + "".join(f"\n  also ({a.project or 'global'}): {a.reason}" for a in self.also or ())


class ApproachChecks(BaseModel):
    results: list[ApproachVerdict]


def verdicts(ctx: Context, names: list[str], ecosystem: str | None = None,
             include_other_projects: bool = True) -> ApproachChecks:
    """The graveyard's verdict on each name (the `before-adding-a-dependency` prompt reads it too)."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        checked = memory.check_approaches(names, project=env.project, ecosystem=ecosystem,
                                          include_other_projects=include_other_projects)
    return ApproachChecks(results=[ApproachVerdict.of(v) for v in checked])


TOOLS = ToolGroup()


@TOOLS.add(READ_ONLY)
def check_approaches(
    ctx: Context,
    names: Annotated[list[ApproachName], Field(min_length=1, max_length=100)],
    ecosystem: Ecosystem = None,
    include_other_projects: Annotated[bool, Field(description="Also report records from other projects.")] = True,
) -> CallToolResult:
    """Call before suggesting, installing or importing a library, tool or image: was it abandoned
    here (and why), reinstated, or never recorded? Never suggest an abandoned one silently."""
    checks = verdicts(ctx, names, ecosystem, include_other_projects)
    return reply(checks, "\n".join(v.line() for v in checks.results))


@TOOLS.add(WRITE)
def abandon(
    ctx: Context,
    name: ApproachName,
    reason: Reason,
    effort: Effort | None = None,
    ecosystem: Ecosystem = None,
    aliases: Annotated[list[str] | None, Field(description="Other names it goes by (e.g. its import name).")] = None,
    global_scope: GlobalScope = False,
) -> CallToolResult:
    """Record, with the reason, that a library, tool or approach was tried and must not be used
    again here; without `ecosystem` the workspace's manifests decide, or the error lists the choices."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return reply(result(memory.abandon(env.actor(ctx), name, reason=reason, project=env.scope(global_scope),
                                           effort=effort, ecosystem=ecosystem, aliases=aliases or (),
                                           workspace=env.workspace)))


@TOOLS.add(WRITE)
def record_experience(
    ctx: Context,
    summary: Annotated[str, Field(description="What was attempted and what happened, verbatim.")],
    outcome: Literal[OUTCOMES],  # type: ignore[valid-type]
    effort: Effort,
    iterations: Annotated[int | None, Field(ge=0, description="How many attempts it took.")] = None,
    breakthrough: Annotated[str | None, Field(description="What finally made it work.")] = None,
    gotchas: list[str] | None = None,
    abandoned: Annotated[list[AbandonedApproach] | None,
                         Field(max_length=50, description="Approaches dropped along the way, each with its reason.")] = None,
    tags: list[str] | None = None,
) -> CallToolResult:
    """At the end of a substantial task: how it went (outcome, effort, breakthrough, gotchas) and
    the approaches dropped on the way, which enter the graveyard."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return reply(result(memory.record_experience(
            env.actor(ctx), summary, project=env.project, outcome=outcome, effort=effort, iterations=iterations,
            breakthrough=breakthrough, gotchas=gotchas, tags=tags,
            abandoned=[(a.name, a.reason) for a in abandoned or []], workspace=env.workspace,
        )))


@TOOLS.add(WRITE)
def approach(
    ctx: Context,
    action: Annotated[Literal["reinstate", "suppress", "unsuppress"], Field(description=(
        "reinstate: out of the graveyard, acceptable again; suppress: silence `name` (`kind`); "
        "unsuppress: lift that."))],
    name: ApproachName,
    reason: Reason,
    kind: Annotated[Literal["diagnostic", "recall"] | None, Field(description=(
        "suppress / unsuppress: `diagnostic` editors stop flagging it; `recall` its memories leave recall."))] = None,
    global_scope: GlobalScope = False,
) -> CallToolResult:
    """Bring an abandoned approach back, or silence a name the user calls noise here (and lift
    that). Each of the three lifts or moves a block, so it becomes a proposal a person accepts."""
    env = ToolEnv.of(ctx)
    scope = env.scope(global_scope)
    with env.domain() as memory:
        if action == "reinstate":
            return reply(result(memory.reinstate_approach(env.actor(ctx), name, reason=reason, project=scope)))
        if kind is None:
            raise InvalidInput(f"{action} needs a kind: diagnostic or recall", field="kind")
        verb = memory.suppress if action == "suppress" else memory.unsuppress
        return reply(ChangeOutcome.of(verb(env.actor(ctx), name, kind=kind, project=scope, reason=reason)))

"""check_approaches, abandon, reinstate, record_experience: the graveyard of abandoned approaches."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from cenotaph.mcp.tools.base import READ_ONLY, WRITE, GlobalScope, Reason, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import Result, result
from cenotaph.memory.models import OUTCOMES, AbandonResult, ApproachCheck, ExperienceResult
from cenotaph.memory.team.folder import source_of
from cenotaph.nlp import ecosystems
from cenotaph.store.records import ApproachRow

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
    diagnostic_suppressed: bool = False
    source: Literal["store", "repo"] | None = None
    shared_by: str | None = None
    shared_path: str | None = None
    also: list[AlsoAbandoned] = []

    @classmethod
    def of(cls, check: ApproachCheck) -> ApproachVerdict:
        a = check.approach
        shared = a is not None and source_of(a) == "repo"
        return cls(name=check.name, key=check.key, status=check.status, scope=check.scope,
                   diagnostic_suppressed=check.diagnostic_suppressed, source=check.source,
                   shared_by=a.actor if shared else None, shared_path=getattr(a, "path", None) if shared else None,
                   also=[AlsoAbandoned(source=source_of(o), project=o.project, reason=o.reason, effort=o.effort,
                                       by=o.actor) for o in check.also],
                   **({} if a is None else dict(reason=a.reason, effort=a.effort, ecosystem=a.ecosystem,
                                               project=a.project, approach_id=a.id, memory_id=a.memory_id,
                                               status_reason=a.status_reason)))


class ApproachChecks(BaseModel):
    results: list[ApproachVerdict]


TOOLS = ToolGroup()


@TOOLS.add(READ_ONLY)
def check_approaches(
    ctx: Context,
    names: Annotated[list[ApproachName], Field(min_length=1, max_length=100)],
    ecosystem: Ecosystem = None,
    include_other_projects: Annotated[bool, Field(description="Also report records from other projects.")] = True,
) -> ApproachChecks:
    """Call before suggesting, installing or importing a library, package, tool or container
    image: tells whether it was abandoned here before (and why), reinstated, or never
    recorded. Do not suggest an `abandoned` one without telling the user its reason."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        verdicts = memory.check_approaches(names, project=env.project, ecosystem=ecosystem,
                                           include_other_projects=include_other_projects)
    return ApproachChecks(results=[ApproachVerdict.of(v) for v in verdicts])


@TOOLS.add(WRITE)
def abandon(
    ctx: Context,
    name: ApproachName,
    reason: Reason,
    effort: Effort | None = None,
    ecosystem: Ecosystem = None,
    aliases: Annotated[list[str] | None, Field(description="Other names it goes by (e.g. its import name).")] = None,
    global_scope: GlobalScope = False,
) -> Result[AbandonResult]:
    """Record that a library, package, tool or approach was tried and must not be used again
    here, with the reason. Editors then flag every import or dependency declaration of it.
    Call it when the user or the evidence rules something out for good; at effort 4–5 its
    memories also leave recall."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return result(memory.abandon(env.actor(ctx), name, reason=reason, project=env.scope(global_scope),
                                     effort=effort, ecosystem=ecosystem, aliases=aliases or (),
                                     workspace=env.workspace))


@TOOLS.add(WRITE)
def reinstate(ctx: Context, name: ApproachName, reason: Reason,
              global_scope: GlobalScope = False) -> Result[ApproachRow]:
    """Take an approach out of the graveyard, with the reason it is acceptable again (e.g.
    the bug that killed it was fixed). Editors stop flagging it."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        approach = memory.reinstate_approach(env.actor(ctx), name, reason=reason, project=env.scope(global_scope))
    return result(approach)


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
) -> Result[ExperienceResult]:
    """Record how a piece of work went once it is done or given up: outcome, effort, what
    broke through, the gotchas, and the approaches abandoned on the way (each enters the
    graveyard). Call it at the end of a substantial task so the next session does not
    repeat the dead ends."""
    env = ToolEnv.of(ctx)
    with env.domain() as memory:
        return result(memory.record_experience(
            env.actor(ctx), summary, project=env.project, outcome=outcome, effort=effort, iterations=iterations,
            breakthrough=breakthrough, gotchas=gotchas, tags=tags,
            abandoned=[(a.name, a.reason) for a in abandoned or []], workspace=env.workspace,
        ))

"""compile: an agent proposes skills, instruction blocks and lint rules from the reinforced lessons
and reads the diff. Only a person accepts (in the editor or with `cenotaph accept`): no tool here
writes a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from cenotaph import project as project_resolution
from cenotaph.mcp.tools.base import WRITE, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import Result, result
from cenotaph.memory.models import COMPILE_TARGETS
from cenotaph.memory.policy.compile import CompileResult

TOOLS = ToolGroup()

Target = Literal[COMPILE_TARGETS]  # type: ignore[valid-type]


@TOOLS.add(WRITE)
def compile(  # noqa: A001 - the verb's name is the tool's name
    ctx: Context,
    target: Annotated[Target, Field(description="skill: .claude/skills/<topic>/SKILL.md; agents-md, claude-md, "
                                                "copilot: a managed block in the instruction file; ruff, eslint, "
                                                "biome: the graveyard as lint rules.")],
) -> Result[CompileResult]:
    """Turn the lessons this project's memory has reinforced (recurring breakthroughs and
    gotchas, costly abandoned libraries, confirmed decisions) into the file `target` names, as a
    proposal with its unified diff. Nothing is written: a person reviews and accepts it."""
    env = ToolEnv.of(ctx)
    root = env.workspace or project_resolution.repository_root(Path.cwd()) or Path.cwd()
    with env.domain() as memory:
        return result(memory.compile(env.actor(ctx), target, project=env.project, root=root))

"""compile: an agent proposes skills, instruction blocks and lint rules from the reinforced lessons
and reads the diff. Only a person accepts (in the editor or with `cenotaph accept`): no tool here
writes a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from cenotaph import project as project_resolution
from cenotaph.mcp.tools.base import WRITE, ToolEnv, ToolGroup
from cenotaph.mcp.tools.results import reply, result
from cenotaph.memory.models import COMPILE_TARGETS

TOOLS = ToolGroup()

Target = Literal[COMPILE_TARGETS]  # type: ignore[valid-type]


@TOOLS.add(WRITE)
def compile(  # noqa: A001 - the verb's name is the tool's name
    ctx: Context,
    target: Annotated[Target, Field(description="skill: .claude/skills/<topic>/SKILL.md; agents-md, claude-md, "
                                                "copilot: a managed block in the instruction file; ruff, eslint, "
                                                "biome: the graveyard as lint rules.")],
) -> CallToolResult:
    """Propose the file `target` names from the lessons this project has reinforced, with its
    diff; nothing is written until a person accepts it."""
    env = ToolEnv.of(ctx)
    root = env.workspace or project_resolution.repository_root(Path.cwd()) or Path.cwd()
    with env.domain() as memory:
        return reply(result(memory.compile(env.actor(ctx), target, project=env.project, root=root)))

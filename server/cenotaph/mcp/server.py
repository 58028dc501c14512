"""The MCP server: the domain verbs as typed tools. `cenotaph mcp` serves them over stdio; the
language server serves the same tools over Streamable HTTP (`cenotaph.mcp.http`)."""

from __future__ import annotations

import argparse
import functools
import io
import logging
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

from cenotaph import __version__
from cenotaph import project as project_resolution
from cenotaph.app import open_memory
from cenotaph.mcp import prompts, resources
from cenotaph.mcp.tools import briefing, contradictions, graveyard, inspection, lifecycle, memories, mining, sharing
from cenotaph.mcp.tools import compaction as compaction_tools
from cenotaph.mcp.tools import compile as compile_tools
from cenotaph.mcp.tools import concepts as concept_tools
from cenotaph.mcp.tools.base import PlainTool, ToolEnv
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.service import Memory
from cenotaph.store.connect import StoreUnavailable
from cenotaph.store.migrations import SchemaTooNew

log = logging.getLogger(__name__)

TOOL_GROUPS = (briefing, memories, graveyard, lifecycle, inspection, contradictions, mining, compile_tools, sharing,
               compaction_tools, concept_tools)

INSTRUCTIONS = """\
Cenotaph is the memory this project's people and agents share.
Call `briefing` when you start, `check_approaches` before suggesting a library or tool, `recall` before
re-deriving a decision. Record what you learn with `remember`, `record_experience` and `abandon`; fix a
memory with `change`, look closer with `inspect`. Writes are attributed to you; forgetting, refuting,
settling, suppressing, reinstating and sharing become proposals a person accepts. `explain: true` on recall
shows why each result ranked. Errors name the argument and what it allows."""


@functools.cache
def tools() -> tuple[PlainTool, ...]:
    """The tools and their JSON schemas, built once per process (it takes a noticeable fraction
    of a second); each server finds its store and project in its lifespan context."""
    return tuple(PlainTool.from_function(fn, annotations=annotations)
                 for group in TOOL_GROUPS for fn, annotations in group.TOOLS.entries)


def build_server(memory: Memory, *, project: str, client_actor_prefix: str = "mcp",
                 token_verifier: TokenVerifier | None = None, auth: AuthSettings | None = None,
                 workspace: Path | None = None) -> MCPServer:
    """An MCP server whose tools act on `memory` for `project` (`""`: the global scope), for
    clients working in `workspace` (a repository root)."""
    env = ToolEnv(memory=memory, project=project, actor_prefix=client_actor_prefix, workspace=workspace)
    watch = resources.ResourceWatch(env)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[ToolEnv]:
        async with anyio.create_task_group() as background:
            background.start_soon(watch.follow)
            yield env
            background.cancel_scope.cancel()

    server = MCPServer("cenotaph", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING",
                       token_verifier=token_verifier, auth=auth, tools=list(tools()), lifespan=lifespan,
                       subscriptions=watch.bus)
    resources.register(server, watch)
    prompts.register(server)
    return server


def serve_on_pipes(db: str | None, project: str, read_fd: int, write_fd: int) -> None:
    """Serve one session on a pair of pipes: how `cenotaph mcp` takes over a session it was
    forwarding when the language server goes away (`cenotaph.mcp.forward`)."""
    try:
        memory = open_memory(db)
    except (CenotaphError, StoreUnavailable, SchemaTooNew) as exc:
        log.error("cannot serve MCP here: %s", exc)
        os.close(read_fd)
        os.close(write_fd)
        return
    workspace = project_resolution.repository_root(Path.cwd())
    lowlevel = build_server(memory, project=project, workspace=workspace)._lowlevel_server  # what MCPServer.run_stdio_async runs

    async def serve() -> None:
        stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(read_fd, "rb"), encoding="utf-8"))
        stdout = anyio.wrap_file(io.TextIOWrapper(os.fdopen(write_fd, "wb"), encoding="utf-8"))
        async with stdin, stdout, stdio_server(stdin, stdout) as (read, write):
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    try:
        anyio.run(serve)
    finally:
        memory.close()


def main(args: argparse.Namespace) -> int:
    """`cenotaph mcp` serving the session itself: stdio belongs to the protocol, so everything
    else goes to stderr."""
    project = args.project if args.project is not None else project_resolution.resolve(None, Path.cwd())
    try:
        memory = open_memory(args.db)
    except (CenotaphError, StoreUnavailable, SchemaTooNew) as exc:
        sys.stderr.write(f"cenotaph: error: {exc}\n")
        return 2
    root = project_resolution.repository_root(Path.cwd())
    if root is not None:  # the repository's `.cenotaph/` folder takes part, for its project
        memory.attach_repositories([(root, project)])
    log.info("serving MCP over stdio for project %r on %s", project, memory.ctx.store.path)
    try:
        build_server(memory, project=project, workspace=project_resolution.repository_root(Path.cwd())).run("stdio")
    finally:
        memory.close()
    return 0

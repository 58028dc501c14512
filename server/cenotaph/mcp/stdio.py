"""`cenotaph mcp`: an agent's MCP session over stdio. When a language server for the same store
and project already serves MCP on this machine (its endpoint file names them), the session is
forwarded to it (`cenotaph.mcp.forward`) and this process never loads the models; otherwise, or
when that server goes away, it serves the session itself (`cenotaph.mcp.server`). Decided
before anything heavy is imported: the standard library and the endpoint files only."""

from __future__ import annotations

import argparse
import functools
import logging
from pathlib import Path

from cenotaph import project as project_resolution
from cenotaph.app import store_location
from cenotaph.mcp.endpoints import read_endpoints, store_key

log = logging.getLogger(__name__)


def _serve_here(db: str | None, project: str, read_fd: int, write_fd: int) -> None:
    from cenotaph.mcp.server import serve_on_pipes

    serve_on_pipes(db, project, read_fd, write_fd)


def main(args: argparse.Namespace) -> int:
    project = args.project if args.project is not None else project_resolution.resolve(None, Path.cwd())
    store = store_key(store_location(args.db))
    find = functools.partial(read_endpoints, project, store)
    endpoints = find()
    if not endpoints:
        from cenotaph.mcp import server

        return server.main(args)
    from cenotaph.mcp.forward import Bridge

    log.info("forwarding MCP over stdio to the language server at %s (pid %d) for project %r on %s",
             endpoints[0].url, endpoints[0].pid, project, store)
    Bridge(endpoints[0], find=find, serve_here=functools.partial(_serve_here, args.db, project)).run()
    return 0

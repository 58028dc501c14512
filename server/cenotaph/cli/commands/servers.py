"""The servers: each owns stdin/stdout and its event loop, so `main` hands over to its entry point."""

from __future__ import annotations

from cenotaph.cli.common import Subcommands


def serve(commands: Subcommands) -> None:
    p = commands.parsers.add_parser("serve", parents=[commands.common],
                                    help="run the language server over stdio (editors start this)")
    p.set_defaults(handler=None, entry="cenotaph.lsp.server")


def mcp(commands: Subcommands) -> None:
    p = commands.parsers.add_parser("mcp", parents=[commands.common],
                                    help="serve the MCP tools over stdio (agents start this)")
    p.set_defaults(handler=None, entry="cenotaph.mcp.stdio")

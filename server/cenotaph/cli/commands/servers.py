"""The servers: each owns stdin/stdout and its event loop, so `main` hands over to its entry point."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `cenotaph serve` and `cenotaph mcp` parse with this module alone (cli/__init__.py)
    from cenotaph.cli.parsing import Subcommands


def serve(commands: Subcommands) -> None:
    p = commands.parsers.add_parser("serve", parents=[commands.common],
                                    help="run the language server over stdio (editors start this)")
    p.set_defaults(handler=None, entry="cenotaph.lsp.server")


def mcp(commands: Subcommands) -> None:
    p = commands.parsers.add_parser("mcp", parents=[commands.common],
                                    help="serve the MCP tools over stdio (agents start this)")
    p.set_defaults(handler=None, entry="cenotaph.mcp.stdio")

"""`cenotaph console`: the review console in a browser (server/cenotaph/console/), which owns its
event loop, so `main` hands over to its entry point as it does for the servers."""

from __future__ import annotations

from cenotaph.cli.common import Subcommands

DEFAULT_PORT = 8767


def console(commands: Subcommands) -> None:
    p = commands.parsers.add_parser(
        "console", parents=[commands.common],
        help="review the memory in a browser (graveyard, proposals, memories, contradictions, events, concepts)",
        description="Serve the review console on this machine and open it in the browser. The address it "
                    "prints carries a login token, exchanged for a session cookie on first use.")
    p.set_defaults(handler=None, entry="cenotaph.console.server")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; another than loopback only when you mean it)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free one)")
    p.add_argument("--no-browser", action="store_true", help="print the address without opening a browser")

"""The command line: a thin translation of arguments to domain calls and results to text or JSON.

A new verb goes into its group's module under `cli/commands/` (a handler and a function that adds its
parser) and into `verbs()` below, where `cenotaph --help` should list it; what every verb shares is in
`cli/common.py`, the lines several verbs print in `cli/render.py`."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

# argparse and the parser's pieces are imported where a parser is built: an agent's hook, run on
# every tool call, parses its plain words without them (commands/enforce.py's `hook_arguments`).
if TYPE_CHECKING:
    import argparse

    from cenotaph.cli.parsing import Verb


def verbs() -> tuple[Verb, ...]:
    """Every verb, in the order `cenotaph --help` lists them. Their modules are imported here, not
    with this package: an agent's hook, run on every tool call, imports its own alone."""
    from cenotaph.cli.commands import (
        anchors,
        console,
        contradictions,
        enforce,
        graveyard,
        knowledge,
        lifecycle,
        lint,
        memories,
        mining,
        operations,
        policy,
        servers,
        team,
    )

    return (
        memories.remember, memories.recall, anchors.anchors, graveyard.abandon, graveyard.refile, graveyard.reinstate_approach, memories.experience,
        team.share, team.unshare, team.team, graveyard.check, servers.serve, servers.mcp, console.console,
        operations.import_memories, operations.doctor, operations.reindex, operations.migrate_store, operations.repair,
        lifecycle.deprioritise, lifecycle.archive, lifecycle.reinstate, lifecycle.forget,
        lifecycle.confirm, lifecycle.dispute, lifecycle.refute,
        contradictions.contradictions, contradictions.resolve, contradictions.dismiss, contradictions.scan_contradictions,
        graveyard.suppress, graveyard.unsuppress, memories.update, memories.history, operations.audit, operations.why,
        operations.backup, operations.restore, mining.proposals, mining.accept, mining.reject, mining.reopen,
        policy.compile_lessons, policy.bless, policy.lessons, lifecycle.maintain,
        knowledge.ingest, knowledge.feed, knowledge.promote, knowledge.compact, knowledge.concepts, knowledge.related,
        mining.mine, enforce.hook, policy.hooks, lint.lint,
    )


def build_parser(only: Sequence[Verb] | None = None) -> argparse.ArgumentParser:
    import argparse

    from cenotaph import __version__
    from cenotaph.cli.parsing import Subcommands, global_options

    parser = argparse.ArgumentParser(prog="cenotaph", description="A shared memory for coding work: dead ends stay dead.")
    parser.add_argument("--version", action="version", version=f"cenotaph {__version__}")
    global_options(parser)
    commands = Subcommands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"), global_options())
    for add_verb in verbs() if only is None else only:
        add_verb(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["hook"] and "CENOTAPH_LOG" not in os.environ:
        # The words an agent's settings run on every tool call, read without argparse; any other
        # form of them (help, a misspelt option) goes to the parser below.
        from cenotaph.cli.commands import enforce

        if (args := enforce.hook_arguments(words[1:])) is not None:
            return enforce.main(args)
    if words[:1] != ["hook"] or "CENOTAPH_LOG" in os.environ:
        # Not for an agent's hook, run on every tool call, unless asked: it logs nothing of its own,
        # and what the store warns still reaches stderr (logging's last resort).
        import logging

        logging.basicConfig(level=os.environ.get("CENOTAPH_LOG", "WARNING").upper(), stream=sys.stderr,
                            format="cenotaph: %(levelname)s %(name)s: %(message)s")
    if words[:1] == ["hook"]:
        # The words an agent's settings run on every tool call: their verb's module alone.
        from cenotaph.cli.commands.enforce import hook

        parser = build_parser((hook,))
    elif words[:1] == ["lint"]:  # CI and pre-commit: likewise, without the other verbs' imports
        from cenotaph.cli.commands.lint import lint

        parser = build_parser((lint,))
    elif words[:1] in (["serve"], ["mcp"]):  # an editor or an agent waits for the server's first answer
        from cenotaph.cli.commands import servers

        parser = build_parser((servers.serve if words[0] == "serve" else servers.mcp,))
    else:
        parser = build_parser()
    args = parser.parse_args(words)
    if args.handler is None:
        # Servers own stdin/stdout and their event loop: hand over to their own entry point.
        import importlib

        return importlib.import_module(args.entry).main(args)
    from cenotaph.cli.common import run

    return run(args)

"""What builds the argument parser: the global options, and where each verb adds its parser. Apart
from `cli/common.py` (which re-exports it) because an agent's hook parses its arguments on every
tool call without importing the domain's models."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cenotaph.cli.common import Handler

Verb = Callable[["Subcommands"], None]  # adds one verb's parser, with its handler


def global_options(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The options every verb takes, before or after the verb: `parser` (the top level) gets
    their defaults; without it, the parent of each verb's parser, whose options leave unset what
    was not given after the verb, so that `cenotaph --json doctor` keeps its `--json`."""
    common = parser or argparse.ArgumentParser(add_help=False)
    unset = {} if parser else {"default": argparse.SUPPRESS}
    common.add_argument("--db", **unset, help="store file or postgresql:// URL (default: $CENOTAPH_STORE, `store` in config.toml, $CENOTAPH_HOME/cenotaph.db or $XDG_DATA_HOME/cenotaph)")
    common.add_argument("--project", **unset, help="project id (default: from .cenotaph.toml, git origin or repository path)")
    common.add_argument("--json", action="store_true", **unset, help="machine-readable output (shapes in shared_schema/)")
    return common


@dataclasses.dataclass(frozen=True)
class Subcommands:
    """Where a verb adds its parser: `add` gives it the global options and its help as description."""

    parsers: argparse._SubParsersAction[argparse.ArgumentParser]
    common: argparse.ArgumentParser

    def add(self, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = self.parsers.add_parser(name, parents=[self.common], help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

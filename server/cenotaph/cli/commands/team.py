"""Sharing with the team: what goes into, and out of, the repository's `.cenotaph/` folder."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cenotaph import project as project_resolution
from cenotaph.cli.common import CLI_ACTOR, Subcommands, emit
from cenotaph.cli.render import outcome
from cenotaph.store.records import ProposalRow


def share_after(args: argparse.Namespace, memory, targets: Sequence[str | int]) -> list[Any]:
    """`--share`: what was just recorded goes into the repository's `.cenotaph/` folder too."""
    if not getattr(args, "share", False):
        return []
    project = project_resolution.resolve(args.project, Path.cwd())
    return [memory.share(CLI_ACTOR, target, project=project) for target in targets]


def shared_lines(results: Sequence[Any]) -> list[str]:
    return [outcome(r) if isinstance(r, ProposalRow) else f"{'shared' if r.action == 'share' else 'unshared'} {r.path}"
            + ("" if r.changed else " (already so)") + (" — commit it to share it with the team"
                                                        if r.changed else "") for r in results]


def cmd_share(args: argparse.Namespace, memory) -> None:
    project = project_resolution.resolve(args.project, Path.cwd())
    result = getattr(memory, args.command)(CLI_ACTOR, args.target, project=project)
    emit(args, result, "\n".join(shared_lines([result])))


def share(commands: Subcommands) -> None:
    p = commands.add("share", cmd_share, "write a memory (ID) or an abandoned approach (NAME) into the repository's "
                                         ".cenotaph/ folder, for the team (commit it)")
    p.add_argument("target", metavar="ID|NAME")


def unshare(commands: Subcommands) -> None:
    p = commands.add("unshare", cmd_share, "remove a shared entry from the repository's .cenotaph/ folder "
                                           "(by memory ID, approach NAME or file)")
    p.add_argument("target", metavar="ID|NAME|FILE")

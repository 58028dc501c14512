"""Sharing with the team: what goes into, and out of, the repository's `.cenotaph/` folder."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cenotaph import project as project_resolution
from cenotaph.cli.common import Subcommands, actor, emit
from cenotaph.cli.render import outcome
from cenotaph.memory.errors import InvalidInput
from cenotaph.store.records import ProposalRow


def share_after(args: argparse.Namespace, memory, targets: Sequence[str | int]) -> list[Any]:
    """`--share`: what was just recorded goes into the repository's `.cenotaph/` folder too."""
    if not getattr(args, "share", False):
        return []
    project = project_resolution.resolve(args.project, Path.cwd())
    return [memory.share(actor(memory), target, project=project) for target in targets]


def shared_lines(results: Sequence[Any]) -> list[str]:
    return [outcome(r) if isinstance(r, ProposalRow) else f"{'shared' if r.action == 'share' else 'unshared'} {r.path}"
            + ("" if r.changed else " (already so)") + (" — commit it to share it with the team"
                                                        if r.changed else "") for r in results]


def cmd_share(args: argparse.Namespace, memory) -> None:
    project = project_resolution.resolve(args.project, Path.cwd())
    result = getattr(memory, args.command)(actor(memory), args.target, project=project)
    emit(args, result, "\n".join(shared_lines([result])))


def share(commands: Subcommands) -> None:
    p = commands.add("share", cmd_share, "write a memory (ID) or an abandoned approach (NAME) into the repository's "
                                         ".cenotaph/ folder, for the team (commit it)")
    p.add_argument("target", metavar="ID|NAME")


def unshare(commands: Subcommands) -> None:
    p = commands.add("unshare", cmd_share, "remove a shared entry from the repository's .cenotaph/ folder "
                                           "(by memory ID, approach NAME or file)")
    p.add_argument("target", metavar="ID|NAME|FILE")


def cmd_team(args: argparse.Namespace, memory) -> None:
    if args.action == "list":
        members = memory.team_members()
        emit(args, members, "\n".join(f"{m.person}\t{m.role}" for m in members) or "no one has a role in this store")
        return
    if args.person is None:
        raise InvalidInput(f"`team {args.action}` needs the PERSON it is about", field="person")
    if args.action == "remove":
        member = memory.team_remove(actor(memory), args.person)
        emit(args, member, f"{member.person} no longer has a role in this store (was {member.role})")
        return
    if args.role is None:
        raise InvalidInput(f"`team {args.action}` needs --role reader|writer|reviewer", field="role")
    if args.action == "set-role":
        member = memory.team_set_role(actor(memory), args.person, args.role)
        emit(args, member, f"{member.person} is now a {member.role} in this store")
        return
    added = memory.team_add(actor(memory), args.person, args.role)
    lines = [f"{added.person} is a {added.role} in this store; they connect with:", f"  CENOTAPH_STORE={added.url}"]
    if added.password is None:
        lines.append("(their login existed already: its password is unchanged)")
    else:
        lines += ["or, keeping the password out of the address, with this line in their ~/.pgpass (mode 0600):",
                  f"  {added.pgpass}", "The password is shown this once: the store keeps only its hash."]
    emit(args, added, "\n".join(lines))


def team(commands: Subcommands) -> None:
    p = commands.add("team", cmd_team, "PostgreSQL: who may read, write or review this store (add PERSON --role, "
                                       "list, set-role PERSON --role, remove PERSON)")
    p.add_argument("action", choices=("add", "list", "set-role", "remove"))
    p.add_argument("person", nargs="?", metavar="PERSON", help="the person's login name (a name or an e-mail address)")
    p.add_argument("--role", choices=("reader", "writer", "reviewer"),
                   help="reader: reads; writer: also writes; reviewer: also accepts and rejects proposals, forgets, "
                        "shares, lifts silences and reinstates approaches")

"""Policy: the lessons memories teach, blessing one, and compiling them into skills, instruction
blocks or lint rules."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from cenotaph.cli.commands import enforce
from cenotaph.cli.common import AGENT, Subcommands, actor, emit, project_of, repository_root
from cenotaph.cli.render import proposal_line
from cenotaph.memory.models import COMPILE_TARGETS


def cmd_compile(args: argparse.Namespace, memory) -> None:
    result = memory.compile(actor(memory), args.target, project=project_of(args), root=repository_root(),
                            directory=args.dir)
    if result.proposal is None:
        emit(args, result, f"{args.target}: up to date ({result.lessons} reinforced lesson(s))")
        return
    lines = [change.diff.rstrip("\n") for change in result.files]
    lines.append(proposal_line(result.proposal) if AGENT is not None else
                 f"proposed as #{result.proposal.id} ({len(result.files)} file(s) from {result.lessons} reinforced "
                 f"lesson(s)): write with `cenotaph accept {result.proposal.id}`, or "
                 f"`cenotaph reject {result.proposal.id} --reason …`")
    emit(args, result, "\n".join(lines))


def compile_lessons(commands: Subcommands) -> None:
    p = commands.add("compile", cmd_compile,
                     "propose skills, instruction blocks or lint rules from the reinforced lessons")
    p.add_argument("--target", required=True, choices=COMPILE_TARGETS)
    p.add_argument("--dir", help="skills folder, relative to the repository root (default: .claude/skills, "
                                 "or [compile] skills_dir in .cenotaph.toml)")


def cmd_hooks(args: argparse.Namespace, memory) -> None:
    from cenotaph.memory.policy import (
        agent_hooks as settings,  # the domain is loaded by now
    )

    install = args.action == "install"
    scope = "user" if args.user else "local" if args.local else "project"
    # The same command on every machine (it finds `cenotaph` there, or blocks saying so); a
    # user's install also names the `cenotaph` found now, since their home folder is this machine's.
    command = settings.command(args.agent, pinned=shutil.which("cenotaph") if scope == "user" else None)
    root = Path.home() if scope == "user" else repository_root()
    result = memory.propose_hooks(actor(memory), args.agent, install=install, project=project_of(args), root=root,
                                  command=command, scope=scope)
    if result.proposal is None:
        state = "already installed" if install else "not installed"
        emit(args, result, f"{args.agent} hooks: {state} in {root / settings.settings_path(args.agent, scope)}; "
                           "nothing to propose")
        return
    lines = [change.diff.rstrip("\n") for change in result.files]
    lines.append(proposal_line(result.proposal) if AGENT is not None else
                 f"proposed as #{result.proposal.id}: write with `cenotaph accept {result.proposal.id}`, or "
                 f"`cenotaph reject {result.proposal.id} --reason …`")
    emit(args, result, "\n".join(lines))


def hook_problems(report: dict) -> str:
    """`doctor`'s lines on Cenotaph's installed hooks that cannot run (memory/policy/compile/hooks.py),
    kept in `report` as `hooks`."""
    from cenotaph.memory.policy import agent_hooks as settings

    found = [line for agent in settings.FILES for line in settings.problems(agent, repository_root(), Path.home())]
    report["hooks"] = found
    return "".join(f"\nhook cannot run: {line}" for line in found)


def hooks(commands: Subcommands) -> None:
    p = commands.add("hooks", cmd_hooks, "propose installing or removing Cenotaph's hooks in an agent's settings")
    p.add_argument("action", choices=("install", "uninstall"))
    p.add_argument("agent", choices=enforce.AGENTS)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="the user's settings under $HOME (~/.claude/settings.json, ~/.gemini/settings.json), for "
                            "every project of this user, instead of the repository's committed one")
    where.add_argument("--local", action="store_true",
                       help="Claude Code's .claude/settings.local.json: this project, this person, not committed")


def cmd_bless(args: argparse.Namespace, memory) -> None:
    row = memory.bless(actor(memory), args.id, reason=args.reason)
    emit(args, row, f"blessed #{row.memory_id}: its lessons compile without waiting to recur")


def bless(commands: Subcommands) -> None:
    p = commands.add("bless", cmd_bless, "vouch for a memory: its lessons compile without waiting to recur")
    p.add_argument("id", type=int)
    p.add_argument("--reason")


def cmd_lessons(args: argparse.Namespace, memory) -> None:
    found = memory.lessons(project_of(args))
    if not args.all:
        found = [lesson for lesson in found if lesson.reinforced]
    lines = [f"{'+' if l.reinforced else ' '} [{l.kind}] {l.text} (#{', #'.join(map(str, l.memory_ids))}"
             f"{'; ' + ', '.join(l.reinforced_by) if l.reinforced_by else ''})" for l in found]
    emit(args, {"lessons": found}, "\n".join(lines) or "no lessons yet")


def lessons(commands: Subcommands) -> None:
    p = commands.add("lessons", cmd_lessons, "the lessons compile draws from (reinforced ones marked +)")
    p.add_argument("--all", action="store_true", help="also those not reinforced yet")

"""Contradictions: list them, resolve or dismiss one, and scan for those missed at write time."""

from __future__ import annotations

import argparse

from cenotaph.cli.common import Subcommands, actor, emit, project_of
from cenotaph.cli.render import contradiction_line, outcome


def cmd_contradictions(args: argparse.Namespace, memory) -> None:
    views = memory.contradictions(project_of(args), status=None if args.status == "all" else args.status)
    text = "\n".join(contradiction_line(v) for v in views) or f"no {args.status} contradictions"
    emit(args, {"contradictions": views}, text)


def contradictions(commands: Subcommands) -> None:
    p = commands.add("contradictions", cmd_contradictions, "list contradictions")
    p.add_argument("--status", default="open", choices=("open", "resolved", "dismissed", "all"))


def cmd_resolve(args: argparse.Namespace, memory) -> None:
    result = memory.resolve_contradiction(actor(memory), args.id, keep=args.keep, reason=args.reason)
    emit(args, result, outcome(result))


def resolve(commands: Subcommands) -> None:
    p = commands.add("resolve", cmd_resolve,
                     "resolve a contradiction: keep a, b, both (the older one ends) or neither")
    p.add_argument("id", type=int)
    p.add_argument("--keep", required=True, choices=("a", "b", "both", "neither"))
    p.add_argument("--reason", required=True)


def cmd_dismiss(args: argparse.Namespace, memory) -> None:
    result = memory.dismiss_contradiction(actor(memory), args.id, reason=args.reason)
    emit(args, result, outcome(result) + "\nthis pair will not be flagged again")


def dismiss(commands: Subcommands) -> None:
    p = commands.add("dismiss", cmd_dismiss, "record that a flagged pair is not a contradiction")
    p.add_argument("id", type=int)
    p.add_argument("--reason", required=True)


def cmd_scan_contradictions(args: argparse.Namespace, memory) -> None:
    report = memory.scan_contradictions(actor(memory), project_of(args))
    lines = [f"compared {report.compared} memories that take a side; found {len(report.found)} new contradiction(s)"]
    lines += [f"#{w.contradiction_id}: {w.explanation}" for w in report.found]
    emit(args, report, "\n".join(lines))


def scan_contradictions(commands: Subcommands) -> None:
    commands.add("scan-contradictions", cmd_scan_contradictions, "look for contradictions missed at write time")

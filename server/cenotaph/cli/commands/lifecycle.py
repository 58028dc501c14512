"""A memory's lifecycle and trust: deprioritise, archive, reinstate, forget; confirm, dispute,
refute; and archiving duplicates."""

from __future__ import annotations

import argparse

from cenotaph.cli.common import Handler, Subcommands, Verb, actor, emit, project_of
from cenotaph.cli.render import memory_line, outcome
from cenotaph.store.records import ProposalRow


def _lifecycle(verb: str) -> Handler:
    def handler(args: argparse.Namespace, memory) -> None:
        if verb == "deprioritise":
            row = memory.deprioritise(actor(memory), args.id, reason=args.reason, hints=args.hint)
        else:
            row = getattr(memory, verb)(actor(memory), args.id, reason=args.reason)
        emit(args, row, f"{row.state}: {memory_line(row)}")
    return handler


def _lifecycle_verb(verb: str, help_text: str) -> Verb:
    def add(commands: Subcommands) -> None:
        p = commands.add(verb, _lifecycle(verb), help_text)
        p.add_argument("id", type=int)
        p.add_argument("--reason", required=True)
        if verb == "deprioritise":
            p.add_argument("--hint", action="append", default=[], help="a query word that pins it back (repeatable)")
    return add


deprioritise = _lifecycle_verb("deprioritise", "rank a memory low; --hint words bring it back up")
archive = _lifecycle_verb("archive", "keep a memory out of recall")
reinstate = _lifecycle_verb("reinstate", "make an archived or deprioritised memory active again")


def cmd_forget(args: argparse.Namespace, memory) -> None:
    result = memory.forget(actor(memory), args.id, reason=args.reason, confirm=args.confirm)
    if isinstance(result, ProposalRow):
        emit(args, result, outcome(result))
        return
    if args.confirm:
        emit(args, result, f"forgot #{args.id}: its content is gone; a tombstone keeps its hash and the reason")
        return
    lines = [f"would forget #{result.memory_id} ({result.kind}, {result.versions} version(s)) in "
             f"{result.project or 'the global scope'}:", f"  {result.content}"]
    if result.open_contradictions:
        lines.append("open contradictions settled by it: " + ", ".join(f"#{c}" for c in result.open_contradictions))
    if result.approaches:
        lines.append("graveyard records that cite it: " + ", ".join(result.approaches))
    lines.append("nothing changed; run again with --confirm to forget it")
    emit(args, result, "\n".join(lines))


def forget(commands: Subcommands) -> None:
    p = commands.add("forget", cmd_forget, "remove a memory's content for good (a preview unless --confirm)")
    p.add_argument("id", type=int)
    p.add_argument("--reason", required=True)
    p.add_argument("--confirm", action="store_true", help="really forget it")


def _trust(trust: str) -> Handler:
    def handler(args: argparse.Namespace, memory) -> None:
        result = memory.set_trust(actor(memory), args.id, trust, reason=args.reason)
        emit(args, result, outcome(result))
    return handler


def _trust_verb(verb: str, trust: str) -> Verb:
    def add(commands: Subcommands) -> None:
        p = commands.add(verb, _trust(trust), f"mark a memory {trust}")
        p.add_argument("id", type=int)
        p.add_argument("--reason", required=True)
    return add


confirm = _trust_verb("confirm", "confirmed")
dispute = _trust_verb("dispute", "disputed")
refute = _trust_verb("refute", "refuted")


def cmd_maintain(args: argparse.Namespace, memory) -> None:
    report = memory.maintain(actor(memory), None if args.all_projects else project_of(args))
    lines = [f"archived #{dup}: duplicate of {kept}" for dup, kept in report.archived]
    emit(args, report, "\n".join(lines) or "no duplicates")


def maintain(commands: Subcommands) -> None:
    p = commands.add("maintain", cmd_maintain, "archive duplicate memories (reason: duplicate of <id>)")
    p.add_argument("--all-projects", action="store_true")

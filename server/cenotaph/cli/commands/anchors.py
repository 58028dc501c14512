"""Anchors: memories anchored to code, listed with their state, re-confirmed or retired."""

from __future__ import annotations

import argparse

from cenotaph.cli.commands.memories import place_at
from cenotaph.cli.common import Subcommands, actor, emit, project_of
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import AnchoredMemory


def _line(item: AnchoredMemory) -> str:
    a = item.anchor
    text = item.content if len(item.content) <= 100 else item.content[:99] + "…"
    line = f"#{item.memory_id} {a.path}:{a.start_line}-{a.end_line} [{a.state}] {text}"
    return line + (f"\n   warning: {a.caution}" if a.caution else "")


def cmd_anchors(args: argparse.Namespace, memory) -> None:
    if args.action == "list":
        listed = memory.anchored(project_of(args), stale_only=args.stale)
        emit(args, listed, "\n".join(_line(i) for i in listed) or
             ("no stale anchors" if args.stale else "no anchored memories"))
        return
    if args.id is None:
        raise CenotaphError(f"{args.action} needs the memory's number", field="id")
    if args.action == "reconfirm":
        item = memory.reconfirm_anchor(actor(memory), args.id, place_at(args.at))
        emit(args, item, f"re-confirmed: {_line(item)}")
        return
    if not args.reason:
        raise CenotaphError("say why the memory no longer holds", field="--reason")
    row = memory.retire_anchored(actor(memory), args.id, reason=args.reason)
    emit(args, row, f"retired #{row.memory_id}: archived ({args.reason})")


def anchors(commands: Subcommands) -> None:
    p = commands.add("anchors", cmd_anchors, "memories anchored to code: list (checked now), reconfirm or retire")
    p.add_argument("action", nargs="?", default="list", choices=("list", "reconfirm", "retire"))
    p.add_argument("id", nargs="?", type=int, help="for reconfirm and retire: the memory's number")
    p.add_argument("--stale", action="store_true", help="for list: only the stale and lost")
    p.add_argument("--at", metavar="PATH:LINE[-LINE]", help="for reconfirm: where the code is now")
    p.add_argument("--reason", help="for retire: why the memory no longer holds")



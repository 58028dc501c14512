"""Memories: remember, recall, record an experience, update one, read its history."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from cenotaph.cli.commands.team import share_after, shared_lines
from cenotaph.cli.common import (
    REDACT_HELP,
    CommandFailed,
    Subcommands,
    actor,
    emit,
    project_of,
    repository_root,
    writer,
)
from cenotaph.cli.render import memory_line
from cenotaph.memory.knowledge.anchors.follow import Place, parse_at
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import KINDS, OUTCOMES, RecallResponse, as_json, nothing_else


def place_at(value: str | None) -> Place | None:
    """`--at PATH:LINE[-LINE]`, its path relative to the working directory."""
    if value is None:
        return None
    place = parse_at(value, "--at")
    return Place(str(Path.cwd() / place.path), place.start_line, place.end_line)


def cmd_remember(args: argparse.Namespace, memory) -> None:
    at = place_at(args.at)
    with memory.together():  # a share that fails takes the memory back
        result = memory.remember(writer(args, memory), args.text, project=project_of(args), kind=args.kind, tags=args.tag,
                                 force=args.force, valid_from=args.valid_from, valid_to=args.valid_to, at=at)
        shared = share_after(args, memory, [result.id]) if result.stored else []
    if not result.stored:
        emit(args, result, f"not stored: near-duplicate of #{result.duplicate_of} "
                           f"(cosine {result.similarity:.2f}); use --force to store it anyway")
        raise CommandFailed
    lines = [f"remembered #{result.id}"]
    lines += [f"warning: contradicts #{w.other_id}: {w.explanation}" for w in result.contradictions]
    emit(args, {**as_json(result), "shared": shared} if shared else result,
         "\n".join(lines + shared_lines(shared)))


def remember(commands: Subcommands) -> None:
    p = commands.add("remember", cmd_remember, "store a memory verbatim")
    p.add_argument("text")
    p.add_argument("--kind", default="note", choices=KINDS)
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--force", action="store_true", help="store even if a near-duplicate exists")
    p.add_argument("--valid-from", help="when it started to hold (ISO 8601; default now)")
    p.add_argument("--valid-to", help="when it stopped holding (ISO 8601)")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p.add_argument("--share", action="store_true", help="also write it into the repository's .cenotaph/ folder")
    p.add_argument("--at", metavar="PATH:LINE[-LINE]",
                   help="anchor it to these lines of a file in the repository: recall tells when they change")


def _format_recall(response: RecallResponse) -> str:
    if not response.results:
        if response.nothing_else_matched:  # the floor left nothing: say so, and why when it can
            return f"{nothing_else(response).capitalize()}."
        return f"nothing found in {response.project or 'the global scope'}"
    lines = [f"{n.rstrip('.')}." for n in response.notices]
    for i, r in enumerate(response.results, start=1):
        if r.result_type == "abandoned_warning":
            where = "everywhere" if r.is_global else "in this project"
            if r.source == "repo":
                where = f"in the repository ({r.shared_path})"
            lines.append(f"{i}. ABANDONED {where}: {r.content}")
            continue
        if r.source == "repo":
            lines.append(f"{i}. {r.shared_path} [{r.lane} {r.score:.3f}; {r.kind}, shared by {r.actor}] {r.content}")
            continue
        flags = [r.kind, r.state if r.state != "active" else "", r.trust, "global" if r.is_global else "",
                 "DISPUTED" if r.disputed else "", "hint matched" if r.reinstate_hint_matched else "",
                 f"HISTORY, held until {(r.valid_to or '')[:10]}" if r.history else ""]
        meta = ", ".join(f for f in flags if f)
        where = f"{r.location.path}:{r.location.start_line}: " if r.location else ""
        if r.anchor is not None:
            where = f"{r.anchor.path}:{r.anchor.start_line}-{r.anchor.end_line} ({r.anchor.state}): "
        lines.append(f"{i}. {where}#{r.id} [{r.lane} {r.score:.3f}; {meta}] {r.content}")
        if r.anchor is not None and r.anchor.caution:
            lines.append(f"   warning: {r.anchor.caution}")
    if response.nothing_else_matched:
        lines.append(f"{nothing_else(response).capitalize()}.")
    return "\n".join(lines)


def cmd_recall(args: argparse.Namespace, memory) -> None:
    response = memory.recall(actor(memory), args.query, project=project_of(args), k=args.k, as_of=args.as_of,
                             valid_at=args.valid_at, include_refuted=args.include_refuted)
    emit(args, response, _format_recall(response))


def recall(commands: Subcommands) -> None:
    p = commands.add("recall", cmd_recall, "find memories; abandoned approaches named in the query come first")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10, help="how many memories (default 10)")
    p.add_argument("--as-of", help="what the store held at this time")
    p.add_argument("--valid-at", help="what was true at this time")
    p.add_argument("--include-refuted", action="store_true")


def _parse_abandoned(values: Sequence[str]) -> list[tuple[str, str]]:
    pairs = []
    for i, value in enumerate(values):
        name, sep, reason = value.partition("=")
        if not sep or not name.strip() or not reason.strip():
            raise CenotaphError(f"expected NAME=REASON, got {value!r}", field=f"--abandoned[{i}]")
        pairs.append((name.strip(), reason.strip()))
    return pairs


def cmd_experience(args: argparse.Namespace, memory) -> None:
    with memory.together():  # a share that fails takes the experience back
        result = memory.record_experience(
            writer(args, memory), args.summary, project=project_of(args), outcome=args.outcome, effort=args.effort,
            iterations=args.iterations, breakthrough=args.breakthrough, gotchas=args.gotcha,
            abandoned=_parse_abandoned(args.abandoned), tags=args.tag, workspace=repository_root(),
        )
        shared = share_after(args, memory, [result.id, *(r.approach.name for r in result.abandoned)])
    lines = [f"recorded experience #{result.id}"]
    lines += [f"abandoned {r.approach.display_name} ({r.approach.ecosystem}: {r.decided_by}): {r.approach.reason}"
              for r in result.abandoned]
    emit(args, {**as_json(result), "shared": shared} if shared else result,
         "\n".join(lines + shared_lines(shared)))


def experience(commands: Subcommands) -> None:
    p = commands.add("experience", cmd_experience, "record what was tried, its effort and outcome")
    p.add_argument("--summary", required=True)
    p.add_argument("--outcome", required=True, choices=OUTCOMES)
    p.add_argument("--effort", required=True, type=int)
    p.add_argument("--iterations", type=int)
    p.add_argument("--breakthrough")
    p.add_argument("--gotcha", action="append", default=[])
    p.add_argument("--abandoned", action="append", default=[], metavar="NAME=REASON")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p.add_argument("--share", action="store_true",
                   help="also write it and the approaches it abandoned into the repository's .cenotaph/ folder")


def cmd_update(args: argparse.Namespace, memory) -> None:
    row = memory.update(writer(args, memory), args.id, content=args.content, reason=args.reason)
    emit(args, row, f"updated: {memory_line(row)}")


def update(commands: Subcommands) -> None:
    p = commands.add("update", cmd_update, "change a memory's content (a new version; the old one is kept)")
    p.add_argument("id", type=int)
    p.add_argument("--content", required=True)
    p.add_argument("--reason")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)


def cmd_history(args: argparse.Namespace, memory) -> None:
    h = memory.history(args.id)
    lines = [f"memory #{h.memory_id}"]
    for v in h.versions:
        until = f" until {v.superseded_at}" if v.superseded_at else ""
        valid = f"valid {v.valid_from} – {v.valid_to or 'open'}"
        lines.append(f"  v{v.version} recorded {v.recorded_at}{until}; {valid}: {v.content or '(forgotten)'}")
    for t in h.transitions:
        lines.append(f"  {t.at} {t.field} {t.from_value} → {t.to_value} by {t.actor}: {t.reason or ''}".rstrip(": "))
    for e in h.events:
        lines.append(f"  event #{e.seq} {e.at} {e.actor} {e.action}" + (f": {e.reason}" if e.reason else ""))
    if h.tombstone:
        lines.append(f"  forgotten {h.tombstone.at} by {h.tombstone.actor}: {h.tombstone.reason}")
    if h.summarised_by is not None:
        lines.append(f"  superseded: summary #{h.summarised_by} stands for it (forget or refute it to restore this)")
    if h.summarises:
        lines.append("  a summary of " + ", ".join(f"#{i}" for i in h.summarises))
    emit(args, h, "\n".join(lines))


def history(commands: Subcommands) -> None:
    p = commands.add("history", cmd_history, "versions, transitions and events of a memory")
    p.add_argument("id", type=int)

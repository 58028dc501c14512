"""Mining the past: `mine git` and `mine transcripts` propose abandoned approaches; `proposals`,
`accept` and `reject` are where a person reviews them (and an agent's proposals)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cenotaph import project as project_resolution
from cenotaph.cli.common import CLI_ACTOR, CommandFailed, Subcommands, emit, project_of, repository_root
from cenotaph.cli.render import outcome
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.mining.candidates import ACTION as CANDIDATE
from cenotaph.memory.mining.candidates import Selection, classes_of, counted, evidence

CANDIDATE_CLASSES = ("dev", "types", "backport", "build", "subproject", "moved-out", "plain")
DEFAULT_MIN_CONFIDENCE = 0.5


def cmd_proposals(args: argparse.Namespace, memory) -> None:
    rows = memory.proposals(project_of(args), status=None if args.status == "all" else args.status)
    if args.classes:
        rows = [p for p in rows if p.action == "abandon" and classes_of(p) & set(args.classes)]
    # Mined candidates a maintainer is likely to accept first; the rest are counted, not shown.
    rows.sort(key=lambda p: -p.arguments.get("confidence", 1.0) if p.action == "abandon" else -1.0)
    floor = args.min_confidence if args.min_confidence is not None else 0.0 if args.classes else DEFAULT_MIN_CONFIDENCE
    below = [p for p in rows if p.action == "abandon" and p.arguments.get("confidence", 1.0) < floor]
    rows = [p for p in rows if p not in below]
    lines = []
    for p in rows:
        if p.action == "abandon":
            lines += _candidate_lines(p)
        elif p.action == "compact":
            lines.append(f"#{p.id} [{p.status}] {p.actor} proposes a summary of "
                         + ", ".join(f"#{i}" for i in p.arguments["member_ids"]) + f": {p.reason}")
            lines.append(f"    {p.arguments['summary']}")
        else:
            lines.append(f"#{p.id} [{p.status}] {p.actor} proposes {p.action} {p.target}: {p.reason}")
    if below:
        lines.append(f"{len(below)} more mined candidates below confidence {floor:.2f} "
                     f"(see them with --min-confidence 0; turn many down with `cenotaph reject --below N`, --class C, "
                     f"--path GLOB or --commit SHA, first with --dry-run)")
    emit(args, {"proposals": rows, "below": len(below)}, "\n".join(lines) or f"no {args.status} proposals or candidates")


def _candidate_lines(proposal) -> list[str]:
    """A mined candidate with its evidence: the commits (or words) that added and removed it."""
    args = proposal.arguments
    classes = f" [{', '.join(args['classes'])}]" if args.get("classes") else ""
    lines = [f"#{proposal.id} [{proposal.status}] abandon {args['name']} ({args['ecosystem']}), "
             f"confidence {args['confidence']:.2f}{classes}",
             f"    reason: {args['reason']}"]
    for e in evidence(proposal):
        where = f"  {e['path']}" if e.get("path") else ""
        lines.append(f"    {e['role']:<8} {e['ref'][:7]} {e['at'][:10]} {e.get('author') or '?'}: "
                     f"\"{e['summary']}\"{where}")
    return lines


def proposals(commands: Subcommands) -> None:
    p = commands.add("proposals", cmd_proposals,
                     "proposals waiting for a person (an agent's, or candidates mined from the past)")
    p.add_argument("--status", default="pending", choices=("pending", "accepted", "rejected", "all"))
    p.add_argument("--class", dest="classes", action="append", choices=CANDIDATE_CLASSES,
                   help="only mined candidates of this class (repeatable; plain: no class)")
    p.add_argument("--min-confidence", type=float,
                   help=f"hide mined candidates below this confidence, counting them (default "
                        f"{DEFAULT_MIN_CONFIDENCE}, or 0 with --class; 0 shows all)")


def _selection(args: argparse.Namespace) -> Selection:
    return Selection(ids=tuple(args.id), classes=tuple(args.classes or ()), path=args.path, commit=args.commit,
                     below=args.below)


def _decide(args: argparse.Namespace, memory, decision: str, **extra) -> None:
    selection = _selection(args)
    if not (selection.ids or selection.filtered):
        raise InvalidInput("name what to decide: ID…, --class C, --path GLOB, --commit SHA or --below N", field="id")
    batch = memory.decide_proposals(CLI_ACTOR, decision, selection, project=project_of(args) if selection.filtered
                                    else None, reason=args.reason, preview=args.dry_run, **extra)
    verb = "accept" if decision == "accepted" else "reject"
    lines = [_decided_line(row, result) for row, result in
             zip(batch.proposals, batch.results or [None] * batch.count)]
    if batch.preview:
        head = f"would {verb} {counted(batch.proposals)} (nothing changed; run it again without --dry-run)"
    else:
        head = f"{decision} {counted(batch.proposals)} as batch #{batch.batch}" + (f" ({args.reason})" if args.reason
                                                                                 else "")
        if decision == "rejected" and batch.count:
            lines.append(f"undo: cenotaph reopen --batch {batch.batch}")
    # One proposal named by id answers with what it became (as it always has): the row, or what accepting did.
    single = batch.results[0] if batch.results else batch.proposals[0] if batch.count == 1 else None
    emit(args, single if len(selection.ids) == 1 and not selection.filtered and not batch.preview else batch,
         "\n".join([head, *lines]))


def _decided_line(row, result) -> str:
    args = row.arguments
    if row.action == CANDIDATE:
        what = (f"candidate #{row.id} {args['name']} ({args['ecosystem']}), confidence {args['confidence']:.2f}"
                + (f" [{', '.join(args['classes'])}]" if args.get("classes") else ""))
    else:
        what = f"proposal #{row.id} {row.action} {row.target}"
    return f"  {what}" + (f": {outcome(result)}" if result is not None else f" — {row.reason}")


def _selectors(p: argparse.ArgumentParser, decision: str) -> None:
    p.add_argument("id", type=int, nargs="*", metavar="ID", help="proposals or candidates by number")
    p.add_argument("--class", dest="classes", action="append", choices=CANDIDATE_CLASSES,
                   help=f"{decision} every pending candidate of this class (repeatable)")
    p.add_argument("--path", help="... with evidence in a file matching this glob (e.g. 'playground/**')")
    p.add_argument("--commit", help="... that this commit removed (a sha or its first digits)")
    p.add_argument("--below", type=float, metavar="CONFIDENCE", help="... with a confidence below this")
    p.add_argument("--dry-run", action="store_true", help="list what would be decided, and decide nothing")


def cmd_accept(args: argparse.Namespace, memory) -> None:
    _decide(args, memory, "accepted", effort=args.effort)


def accept(commands: Subcommands) -> None:
    p = commands.add("accept", cmd_accept, "carry out proposals and accept candidates, by id or by "
                                           "class, path, commit or confidence")
    _selectors(p, "accept")
    p.add_argument("--reason", help="why; for a mined candidate, the reason it is abandoned (else the drafted one)")
    p.add_argument("--effort", type=int, help="for a mined candidate: what it cost, 1-5")


def cmd_reject(args: argparse.Namespace, memory) -> None:
    _decide(args, memory, "rejected")


def reject(commands: Subcommands) -> None:
    p = commands.add("reject", cmd_reject, "turn down proposals and candidates, by id or by class, path, commit "
                                           "or confidence (filters combine: each must match)")
    _selectors(p, "reject")
    p.add_argument("--reason", help="one reason, for every one rejected (required unless --dry-run)")


def cmd_reopen(args: argparse.Namespace, memory) -> None:
    rows = memory.reopen_proposals(CLI_ACTOR, batch=args.batch, proposal_ids=args.id)
    emit(args, {"reopened": rows}, "\n".join([f"reopened {counted(rows)}: pending again",
                                              *(_decided_line(row, None) for row in rows)]))


def reopen(commands: Subcommands) -> None:
    p = commands.add("reopen", cmd_reopen, "undo a rejection: a batch (the number `reject` printed) or "
                                           "candidates by id are pending again")
    p.add_argument("id", type=int, nargs="*", metavar="ID")
    p.add_argument("--batch", type=int, help="every candidate the rejection numbered BATCH turned down")


def cmd_mine_git(args: argparse.Namespace, memory) -> None:
    project = args.project if args.project is not None else project_resolution.resolve(None, Path(args.path))
    report = memory.mine_git(CLI_ACTOR, args.path, project=project, since=args.since, max_commits=args.max_commits)
    history, proposals = report.history, report.proposals
    scope = "since the last run" if history.incremental else "limited by --since/--max-commits" \
        if not history.complete else "all of it"
    lines = [f"{history.repository}: read {history.commits_read} commits touching manifests ({scope}); "
             f"{history.manifests_parsed} manifests parsed"]
    if history.parse_failures:
        lines.append(f"{history.parse_failures} manifest versions did not parse and were read as unchanged: "
                     + ", ".join(history.failed))
    if history.shallow and history.oldest_seen:
        lines.append(f"shallow clone: history seen back to {history.oldest_seen.sha[:7]} "
                     f"({history.oldest_seen.at[:10]}) only")
    lines.append(f"{len(history.candidates)} candidates; {len(proposals.proposed)} proposed")
    lines += [f"  #{p.id} {p.arguments['name']} ({p.arguments['ecosystem']}, "
              f"{p.arguments['confidence']:.2f}): {p.reason} [{p.arguments['commit']}]" for p in proposals.proposed]
    skipped = [(len(proposals.already_pending), "already pending"), (len(proposals.in_graveyard), "in the graveyard"),
               (len(proposals.suppressed), "suppressed"), (len(proposals.dismissed), "dismissed before")]
    if any(count for count, _ in skipped):
        lines.append("not proposed: " + ", ".join(f"{count} {why}" for count, why in skipped if count))
    if report.back_at_head:
        lines.append("declared again at HEAD, proposal still pending: " + ", ".join(report.back_at_head))
    if proposals.proposed:
        lines.append("review: cenotaph proposals; cenotaph accept ID [--reason R]; cenotaph reject ID --reason R")
    emit(args, report, "\n".join(lines))


def cmd_mine_transcripts(args: argparse.Namespace, memory) -> None:
    from cenotaph import paths

    root = repository_root()
    claude_dir = Path(args.claude_dir) if args.claude_dir else paths.claude_home()
    codex_dir = Path(args.codex_dir) if args.codex_dir else paths.codex_home()
    report = memory.mine_transcripts(CLI_ACTOR, project_of(args), root, claude_dir=claude_dir, codex_dir=codex_dir)
    proposals = report.proposals
    lines = [f"read {report.files_read} of {report.files} transcript files ({report.bytes:,} bytes, "
             f"{report.lines:,} lines; {report.corrupt_lines} corrupt and {report.long_lines} over-long lines "
             f"skipped); {report.sessions} sessions of this project had new lines"]
    lines += [f"proposal #{p.id}: abandon {p.arguments['name']} ({p.arguments['ecosystem']}, confidence "
              f"{p.arguments['confidence']:.2f}) — {p.reason}" for p in proposals.proposed]
    skipped = [f"{name} ({why})" for why, found in (("already proposed", proposals.already_pending),
                                                    ("in the graveyard", proposals.in_graveyard),
                                                    ("suppressed", proposals.suppressed),
                                                    ("rejected before", proposals.dismissed)) for name in found]
    if skipped:
        lines.append("not proposed: " + ", ".join(skipped))
    lines += [f"not found: {folder} (no transcripts read there)" for folder in report.missing]
    if proposals.proposed:
        lines.append("accept with `cenotaph accept ID [--reason R] [--effort N]`, "
                     "reject with `cenotaph reject ID --reason R`")
    emit(args, report, "\n".join(lines))
    named = {str(Path(d)) for d in (args.claude_dir, args.codex_dir) if d}
    if named & set(report.missing):
        raise CommandFailed


def mine(commands: Subcommands) -> None:
    """`cenotaph mine SOURCE`: each source of the past is a sub-verb with its own handler."""
    parser = commands.parsers.add_parser(
        "mine", help="mine the past for abandoned approaches (proposals a person reviews)",
        description="Mine the past for abandoned approaches. What it finds are proposals: "
                    "review them with `cenotaph proposals`, then accept or reject each.")
    sources = parser.add_subparsers(dest="source", required=True, metavar="SOURCE")
    p = sources.add_parser("git", parents=[commands.common],
                           help="dependencies the repository's manifests declared and dropped",
                           description="Read the commits that touch manifests (only those since the last run) and "
                                       "propose every dependency declared at some commit and nowhere at HEAD.")
    p.set_defaults(handler=cmd_mine_git)
    p.add_argument("path", nargs="?", default=".", help="a directory inside the repository (default: here)")
    p.add_argument("--since", help="only commits after this date (anything git understands, e.g. 2024-01-01)")
    p.add_argument("--max-commits", type=int, help="only the latest N commits that touch manifests")
    help_text = ("agent transcripts (Claude Code, Codex) of sessions in this repository: rejected or undone "
                 "installs, and what the person said against a package")
    p = sources.add_parser("transcripts", parents=[commands.common], help=help_text, description=help_text)
    p.set_defaults(handler=cmd_mine_transcripts)
    p.add_argument("--claude-dir", help="Claude Code's folder (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
    p.add_argument("--codex-dir", help="Codex's folder (default: $CODEX_HOME or ~/.codex)")

"""The command line: a thin translation of arguments to domain calls and results to text or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cenotaph import __version__
from cenotaph import project as project_resolution
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import COMPILE_TARGETS, KINDS, OUTCOMES, Actor, ContradictionView, RecallResponse, as_json
from cenotaph.memory.team.folder import source_of
from cenotaph.nlp.names import ECOSYSTEMS
from cenotaph.store.connect import StoreUnavailable
from cenotaph.store.migrations import SchemaTooNew

CLI_ACTOR = Actor(name="cli", kind="human")
REDACT_HELP = "store the text with each secret found in it replaced by [REDACTED:<kind>] instead of refusing it"


def _writer(args: argparse.Namespace) -> Actor:
    """The person at the command line, with `--redact` if they gave it."""
    return dataclasses.replace(CLI_ACTOR, redact_secrets=args.redact)


class CommandFailed(Exception):
    """A command that ran but could not do what was asked (exit status 1)."""


def _emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    if args.json:
        json.dump(as_json(payload), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _project(args: argparse.Namespace) -> str:
    if getattr(args, "global_scope", False):
        return ""
    return project_resolution.resolve(args.project, Path.cwd())


def _progress(done: int, total: int | None) -> None:
    if not sys.stderr.isatty() and done not in (total,):
        return
    width = 30
    filled = min(width, int(width * done / total)) if total else width
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


# --- commands --------------------------------------------------------------------------------------


def _attach_repository(args: argparse.Namespace, memory) -> None:
    """The repository the command runs in: its `.cenotaph/` folder takes part, for its project."""
    root = project_resolution.repository_root(Path.cwd())
    if root is not None:
        memory.attach_repositories([(root, project_resolution.resolve(args.project, Path.cwd()))])


def _share_after(args: argparse.Namespace, memory, targets: Sequence[str | int]) -> list[Any]:
    """`--share`: what was just recorded goes into the repository's `.cenotaph/` folder too."""
    if not getattr(args, "share", False):
        return []
    project = project_resolution.resolve(args.project, Path.cwd())
    return [memory.share(CLI_ACTOR, target, project=project) for target in targets]


def _shared_lines(results: Sequence[Any]) -> list[str]:
    return [f"{'shared' if r.action == 'share' else 'unshared'} {r.path}"
            + ("" if r.changed else " (already so)") + (" — commit it to share it with the team"
                                                        if r.changed else "") for r in results]


def cmd_remember(args: argparse.Namespace, memory) -> None:
    result = memory.remember(_writer(args), args.text, project=_project(args), kind=args.kind, tags=args.tag,
                             force=args.force, valid_from=args.valid_from, valid_to=args.valid_to)
    if not result.stored:
        _emit(args, result, f"not stored: near-duplicate of #{result.duplicate_of} "
                            f"(cosine {result.similarity:.2f}); use --force to store it anyway")
        raise CommandFailed
    shared = _share_after(args, memory, [result.id])
    lines = [f"remembered #{result.id}"]
    lines += [f"warning: contradicts #{w.other_id}: {w.explanation}" for w in result.contradictions]
    _emit(args, {**as_json(result), "shared": shared} if shared else result,
          "\n".join(lines + _shared_lines(shared)))


def _format_recall(response: RecallResponse) -> str:
    if not response.results:
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
                 "DISPUTED" if r.disputed else "", "hint matched" if r.reinstate_hint_matched else ""]
        meta = ", ".join(f for f in flags if f)
        where = f"{r.location.path}:{r.location.start_line}: " if r.location else ""
        lines.append(f"{i}. {where}#{r.id} [{r.lane} {r.score:.3f}; {meta}] {r.content}")
    return "\n".join(lines)


def cmd_recall(args: argparse.Namespace, memory) -> None:
    response = memory.recall(CLI_ACTOR, args.query, project=_project(args), k=args.k, as_of=args.as_of,
                             valid_at=args.valid_at, include_refuted=args.include_refuted)
    _emit(args, response, _format_recall(response))


def cmd_abandon(args: argparse.Namespace, memory) -> None:
    result = memory.abandon(_writer(args), args.name, reason=args.reason, project=_project(args), effort=args.effort,
                            ecosystem=args.ecosystem, aliases=args.alias)
    a = result.approach
    where = "everywhere" if a.project == "" else f"in {a.project}"
    text = f"abandoned {a.display_name} ({a.ecosystem}: {a.name}) {where}, approach #{a.id}"
    if result.recall_suppressed:
        text += f"\nmemories that mention {a.name} are now kept out of recall (effort {a.effort}/5); " \
                f"lift with `cenotaph unsuppress {a.name} --kind recall --reason …`"
    shared = _share_after(args, memory, [a.name])
    _emit(args, {**as_json(result), "shared": shared} if shared else result,
          "\n".join([text, *_shared_lines(shared)]))


def cmd_reinstate_approach(args: argparse.Namespace, memory) -> None:
    approach = memory.reinstate_approach(CLI_ACTOR, args.name, reason=args.reason, project=_project(args))
    _emit(args, approach, f"reinstated {approach.display_name}: {args.reason}")


def _parse_abandoned(values: Sequence[str]) -> list[tuple[str, str]]:
    pairs = []
    for i, value in enumerate(values):
        name, sep, reason = value.partition("=")
        if not sep or not name.strip() or not reason.strip():
            raise CenotaphError(f"expected NAME=REASON, got {value!r}", field=f"--abandoned[{i}]")
        pairs.append((name.strip(), reason.strip()))
    return pairs


def cmd_experience(args: argparse.Namespace, memory) -> None:
    result = memory.record_experience(
        _writer(args), args.summary, project=_project(args), outcome=args.outcome, effort=args.effort,
        iterations=args.iterations, breakthrough=args.breakthrough, gotchas=args.gotcha,
        abandoned=_parse_abandoned(args.abandoned), tags=args.tag,
    )
    lines = [f"recorded experience #{result.id}"]
    lines += [f"abandoned {r.approach.display_name}: {r.approach.reason}" for r in result.abandoned]
    shared = _share_after(args, memory, [result.id, *(r.approach.name for r in result.abandoned)])
    _emit(args, {**as_json(result), "shared": shared} if shared else result,
          "\n".join(lines + _shared_lines(shared)))


def cmd_share(args: argparse.Namespace, memory) -> None:
    project = project_resolution.resolve(args.project, Path.cwd())
    result = getattr(memory, args.command)(CLI_ACTOR, args.target, project=project)
    _emit(args, result, "\n".join(_shared_lines([result])))


def cmd_check(args: argparse.Namespace, memory) -> None:
    verdicts = memory.check_approaches(args.names, project=_project(args), ecosystem=args.ecosystem)
    lines = []
    for v in verdicts:
        if v.approach is None:
            lines.append(f"{v.name}: clear")
        else:
            shared = f", shared in the repository by {v.approach.actor}" if v.source == "repo" else ""
            lines.append(f"{v.name}: {v.status} ({v.scope}{shared}) — {v.approach.reason}")
            lines += [f"  also abandoned {'in the repository by ' + a.actor if source_of(a) == 'repo' else 'by you'}"
                      f"{' everywhere' if a.project == '' else ''}: {a.reason}" for a in v.also]
    _emit(args, {"results": verdicts}, "\n".join(lines))


def cmd_import(args: argparse.Namespace, memory) -> None:
    path = Path(args.file)
    try:
        with path.open(encoding="utf-8", errors="surrogateescape") as counting:
            total = sum(1 for line in counting if line.strip())
        with path.open(encoding="utf-8", errors="surrogateescape") as lines:
            report = memory.import_jsonl(_writer(args), lines, project=_project(args), total=total, progress=_progress)
    except OSError as exc:
        raise CenotaphError(f"cannot read {path}: {exc.strerror or exc}", field="file") from None
    lines = [f"imported {report.imported} memories; skipped {report.skipped_duplicates} already stored and "
             f"{report.skipped_forgotten} forgotten; refused {len(report.refused)} line(s)"]
    lines += [f"line {r.line}: {r.field + ': ' if r.field else ''}{r.message}" for r in report.refused]
    payload = {"imported": report.imported, "skipped_duplicates": report.skipped_duplicates,
               "skipped_forgotten": report.skipped_forgotten, "refused": report.refused,
               "memory_ids": report.memory_ids}
    _emit(args, payload, "\n".join(lines))
    if report.refused:
        raise CommandFailed


def cmd_doctor(args: argparse.Namespace, memory) -> None:
    ctx = memory.ctx
    report = {
        "version": __version__,
        "store": str(ctx.store.path),  # a PostgreSQL URL without its password
        "schema_version": ctx.store.schema_version,
        **ctx.store.describe(),
        "model": ctx.embedder.model_name,
        "store_model": ctx.store.get_meta("embedding_model"),
        "model_matches_store": ctx.vectors_current() or ctx.store.get_meta("embedding_model") is None,
        "project": _project(args),
    }
    feeds = memory.feed_list(report["project"])
    folders = memory.shared_folders()
    report["shared"] = [{"repository": str(s.root), "approaches": len(s.approaches), "memories": len(s.notes),
                         "problems": [{"path": p.path, "line": p.line + 1, "message": p.message} for p in s.problems]}
                        for s in folders]
    text = "\n".join(f"{k}: {v}" for k, v in report.items() if k != "shared")
    if not report["model_matches_store"]:
        text += "\nthe store was embedded by another model: run `cenotaph reindex`"
    for s in folders:
        text += f"\nshared in {s.root / '.cenotaph'}: {len(s.approaches)} approaches, {len(s.notes)} memories"
        text += "".join(f"\n  {p.path}:{p.line + 1}: {p.message}" for p in s.problems)
    text += "".join(f"\n{_feed_line(f)}" for f in feeds)
    report["feeds"] = feeds
    _emit(args, report, text)
    if any(s.problems for s in folders):
        raise CommandFailed  # a malformed shared file is the team's to fix: fail in CI too


def cmd_reindex(args: argparse.Namespace, memory) -> None:
    report = memory.reindex(progress=_progress)
    _emit(args, report, f"re-embedded {report.memories} memories with {report.model} (dim {report.dim})")


def _check_lines(check) -> list[str]:
    lines = [f"integrity: {'ok' if not check.integrity else '; '.join(check.integrity[:5])}",
             f"full-text index: {len(check.fts_missing)} missing, {len(check.fts_orphans)} orphaned, "
             f"{len(check.fts_stale)} stale",
             f"substring index: {'in step' if check.substrings_in_step else 'out of step'}"]
    if check.vector_model == "":
        lines.append("vectors: a reindex was interrupted")
    if check.vectors_checked:
        lines.append(f"vectors: {len(check.vectors_missing)} missing, {len(check.vectors_orphans)} orphaned")
    elif check.vector_model is not None:
        lines.append("vectors: built by another model (run `cenotaph reindex`)")
    lines.append("event log: intact" if check.audit.ok else f"event log: {check.audit.problem}")
    lines += [f"secret stored (forget it): {found}" for found in check.secrets]
    return lines


def cmd_repair(args: argparse.Namespace, memory) -> None:
    if args.check:
        check = memory.check_store()
        _emit(args, check, "\n".join(_check_lines(check)) + ("\nall in step" if check.ok else ""))
        if not check.ok:
            raise CommandFailed
        return
    report = memory.repair(CLI_ACTOR, progress=_progress)
    lines = [f"rewrote {report.fts_rewritten} full-text rows, added {report.vectors_added} vectors, "
             f"removed {report.vectors_removed}" + ("; rebuilt the substring index" if report.substrings_rebuilt
                                                    else "")
             + ("; finished an interrupted reindex" if report.reindex_finished else ""), *_check_lines(report.after), *report.notes]
    _emit(args, report, "\n".join(lines))
    if not report.after.ok:
        raise CommandFailed


# --- trust, time and audit ------------------------------------------------------------------------


def _memory_line(row) -> str:
    flags = ", ".join(f for f in (row.kind, row.state, row.trust) if f)
    return f"#{row.memory_id} v{row.version} [{flags}] {row.content or '(forgotten)'}"


def _outcome(result) -> str:
    """One line for whatever a verb returned: the changed record, or the proposal it became."""
    from cenotaph.memory.knowledge.compaction import CompactResult
    from cenotaph.memory.policy.compile import CompileWrite
    from cenotaph.store.records import MemoryRow, ProposalRow, SuppressionRow

    if isinstance(result, ProposalRow):
        return (f"proposed as #{result.id} ({result.action} {result.target}): "
                f"a person accepts it with `cenotaph accept {result.id}`")
    if isinstance(result, MemoryRow):
        return _memory_line(result)
    if isinstance(result, SuppressionRow):
        where = "everywhere" if result.project == "" else f"in {result.project}"
        state = f"lifted ({result.lifted_reason})" if result.lifted_at else "active"
        return f"{result.kind} suppression of {result.value} {where}: {state}"
    if isinstance(result, ContradictionView):
        return _contradiction_line(result)
    if isinstance(result, CompileWrite):
        return "wrote " + ", ".join(f.path for f in result.files) + f" in {result.root}"
    if isinstance(result, CompactResult):
        return (f"summary {_memory_line(result.summary)} — superseded " + ", ".join(f"#{i}" for i in result.superseded)
                + f" (forget or refute #{result.summary.memory_id} to restore them)")
    return str(result)


def _lifecycle(verb: str):
    def handler(args: argparse.Namespace, memory) -> None:
        if verb == "deprioritise":
            row = memory.deprioritise(CLI_ACTOR, args.id, reason=args.reason, hints=args.hint)
        else:
            row = getattr(memory, verb)(CLI_ACTOR, args.id, reason=args.reason)
        _emit(args, row, f"{row.state}: {_memory_line(row)}")
    return handler


def cmd_forget(args: argparse.Namespace, memory) -> None:
    result = memory.forget(CLI_ACTOR, args.id, reason=args.reason, confirm=args.confirm)
    if args.confirm:
        _emit(args, result, f"forgot #{args.id}: its content is gone; a tombstone keeps its hash and the reason")
        return
    lines = [f"would forget #{result.memory_id} ({result.kind}, {result.versions} version(s)) in "
             f"{result.project or 'the global scope'}:", f"  {result.content}"]
    if result.open_contradictions:
        lines.append("open contradictions settled by it: " + ", ".join(f"#{c}" for c in result.open_contradictions))
    if result.approaches:
        lines.append("graveyard records that cite it: " + ", ".join(result.approaches))
    lines.append("nothing changed; run again with --confirm to forget it")
    _emit(args, result, "\n".join(lines))


def _trust(trust: str):
    def handler(args: argparse.Namespace, memory) -> None:
        result = memory.set_trust(CLI_ACTOR, args.id, trust, reason=args.reason)
        _emit(args, result, _outcome(result))
    return handler


def _contradiction_line(view) -> str:
    def side(label: str, row) -> str:
        return f"  {label}: " + (_memory_line(row) if row is not None else "(missing)")

    verdict = view.status if view.resolution is None else f"{view.status} ({view.resolution})"
    lines = [f"contradiction #{view.id} [{verdict}, found by {view.found_by}] {view.explanation}",
             side("a", view.memory_a), side("b", view.memory_b)]
    if view.reason:
        lines.append(f"  reason: {view.reason}")
    return "\n".join(lines)


def cmd_contradictions(args: argparse.Namespace, memory) -> None:
    views = memory.contradictions(_project(args), status=None if args.status == "all" else args.status)
    text = "\n".join(_contradiction_line(v) for v in views) or f"no {args.status} contradictions"
    _emit(args, {"contradictions": views}, text)


def cmd_resolve(args: argparse.Namespace, memory) -> None:
    result = memory.resolve_contradiction(CLI_ACTOR, args.id, keep=args.keep, reason=args.reason)
    _emit(args, result, _outcome(result))


def cmd_dismiss(args: argparse.Namespace, memory) -> None:
    result = memory.dismiss_contradiction(CLI_ACTOR, args.id, reason=args.reason)
    _emit(args, result, _outcome(result) + "\nthis pair will not be flagged again")


def cmd_scan_contradictions(args: argparse.Namespace, memory) -> None:
    report = memory.scan_contradictions(CLI_ACTOR, _project(args))
    lines = [f"compared {report.compared} memories that take a side; found {len(report.found)} new contradiction(s)"]
    lines += [f"#{w.contradiction_id}: {w.explanation}" for w in report.found]
    _emit(args, report, "\n".join(lines))


def cmd_suppress(args: argparse.Namespace, memory) -> None:
    row = memory.suppress(CLI_ACTOR, args.name, kind=args.kind, project=_project(args), reason=args.reason)
    _emit(args, row, _outcome(row))


def cmd_unsuppress(args: argparse.Namespace, memory) -> None:
    result = memory.unsuppress(CLI_ACTOR, args.name, kind=args.kind, project=_project(args), reason=args.reason)
    _emit(args, result, _outcome(result))


def cmd_update(args: argparse.Namespace, memory) -> None:
    row = memory.update(_writer(args), args.id, content=args.content, reason=args.reason)
    _emit(args, row, f"updated: {_memory_line(row)}")


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
    _emit(args, h, "\n".join(lines))


def cmd_audit(args: argparse.Namespace, memory) -> None:
    if args.action == "verify":
        report = memory.audit_verify()
        text = (f"the event log is intact: {report.checked} events, head #{report.head}" if report.ok
                else f"the event log is broken at event #{report.first_bad_seq}: {report.problem}")
        _emit(args, report, text)
        if not report.ok:
            raise CommandFailed
        return
    rows = memory.audit_log(target=args.target, since=args.since, limit=args.limit)
    lines = [f"#{e.seq} {e.at} {e.actor} {e.action} {e.target}" + (f": {e.reason}" if e.reason else "") for e in rows]
    _emit(args, {"events": rows}, "\n".join(lines) or "no events")


def cmd_why(args: argparse.Namespace, memory) -> None:
    report = memory.why(args.topic, _project(args))
    lines = [f"{r.at} {r.actor} asked {r.query!r}: "
             + ", ".join([*(f"#{m} ({s:.3f})" for m, s in zip(r.memory_ids, r.scores)),
                          *(f"abandoned {a}" for a in r.approaches)]) for r in report.recalls]
    _emit(args, report, "\n".join(lines) or f"no recall since {report.since} surfaced anything about {report.topic}")


def cmd_backup(args: argparse.Namespace, memory) -> None:
    report = memory.backup(CLI_ACTOR, args.path)
    _emit(args, report, f"backed up to {report.path} ({report.bytes:,} bytes, {report.events} events)")


def cmd_restore(args: argparse.Namespace, memory) -> None:
    r = memory.restore(CLI_ACTOR, args.path)
    _emit(args, r, f"restored from {r.path}: {r.memories_added} memories added, {r.memories_updated} updated, "
                   f"{r.skipped_forgotten} forgotten here left out, {r.forgotten} forgotten as in the backup; "
                   f"{r.approaches} approaches, {r.suppressions} suppressions, {r.dismissals} dismissals, "
                   f"{r.contradictions} contradictions")


def cmd_migrate_store(args: argparse.Namespace, memory) -> None:
    from cenotaph.app import open_store
    from cenotaph.memory.operations.migrate_store import target_path

    target = open_store(target_path(args.to))
    try:
        report = memory.migrate_store(target, progress=_progress)
    finally:
        target.close()
    lines = [f"{'table':<22}{'here':>10}{'there':>10}{'inserted':>10}{'updated':>10}{'deleted':>10}"]
    lines += [f"{t.table:<22}{t.source:>10}{t.target:>10}{t.inserted:>10}{t.updated:>10}{t.deleted:>10}"
              for t in report.tables]
    lines.append(f"copied to {report.target}: {report.changed} rows changed; every table counts the same on both "
                 f"sides; the event log verifies there ({report.events_verified} events)")
    if not report.model_matches:
        lines.append(f"the vectors were built by {report.embedding_model}: run `cenotaph reindex` on either store")
    _emit(args, report, "\n".join(lines))


def cmd_proposals(args: argparse.Namespace, memory) -> None:
    rows = memory.proposals(_project(args), status=None if args.status == "all" else args.status)
    if args.classes:
        rows = [p for p in rows if p.action == "abandon" and _candidate_classes(p) & set(args.classes)]
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
    _emit(args, {"proposals": rows}, "\n".join(lines) or f"no {args.status} proposals")


CANDIDATE_CLASSES = ("dev", "types", "backport", "build", "subproject", "plain")


def _candidate_classes(proposal) -> set[str]:
    return set(proposal.arguments.get("classes") or ["plain"])


def _candidate_lines(proposal) -> list[str]:
    """A mined candidate with its evidence: the commits (or words) that added and removed it."""
    args = proposal.arguments
    classes = f" [{', '.join(args['classes'])}]" if args.get("classes") else ""
    lines = [f"#{proposal.id} [{proposal.status}] abandon {args['name']} ({args['ecosystem']}), "
             f"confidence {args['confidence']:.2f}{classes}",
             f"    reason: {args['reason']}"]
    for e in args.get("evidence", []):
        where = f"  {e['path']}" if e.get("path") else ""
        lines.append(f"    {e['role']:<8} {e['ref'][:7]} {e['at'][:10]} {e.get('author') or '?'}: "
                     f"\"{e['summary']}\"{where}")
    return lines


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
              f"{p.arguments['confidence']:.2f}): {p.reason}" for p in proposals.proposed]
    skipped = [(len(proposals.already_pending), "already pending"), (len(proposals.in_graveyard), "in the graveyard"),
               (len(proposals.suppressed), "suppressed"), (len(proposals.dismissed), "dismissed before")]
    if any(count for count, _ in skipped):
        lines.append("not proposed: " + ", ".join(f"{count} {why}" for count, why in skipped if count))
    if report.back_at_head:
        lines.append("declared again at HEAD, proposal still pending: " + ", ".join(report.back_at_head))
    if proposals.proposed:
        lines.append("review: cenotaph proposals; cenotaph accept ID [--reason R]; cenotaph reject ID --reason R")
    _emit(args, report, "\n".join(lines))


def cmd_accept(args: argparse.Namespace, memory) -> None:
    result = memory.accept_proposal(CLI_ACTOR, args.id, reason=args.reason, effort=args.effort)
    _emit(args, result, f"accepted proposal #{args.id}: {_outcome(result)}")


def cmd_reject(args: argparse.Namespace, memory) -> None:
    row = memory.reject_proposal(CLI_ACTOR, args.id, reason=args.reason)
    _emit(args, row, f"rejected proposal #{row.id}: {row.decision_reason}")


def _repository_root() -> Path:
    return project_resolution.repository_root(Path.cwd()) or Path.cwd()


def cmd_compile(args: argparse.Namespace, memory) -> None:
    result = memory.compile(CLI_ACTOR, args.target, project=_project(args), root=_repository_root(),
                            directory=args.dir)
    if result.proposal is None:
        _emit(args, result, f"{args.target}: up to date ({result.lessons} reinforced lesson(s))")
        return
    lines = [change.diff.rstrip("\n") for change in result.files]
    lines.append(f"proposed as #{result.proposal.id} ({len(result.files)} file(s) from {result.lessons} reinforced "
                 f"lesson(s)): write with `cenotaph accept {result.proposal.id}`, or "
                 f"`cenotaph reject {result.proposal.id} --reason …`")
    _emit(args, result, "\n".join(lines))


def cmd_bless(args: argparse.Namespace, memory) -> None:
    row = memory.bless(CLI_ACTOR, args.id, reason=args.reason)
    _emit(args, row, f"blessed #{row.memory_id}: its lessons compile without waiting to recur")


def cmd_lessons(args: argparse.Namespace, memory) -> None:
    found = memory.lessons(_project(args))
    if not args.all:
        found = [lesson for lesson in found if lesson.reinforced]
    lines = [f"{'+' if l.reinforced else ' '} [{l.kind}] {l.text} (#{', #'.join(map(str, l.memory_ids))}"
             f"{'; ' + ', '.join(l.reinforced_by) if l.reinforced_by else ''})" for l in found]
    _emit(args, {"lessons": found}, "\n".join(lines) or "no lessons yet")


def cmd_maintain(args: argparse.Namespace, memory) -> None:
    report = memory.maintain(CLI_ACTOR, None if args.all_projects else _project(args))
    lines = [f"archived #{dup}: duplicate of {kept}" for dup, kept in report.archived]
    _emit(args, report, "\n".join(lines) or "no duplicates")


def cmd_mine_transcripts(args: argparse.Namespace, memory) -> None:
    from cenotaph import paths

    root = _repository_root()
    claude_dir = Path(args.claude_dir) if args.claude_dir else paths.claude_home()
    codex_dir = Path(args.codex_dir) if args.codex_dir else paths.codex_home()
    report = memory.mine_transcripts(CLI_ACTOR, _project(args), root, claude_dir=claude_dir, codex_dir=codex_dir)
    proposals = report.proposals
    lines = [f"read {report.files_read} of {report.files} transcript files ({report.bytes:,} bytes, "
             f"{report.lines:,} lines; {report.corrupt_lines} corrupt and {report.long_lines} over-long lines "
             f"skipped); {report.sessions} sessions of this project"]
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
    _emit(args, report, "\n".join(lines))
    named = {str(Path(d)) for d in (args.claude_dir, args.codex_dir) if d}
    if named & set(report.missing):
        raise CommandFailed


def _trust_time_audit_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    for verb, help_text in (("deprioritise", "rank a memory low; --hint words bring it back up"),
                            ("archive", "keep a memory out of recall"),
                            ("reinstate", "make an archived or deprioritised memory active again")):
        p = command(verb, _lifecycle(verb), help_text)
        p.add_argument("id", type=int)
        p.add_argument("--reason", required=True)
        if verb == "deprioritise":
            p.add_argument("--hint", action="append", default=[], help="a query word that pins it back (repeatable)")

    p = command("forget", cmd_forget, "remove a memory's content for good (a preview unless --confirm)")
    p.add_argument("id", type=int)
    p.add_argument("--reason", required=True)
    p.add_argument("--confirm", action="store_true", help="really forget it")

    for verb, trust in (("confirm", "confirmed"), ("dispute", "disputed"), ("refute", "refuted")):
        p = command(verb, _trust(trust), f"mark a memory {trust}")
        p.add_argument("id", type=int)
        p.add_argument("--reason", required=True)

    p = command("contradictions", cmd_contradictions, "list contradictions")
    p.add_argument("--status", default="open", choices=("open", "resolved", "dismissed", "all"))
    p = command("resolve", cmd_resolve, "resolve a contradiction: keep a, b, both (the older one ends) or neither")
    p.add_argument("id", type=int)
    p.add_argument("--keep", required=True, choices=("a", "b", "both", "neither"))
    p.add_argument("--reason", required=True)
    p = command("dismiss", cmd_dismiss, "record that a flagged pair is not a contradiction")
    p.add_argument("id", type=int)
    p.add_argument("--reason", required=True)
    command("scan-contradictions", cmd_scan_contradictions, "look for contradictions missed at write time")

    for verb, handler in (("suppress", cmd_suppress), ("unsuppress", cmd_unsuppress)):
        p = command(verb, handler, "stop flagging a name (diagnostic) or keep memories naming it out of recall"
                    if verb == "suppress" else "lift a suppression")
        p.add_argument("name")
        p.add_argument("--kind", required=True, choices=("diagnostic", "recall"))
        p.add_argument("--global", dest="global_scope", action="store_true", help="everywhere, not just this project")
        p.add_argument("--reason", required=True)

    p = command("update", cmd_update, "change a memory's content (a new version; the old one is kept)")
    p.add_argument("id", type=int)
    p.add_argument("--content", required=True)
    p.add_argument("--reason")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p = command("history", cmd_history, "versions, transitions and events of a memory")
    p.add_argument("id", type=int)
    p = command("audit", cmd_audit, "check the event log's hash chain, or read it")
    p.add_argument("action", choices=("verify", "log"))
    p.add_argument("--target", help="e.g. memory:12 (a bare number is a memory)")
    p.add_argument("--since", help="ISO 8601 date or time")
    p.add_argument("--limit", type=int, default=1000)
    p = command("why", cmd_why, "which recalls of the last 30 days surfaced memories about TOPIC")
    p.add_argument("topic")

    p = command("backup", cmd_backup, "copy the store to PATH (consistent while others write)")
    p.add_argument("path")
    p = command("restore", cmd_restore, "merge a backup into the store (never brings back what was forgotten)")
    p.add_argument("path")

    p = command("proposals", cmd_proposals, "proposals waiting for a person (an agent's, or candidates mined from the past)")
    p.add_argument("--status", default="pending", choices=("pending", "accepted", "rejected", "all"))
    p.add_argument("--class", dest="classes", action="append", choices=CANDIDATE_CLASSES,
                   help="only mined candidates of this class (repeatable; plain: no class)")
    p = command("accept", cmd_accept, "carry out a proposal (an agent's, or a candidate mined from the past)")
    p.add_argument("id", type=int)
    p.add_argument("--reason", help="why; for a mined candidate, the reason it is abandoned (else the drafted one)")
    p.add_argument("--effort", type=int, help="for a mined candidate: what it cost, 1-5")
    p = command("reject", cmd_reject, "turn down an agent's proposal")
    p.add_argument("id", type=int)
    p.add_argument("--reason", required=True)

    p = command("compile", cmd_compile, "propose skills, instruction blocks or lint rules from the reinforced lessons")
    p.add_argument("--target", required=True, choices=COMPILE_TARGETS)
    p.add_argument("--dir", help="skills folder, relative to the repository root (default: .claude/skills, "
                                 "or [compile] skills_dir in .cenotaph.toml)")
    p = command("bless", cmd_bless, "vouch for a memory: its lessons compile without waiting to recur")
    p.add_argument("id", type=int)
    p.add_argument("--reason")
    p = command("lessons", cmd_lessons, "the lessons compile draws from (reinforced ones marked +)")
    p.add_argument("--all", action="store_true", help="also those not reinforced yet")

    p = command("maintain", cmd_maintain, "archive duplicate memories (reason: duplicate of <id>)")
    p.add_argument("--all-projects", action="store_true")


# --- parser ----------------------------------------------------------------------------------------


def cmd_ingest(args: argparse.Namespace, memory) -> None:
    root = _repository_root()
    r = memory.ingest(CLI_ACTOR, args.paths, project=_project(args), root=root)
    lines = [f"{r.files} file(s) read, {r.files_unchanged} unchanged: {r.chunks_added} chunk(s) added, "
             f"{r.chunks_updated} updated, {r.chunks_unchanged} unchanged, {r.chunks_archived} archived"]
    if r.files_removed:
        lines.append(f"{r.files_removed} file(s) gone: their chunks archived")
    skipped = [(len(r.skipped_binary), "binary"), (len(r.skipped_oversize), "too large"),
               (r.skipped_unsupported, "not Markdown, reStructuredText or text")]
    lines += [f"skipped {n} file(s): {why}" for n, why in skipped if n]
    lines += [f"no such file or folder: {path}" for path in r.missing]
    lines += [f"left out, it holds a secret: {where}" for where in r.refused_secrets]
    _emit(args, r, "\n".join(lines))
    if r.missing:
        raise CommandFailed


def _feed_line(f) -> str:
    state = f"last error: {f.last_error}" if f.last_error else f"last pulled {f.last_success}" if f.last_success \
        else "never pulled"
    return f"feed #{f.id} {f.url} · {f.entries} live entries · expire after {f.expires_days} days · {state}"


def cmd_feed(args: argparse.Namespace, memory) -> None:
    if args.action == "add":
        row = memory.feed_add(CLI_ACTOR, _one_url(args), project=_project(args), expires_days=args.expires_days)
        _emit(args, row, f"added {_feed_line(row)}; `cenotaph feed pull` reads it")
    elif args.action == "remove":
        row = memory.feed_remove(CLI_ACTOR, _one_url(args), project=_project(args))
        _emit(args, row, f"removed feed #{row.id} {row.url} (its entries stay, and still expire)")
    elif args.action == "list":
        rows = memory.feed_list(_project(args))
        _emit(args, {"feeds": rows}, "\n".join(_feed_line(f) for f in rows) or "no feeds")
    elif args.action == "pull":
        report = memory.feed_pull(CLI_ACTOR, project=_project(args))
        lines = []
        for p in report.feeds:
            what = f"error: {p.error}" if p.error else "not modified" if p.not_modified else \
                f"{p.added} new, {p.updated} updated, {p.unchanged} unchanged, {p.duplicates} already stored" + \
                (f", {p.refused_secrets} left out (a secret)" if p.refused_secrets else "")
            lines.append(f"{p.feed.url}: {what}")
        lines.append(f"{len(report.expired)} expired entries archived")
        _emit(args, report, "\n".join(lines))
        if any(p.error for p in report.feeds):
            raise CommandFailed
    else:
        root = _repository_root()
        from cenotaph.memory.knowledge.feeds import suggest

        found = suggest(root)
        _emit(args, {"suggestions": found}, "\n".join(f"{s.package} ({s.ecosystem}): cenotaph feed add {s.url}"
                                                      for s in found) or "no release feeds found for the "
                                                                            "declared dependencies")


def _one_url(args: argparse.Namespace) -> str:
    if not args.url:
        raise CenotaphError(f"feed {args.action} needs a URL", field="url")
    return args.url


def cmd_promote(args: argparse.Namespace, memory) -> None:
    row = memory.promote(CLI_ACTOR, args.id)
    _emit(args, row, f"promoted #{row.memory_id}: kept for good, {row.trust}")


def _cluster_lines(cluster, *, full: bool = False) -> list[str]:
    lines = [f"cluster {cluster.id}: {len(cluster.member_ids)} memories, cohesion {cluster.cohesion:.2f}"]
    for row in cluster.members:
        text = row.content if full or len(row.content) <= 100 else row.content[:99] + "…"
        lines.append(f"  #{row.memory_id} [{row.kind}, valid from {row.valid_from[:10]}] {text}")
    return lines


def cmd_compact(args: argparse.Namespace, memory) -> None:
    from cenotaph.memory.knowledge.compaction import DEFAULT_OLDER_THAN_DAYS

    project = _project(args)
    if args.older_than is None:
        args.older_than = DEFAULT_OLDER_THAN_DAYS
    if args.action is None:
        if args.cluster_id is not None or args.summary is not None:
            raise CenotaphError("`cenotaph compact` lists; `cenotaph compact apply CLUSTER_ID --summary TEXT` applies",
                                field="action")
        clusters = memory.compact_candidates(project, older_than_days=args.older_than)
        lines = [line for c in clusters for line in _cluster_lines(c)]
        if clusters:
            lines.append("apply one: cenotaph compact apply CLUSTER_ID --summary TEXT")
        _emit(args, {"clusters": clusters},
              "\n".join(lines) or f"no clusters among the memories older than {args.older_than} days")
        return
    if args.cluster_id is None:
        raise CenotaphError("compact apply needs a CLUSTER_ID (from `cenotaph compact`)", field="cluster_id")
    if args.summary is None:
        raise CenotaphError("compact apply needs --summary TEXT", field="summary")
    result = memory.compact_apply(_writer(args), project, args.cluster_id, summary=args.summary, reason=args.reason,
                                  older_than_days=args.older_than)
    _emit(args, result, _outcome(result))
def _concept_line(c: Any) -> str:
    aliases = f" (also {', '.join(c.aliases)})" if c.aliases else ""
    near = ", ".join(f"{n.name} ×{n.count}" for n in c.neighbours)
    return f"{c.name}{aliases} · {c.count} {'memory' if c.count == 1 else 'memories'}" + (f" · with {near}" if near else "")


def cmd_concepts(args: argparse.Namespace, memory) -> None:
    if args.action is None:
        views = memory.concepts(_project(args), limit=args.limit)
        _emit(args, {"concepts": views}, "\n".join(_concept_line(c) for c in views) or "no concepts yet")
        return
    if args.action == "rebuild":
        if args.names:
            raise CenotaphError("concepts rebuild takes no concepts", field="names")
        report = memory.concepts_rebuild(CLI_ACTOR)
        _emit(args, report, f"derived {report.links} links and {report.pairs} pairs from {report.memories} memories; "
                            "every verdict kept")
        return
    wanted = 1 if args.action == "remove" else 2
    if len(args.names) != wanted:
        raise CenotaphError(f"concepts {args.action} takes {'one concept' if wanted == 1 else 'two concepts'}",
                            field="names")
    verdict = memory.concept_verdict(CLI_ACTOR, args.action, *args.names, project=_project(args), reason=args.reason)
    text = {"merge": f"{verdict.concept} is now an alias of {verdict.other}",
            "rename": f"{verdict.concept} is now called {verdict.other}",
            "remove": f"{verdict.concept} removed: it will not be extracted again",
            "dismiss": f"{verdict.concept} and {verdict.other} are no longer linked"}[args.action]
    _emit(args, verdict, text)


def cmd_related(args: argparse.Namespace, memory) -> None:
    found = memory.related(args.id, k=args.k)
    _emit(args, {"related": found}, "\n".join(f"#{r.memory.memory_id} [{', '.join(r.shared)}] {r.memory.content}"
                                              for r in found) or f"no memory shares a concept with #{args.id}")


def _concept_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command("concepts", cmd_concepts, "the project's concepts with their aliases and neighbours; review them "
                                          "(merge A B: A becomes an alias of B; remove A; dismiss A B: not linked; "
                                          "rename A B); rebuild re-derives them, keeping every verdict")
    p.add_argument("action", nargs="?", choices=("merge", "remove", "dismiss", "rename", "rebuild"))
    p.add_argument("names", nargs="*", metavar="CONCEPT")
    p.add_argument("--reason")
    p.add_argument("--limit", type=int, default=50, help="how many concepts to list (default 50)")
    p = command("related", cmd_related, "memories that share concepts with one memory")
    p.add_argument("id", type=int)
    p.add_argument("-k", type=int, default=10, help="how many memories (default 10)")


def _knowledge_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command("ingest", cmd_ingest, "store the repository's documents (Markdown, reST, text) as chunks with "
                                      "their location; re-ingesting changes only what changed")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p = command("feed", cmd_feed, "RSS and Atom feeds whose entries are kept as knowledge that expires")
    p.add_argument("action", choices=("add", "list", "remove", "pull", "suggest"))
    p.add_argument("url", nargs="?", help="for add and remove (remove also takes the feed's number)")
    p.add_argument("--expires-days", type=int, default=30, help="for add: how long an entry is kept unless promoted")
    p = command("promote", cmd_promote, "keep a feed entry for good (no expiry; confirmed)")
    p.add_argument("id", type=int)
    p = command("compact", cmd_compact, "list clusters of similar older memories; `compact apply CLUSTER_ID "
                                        "--summary TEXT` stores a summary and supersedes the cluster (nothing is "
                                        "deleted; forgetting or refuting the summary restores its sources)")
    p.add_argument("action", nargs="?", choices=("apply",))
    p.add_argument("cluster_id", nargs="?", metavar="CLUSTER_ID")
    p.add_argument("--older-than", type=int, metavar="DAYS",
                   help="only memories valid since more than DAYS days (default 30)")
    p.add_argument("--summary", help="for apply: the summary's text")
    p.add_argument("--reason", help="for apply: why (kept with each source's transition)")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help="store file or postgresql:// URL (default: $CENOTAPH_STORE, `store` in config.toml, $CENOTAPH_HOME/cenotaph.db or $XDG_DATA_HOME/cenotaph)")
    common.add_argument("--project", help="project id (default: from .cenotaph.toml, git origin or repository path)")
    common.add_argument("--json", action="store_true", help="machine-readable output (shapes in shared_schema/)")

    parser = argparse.ArgumentParser(prog="cenotaph", description="A shared memory for coding work: dead ends stay dead.")
    parser.add_argument("--version", action="version", version=f"cenotaph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: Callable, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    p = command("remember", cmd_remember, "store a memory verbatim")
    p.add_argument("text")
    p.add_argument("--kind", default="note", choices=KINDS)
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--force", action="store_true", help="store even if a near-duplicate exists")
    p.add_argument("--valid-from", help="when it started to hold (ISO 8601; default now)")
    p.add_argument("--valid-to", help="when it stopped holding (ISO 8601)")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p.add_argument("--share", action="store_true", help="also write it into the repository's .cenotaph/ folder")

    p = command("recall", cmd_recall, "find memories; abandoned approaches named in the query come first")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10, help="how many memories (default 10)")
    p.add_argument("--as-of", help="what the store held at this time")
    p.add_argument("--valid-at", help="what was true at this time")
    p.add_argument("--include-refuted", action="store_true")

    p = command("abandon", cmd_abandon, "record an approach as abandoned (the graveyard)")
    p.add_argument("name")
    p.add_argument("--reason", required=True)
    p.add_argument("--effort", type=int, help="1–5: how much it cost before it was abandoned")
    p.add_argument("--ecosystem", choices=ECOSYSTEMS)
    p.add_argument("--alias", action="append", default=[], help="another name it goes by (e.g. its import name)")
    p.add_argument("--global", dest="global_scope", action="store_true", help="abandoned everywhere, not just here")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)
    p.add_argument("--share", action="store_true", help="also write it into the repository's .cenotaph/ folder")

    p = command("reinstate-approach", cmd_reinstate_approach, "take an approach out of the graveyard")
    p.add_argument("name")
    p.add_argument("--reason", required=True)
    p.add_argument("--global", dest="global_scope", action="store_true")

    p = command("experience", cmd_experience, "record what was tried, its effort and outcome")
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

    p = command("share", cmd_share, "write a memory (ID) or an abandoned approach (NAME) into the repository's "
                                    ".cenotaph/ folder, for the team (commit it)")
    p.add_argument("target", metavar="ID|NAME")
    p = command("unshare", cmd_share, "remove a shared entry from the repository's .cenotaph/ folder "
                                      "(by memory ID, approach NAME or file)")
    p.add_argument("target", metavar="ID|NAME|FILE")

    p = command("check", cmd_check, "check names against the graveyard")
    p.add_argument("names", nargs="+")
    p.add_argument("--ecosystem", choices=ECOSYSTEMS)

    p = sub.add_parser("serve", parents=[common], help="run the language server over stdio (editors start this)")
    p.set_defaults(handler=None, entry="cenotaph.lsp.server")
    p = sub.add_parser("mcp", parents=[common], help="serve the MCP tools over stdio (agents start this)")
    p.set_defaults(handler=None, entry="cenotaph.mcp.stdio")

    p = command("import", cmd_import, "add memories from a JSON Lines file (one object a line: content; "
                                      "kind, tags, valid_from, project optional)")
    p.add_argument("file")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)

    command("doctor", cmd_doctor, "show the store, versions, model and project")
    command("reindex", cmd_reindex, "re-embed every memory with the configured model")
    p = command("migrate-store", cmd_migrate_store,
                "copy the whole store (every memory and version, vectors, the event log, verdicts) to another: "
                "a PostgreSQL URL or a SQLite path; rerun it to bring the copy up to date")
    p.add_argument("--to", required=True, metavar="URL_OR_PATH",
                   help="postgresql://user@host:port/db, or a SQLite file (new, empty, or a previous copy)")
    p = command("repair", cmd_repair, "check the store and bring its full-text index and vectors back in step")
    p.add_argument("--check", action="store_true", help="only report; change nothing")
    _trust_time_audit_commands(command)
    _knowledge_commands(command)
    _concept_commands(command)
    _mine_commands(sub, common)
    return parser


def _mine_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """`cenotaph mine SOURCE`: each source of the past is a sub-verb with its own handler."""
    mine = sub.add_parser("mine", help="mine the past for abandoned approaches (proposals a person reviews)",
                          description="Mine the past for abandoned approaches. What it finds are proposals: "
                                      "review them with `cenotaph proposals`, then accept or reject each.")
    sources = mine.add_subparsers(dest="source", required=True, metavar="SOURCE")
    p = sources.add_parser("git", parents=[common], help="dependencies the repository's manifests declared and dropped",
                           description="Read the commits that touch manifests (only those since the last run) and "
                                       "propose every dependency declared at some commit and nowhere at HEAD.")
    p.set_defaults(handler=cmd_mine_git)
    p.add_argument("path", nargs="?", default=".", help="a directory inside the repository (default: here)")
    p.add_argument("--since", help="only commits after this date (anything git understands, e.g. 2024-01-01)")
    p.add_argument("--max-commits", type=int, help="only the latest N commits that touch manifests")
    help_text = ("agent transcripts (Claude Code, Codex) of sessions in this repository: rejected or undone "
                 "installs, and what the person said against a package")
    p = sources.add_parser("transcripts", parents=[common], help=help_text, description=help_text)
    p.set_defaults(handler=cmd_mine_transcripts)
    p.add_argument("--claude-dir", help="Claude Code's folder (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
    p.add_argument("--codex-dir", help="Codex's folder (default: $CODEX_HOME or ~/.codex)")


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("CENOTAPH_LOG", "WARNING").upper(), stream=sys.stderr,
                        format="cenotaph: %(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.handler is None:
        # Servers own stdin/stdout and their event loop: hand over to their own entry point.
        import importlib

        return importlib.import_module(args.entry).main(args)
    from cenotaph.app import open_memory

    try:
        memory = open_memory(args.db)
        try:
            _attach_repository(args, memory)
            args.handler(args, memory)
        finally:
            memory.ctx.store.close()
    except CommandFailed:
        return 1
    except CenotaphError as exc:
        _fail(args, str(exc), getattr(exc, "field", None))
        return 2
    except (StoreUnavailable, SchemaTooNew) as exc:
        _fail(args, str(exc), "store")
        return 2
    return 0


def _fail(args: argparse.Namespace, message: str, field: str | None) -> None:
    if getattr(args, "json", False):
        json.dump({"error": {"message": message, "field": field}}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    sys.stderr.write(f"cenotaph: error: {message}\n")


if __name__ == "__main__":
    sys.exit(main())

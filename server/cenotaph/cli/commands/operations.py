"""Operating the store: import, doctor, reindex, migrate-store, repair, backup and restore, and
reading the event log (audit, why)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cenotaph import __version__
from cenotaph.cli.commands import policy
from cenotaph.cli.common import (
    REDACT_HELP,
    CommandFailed,
    Subcommands,
    actor,
    emit,
    progress,
    project_of,
    repository_root,
    writer,
)
from cenotaph.cli.render import feed_line
from cenotaph.memory.errors import CenotaphError


def cmd_import(args: argparse.Namespace, memory) -> None:
    path = Path(args.file)
    try:
        with path.open(encoding="utf-8", errors="surrogateescape") as counting:
            total = sum(1 for line in counting if line.strip())
        with path.open(encoding="utf-8", errors="surrogateescape") as lines:
            report = memory.import_jsonl(writer(args, memory), lines, project=project_of(args), total=total,
                                         progress=progress)
    except OSError as exc:
        raise CenotaphError(f"cannot read {path}: {exc.strerror or exc}", field="file") from None
    lines = [f"imported {report.imported} memories; skipped {report.skipped_duplicates} already stored and "
             f"{report.skipped_forgotten} forgotten; refused {len(report.refused)} line(s)"]
    lines += [f"line {r.line}: {r.field + ': ' if r.field else ''}{r.message}" for r in report.refused]
    payload = {"imported": report.imported, "skipped_duplicates": report.skipped_duplicates,
               "skipped_forgotten": report.skipped_forgotten, "refused": report.refused,
               "memory_ids": report.memory_ids}
    emit(args, payload, "\n".join(lines))
    if report.refused:
        raise CommandFailed


def import_memories(commands: Subcommands) -> None:
    p = commands.add("import", cmd_import, "add memories from a JSON Lines file (one object a line: content; "
                                           "kind, tags, valid_from, project optional)")
    p.add_argument("file")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)


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
        "project": project_of(args),
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
    text += "".join(f"\n{feed_line(f)}" for f in feeds)
    text += policy.hook_problems(report)
    report["feeds"] = feeds
    # Abandoned records filed in another ecosystem than the repository's manifests declare.
    misfiled = memory.misfiled_approaches(report["project"], repository_root())
    report["misfiled"] = misfiled
    text += "".join(f"\n{m.approach.display_name} is abandoned under {m.approach.ecosystem}, but {m.manifest} "
                    f"declares it in {m.declared_in}: `{m.command}`" for m in misfiled)
    emit(args, report, text)
    if any(s.problems for s in folders):
        raise CommandFailed  # a malformed shared file is the team's to fix: fail in CI too


def doctor(commands: Subcommands) -> None:
    commands.add("doctor", cmd_doctor, "show the store, versions, model and project")


def cmd_reindex(args: argparse.Namespace, memory) -> None:
    report = memory.reindex(progress=progress)
    emit(args, report, f"re-embedded {report.memories} memories with {report.model} (dim {report.dim})")


def reindex(commands: Subcommands) -> None:
    commands.add("reindex", cmd_reindex, "re-embed every memory with the configured model")


def cmd_migrate_store(args: argparse.Namespace, memory) -> None:
    from cenotaph.app import open_store
    from cenotaph.memory.operations.migrate_store import target_path

    target = open_store(target_path(args.to))
    try:
        report = memory.migrate_store(target, progress=progress)
    finally:
        target.close()
    lines = [f"{'table':<22}{'here':>10}{'there':>10}{'inserted':>10}{'updated':>10}{'deleted':>10}"]
    lines += [f"{t.table:<22}{t.source:>10}{t.target:>10}{t.inserted:>10}{t.updated:>10}{t.deleted:>10}"
              for t in report.tables]
    lines.append(f"copied to {report.target}: {report.changed} rows changed; every table counts the same on both "
                 f"sides; the event log verifies there ({report.events_verified} events)")
    if not report.model_matches:
        lines.append(f"the vectors were built by {report.embedding_model}: run `cenotaph reindex` on either store")
    emit(args, report, "\n".join(lines))


def migrate_store(commands: Subcommands) -> None:
    p = commands.add("migrate-store", cmd_migrate_store,
                     "copy the whole store (every memory and version, vectors, the event log, verdicts) to another: "
                     "a PostgreSQL URL or a SQLite path; rerun it to bring the copy up to date")
    p.add_argument("--to", required=True, metavar="URL_OR_PATH",
                   help="postgresql://user@host:port/db, or a SQLite file (new, empty, or a previous copy)")


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
    lines.append(f"event log: checked {check.audit.checked} events, intact" if check.audit.ok
                 else f"event log: {check.audit.problem}")
    lines += [f"secret stored (forget it): {found}" for found in check.secrets]
    return lines


def _mended_lines(report) -> list[str]:
    """What repair found out of step and mended, one line a thing; "nothing to mend" when clean."""
    before, lines = report.before, []
    if report.fts_rewritten:
        lines.append(f"mended the full-text index: rewrote {report.fts_rewritten} rows ({len(before.fts_missing)} "
                     f"missing, {len(before.fts_orphans)} orphaned, {len(before.fts_stale)} stale)")
    if report.substrings_rebuilt:
        lines.append("mended the substring index: rebuilt it")
    if report.vectors_added:
        lines.append(f"mended the vectors: embedded {report.vectors_added} missing")
    if report.vectors_removed:
        lines.append(f"mended the vectors: removed {report.vectors_removed} orphaned")
    if report.reindex_finished:
        lines.append("mended the vectors: finished an interrupted reindex")
    return lines or ["nothing to mend"]


def cmd_repair(args: argparse.Namespace, memory) -> None:
    if args.check:
        check = memory.check_store()
        emit(args, check, "\n".join(_check_lines(check)) + ("\nall in step" if check.ok else ""))
        if not check.ok:
            raise CommandFailed
        return
    report = memory.repair(actor(memory), progress=progress)
    lines = [*_mended_lines(report), *_check_lines(report.after), *report.notes]
    emit(args, report, "\n".join(lines))
    if not report.after.ok:
        raise CommandFailed


def repair(commands: Subcommands) -> None:
    p = commands.add("repair", cmd_repair, "check the store and bring its full-text index and vectors back in step")
    p.add_argument("--check", action="store_true", help="only report; change nothing")


def cmd_audit(args: argparse.Namespace, memory) -> None:
    if args.action == "verify":
        report = memory.audit_verify()
        text = (f"the event log is intact: {report.checked} events, head #{report.head}" if report.ok
                else f"the event log is broken at event #{report.first_bad_seq}: {report.problem}")
        emit(args, report, text)
        if not report.ok:
            raise CommandFailed
        return
    rows = memory.audit_log(target=args.target, since=args.since, limit=args.limit)
    lines = [f"#{e.seq} {e.at} {e.actor} {e.action} {e.target}" + (f": {e.reason}" if e.reason else "") for e in rows]
    emit(args, {"events": rows}, "\n".join(lines) or "no events")


def audit(commands: Subcommands) -> None:
    p = commands.add("audit", cmd_audit, "check the event log's hash chain, or read it")
    p.add_argument("action", choices=("verify", "log"))
    p.add_argument("--target", help="e.g. memory:12 (a bare number is a memory)")
    p.add_argument("--since", help="ISO 8601 date or time")
    p.add_argument("--limit", type=int, default=1000)


def cmd_why(args: argparse.Namespace, memory) -> None:
    report = memory.why(args.topic, project_of(args))
    lines = [f"{r.at} {r.actor} asked {r.query!r}: "
             + ", ".join([*(f"#{m} ({s:.3f})" for m, s in zip(r.memory_ids, r.scores)),
                          *(f"abandoned {a}" for a in r.approaches)]) for r in report.recalls]
    emit(args, report, "\n".join(lines) or f"no recall since {report.since} surfaced anything about {report.topic}")


def why(commands: Subcommands) -> None:
    p = commands.add("why", cmd_why, "which recalls of the last 30 days surfaced memories about TOPIC")
    p.add_argument("topic")


def cmd_backup(args: argparse.Namespace, memory) -> None:
    report = memory.backup(actor(memory), args.path)
    emit(args, report, f"backed up to {report.path} ({report.bytes:,} bytes, {report.events} events)")


def backup(commands: Subcommands) -> None:
    p = commands.add("backup", cmd_backup, "copy the store to PATH (consistent while others write)")
    p.add_argument("path")


def cmd_restore(args: argparse.Namespace, memory) -> None:
    r = memory.restore(actor(memory), args.path)
    emit(args, r, f"restored from {r.path}: {r.memories_added} memories added, {r.memories_updated} updated, "
                  f"{r.skipped_forgotten} forgotten here left out, {r.forgotten} forgotten as in the backup; "
                  f"{r.approaches} approaches, {r.suppressions} suppressions, {r.dismissals} dismissals, "
                  f"{r.contradictions} contradictions")


def restore(commands: Subcommands) -> None:
    p = commands.add("restore", cmd_restore, "merge a backup into the store (never brings back what was forgotten)")
    p.add_argument("path")

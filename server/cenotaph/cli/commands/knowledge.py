"""Knowledge: the repository's documents (ingest), release feeds (feed, promote), compacting old
memories into summaries, and the concepts memories share."""

from __future__ import annotations

import argparse
from typing import Any

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
from cenotaph.cli.render import feed_line, outcome
from cenotaph.memory.errors import CenotaphError


def cmd_ingest(args: argparse.Namespace, memory) -> None:
    root = repository_root()
    r = memory.ingest(actor(memory), args.paths, project=project_of(args), root=root)
    lines = [f"{r.files} file(s) read, {r.files_unchanged} unchanged: {r.chunks_added} chunk(s) added, "
             f"{r.chunks_updated} updated, {r.chunks_unchanged} unchanged, {r.chunks_archived} archived"]
    if r.files_removed:
        lines.append(f"{r.files_removed} file(s) gone: their chunks archived")
    skipped = [(len(r.skipped_binary), "binary"), (len(r.skipped_oversize), "too large"),
               (r.skipped_unsupported, "not Markdown, reStructuredText or text")]
    lines += [f"skipped {n} file(s): {why}" for n, why in skipped if n]
    lines += [f"no such file or folder: {path}" for path in r.missing]
    lines += [f"secret redacted: {where}" for where in r.redacted_secrets]
    emit(args, r, "\n".join(lines))
    if r.missing:
        raise CommandFailed


def ingest(commands: Subcommands) -> None:
    p = commands.add("ingest", cmd_ingest, "store the repository's documents (Markdown, reST, text) as chunks with "
                                           "their location; re-ingesting changes only what changed")
    p.add_argument("paths", nargs="+", metavar="PATH")


def cmd_feed(args: argparse.Namespace, memory) -> None:
    if args.action == "add":
        row = memory.feed_add(actor(memory), _one_url(args), project=project_of(args), expires_days=args.expires_days)
        emit(args, row, f"added {feed_line(row)}; `cenotaph feed pull` reads it")
    elif args.action == "remove":
        row = memory.feed_remove(actor(memory), _one_url(args), project=project_of(args))
        emit(args, row, f"removed feed #{row.id} {row.url} (its entries stay, and still expire)")
    elif args.action == "list":
        rows = memory.feed_list(project_of(args))
        emit(args, {"feeds": rows}, "\n".join(feed_line(f) for f in rows) or "no feeds")
    elif args.action == "pull":
        report = memory.feed_pull(actor(memory), project=project_of(args))
        lines = []
        for p in report.feeds:
            what = f"error: {p.error}" if p.error else "not modified" if p.not_modified else \
                f"{p.added} new, {p.updated} updated, {p.unchanged} unchanged, {p.duplicates} already stored" + \
                (f", {p.refused_secrets} left out (a secret)" if p.refused_secrets else "")
            lines.append(f"{p.feed.url}: {what}")
        lines.append(f"{len(report.expired)} expired entries archived")
        emit(args, report, "\n".join(lines))
        if any(p.error for p in report.feeds):
            raise CommandFailed
    else:
        root = repository_root()
        from cenotaph.memory.knowledge.feeds import suggest

        found = suggest(root)
        emit(args, {"suggestions": found}, "\n".join(f"{s.package} ({s.ecosystem}): cenotaph feed add {s.url}"
                                                     for s in found) or "no release feeds found for the "
                                                                           "declared dependencies")


def _one_url(args: argparse.Namespace) -> str:
    if not args.url:
        raise CenotaphError(f"feed {args.action} needs a URL", field="url")
    return args.url


def feed(commands: Subcommands) -> None:
    p = commands.add("feed", cmd_feed, "RSS and Atom feeds whose entries are kept as knowledge that expires")
    p.add_argument("action", choices=("add", "list", "remove", "pull", "suggest"))
    p.add_argument("url", nargs="?", help="for add and remove (remove also takes the feed's number)")
    p.add_argument("--expires-days", type=int, default=30, help="for add: how long an entry is kept unless promoted")


def cmd_promote(args: argparse.Namespace, memory) -> None:
    row = memory.promote(actor(memory), args.id)
    emit(args, row, f"promoted #{row.memory_id}: kept for good, {row.trust}")


def promote(commands: Subcommands) -> None:
    p = commands.add("promote", cmd_promote, "keep a feed entry for good (no expiry; confirmed)")
    p.add_argument("id", type=int)


def _cluster_lines(cluster, *, full: bool = False) -> list[str]:
    lines = [f"cluster {cluster.id}: {len(cluster.member_ids)} memories, cohesion {cluster.cohesion:.2f}"]
    for row in cluster.members:
        text = row.content if full or len(row.content) <= 100 else row.content[:99] + "…"
        lines.append(f"  #{row.memory_id} [{row.kind}, valid from {row.valid_from[:10]}] {text}")
    return lines


def cmd_compact(args: argparse.Namespace, memory) -> None:
    from cenotaph.memory.knowledge.compaction import DEFAULT_OLDER_THAN_DAYS

    project = project_of(args)
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
        emit(args, {"clusters": clusters},
             "\n".join(lines) or f"no clusters among the memories older than {args.older_than} days")
        return
    if args.cluster_id is None:
        raise CenotaphError("compact apply needs a CLUSTER_ID (from `cenotaph compact`)", field="cluster_id")
    if args.summary is None:
        raise CenotaphError("compact apply needs --summary TEXT", field="summary")
    result = memory.compact_apply(writer(args, memory), project, args.cluster_id, summary=args.summary, reason=args.reason,
                                  older_than_days=args.older_than)
    emit(args, result, outcome(result))


def compact(commands: Subcommands) -> None:
    p = commands.add("compact", cmd_compact, "list clusters of similar older memories; `compact apply CLUSTER_ID "
                                             "--summary TEXT` stores a summary and supersedes the cluster (nothing is "
                                             "deleted; forgetting or refuting the summary restores its sources)")
    p.add_argument("action", nargs="?", choices=("apply",))
    p.add_argument("cluster_id", nargs="?", metavar="CLUSTER_ID")
    p.add_argument("--older-than", type=int, metavar="DAYS",
                   help="only memories valid since more than DAYS days (default 30)")
    p.add_argument("--summary", help="for apply: the summary's text")
    p.add_argument("--reason", help="for apply: why (kept with each source's transition)")
    p.add_argument("--redact", action="store_true", help=REDACT_HELP)


def _concept_line(c: Any) -> str:
    aliases = f" (also {', '.join(c.aliases)})" if c.aliases else ""
    near = ", ".join(f"{n.name} ×{n.count}" for n in c.neighbours)
    return f"{c.name}{aliases} · {c.count} {'memory' if c.count == 1 else 'memories'}" + (f" · with {near}" if near else "")


def cmd_concepts(args: argparse.Namespace, memory) -> None:
    if args.action is None:
        views = memory.concepts(project_of(args), limit=args.limit)
        emit(args, {"concepts": views}, "\n".join(_concept_line(c) for c in views) or "no concepts yet")
        return
    if args.action == "rebuild":
        if args.names:
            raise CenotaphError("concepts rebuild takes no concepts", field="names")
        report = memory.concepts_rebuild(actor(memory))
        emit(args, report, f"derived {report.links} links and {report.pairs} pairs from {report.memories} memories; "
                           "every verdict kept")
        return
    wanted = 1 if args.action == "remove" else 2
    if len(args.names) != wanted:
        raise CenotaphError(f"concepts {args.action} takes {'one concept' if wanted == 1 else 'two concepts'}",
                            field="names")
    verdict = memory.concept_verdict(actor(memory), args.action, *args.names, project=project_of(args),
                                     reason=args.reason)
    text = {"merge": f"{verdict.concept} is now an alias of {verdict.other}",
            "rename": f"{verdict.concept} is now called {verdict.other}",
            "remove": f"{verdict.concept} removed: it will not be extracted again",
            "dismiss": f"{verdict.concept} and {verdict.other} are no longer linked"}[args.action]
    emit(args, verdict, text)


def concepts(commands: Subcommands) -> None:
    p = commands.add("concepts", cmd_concepts, "the project's concepts with their aliases and neighbours; review them "
                                               "(merge A B: A becomes an alias of B; remove A; dismiss A B: not "
                                               "linked; rename A B); rebuild re-derives them, keeping every verdict")
    p.add_argument("action", nargs="?", choices=("merge", "remove", "dismiss", "rename", "rebuild"))
    p.add_argument("names", nargs="*", metavar="CONCEPT")
    p.add_argument("--reason")
    p.add_argument("--limit", type=int, default=50, help="how many concepts to list (default 50)")


def cmd_related(args: argparse.Namespace, memory) -> None:
    found = memory.related(args.id, k=args.k)
    emit(args, {"related": found}, "\n".join(f"#{r.memory.memory_id} [{', '.join(r.shared)}] {r.memory.content}"
                                             for r in found) or f"no memory shares a concept with #{args.id}")


def related(commands: Subcommands) -> None:
    p = commands.add("related", cmd_related, "memories that share concepts with one memory")
    p.add_argument("id", type=int)
    p.add_argument("-k", type=int, default=10, help="how many memories (default 10)")

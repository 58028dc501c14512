"""The repository's own documents (design docs, ADRs, READMEs) as memories of kind `document`: one
per chunk (nlp/chunks.py), each knowing its file, heading path and lines, so that recall leads
straight to the place in the file.

Re-ingesting is cheap and quiet: a chunk whose text is unchanged anywhere in its file is left
alone (no event; only its line numbers follow it), a changed chunk becomes a new version of the
memory that held its place (same heading, same position under it), a chunk that disappeared is
archived "no longer in <path>", and a deleted file archives all its chunks. One file is one
transaction.

A secret in a document is redacted, not dropped: the person asked for the file, and a section that
shows an example key (Flask's configuration docs) is still the answer to a question about it. Only
the value becomes `[REDACTED:<kind>]`; the report says where (path:line) and what kind.

Documents take no part in the near-duplicate and contradiction checks against notes: a README
restating a decision neither duplicates nor contradicts it (memory/core/remember.py)."""

from __future__ import annotations

import os
import subprocess
from collections import defaultdict, deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context, content_hash
from cenotaph.memory.core.lifecycle import apply as change_state
from cenotaph.memory.core.remember import new_row
from cenotaph.memory.core.timeline import new_version
from cenotaph.memory.errors import InvalidInput, Unavailable
from cenotaph.memory.models import Actor
from cenotaph.nlp import chunks
from cenotaph.nlp.embedder import EmbedderUnavailable
from cenotaph.store import documents, memories, vectors
from cenotaph.store.documents import ChunkRow
from cenotaph.store.records import MemoryRow

# A chunk's vector is made from its heading path and its first words, not from all of it: embedding
# 300 words costs ≈ 10× what 48 do on one core (the model reads up to 256 tokens), which would put
# 1,000 files past a minute; the full text is in the word index, where recall's other lane finds it.
EMBEDDED_WORDS = 48
# Files embedded at once during an ingest, each on one core: an ingest is a command the person
# waits for, so it takes a second core where there is one (docs/benchmarks-history.md, "Documents").
EMBEDDING_WORKERS = 2
SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".rest", ".txt", ".text")
MAX_BYTES = 2_000_000
KIND = "document"
# A repository's documents were not written to this store by the person who ingests them.
TRUST = "unverified"


@dataclass(slots=True)
class IngestReport:
    files: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    chunks_added: int = 0
    chunks_updated: int = 0
    chunks_unchanged: int = 0
    chunks_archived: int = 0
    skipped_binary: list[str] = field(default_factory=list)
    skipped_oversize: list[str] = field(default_factory=list)
    skipped_unsupported: int = 0
    missing: list[str] = field(default_factory=list)
    # Secrets replaced by `[REDACTED:<kind>]` in the chunks stored (memory/secrets.py): "path:line: kind",
    # never the value. The chunk itself is kept: a person asked for the file.
    redacted_secrets: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Plan:
    unchanged: list[tuple[ChunkRow, chunks.Chunk, int]] = field(default_factory=list)
    changed: list[tuple[ChunkRow, chunks.Chunk, int]] = field(default_factory=list)
    added: list[tuple[chunks.Chunk, int]] = field(default_factory=list)
    gone: list[ChunkRow] = field(default_factory=list)


def ingest(ctx: Context, actor: Actor, paths: Iterable[str], *, project: str, root: Path,
           vocabulary: frozenset[str] = frozenset()) -> IngestReport:
    project = validate.project(project)
    given = validate.text_list(list(paths), "paths", max_items=10_000, max_length=4096)
    if not given:
        raise InvalidInput("name at least one file or folder", field="paths")
    root = root.resolve()
    report = IngestReport()
    ctx.ensure_vectors()
    ctx.analyzer.set_vocabulary(vocabulary)
    with ctx.store.read() as conn:
        known = documents.live_paths(conn, project)
    workers = min(EMBEDDING_WORKERS, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cenotaph-embed") as embedding:
        pipeline = _Pipeline(ctx, actor, project, root, report, embedding, ahead=workers)
        for raw in given:
            target = Path(raw).expanduser()
            target = (target if target.is_absolute() else Path.cwd() / target).resolve()
            if target.is_dir():
                found = sorted(_documents_in(target, root, report))
                under = _relative(target, root)
                prefix = "" if under == "." else under.rstrip("/") + "/"
                for rel in found:
                    pipeline.ingest(rel)
                # A file ingested before from this folder and gone from it now: all its chunks go.
                listed = set(found)
                for rel in sorted(p for p in known if p.startswith(prefix) and p not in listed):
                    if not (root / rel).is_file():
                        _remove_file(ctx, actor, project, rel, report)
            elif target.is_file():
                rel = _relative(target, root)
                if _readable(target, rel, report):
                    pipeline.ingest(rel)
            else:
                rel = _relative(target, root)
                if rel in known:
                    _remove_file(ctx, actor, project, rel, report)
                else:
                    report.missing.append(raw)
        pipeline.finish()
    return report


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _documents_in(folder: Path, root: Path, report: IngestReport) -> Iterable[str]:
    """Document files under `folder`, as paths relative to `root`: what git tracks or would track
    (so .gitignore is respected) in a repository, else every file outside hidden folders."""
    listed = _git_files(folder)
    candidates = listed if listed is not None else _walk(folder)
    for path in candidates:
        rel = _relative(path, root)
        if not path.name.lower().endswith(SUFFIXES):
            report.skipped_unsupported += 1
            continue
        if _readable(path, rel, report):
            yield rel


def _git_files(folder: Path) -> list[Path] | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                               "--full-name", "."], capture_output=True, timeout=60, check=False)
        top = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or top.returncode != 0:
        return None
    base = Path(top.stdout.strip())
    return [p for p in (base / name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name)
            if p.is_file()]


def _walk(folder: Path) -> list[Path]:
    found = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        found.extend(Path(here) / f for f in sorted(files))
    return found


def _readable(path: Path, rel: str, report: IngestReport) -> bool:
    size = path.stat().st_size
    if size > MAX_BYTES:
        report.skipped_oversize.append(rel)
        return False
    with path.open("rb") as handle:
        head = handle.read(8192)
    if b"\0" in head:
        report.skipped_binary.append(rel)
        return False
    return True


def _plan(old: list[ChunkRow], hashes: dict[int, str], new: list[chunks.Chunk]) -> _Plan:
    """Match the file's new chunks with the memories of its old ones: by text first (a chunk that
    moved is unchanged), then by place (heading path and position under it)."""
    plan = _Plan()
    ordinals: dict[str, int] = defaultdict(int)
    numbered = []
    for chunk in new:
        numbered.append((chunk, ordinals[chunk.heading_path]))
        ordinals[chunk.heading_path] += 1
    by_text: dict[str, list[ChunkRow]] = defaultdict(list)
    for row in old:
        by_text[hashes[row.memory_id]].append(row)
    used: set[int] = set()
    rest = []
    for chunk, ordinal in numbered:
        same = by_text.get(content_hash(chunk.text))
        if same:
            row = same.pop(0)
            used.add(row.memory_id)
            plan.unchanged.append((row, chunk, ordinal))
        else:
            rest.append((chunk, ordinal))
    by_place = {(r.heading, r.ordinal): r for r in old if r.memory_id not in used}
    for chunk, ordinal in rest:
        row = by_place.pop((chunk.heading_path, ordinal), None)
        if row is None:
            plan.added.append((chunk, ordinal))
        else:
            used.add(row.memory_id)
            plan.changed.append((row, chunk, ordinal))
    plan.gone = [r for r in old if r.memory_id not in used]
    return plan


@dataclass(slots=True)
class _Prepared:
    """A file read, chunked, planned against the store and screened; its leads being embedded."""
    rel: str
    plan: _Plan
    rows: dict[int, MemoryRow | None]
    texts: list[str]
    embedded: Future[Any] | None


class _Pipeline:
    """Files stored one after another, in order, while the next files' leads are embedded on
    worker threads (onnxruntime runs without the GIL): the analysis and the write of one file
    overlap the embedding of the next ones, which is most of a cold ingest's time."""

    def __init__(self, ctx: Context, actor: Actor, project: str, root: Path, report: IngestReport,
                 embedding: ThreadPoolExecutor, ahead: int) -> None:
        self.ctx, self.actor, self.project, self.root, self.report = ctx, actor, project, root, report
        self.embedding, self.ahead = embedding, ahead
        self.pending: deque[_Prepared] = deque()
        self.seen: set[str] = set()  # a file named twice in one call (a folder and a file in it) once

    def ingest(self, rel: str) -> None:
        if rel in self.seen:
            return
        self.seen.add(rel)
        self.pending.append(self._prepare(rel))
        while len(self.pending) > self.ahead:
            self._store_next()

    def finish(self) -> None:
        while self.pending:
            self._store_next()

    def _store_next(self) -> None:
        _store_file(self.ctx, self.actor, self.project, self.pending.popleft(), self.report)

    def _prepare(self, rel: str) -> _Prepared:
        ctx, project, report = self.ctx, self.project, self.report
        path = Path(rel) if Path(rel).is_absolute() else self.root / rel
        text = path.read_bytes().decode("utf-8", "replace")
        new = [c for c in chunks.split(text, chunks.format_of(rel)) if c.text.strip()]
        with ctx.store.read() as conn:
            old = documents.of_path(conn, project, rel)
            rows = {r.memory_id: memories.current(conn, r.memory_id) for r in old}
        hashes = {mid: row.content_hash for mid, row in rows.items() if row is not None}
        # A chunk is planned as it would be stored, its secrets redacted, so that re-ingesting an
        # unchanged file leaves it alone; text stored already was screened when it went in.
        stored = set(hashes.values())
        found: dict[int, list[str]] = {}
        new = [c if content_hash(c.text) in stored else _redacted(rel, c, found) for c in new]
        plan = _plan(old, hashes, new)
        for chunk in [c for _, c, _ in plan.changed] + [c for c, _ in plan.added]:
            report.redacted_secrets.extend(found.get(id(chunk), []))
        report.files += 1
        if not plan.changed and not plan.added and not plan.gone:
            report.files_unchanged += 1
        texts = [c.text for _, c, _ in plan.changed] + [c.text for c, _ in plan.added]
        leads = [_lead(c) for _, c, _ in plan.changed] + [_lead(c) for c, _ in plan.added]
        embedded = self.embedding.submit(ctx.embedder.embed, leads) if leads else None
        return _Prepared(rel=rel, plan=plan, rows=rows, texts=texts, embedded=embedded)


def _store_file(ctx: Context, actor: Actor, project: str, prepared: _Prepared, report: IngestReport) -> None:
    rel, plan, rows = prepared.rel, prepared.plan, prepared.rows
    analyses = [ctx.analyzer.analyze(t) for t in prepared.texts]
    try:
        embedded = prepared.embedded.result() if prepared.embedded is not None else []
    except EmbedderUnavailable as exc:
        raise Unavailable(str(exc), field="model") from exc
    now = ctx.now()
    with ctx.store.write() as tx:
        use_vectors = ctx.vectors_current()
        for row, chunk, ordinal in plan.unchanged:
            if (row.start_line, row.end_line, row.ordinal, row.heading) != (chunk.start_line, chunk.end_line, ordinal,
                                                                           chunk.heading_path):
                documents.put(tx, _located(row.memory_id, project, rel, chunk, ordinal))
        for (row, chunk, ordinal), vector, analysis in zip(plan.changed, embedded, analyses, strict=False):
            current = rows[row.memory_id]
            assert current is not None
            updated = new_version(ctx, tx, current, vector=vector if use_vectors else None,
                                  entities=sorted(analysis.entities), content=chunk.text,
                                  content_hash=content_hash(chunk.text), lemmas=analysis.lemmas,
                                  polarity=analysis.polarity, context=chunk.heading_path, actor=actor.name)
            documents.put(tx, _located(row.memory_id, project, rel, chunk, ordinal))
            ctx.event(tx, actor=actor.name, action="update", target=f"memory:{row.memory_id}", project=project,
                      before={"version": current.version, "content_hash": current.content_hash},
                      after={"version": updated.version, "content_hash": updated.content_hash, "path": rel},
                      reason=f"changed in {rel}")
        offset = len(plan.changed)
        next_id = memories.next_memory_id(tx)
        for n, (chunk, ordinal) in enumerate(plan.added):
            analysis = analyses[offset + n]
            row = new_row(memory_id=next_id + n, project=project, kind=KIND, content=chunk.text,
                          source="import", actor=actor.name, trust=TRUST, analysis=analysis, valid_from=now,
                          recorded_at=now, context=chunk.heading_path)
            row.id = memories.insert(tx, row)
            if use_vectors:
                vectors.insert(tx, row.id, project, embedded[offset + n])
            memories.insert_entities(tx, row.id, analysis.entities)
            documents.put(tx, _located(row.memory_id, project, rel, chunk, ordinal))
            ctx.event(tx, actor=actor.name, action="ingest", target=f"memory:{row.memory_id}", project=project,
                      after={"kind": KIND, "content_hash": row.content_hash, "trust": TRUST, "path": rel,
                             "lines": [chunk.start_line, chunk.end_line]})
        for row in plan.gone:
            current = rows[row.memory_id]
            if current is not None:
                change_state(ctx, tx, current, "archived", reason=f"no longer in {rel}", actor=actor.name)
    report.chunks_unchanged += len(plan.unchanged)
    report.chunks_updated += len(plan.changed)
    report.chunks_added += len(plan.added)
    report.chunks_archived += len(plan.gone)


def _lead(chunk: chunks.Chunk) -> str:
    """What a chunk's vector is made from: where it sits and how it begins."""
    words = chunk.text.split()
    lead = " ".join(words[:EMBEDDED_WORDS])
    return f"{chunk.heading_path}\n{lead}" if chunk.heading else lead


def _redacted(rel: str, chunk: chunks.Chunk, found: dict[int, list[str]]) -> chunks.Chunk:
    """`chunk` with each secret replaced by `[REDACTED:<kind>]`; where each was ("path:line: kind")
    goes into `found` under the returned chunk."""
    findings = secrets.scan(chunk.text)
    if not findings:
        return chunk
    redacted = replace(chunk, text=secrets.redact(chunk.text, findings))
    found[id(redacted)] = [f"{rel}:{chunk.start_line + chunk.text.count(chr(10), 0, f.start)}: {f.kind}"
                           for f in findings]
    return redacted


def _remove_file(ctx: Context, actor: Actor, project: str, rel: str, report: IngestReport) -> None:
    with ctx.store.write() as tx:
        for chunk in documents.of_path(tx, project, rel):
            current = memories.current(tx, chunk.memory_id)
            if current is not None:
                change_state(ctx, tx, current, "archived", reason=f"no longer in {rel}", actor=actor.name)
                report.chunks_archived += 1
    report.files_removed += 1


def _located(memory_id: int, project: str, rel: str, chunk: chunks.Chunk, ordinal: int) -> ChunkRow:
    return ChunkRow(memory_id=memory_id, project=project, path=rel, heading=chunk.heading_path, ordinal=ordinal,
                    start_line=chunk.start_line, end_line=chunk.end_line)

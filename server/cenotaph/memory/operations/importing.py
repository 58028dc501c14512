"""Bulk import: many memories at once, in batches (one embedding call and one write transaction
per batch), with source `import`. Exact duplicates are skipped, forgotten content never comes back,
and an item that fails validation is refused by position and field while the rest go in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context, content_hash, parse_time
from cenotaph.memory.core import concepts
from cenotaph.memory.core.remember import CONTEXT_MEMORIES, new_row, sitting_context
from cenotaph.memory.errors import CenotaphError, Unavailable
from cenotaph.memory.models import KINDS, Actor
from cenotaph.nlp.embedder import EmbedderUnavailable
from cenotaph.store import events, memories, vectors

# Batched embedding costs ≈ 4.8 ms a sentence at 32–128 texts per call against 7.6 ms one at a
# time (1 thread); a batch is also one write transaction, short enough for other writers to queue.
BATCH = 128
FIELDS = ("content", "kind", "tags", "valid_from", "project")
# Imported text was not written, sentence by sentence, by the person who imports it: it starts
# unverified, like an agent's write, until someone confirms it.
IMPORT_TRUST = "unverified"


@dataclass(frozen=True, slots=True)
class ImportItem:
    """One memory to import. Values are checked on import; `project` None means the import's
    default; `line` is where the item came from (1-based), for refusals."""

    content: Any
    kind: Any = "note"
    tags: Any = None
    valid_from: Any = None
    project: Any = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class ImportRefusal:
    line: int
    field: str | None
    message: str


@dataclass(slots=True)
class ImportReport:
    imported: int = 0
    skipped_duplicates: int = 0
    skipped_forgotten: int = 0
    refused: list[ImportRefusal] = field(default_factory=list)
    memory_ids: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Ready:
    """An item that passed validation, analysed, waiting for its batch."""

    line: int
    content: str
    kind: str
    tags: list[str]
    valid_from: str | None
    project: str
    digest: str


def read_jsonl(lines: Iterable[str], refused: list[ImportRefusal]) -> Iterator[ImportItem]:
    """Items from JSON Lines (one object a line; blank lines skipped). A line that is not a JSON
    object, or names a field import does not know, is added to `refused` and skipped."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            refused.append(ImportRefusal(number, None, f"not JSON ({exc})"))
            continue
        if not isinstance(value, dict):
            refused.append(ImportRefusal(number, None, f"expected a JSON object, got {type(value).__name__}"))
            continue
        unknown = sorted(set(value) - set(FIELDS))
        if unknown:
            refused.append(ImportRefusal(number, unknown[0], f"unknown field; expected {', '.join(FIELDS)}"))
            continue
        if "content" not in value:
            refused.append(ImportRefusal(number, "content", "is required"))
            continue
        yield ImportItem(line=number, **value)


def import_memories(ctx: Context, actor: Actor, items: Iterable[ImportItem], *, project: str,
                    vocabulary: frozenset[str] = frozenset(), batch: int = BATCH, total: int | None = None,
                    progress: Callable[[int, int | None], None] | None = None,
                    report: ImportReport | None = None) -> ImportReport:
    """Write `items` in batches. `total` (how many items to expect) is only for `progress`, called
    after each batch with the number of items handled so far. `report` may hold refusals made while
    reading the items (see `read_jsonl`): those count as handled too.

    Unlike `remember`, no near-duplicate search and no contradiction check run per item: each costs
    a KNN query, which would make a bulk import as slow as one `remember` per line. Exact duplicates
    (same content in the same project) are skipped instead; `cenotaph scan-contradictions` finds
    contradictions afterwards."""
    default_project = validate.project(project)
    batch = validate.integer(batch, "batch", low=1, high=10_000)
    report = report or ImportReport()
    ctx.ensure_vectors()
    ctx.analyzer.set_vocabulary(vocabulary)
    pending: list[_Ready] = []
    checked = 0  # items taken from `items`, and of those refused here
    refused_here = 0

    def handled() -> int:
        return checked + len(report.refused) - refused_here

    for item in items:
        checked += 1
        line = item.line if item.line is not None else checked
        try:
            pending.append(_checked(item, line, default_project, actor))
        except CenotaphError as exc:
            report.refused.append(ImportRefusal(line, exc.field, exc.message))
            refused_here += 1
        if len(pending) >= batch:
            _write_batch(ctx, actor, pending, report)
            pending = []
            if progress:
                progress(handled(), total)
    if pending:
        _write_batch(ctx, actor, pending, report)
    if progress:
        progress(handled(), total)
    report.refused.sort(key=lambda r: r.line)
    return report


def _checked(item: ImportItem, line: int, default_project: str, actor: Actor) -> _Ready:
    content = secrets.screen(validate.text(item.content, "content", max_length=validate.MAX_CONTENT), "content", actor)
    return _Ready(
        line=line, content=content, kind=validate.choice(item.kind, "kind", KINDS),
        tags=secrets.screen_list(validate.text_list(item.tags, "tags"), "tags", actor),
        valid_from=None if item.valid_from is None else parse_time(item.valid_from, "valid_from"),
        project=default_project if item.project is None else validate.project(item.project),
        digest=content_hash(content),
    )


def _write_batch(ctx: Context, actor: Actor, batch: list[_Ready], report: ImportReport) -> None:
    # Skip what is already there before paying for embeddings (a re-import costs reads only) ...
    with ctx.store.read() as conn:
        batch = _new_only(conn, batch, report)
    if not batch:
        return
    try:
        embedded = ctx.embedder.embed([r.content for r in batch])
    except EmbedderUnavailable as exc:
        raise Unavailable(str(exc), field="model") from exc
    analyses = [ctx.analyzer.analyze(r.content) for r in batch]
    vector_of = {id(r): v for r, v in zip(batch, embedded, strict=True)}
    analysis_of = {id(r): a for r, a in zip(batch, analyses, strict=True)}
    now = ctx.now()
    with ctx.store.write() as tx:
        # ... and check again under the write lock: another process may have written or forgotten
        # the same content meanwhile.
        batch = _new_only(tx, batch, report)
        use_vectors = ctx.vectors_current()
        next_id = memories.next_memory_id(tx)
        # Like `remember`, each memory is indexed with the last few written before it in its project.
        earlier: dict[str, list[str]] = {}
        entries = []
        for offset, ready in enumerate(batch):
            analysis = analysis_of[id(ready)]
            if ready.project not in earlier:
                earlier[ready.project] = sitting_context(ctx, tx, ready.project)
            context = earlier[ready.project]
            row = new_row(memory_id=next_id + offset, project=ready.project, kind=ready.kind, content=ready.content,
                          source="import", actor=actor.name, trust=IMPORT_TRUST, analysis=analysis,
                          valid_from=ready.valid_from or now, recorded_at=now, context="\n".join(context).strip(),
                          tags=ready.tags)
            row.id = memories.insert(tx, row)
            context[:] = [*context, memories.context_fragment(row.content, row.lemmas)][-CONTEXT_MEMORIES:]
            if use_vectors:
                vectors.insert(tx, row.id, row.project, vector_of[id(ready)])
            memories.insert_entities(tx, row.id, analysis.entities)
            concepts.attach(tx, row, analysis)
            entries.append({"at": now, "actor": actor.name, "action": "import", "target": f"memory:{row.memory_id}",
                            "project": row.project, "after": {"kind": row.kind, "content_hash": row.content_hash,
                                                              "trust": row.trust,
                                                              "tags_hash": events.tags_hash(row.tags)}})
            report.memory_ids.append(row.memory_id)
        events.append_many(tx, entries)
    report.imported += len(batch)


def _new_only(conn: Any, batch: list[_Ready], report: ImportReport) -> list[_Ready]:
    """The items of `batch` whose content is neither forgotten nor already in its project (nor
    earlier in the batch); the others are counted as skipped."""
    hashes = list({r.digest for r in batch})
    forgotten = memories.forgotten_among(conn, hashes)
    present: set[tuple[str, str]] = set()
    for name in {r.project for r in batch}:
        present |= {(name, h) for h in memories.hashes_present(conn, name, hashes)}
    kept = []
    for ready in batch:
        key = (ready.project, ready.digest)
        if ready.digest in forgotten:
            report.skipped_forgotten += 1
        elif key in present:
            report.skipped_duplicates += 1
        else:
            present.add(key)
            kept.append(ready)
    return kept


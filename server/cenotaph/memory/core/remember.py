"""Writing a memory: validate, embed, refuse a near-duplicate, store verbatim with its lemmas
and entities, and flag a likely contradiction."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context, content_hash, format_time, parse_time
from cenotaph.memory.core import concepts
from cenotaph.memory.core.trust import set_trust
from cenotaph.memory.models import KINDS, OUTCOMES, SOURCED_KINDS, Actor, ContradictionWarning, RememberResult
from cenotaph.nlp.analysis import Analysis
from cenotaph.store import contradictions, events, memories, vectors
from cenotaph.store.dialect import batched
from cenotaph.store.records import MemoryRow

DUPLICATE_SIMILARITY = 0.92
# A twin at cosine ≥ 0.92 is among the binary index's very nearest: the check rescores 15
# candidates, not the 40 a recall draws (the scan's time grows with them: bench/perf.py).
DUPLICATE_CANDIDATES = 15
CONTRADICTION_SIMILARITY = 0.70
_NEIGHBOURS = 10
# A memory is read with what was written just before it in the same project (the question it
# answers, the topic of the exchange): the last few memories of the same sitting are indexed
# as its full-text context.
SITTING_MINUTES = 30
CONTEXT_MEMORIES = 3


def sitting_context(ctx: Context, conn: Any, project: str) -> list[str]:
    """What the last few memories written in `project` within the sitting contribute to the
    full-text context of the next one, oldest first."""
    since = format_time(ctx.clock() - timedelta(minutes=SITTING_MINUTES))
    earlier = memories.recent(conn, project, since=since, limit=CONTEXT_MEMORIES)
    return [memories.context_fragment(text, lemmas) for text, lemmas in reversed(earlier)]


def find_contradictions(ctx: Context, conn: Any, row: MemoryRow, vector: np.ndarray, actor: str) -> list[ContradictionWarning]:
    """Near neighbours (cosine ≥ 0.7) that take the opposite side about something both name: link
    them, mark both disputed. Similar sentences of opposite polarity about different things ("keep
    going" beside "avoid injuries") are no contradiction."""
    if row.polarity == 0:
        return []
    subjects: frozenset[str] | None = None  # read only if a neighbour takes the other side
    warnings = []
    neighbours = [(rid, sim) for rid, sim in vectors.knn(conn, row.project, vector, _NEIGHBOURS + 1)
                  if rid != row.id and sim >= CONTRADICTION_SIMILARITY]
    others = memories.by_row_ids(conn, [rid for rid, _ in neighbours])
    for rid, similarity in neighbours:
        other = others.get(rid)
        if (other is None or other.superseded_at is not None or (other.kind in SOURCED_KINDS) != (row.kind in SOURCED_KINDS) or other.state not in ("active", "deprioritised")
                or other.trust == "refuted" or other.polarity != -row.polarity
                or (other.valid_to is not None and other.valid_to <= row.valid_from)  # held before: no clash
                or contradictions.is_dismissed(conn, row.content_hash, other.content_hash)
                or contradictions.is_linked(conn, other.memory_id, row.memory_id)):
            continue
        if subjects is None:
            subjects = ctx.analyzer.analyze(row.content).subjects
        if not subjects & ctx.analyzer.analyze(other.content).subjects:
            continue
        explanation = (f"similar ({similarity:.2f}) but opposite in polarity: "
                       f"#{other.memory_id} {'recommends' if other.polarity > 0 else 'advises against'}, "
                       f"#{row.memory_id} {'recommends' if row.polarity > 0 else 'advises against'}")
        link = contradictions.add(conn, project=row.project, memory_a=other.memory_id, memory_b=row.memory_id,
                                  found_by="heuristic", explanation=explanation, actor=actor, at=ctx.now())
        ctx.event(conn, actor=actor, action="contradiction", target=f"contradiction:{link}", project=row.project,
                  after={"memory_a": other.memory_id, "memory_b": row.memory_id, "status": "open"}, reason=explanation)
        for side in (other, memories.current(conn, row.memory_id)):
            if side is not None and side.trust != "disputed":
                set_trust(ctx, conn, side, "disputed", reason=f"contradiction #{link}", actor=actor)
        warnings.append(ContradictionWarning(link, other.memory_id, other.content, similarity, explanation))
    return warnings


def remember(ctx: Context, actor: Actor, content: str, *, project: str, kind: str = "note",
             tags: list[str] | None = None, force: bool = False, valid_from: str | None = None,
             valid_to: str | None = None, context: str = "", experience: dict[str, Any] | None = None,
             vocabulary: frozenset[str] = frozenset()) -> RememberResult:
    """`vocabulary`: the graveyard's names, which entity extraction recognises."""
    content = validate.text(content, "content", max_length=validate.MAX_CONTENT)
    project = validate.project(project)
    kind = validate.choice(kind, "kind", KINDS)
    tags = validate.text_list(tags, "tags")
    context = validate.text(context, "context", max_length=validate.MAX_CONTENT, allow_empty=True)
    now = ctx.now()
    valid_from = parse_time(valid_from, "valid_from") if valid_from is not None else now
    valid_to = parse_time(valid_to, "valid_to") if valid_to is not None else None
    if valid_to is not None and valid_to <= valid_from:
        raise validate.InvalidInput("must be later than valid_from", field="valid_to")
    exp = _experience_fields(experience or {})
    content = secrets.screen(content, "content", actor)
    tags = secrets.screen_list(tags, "tags", actor)
    context = secrets.screen(context, "context", actor)
    exp["breakthrough"] = secrets.screen_optional(exp["breakthrough"], "breakthrough", actor)
    exp["gotchas"] = secrets.screen_list(exp["gotchas"], "gotchas", actor)

    vector = ctx.embed(content)
    ctx.analyzer.set_vocabulary(vocabulary)
    analysis = ctx.analyzer.analyze(content)
    ctx.ensure_vectors()
    digest = content_hash(content)

    with ctx.store.write() as tx:
        # A store built by another model takes no new vectors until `cenotaph reindex` rebuilds them
        # all; asked inside the transaction, so that a reindex finishing meanwhile is not missed.
        use_vectors = ctx.vectors_current()
        if not force and use_vectors:
            for rid, similarity in vectors.knn(tx, project, vector, 5, least=DUPLICATE_CANDIDATES):
                if similarity < DUPLICATE_SIMILARITY:
                    break
                twin = memories.by_row_ids(tx, [rid]).get(rid)
                # "Always use X" and "Never use X" are close in meaning but say opposite things:
                # a contradiction to flag below, not a duplicate to refuse.
                if (twin is not None and twin.kind == kind and twin.superseded_at is None
                        and twin.state in ("active", "deprioritised") and twin.polarity * analysis.polarity >= 0):
                    return RememberResult(stored=False, id=None, duplicate_of=twin.memory_id, similarity=similarity)
        memory_id = memories.next_memory_id(tx)
        # The caller's own context, if any, leads.
        indexed_context = "\n".join([context, *sitting_context(ctx, tx, project)]).strip()
        row = new_row(memory_id=memory_id, project=project, kind=kind, content=content, source=actor.source,
                      actor=actor.name, trust=actor.default_trust, analysis=analysis, valid_from=valid_from,
                      recorded_at=now, valid_to=valid_to, context=indexed_context, tags=tags, **exp)
        row.id = memories.insert(tx, row)
        # Sent together: on PostgreSQL the vector and the entities go with the concepts' verdicts
        # read, then the links (two round trips, not three or four).
        with batched(tx):
            if use_vectors:
                vectors.insert(tx, row.id, project, vector)
            memories.insert_entities(tx, row.id, analysis.entities)
            concepts.attach(tx, row, analysis)
        ctx.event(tx, actor=actor.name, action="remember", target=f"memory:{memory_id}", project=project,
                  after={"kind": kind, "content_hash": digest, "trust": row.trust, "tags_hash": events.tags_hash(tags)})
        warnings = find_contradictions(ctx, tx, row, vector, actor.name) if use_vectors else []
        # The row as inserted, unless a contradiction has disputed it since (not read again: a
        # round trip on PostgreSQL).
        stored = memories.current(tx, memory_id) if warnings else row
    return RememberResult(stored=True, id=memory_id, contradictions=warnings, memory=stored)


def new_row(*, memory_id: int, project: str, kind: str, content: str, source: str, actor: str, trust: str,
            analysis: Analysis, valid_from: str, recorded_at: str, valid_to: str | None = None, context: str = "",
            tags: list[str] | None = None, **experience: Any) -> MemoryRow:
    """The first version of a new memory, active, as every write door stores it."""
    fields = {"effort": None, "outcome": None, "iterations": None, "breakthrough": None, "gotchas": [], **experience}
    return MemoryRow(
        id=0, memory_id=memory_id, version=1, project=project, kind=kind, content=content,
        content_hash=content_hash(content), tags=tags or [], source=source, actor=actor, state="active",
        state_reason=None, reinstate_hints=[], trust=trust, trust_reason=None, polarity=analysis.polarity,
        valid_from=valid_from, valid_to=valid_to, recorded_at=recorded_at, superseded_at=None, recall_count=0,
        last_recalled_at=None, lemmas=analysis.lemmas, context=context, **fields,
    )


def _experience_fields(experience: dict[str, Any]) -> dict[str, Any]:
    outcome = experience.get("outcome")
    return {
        "effort": validate.optional_integer(experience.get("effort"), "effort", low=1, high=5),
        "outcome": None if outcome is None else validate.choice(outcome, "outcome", OUTCOMES),
        "iterations": validate.optional_integer(experience.get("iterations"), "iterations", low=0, high=1_000_000),
        "breakthrough": validate.optional_text(experience.get("breakthrough"), "breakthrough",
                                               max_length=validate.MAX_CONTENT),
        "gotchas": validate.text_list(experience.get("gotchas"), "gotchas", max_length=validate.MAX_SHORT_TEXT),
    }

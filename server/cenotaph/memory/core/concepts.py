"""Concepts: what memories are about, derived from their text (nlp/analysis.py extracts package
names, paths, identifiers and noun chunks) and reviewed by a person. The links and co-occurrence
pairs are derived, dropped and re-derived by `rebuild`; a person's verdicts (merge A into B,
remove A, dismiss the pair A–B, rename A to B) are keyed on normalized values, store-wide, and
applied to every derivation, so that none outlives its correction. Recall expands a query term a
verdict made an alias (or the canonical concept it stands for) to the memories of its concept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.models import KINDS, Actor
from cenotaph.nlp.analysis import CHUNK_TOKENS, Analysis
from cenotaph.nlp.names import fold
from cenotaph.store import concepts, memories
from cenotaph.store.memories import Scope
from cenotaph.store.records import MemoryRow

ACTION = "concept"  # an agent's verdict, as a proposal
VERBS = ("merge", "remove", "dismiss", "rename")
# A memory's pairs are those of its PAIR_CONCEPTS strongest concepts (at most 10), not every pair.
PAIR_CONCEPTS = 5
NEIGHBOURS = 5
NEIGHBOUR_WINDOW = 2_000  # neighbours are counted over the project's newest memories
_REBUILD_BATCH = 500


@dataclass(slots=True, frozen=True)  # listings are kept per head (Context.per_head): shared, never edited
class Neighbour:
    name: str
    count: int  # memories in which the two are among the strongest concepts


@dataclass(slots=True, frozen=True)
class ConceptView:
    name: str
    kind: str
    count: int  # current memories of the project linked to it
    aliases: list[str]
    neighbours: list[Neighbour]


@dataclass(slots=True)
class RelatedMemory:
    memory: MemoryRow
    shared: list[str]


@dataclass(slots=True)
class RebuildReport:
    memories: int = 0
    links: int = 0
    pairs: int = 0


@dataclass(slots=True)
class Verdict:
    verb: str
    concept: str
    other: str | None = None
    aliases: list[str] = field(default_factory=list)


# --- derivation ------------------------------------------------------------------------------------

def derive(conn: Any, extracted: Iterable[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The links and pairs of a memory from its extracted concepts, with every verdict applied."""
    extracted = list(extracted)
    verdicts = concepts.verdicts(conn, list(dict.fromkeys(v for v, _ in extracted)))
    links: dict[str, str] = {}
    for value, kind in extracted:
        canonical = verdicts.aliases.get(value, value)
        if value not in verdicts.removed and canonical not in verdicts.removed:
            links.setdefault(canonical, kind)
    strongest = list(links)[:PAIR_CONCEPTS]  # canonicals of the values: their dismissed pairs were read
    pairs = [p for p in (tuple(sorted(ab)) for ab in combinations(strongest, 2)) if p not in verdicts.dismissed]
    return list(links.items()), pairs  # type: ignore[return-value]


def attach(conn: Any, row: MemoryRow, analysis: Analysis) -> None:
    """Link a newly written memory row to its concepts (inside the writer's transaction). Only
    what people and agents write is read for concepts, not document chunks or feed entries."""
    if row.kind in KINDS:
        links, pairs = derive(conn, analysis.concepts)
        concepts.link(conn, row.id, links, pairs)


def rebuild(ctx: Context, actor: Actor, vocabulary: frozenset[str],
            progress: Callable[[int], None] | None = None) -> RebuildReport:
    """Drop every link and pair and derive them again from the current memories; verdicts stay."""
    report = RebuildReport()
    ctx.analyzer.set_vocabulary(vocabulary)
    with ctx.store.write() as tx:
        concepts.drop_derived(tx)
    after = 0
    while True:
        with ctx.store.read() as conn:
            batch = concepts.current_rows(conn, KINDS, after, _REBUILD_BATCH)
        if not batch:
            break
        analysed = [(row_id, ctx.analyzer.analyze(content).concepts) for row_id, content in batch]
        with ctx.store.write() as tx:
            for row_id, extracted in analysed:
                links, pairs = derive(tx, extracted)
                concepts.link(tx, row_id, links, pairs)
                report.links += len(links)
                report.pairs += len(pairs)
        report.memories += len(batch)
        after = batch[-1][0]
        if progress is not None:
            progress(report.memories)
    with ctx.store.write() as tx:
        ctx.event(tx, actor=actor.name, action="concepts:rebuild", target="concepts", project="",
                  after={"memories": report.memories, "links": report.links, "pairs": report.pairs})
    return report


# --- verdicts ----------------------------------------------------------------------------------------

def key(ctx: Context, text: str, field_name: str) -> str:
    value = ctx.analyzer.concept_key(validate.text(text, field_name, max_length=validate.MAX_SHORT_TEXT))
    if not value:
        raise validate.InvalidInput("names no concept", field=field_name)
    return value


def check(ctx: Context, verb: str, a: str, b: str | None) -> tuple[str, str | None]:
    """The normalized values of a verdict's arguments, or the reason it cannot be given."""
    validate.choice(verb, "verb", VERBS)
    first = key(ctx, a, "a")
    if verb == "remove":
        if b is not None:
            raise validate.InvalidInput("remove takes one concept", field="b")
        return first, None
    if b is None:
        raise validate.InvalidInput(f"{verb} takes two concepts", field="b")
    second = key(ctx, b, "b")
    with ctx.store.read() as conn:
        alias = concepts.aliases_of(conn, [first, second])
        if verb != "merge":
            first = alias.get(first, first)
        if verb != "rename":
            second = alias.get(second, second)
        gone = concepts.removed(conn, [first, second])
        # A new name must be free: a concept in use, or another concept's alias, is merged into.
        taken = verb == "rename" and (concepts.in_use(conn, second) or alias.get(second, first) != first)
    if alias.get(first, first) == second:
        raise Conflict(f"{a!r} and {b!r} are already one concept", field="b")
    if gone:
        raise Conflict(f"{min(gone)!r} was removed", field="b" if second in gone else "a")
    if taken:
        raise Conflict(f"{b!r} is already a concept: merge {a!r} into it instead", field="b")
    return first, second


def apply(ctx: Context, actor: Actor, verb: str, a: str, b: str | None = None, *,
          reason: str | None = None) -> Verdict:
    """A person's verdict: stored on the values, applied to the derived links at once, logged."""
    first, second = check(ctx, verb, a, b)
    reason = validate.optional_text(reason, "reason")
    now = ctx.now()
    with ctx.store.write() as tx:
        if verb in ("merge", "rename"):
            assert second is not None
            before = concepts.aliases_for(tx, [first]).get(first, [])
            concepts.add_alias(tx, first, second, verdict=verb, reason=reason, actor=actor.name, at=now)
            concepts.relabel(tx, first, second)
            aliases = concepts.aliases_for(tx, [second]).get(second, [])
            after: dict[str, Any] = {"canonical": second, "aliases": aliases}
            target_before: dict[str, Any] | None = {"aliases": before}
        elif verb == "remove":
            concepts.add_removal(tx, first, reason=reason, actor=actor.name, at=now)
            concepts.unlink(tx, first)
            aliases, after, target_before = [], {"removed": True}, None
        else:
            assert second is not None
            low, high = sorted((first, second))
            concepts.add_dismissal(tx, low, high, reason=reason, actor=actor.name, at=now)
            concepts.unpair(tx, low, high)
            first, second = low, high
            aliases, after, target_before = [], {"dismissed": [low, high]}, None
        ctx.event(tx, actor=actor.name, action=f"concept:{verb}", target=f"concept:{first}", project="",
                  before=target_before, after=after, reason=reason)
    return Verdict(verb=verb, concept=first, other=second, aliases=aliases)


# --- reads -------------------------------------------------------------------------------------------

def listing(ctx: Context, project: str, limit: int = 50) -> list[ConceptView]:
    """The project's concepts, most memories first, with their aliases and strongest neighbours
    (counted over its NEIGHBOUR_WINDOW newest memories)."""
    project = validate.project(project)
    limit = validate.integer(limit, "limit", low=1, high=10_000)
    # Counting every link grows with the store (≈ 0.3 s at 100,000 memories): once per head.
    return list(ctx.per_head(("concepts", project, limit), lambda: _listing(ctx, project, limit)))


def _listing(ctx: Context, project: str, limit: int) -> list[ConceptView]:
    with ctx.store.read() as conn:
        rows = concepts.top(conn, project, limit)
        names = [name for name, _, _ in rows]
        aliases = concepts.aliases_for(conn, names)
        pairs = concepts.pair_counts(conn, project, names, NEIGHBOUR_WINDOW)
    near: dict[str, Counter[str]] = {}
    for low, high, count in pairs:
        near.setdefault(low, Counter())[high] += count
        near.setdefault(high, Counter())[low] += count
    return [ConceptView(name=name, kind=kind, count=count, aliases=aliases.get(name, []),
                        neighbours=[Neighbour(n, c) for n, c in
                                    sorted(near.get(name, Counter()).items(), key=lambda nc: (-nc[1], nc[0]))[:NEIGHBOURS]])
            for name, kind, count in rows]


def related(ctx: Context, memory_id: int, k: int = 10) -> list[RelatedMemory]:
    """Memories of the same project (and the global scope) that share concepts with `memory_id`,
    most shared first."""
    memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
    k = validate.integer(k, "k", low=1, high=200)
    with ctx.store.read() as conn:
        row = memories.current(conn, memory_id)
        if row is None or row.state == "deleted":
            raise NotFound(f"no memory #{memory_id}", field="memory_id")
        own = concepts.of_row(conn, row.id)
        scope = Scope(projects=tuple(dict.fromkeys((row.project, ""))))
        hits = [(rid, c) for rid, c in concepts.linked(conn, own, scope, 5_000) if rid != row.id]
        shared: dict[int, list[str]] = {}
        for rid, concept in hits:
            shared.setdefault(rid, []).append(concept)
        best = sorted(shared, key=lambda rid: (-len(shared[rid]), -rid))[:k]
        rows = memories.by_row_ids(conn, best)
    return [RelatedMemory(rows[rid], sorted(shared[rid])) for rid in best if rows[rid].memory_id != memory_id]


def query_keys(ctx: Context, query: str) -> list[str]:
    """The concept values a query's words and short runs of words could be: their lemmas (one
    spaCy pass), and each word as an identifier or package name would be normalized."""
    words = ctx.analyzer.lemmas(query).split()
    bare = [w.strip(".,;:!?\"'()") for w in query.split()]
    keys = {k for w in bare if w for k in (w.lower(), fold(w))}
    for size in range(1, CHUNK_TOKENS + 1):
        keys.update(" ".join(words[i:i + size]) for i in range(len(words) - size + 1))
    return sorted(keys)


def expansions(ctx: Context, conn: Any, query: str) -> dict[str, str]:
    """query term → canonical concept, for the terms a verdict made an alias or a canonical."""
    return concepts.reviewed_in(conn, query_keys(ctx, query))

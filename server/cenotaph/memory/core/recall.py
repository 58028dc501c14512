"""Recall: the graveyard first, then one of two lanes. A syntax-shaped query (a path, a flag,
SCREAMING_CASE, `call(`, a dotted name, code operators) goes to the exact lane (full-text
order, byte-exact matches first, no reranking) when a memory holds it byte for byte; anything
else to the semantic lane, which
fuses sqlite-vec KNN and FTS5 BM25: relevance = w·BM25/best BM25 + (1−w)·cosine. Cosine is kept
as it is (it is already on a fixed scale; min-max would stretch a poor list to 1), BM25 is scaled
by the query's best match. Then the query is read for time: a date or period it names boosts
memories that held then; a "when" question boosts memories that say when. Last, a memory that asks
a question ranks a little lower and passes part of its score to the memory written next in the
same sitting, its likely answer.

Memories shared in the repository (`.cenotaph/memories/`, memory/team/folder.py) join each lane as
candidates of their own, read from the files rather than from the store: the files are their
source of truth, the store's `source` column admits no `repo`, and two clones on different
branches that use one store must each see their own branch's folder. They are few (a team's
reviewed decisions), so they are embedded in this process, once per content, and scored by the
same rules; their full-text stand-in is the share of the query's words they contain.

A relevance floor then drops what the query gave no evidence for: a memory whose cosine and whose
share of the query's words are both below `Rules.floor` is not an answer, only the best of
nothing (ranking alone fills k with whatever is nearest). A response holding fewer than k
memories says that nothing else matched (`RecallResponse.nothing_else_matched`)."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import TIME_FORMAT, Context, parse_time
from cenotaph.memory.core import chunk_ranking, concepts
from cenotaph.memory.core.query_words import (WORD, QueryWord, fts_quote, identifiers, index_tokens, query_words,
                                              search_words, stem, word_share)
from cenotaph.memory.core.recorder import Recorder
from cenotaph.memory.core.remember import SITTING_MINUTES
from cenotaph.memory.graveyard.approaches import Graveyard, spelling_pattern
from cenotaph.memory.models import Actor, Location, RecallResponse, RecallResult, ScoreComponents, tagged_location
from cenotaph.memory.team.folder import is_shared_id, source_of
from cenotaph.nlp import dates
from cenotaph.nlp.analysis import function_words, query_stop_words
from cenotaph.store import concepts as store_concepts
from cenotaph.store import documents as store_documents
from cenotaph.store import feeds as store_feeds
from cenotaph.store import memories, recall_log, transitions, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.records import MemoryRow

BM25_WEIGHT = 0.3
CANDIDATES = 60  # from each of the two lanes, before fusion
DATE_BOOST = 0.8  # × (1 + 0.8) for a memory inside a period the query names, fading to × 1 a week away
DATE_SLACK_DAYS = 7
PERIOD_CANDIDATES = 20  # full-text matches drawn from inside each period the query names
# FTS5 scores every row a query term matches before it can rank them: ≈ 2 µs a row, so a word in a
# quarter of a 100,000-memory store costs 50 ms. Words are taken rarest first while the rows they
# match stay within this budget; a word found in more rows than that says little (its IDF is
# near zero) and is left to the vector lane.
FTS_ROW_BUDGET = 10_000
# BM25 with the scope's own term statistics searches each term alone and reads every row it
# matches (≈ 2.5× the cost of one ranked OR query, per row): only while the query's words stay
# within this many rows; beyond, FTS5's store-wide statistics rank.
SCOPE_IDF_ROW_BUDGET = 4_000
# A scope holding most of the index weighs terms as the index does: FTS5's one ranked query answers
# at less than half the cost.
SCOPE_IDF_SHARE = 0.8
WHEN_BOOST = 0.3  # a "when" question: memories that say when something happened
ANSWER_SHARE = 0.2  # the share of a question's score passed to the memory written after it
QUESTION_FACTOR = 0.85  # a memory that asks ranks a little below one that only tells
STATE_FACTOR = {"active": 1.0, "deprioritised": 0.2}
TRUST_FACTOR = {"confirmed": 1.0, "unverified": 0.9, "disputed": 0.7, "refuted": 0.1}
PINNED_SCORE = 0.6
# A query term a person made an alias (`cenotaph concepts merge pg postgresql`) draws the memories
# of its concept, each gaining this much relevance × the share of the query's concepts it has.
CONCEPT_WEIGHT = 0.3
CONCEPT_CANDIDATES = 20  # a concept's newest memories drawn into the candidates (each lane draws 60)
# The evidence a memory needs in the semantic lane: a cosine, or a share of the query's words,
# at least this high (bench/locomo.py --cv --study floor; on LoCoMo 0.3 costs no any_hit@5,
# docs/benchmarks.md). MiniLM puts unrelated sentences at cosine −0.1 to 0.25.
FLOOR = 0.3
# A query word that no stored text holds in any inflection ("kubernetes" asked of docs that never
# name it): the documents do not speak of it, so a document chunk is an answer only when it means
# the same in other words, a cosine at least this high (bench/docs_qa.py --cv; docs/knowledge.md).
UNKNOWN_WORD_COSINE = 0.7
RECENCY_HALF_LIFE_DAYS = 90
RECALL_LOG_DAYS = 30


# Scores are compared to this many decimals, then by row id (the older first): the stores' floating
# point (FTS5 in C, PostgreSQL's functions, sqlite-vec and pgvector) may differ in the last bits,
# and a tie must not fall to whichever order a store returned its rows in.
_SCORE_DIGITS = 9


def _ranking(scored: tuple[float, Any, Any]) -> tuple[float, int]:
    return -round(scored[0], _SCORE_DIGITS), scored[1].row.id


def document_locations(conn: Any, memory_ids: Iterable[int]) -> dict[int, Location]:
    """Where each of `memory_ids` that is a document chunk (memory/knowledge/documents.py) lies."""
    return {memory_id: Location(row.path, row.start_line, row.end_line, row.heading)
            for memory_id, row in store_documents.locations(conn, list(memory_ids)).items()}


@dataclass(frozen=True, slots=True)
class Rules:
    """The semantic lane's ranking parameters. The product ranks with the defaults above;
    bench/locomo.py varies them to measure what each rule earns on conversations it was not
    chosen on."""

    bm25_weight: float = BM25_WEIGHT
    date_boost: float = DATE_BOOST
    when_boost: float = WHEN_BOOST
    answer_share: float = ANSWER_SHARE
    question_factor: float = QUESTION_FACTOR
    scope_idf: bool = True  # BM25 weighs terms by their rarity in the recall's scope, not the store
    anchored_dates: bool = True  # "the week before 9 June 2023" is that week, not the day
    memory_dates: bool = True  # the dates a memory names, relative ones read from its valid time
    floor: float = FLOOR  # the least evidence (cosine or word share) a memory is returned on
    unknown_word_cosine: float = UNKNOWN_WORD_COSINE  # a document chunk's, when a query word is in no text
    changelog_factor: float = chunk_ranking.CHANGELOG_FACTOR  # a document chunk's relevance in a changelog
    heading_weight: float = chunk_ranking.HEADING_WEIGHT  # × the share of the query's words in its headings
    document_share: float = chunk_ranking.DOCUMENT_SHARE  # of the query's words a chunk needs below cosine 0.7
    # how far the best document cosine must lie above the 10th best for a chunk below cosine 0.7 to answer
    document_standout: float = chunk_ranking.DOCUMENT_STANDOUT
    identifier_evidence: bool = True  # a chunk holding every identifier the query types holds its words
    flag_words: bool = True  # a stop word typed as a flag (`--only`) is a query word
    exact_or_semantic: bool = True  # a syntax-shaped query with no byte-exact match goes to the semantic lane

_SYNTAX = re.compile(
    r"""(?:[\w.-]*/[\w./-]+)                                  # a path
      | (?:\b[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|mjs|go|rs|toml|json|md|txt|ya?ml|lock|cfg|ini|sh|lua|c|h|cpp)\b)
      | (?:(?<![\w-])--[a-zA-Z][\w-]*)                        # --flag
      | (?:\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)                     # SCREAMING_CASE
      | (?:\b[A-Za-z_]\w*\()                                  # call(
      | (?:\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}\b)            # dotted.module.name
      | (?:\b[a-z_]+[a-z0-9]*\.[a-z_][a-z0-9_]*\()              # obj.method(
      | &&|\|\||==|!=|<=|>=|->|=>|::|[<>{};]
    """,
    re.VERBOSE,
)
_ASKS = re.compile(r"\?(?:[\s\"')\]]|$)")


def _asks(row: MemoryRow) -> bool:
    """Whether a memory is a question someone asked. A document chunk is not a turn of a
    conversation: its question marks are an FAQ's headings and examples, answered in place."""
    return row.kind != "document" and _ASKS.search(row.content) is not None


def is_syntax_shaped(query: str) -> bool:
    return _SYNTAX.search(query) is not None


@functools.lru_cache(maxsize=4096)
def _dated_periods(content: str, day: date) -> tuple[dates.Period, ...]:
    """The periods a memory names, relative ones read from `day`, its valid time: the same
    candidates come back across the recalls of a session, and reading them is regex work."""
    return tuple(p for p in dates.periods(content, day) if not p.every_year)


def experience_weight(outcome: str | None, effort: int | None) -> float:
    """Effort amplifies successes (×1.8 at effort 5), never failures: abandoned ×0.1 whatever it cost."""
    if outcome is None:
        return 1.0
    level = effort or 1
    return {"success": 1.0 + 0.2 * (level - 1), "partial": 1.0 + 0.1 * (level - 1), "failed": 0.3}.get(outcome, 0.1)


def _minmax(values: dict[int, float]) -> dict[int, float]:
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    if high - low < 1e-9:
        return {k: 1.0 for k in values}
    return {k: (v - low) / (high - low) for k, v in values.items()}


@dataclass(slots=True)
class _Candidate:
    row: MemoryRow
    bm25: float | None = None
    cosine: float | None = None
    exact: bool = False
    passed_on: float = 0.0  # relevance received from the question this memory answers
    word_share: float | None = None  # shared memories: the share of the query's words they contain
    shared_path: str | None = None
    concepts: list[str] = field(default_factory=list)  # the query's reviewed concepts it is linked to
    concept_share: float = 0.0


class _Scale:
    """The semantic lane's scales: BM25 over the query's best match; cosine as it is, a text-only
    candidate counting as no closer than the farthest vector neighbour."""

    def __init__(self, candidates: list[_Candidate], semantic: bool) -> None:
        self.semantic = semantic
        scores = {c.row.id: c.bm25 for c in candidates if c.bm25 is not None}
        self._exact = _minmax(scores) if not semantic else {}
        self._best = max(scores.values(), default=0.0)
        self._floor = min((c.cosine for c in candidates if c.cosine is not None), default=0.0)

    def bm25(self, c: _Candidate) -> float:
        if c.word_share is not None:
            return c.word_share
        if not self.semantic:
            return self._exact.get(c.row.id, 0.0)
        return c.bm25 / self._best if c.bm25 is not None and self._best > 0 else 0.0

    def cosine(self, c: _Candidate) -> float:
        if c.cosine is not None:
            return c.cosine
        return self._floor if c.bm25 is not None else 0.0


@dataclass(slots=True)
class _Reading:
    """What the query says beyond its words, read once per recall; `active` is False for the exact
    lane and the bench's single lanes, which rank by their own score alone."""

    now: datetime
    lowered: str
    active: bool
    rules: Rules
    periods: list[dates.Period]
    asks_when: bool
    words: list[QueryWord]
    unknown: list[str] = field(default_factory=list)  # the query's words no stored text holds
    # Rows of the whole index holding each token: counted once a recall, for both the unknown words
    # and the full-text terms (on PostgreSQL a count is an index scan).
    term_rows: dict[str, int] = field(default_factory=dict)
    rarity: list[float] = field(default_factory=list)  # each query word's IDF over the whole index
    analyzer: Any = None  # a document chunk's headings are read with their lemmas
    # How far the best document chunk's cosine lies above the crowd's (chunk_ranking.standout).
    standout: float = math.inf
    identifiers: tuple[str, ...] = ()  # what the query types as code (`--only`, `__attrs_pre_init__`)

    @classmethod
    def of(cls, query: str, now: datetime, active: bool, rules: Rules, analyzer: Any) -> _Reading:
        return cls(now=now, lowered=query.lower(), active=active, rules=rules,
                   periods=dates.periods(query, now.date(), anchored=rules.anchored_dates) if active else [],
                   asks_when=active and dates.asks_when(query), words=query_words(query, analyzer, rules.flag_words),
                   analyzer=analyzer, identifiers=identifiers(query) if rules.identifier_evidence else ())

    def evidence(self, c: _Candidate, components: ScoreComponents) -> bool:
        """Whether the query gave `c` evidence enough to be an answer: a cosine or a share of the
        query's words at the floor, or a concept it names, the question it answers, or the time it
        asks about."""
        if self.unknown and c.row.kind == "document" and (c.cosine or 0.0) < self.rules.unknown_word_cosine:
            return False
        if c.row.kind == "document" and (c.cosine or 0.0) < UNKNOWN_WORD_COSINE \
                and not chunk_ranking.holds_enough(self.words, self.identifiers, c.row, self.analyzer,
                                                   self.rules.document_share):
            return False
        if c.row.kind == "document" and self.standout < self.rules.document_standout \
                and (c.cosine or 0.0) < UNKNOWN_WORD_COSINE:
            return False
        if c.exact or c.concept_share > 0 or c.passed_on > 0 or components.temporal_boost > 1:
            return True
        share = c.word_share if c.word_share is not None else word_share(self.words, chunk_ranking.text_tokens(c.row.content))
        return max(c.cosine or 0.0, share) >= self.rules.floor

    def rows_holding(self, conn: Any, tokens: Iterable[str]) -> dict[str, int]:
        wanted = set(tokens)
        if missing := sorted(wanted - self.term_rows.keys()):
            self.term_rows.update(memories.term_documents(conn, missing))
        return {t: self.term_rows[t] for t in wanted}

    def windows(self) -> list[tuple[str, str]]:
        """valid_from ranges (store format) the named periods reach, slack included; a month
        named without a year reaches no single range and is left to the boost."""
        slack = timedelta(days=DATE_SLACK_DAYS)
        return [(f"{p.start - slack}", f"{p.end + slack}") for p in self.periods if not p.every_year]

    def temporal_boost(self, row: MemoryRow) -> float:
        boost = 1.0
        if self.periods:
            # When the memory held: from its valid_from, and through its valid_to if it has one.
            start = date.fromisoformat(row.valid_from[:10])
            end = date.fromisoformat(row.valid_to[:10]) if row.valid_to else start
            distance = min(0 if row.valid_to and p.start < end and start < p.end
                           else min(p.distance(start), p.distance(end)) for p in self.periods)
            if self.rules.memory_dates and distance > 0:
                # "We went camping last week", said on 27 June: the memory is also about the week
                # before 27 June.
                distance = min([distance, *(p.gap(q) for p in self.periods if not p.every_year
                                            for q in _dated_periods(row.content, start))])
            boost *= 1 + self.rules.date_boost * max(0.0, 1 - distance / DATE_SLACK_DAYS)
        if self.asks_when and dates.mentions_time(row.content):
            boost *= 1 + self.rules.when_boost
        return boost


class Recaller:
    def __init__(self, ctx: Context, graveyard: Graveyard, rules: Rules = Rules(),
                 annotate: Callable[[list[RecallResult]], list[RecallResult]] = list) -> None:
        self.ctx = ctx
        self.graveyard = graveyard
        self.rules = rules
        # The results re-read in the recall's own transaction (their anchors' checks), re-ranked.
        self.annotate = annotate
        self._shared_vectors: dict[str, np.ndarray] = {}  # content hash → vector, shared memories
        self._shared_index: tuple[int, list[tuple[MemoryRow, str, frozenset[str]]]] = (-1, [])
        self._last_query: tuple[str, np.ndarray] | None = None  # the store's lane and the shared one share it
        self.recorder = Recorder(ctx.store)  # the recall log's rows, written after the answer

    def _embed_query(self, query: str) -> np.ndarray:
        last = self._last_query
        if last is not None and last[0] == query:
            return last[1]
        vector = self.ctx.embed(query)
        self._last_query = (query, vector)
        return vector

    def recall(self, actor: Actor, query: str, *, project: str, k: int = 10, as_of: str | None = None,
               valid_at: str | None = None, include_refuted: bool = False, kinds: list[str] | None = None,
               lane: str | None = None, log: bool = True) -> RecallResponse:
        query = validate.text(query, "query", max_length=validate.MAX_QUERY)
        project = validate.project(project)
        k = validate.integer(k, "k", low=1, high=200)
        as_of = parse_time(as_of, "as_of") if as_of is not None else None
        valid_at = parse_time(valid_at, "valid_at") if valid_at is not None else None
        if lane is not None:
            validate.choice(lane, "lane", ("exact", "semantic", "bm25", "vector"))
        projects = (project,) if project == "" else (project, "")
        scope = Scope(projects=projects, include_refuted=include_refuted, as_of=as_of, valid_at=valid_at,
                      kinds=tuple(kinds or ()))
        notices: list[str] = []

        # One read for the whole recall: one snapshot for counts and rows read apart, and on
        # PostgreSQL one pooled connection and transaction instead of one per step.
        with self.ctx.store.read():
            warnings = self._graveyard_warnings(query, project)
            chosen = lane or ("exact" if is_syntax_shaped(query) else "semantic")
            if chosen == "exact":
                candidates = self._exact(query, scope, k)
                if not candidates or self.rules.exact_or_semantic and not any(c.exact for c in candidates):
                    notices.append("no exact match; answered from the semantic lane")
                    chosen = "semantic"
            # The bench's single lanes ("bm25", "vector") rank by their own score alone.
            reading = _Reading.of(query, self.ctx.clock(), chosen != "exact" and lane in (None, "semantic"), self.rules,
                                  self.ctx.analyzer)
            if reading.active:
                reading.unknown = self._unknown_words(reading)
                reading.rarity = self._rarity(reading)
            if chosen != "exact":
                candidates = self._semantic(query, scope, k, projects, notices, reading,
                                            use_bm25=chosen != "vector", use_vector=chosen != "bm25")
                if lane in (None, "semantic"):
                    candidates = self._expand(query, scope, k, candidates, notices)
            if lane is None:  # the bench's single lanes measure the store alone
                candidates += self._shared(query, chosen, notices, reading)
            results, below = self._score(candidates, scope, project, chosen if chosen == "exact" else "semantic", k,
                                         reading)
            self._locate(results)
            results = self.annotate(results)
        # What held once and holds no longer comes after what holds, shown as history.
        results = [r for r in results if not r.history] + [r for r in results if r.history]
        # The floor applies to the ranked lane as shipped; fewer than k is then all there is.
        nothing_else = reading.active and len(results) < k
        response = RecallResponse(query=query, project=project, lane="exact" if chosen == "exact" else "semantic",
                                  results=[*warnings, *results], notices=notices, nothing_else_matched=nothing_else,
                                  below_floor=below, unknown_words=reading.unknown)
        if log:
            self._log(actor, query, project, response)
        return response

    def _locate(self, results: list[RecallResult]) -> None:
        """Document results say where they lie, and memories remembered from a selection where
        they came from, so that a reader can open the file there; feed entries their link and
        title, so that a reader can cite them."""
        for r in results:
            r.location = r.location or tagged_location(r.tags)
        chunk_ids = [r.id for r in results if r.kind == "document"]
        knowledge_ids = [r.id for r in results if r.kind == "knowledge"]
        if not chunk_ids and not knowledge_ids:
            return
        with self.ctx.store.read() as conn:
            where = document_locations(conn, chunk_ids) if chunk_ids else {}
            entries = store_feeds.entries_of(conn, knowledge_ids) if knowledge_ids else {}
        for r in results:
            r.location = where.get(r.id, r.location)
            if r.id in entries:
                r.link, r.title = entries[r.id].link, entries[r.id].title

    # --- the graveyard fast path -----------------------------------------------------------------

    def _graveyard_warnings(self, query: str, project: str) -> list[RecallResult]:
        vocabulary = self.graveyard.vocabulary()
        if not vocabulary:
            return []
        self.ctx.analyzer.set_vocabulary(vocabulary)
        warnings = []
        for verdict in self.graveyard.check(self.ctx.analyzer.names_in(query), project, include_other_projects=False):
            a = verdict.approach
            if verdict.status != "abandoned" or a is None:
                continue
            effort = f" (effort {a.effort}/5)" if a.effort else ""
            shared = source_of(a) == "repo"
            content = f"{a.display_name} was abandoned{effort}: {a.reason}"
            if shared:
                content = f"{a.display_name} was abandoned{effort} (shared in the repository by {a.actor}): {a.reason}"
            told = {a.reason.strip()}
            for other in verdict.also:
                where = f"shared in the repository by {other.actor}" if source_of(other) == "repo" else \
                    "everywhere" if other.project == "" else "by you"
                # A record with the reason already told (the person's own, shared): where, not why again.
                content += f"; also abandoned {where}" + ("" if other.reason.strip() in told else f": {other.reason}")
                told.add(other.reason.strip())
            warnings.append(RecallResult(
                result_type="abandoned_warning", id=a.id, content=content,
                project=a.project, kind="approach", tags=[], state="abandoned", trust="confirmed", score=1.0,
                lane="graveyard", components=None, is_global=a.project == "", name=a.name, reason=a.reason,
                effort=a.effort, ecosystem=a.ecosystem, recorded_at=a.updated_at,
                source="repo" if shared else None, actor=a.actor if shared else None,
                shared_path=getattr(a, "path", None) if shared else None,
            ))
        return warnings

    # --- memories shared in the repository -------------------------------------------------------

    def _shared_entries(self) -> list[tuple[MemoryRow, str, frozenset[str]]]:
        """Each shared memory's row, file and index tokens, made again only when a folder changed."""
        generation = self.graveyard.shared.generation
        if self._shared_index[0] != generation:
            entries = [(row, path, frozenset(index_tokens(row.content)))
                       for state in self.graveyard.shared.states() for row, path in state.memory_rows()]
            live = {row.content_hash for row, _, _ in entries}
            self._shared_vectors = {h: v for h, v in self._shared_vectors.items() if h in live}
            self._shared_index = (generation, entries)
        return self._shared_index[1]

    def _shared(self, query: str, lane: str, notices: list[str], reading: _Reading) -> list[_Candidate]:
        """The repositories' shared memories as candidates: in the exact lane those holding the
        query byte for byte; in the semantic lane each with its cosine and word share."""
        entries = self._shared_entries()
        if not entries:
            return []
        if lane == "exact":
            needle = query.strip()
            return [_Candidate(row, exact=True, shared_path=path) for row, path, _ in entries if needle in row.content]
        missing = [row for row, _, _ in entries if row.content_hash not in self._shared_vectors]
        if missing:
            try:
                embedded = self.ctx.embedder.embed([row.content for row in missing])
            except Exception as exc:  # noqa: BLE001 - the store's lanes still answer
                notices.append(f"memories shared in the repository were left out: {exc}")
                return []
            self._shared_vectors.update((row.content_hash, v) for row, v in zip(missing, embedded, strict=True))
        vector = self._embed_query(query)
        return [_Candidate(row, cosine=float(np.dot(self._shared_vectors[row.content_hash], vector)),
                           word_share=word_share(reading.words, tokens), shared_path=path)
                for row, path, tokens in entries]

    # --- lanes -----------------------------------------------------------------------------------

    def _exact(self, query: str, scope: Scope, k: int) -> list[_Candidate]:
        needle = query.strip()
        tokens = WORD.findall(needle)
        found: dict[int, _Candidate] = {}
        with self.ctx.store.read() as conn:
            if tokens:
                phrase = " ".join(fts_quote(t) for t in tokens)
                hits = memories.fts_search(conn, f"content : ({phrase})", scope, max(200, k * 10))
                rows = memories.by_row_ids(conn, [rid for rid, _ in hits])
                for rid, score in hits:
                    found[rid] = _Candidate(rows[rid], bm25=score, exact=needle in rows[rid].content)
            if not any(c.exact for c in found.values()):
                ids = memories.substring_search(conn, needle, scope, k)
                for rid, row in memories.by_row_ids(conn, ids).items():
                    found.setdefault(rid, _Candidate(row, exact=True))
        # Byte-exact matches first, then full-text order; no semantic reranking in this lane.
        ordered = sorted(found.values(), key=lambda c: (not c.exact, -(c.bm25 or 0.0)))
        return ordered

    def _semantic(self, query: str, scope: Scope, k: int, projects: tuple[str, ...], notices: list[str],
                  reading: _Reading, *, use_bm25: bool, use_vector: bool) -> list[_Candidate]:
        pool = max(CANDIDATES, k * 6)
        found: dict[int, _Candidate] = {}
        if use_bm25:
            terms = self._fts_terms(query, notices, reading)
            if terms:
                with self.ctx.store.read() as conn:
                    scoped = reading.rules.scope_idf and sum(terms.values()) <= SCOPE_IDF_ROW_BUDGET
                    if scoped:
                        # Both count rows one by one (≈ 0.1 s at 100,000 memories): once per log head.
                        where, params = scope.where()
                        total, in_scope = self.ctx.per_head(
                            ("scope rows", where, tuple(params)),
                            lambda: (memories.indexed_rows(conn), memories.count_in_scope(conn, scope)))
                        scoped = in_scope < SCOPE_IDF_SHARE * total
                    if scoped:
                        hits = self._scoped_bm25(conn, terms, scope, pool, reading.windows(), total, in_scope)
                    else:
                        expression = " OR ".join(fts_quote(t) for t in terms)
                        documents = list(terms.values())
                        hits = memories.fts_search(conn, expression, scope, pool, documents=documents)
                        # A period the query names also draws its own matches, which the
                        # whole-store top list may have missed.
                        for since, until in reading.windows():
                            hits += memories.fts_search(conn, expression, scope, PERIOD_CANDIDATES,
                                                        valid_from_between=(since, until), documents=documents)
                    rows = memories.by_row_ids(conn, [rid for rid, _ in hits])
                for rid, score in hits:
                    found[rid] = _Candidate(rows[rid], bm25=score)
        if use_vector:
            if not self.ctx.vectors_current():
                with self.ctx.store.read() as conn:
                    built = vectors.dimension(conn) is not None
                if built:
                    notices.append("the store's vectors were built by another model: run `cenotaph reindex`")
            else:
                vector = self._embed_query(query)
                with self.ctx.store.read() as conn:
                    hits = [h for p in projects for h in vectors.knn(conn, p, vector, pool)]
                    missing = [rid for rid, _ in hits if rid not in found]
                    rows = memories.by_row_ids(conn, missing)
                for rid, similarity in hits:
                    if rid in found:
                        found[rid].cosine = similarity
                    elif rid in rows:
                        found[rid] = _Candidate(rows[rid], cosine=similarity)
                # A document chunk found by its words alone gets its own cosine, not the farthest
                # neighbour's: its score is then the same whichever lane found it, whatever k is.
                with self.ctx.store.read() as conn:
                    for c in found.values():
                        if c.cosine is None and c.row.kind == "document":
                            stored = vectors.get(conn, c.row.id)
                            c.cosine = float(np.dot(stored, vector)) if stored is not None else None
        return list(found.values())

    def _scoped_bm25(self, conn: Any, terms: dict[str, int], scope: Scope, pool: int,
                     windows: list[tuple[str, str]], total: int, in_scope: int) -> list[tuple[int, float]]:
        """BM25 with the scope's own term statistics. FTS5 weighs a term by its rarity in the
        whole index, where other projects' vocabularies distort it (a word rare in the store may
        be in every memory of this project). Each term is searched alone, its score (the store's
        IDF × the term's frequency part) rescaled by the scope's IDF over the store's, and summed.
        A period the query names also draws its own best matches, which the top list may miss."""
        scores: dict[int, float] = {}
        valid_from: dict[int, str] = {}
        for term, everywhere in terms.items():
            match = fts_quote(term)
            if len(index_tokens(term)) > 1:  # a phrase: the rows holding it, not its tokens' sum
                everywhere = memories.matching_rows(conn, match)
            store_idf = memories.idf(total, everywhere)
            hits = memories.fts_term_hits(conn, match, scope, store_idf)
            if not hits:
                continue
            ratio = memories.idf(in_scope, len(hits)) / store_idf
            for rid, score, since in hits:
                scores[rid] = scores.get(rid, 0.0) + ratio * score
                valid_from[rid] = since
        ranked = sorted(scores, key=lambda rid: (-round(scores[rid], _SCORE_DIGITS), rid))
        chosen = ranked[:pool]
        for since, until in windows:
            chosen += [rid for rid in ranked if since <= valid_from[rid] < until][:PERIOD_CANDIDATES]
        return [(rid, scores[rid]) for rid in dict.fromkeys(chosen)]

    def _expand(self, query: str, scope: Scope, k: int, candidates: list[_Candidate],
                notices: list[str]) -> list[_Candidate]:
        """The memories of each reviewed concept the query names (memory/core/concepts.py) join the
        candidates; those already there gain the concept too."""
        with self.ctx.store.read() as conn:
            expanded = concepts.expansions(self.ctx, conn, query)
            if not expanded:
                return candidates
            canonicals = sorted(set(expanded.values()))
            links = store_concepts.linked(conn, canonicals, scope, max(CONCEPT_CANDIDATES, k * 2))
            by_row = {c.row.id: c for c in candidates}
            missing = memories.by_row_ids(conn, {rid for rid, _ in links if rid not in by_row})
            with_vectors = self.ctx.vectors_current()
            for rid, row in missing.items():
                stored = vectors.get(conn, rid) if with_vectors else None
                cosine = float(np.dot(stored, self._embed_query(query))) if stored is not None else None
                by_row[rid] = _Candidate(row, cosine=cosine)
        for rid, concept in links:
            by_row[rid].concepts.append(concept)
        for c in by_row.values():
            c.concept_share = len(c.concepts) / len(canonicals)
        terms = ", ".join(f"{term} → {canonical}" for term, canonical in sorted(expanded.items()) if term != canonical)
        notices.append(f"concepts: {terms or ', '.join(canonicals)}")
        return list(by_row.values())

    def _fts_terms(self, query: str, notices: list[str], reading: _Reading) -> dict[str, int]:
        """The query's search terms, each with the rows of the whole index that hold its tokens."""
        stop_words = query_stop_words()
        words = search_words(query, reading.rules.flag_words)  # a flag's stop word (`--only`) is kept
        # Lemmas of the kept words only: a stop word's lemma ("does" → "doe") is no search term.
        lemmas = [t for t in self.ctx.analyzer.lemmas(" ".join(words)).split() if t not in stop_words]
        terms = list(dict.fromkeys(t for t in [*words, *lemmas] if t.strip("_")))
        if not terms:
            return {}
        # FTS5 reads a term as the tokens its tokenizer makes of it ("staging_database" is the
        # phrase "staging database"): a term costs the rows of all its tokens.
        tokens = {term: index_tokens(term) for term in terms}
        with self.ctx.store.read() as conn:
            per_token = reading.rows_holding(conn, {t for parts in tokens.values() for t in parts})
        documents = {term: sum(per_token[t] for t in parts) for term, parts in tokens.items()}
        kept, common, rows = {}, [], 0
        for term in sorted(terms, key=lambda t: documents[t]):
            if rows + documents[term] > FTS_ROW_BUDGET:
                common.append(term)
                continue
            kept[term] = documents[term]
            rows += documents[term]
        if common:
            notices.append(f"words in too many memories to rank by full text: {', '.join(sorted(common))}")
        return kept

    def _unknown_words(self, reading: _Reading) -> list[str]:
        """The query's words that no memory, document chunk or heading in the store holds, nor a
        shared memory, as typed, as lemma or inflected (its stem beginning no indexed word). A
        function word ("how often") names no subject: its absence says nothing."""
        words = [w for w in reading.words if not w.tokens & function_words()]
        tokens = {t for w in words for t in w.tokens}
        if not tokens:
            return []
        with self.ctx.store.read() as conn:
            held = reading.rows_holding(conn, tokens)
            missing = [w for w in words if not any(held[t] for t in w.tokens)]
            stems = {w.typed: stem(w.typed) for w in missing}
            begun = memories.indexed_prefixes(conn, sorted({s for s in stems.values() if s})) if missing else set()
        shared = frozenset().union(*(t for _, _, t in self._shared_entries())) if missing else frozenset()
        return list(dict.fromkeys(w.typed for w in missing if stems[w.typed] not in begun and not w.tokens & shared))

    def _rarity(self, reading: _Reading) -> list[float]:
        """Each query word's IDF over the whole index (its commonest form's rows)."""
        with self.ctx.store.read() as conn:
            rows = self.ctx.per_head(("indexed rows",), lambda: memories.indexed_rows(conn))
            held = reading.rows_holding(conn, {t for w in reading.words for t in w.tokens})
        return [memories.idf(rows, min(rows, max((held[t] for t in w.tokens), default=0))) for w in reading.words]

    # --- scoring ---------------------------------------------------------------------------------

    def _score(self, candidates: list[_Candidate], scope: Scope, project: str, lane: str, k: int,
               reading: _Reading) -> tuple[list[RecallResult], int]:
        """The top k, and how many candidates the floor left out that would have been among them."""
        candidates = self._visible(candidates, scope, project)
        semantic = lane != "exact"
        scale = _Scale(candidates, semantic)
        scored = [self._components(c, scale, lane, reading) for c in candidates]
        if semantic:
            scored.sort(key=_ranking)
            if reading.active:
                scored = self._pass_to_answers(scored, scale, scope, project, reading)
        below = 0
        if reading.active:
            reading.standout = chunk_ranking.standout([c.cosine for c in candidates
                                                       if c.row.kind == "document" and c.cosine is not None])
            kept = [s for s in scored if s[2].pinned or reading.evidence(s[1], s[2])]
            below = min(len(scored), k) - min(len(kept), k)
            scored = kept
        moment = scope.valid_at or self.ctx.now()  # what held before it is history
        return [
            RecallResult(
                result_type="memory", id=c.row.memory_id, content=c.row.content, project=c.row.project,
                kind=c.row.kind, tags=c.row.tags, state=c.row.state, trust=c.row.trust, score=round(score, 6),
                lane="exact" if lane == "exact" else "semantic", components=components,
                is_global=c.row.project == "" and project != "", disputed=c.row.trust == "disputed",
                reinstate_hint_matched=components.pinned, valid_from=c.row.valid_from, valid_to=c.row.valid_to,
                history=c.row.valid_to is not None and c.row.valid_to <= moment, recorded_at=c.row.recorded_at,
                source=c.row.source, actor=c.row.actor, shared_path=c.shared_path,
            )
            for score, c, components in scored[:k]
        ], below

    def _components(self, c: _Candidate, scale: _Scale, lane: str,
                    reading: _Reading) -> tuple[float, _Candidate, ScoreComponents]:
        row = c.row
        if lane == "exact":
            relevance = 1.0 if c.exact else 0.5 * scale.bm25(c) + 0.4
        else:
            weight = reading.rules.bm25_weight
            relevance = weight * scale.bm25(c) + (1 - weight) * scale.cosine(c)
            if reading.active and _asks(row):
                relevance *= reading.rules.question_factor
            if reading.active and row.kind == "document":
                rules = reading.rules
                relevance = chunk_ranking.relevance(relevance, row, reading.words, reading.rarity, reading.analyzer,
                                                    changelog_factor=rules.changelog_factor,
                                                    heading_weight=rules.heading_weight)
        concept = CONCEPT_WEIGHT * c.concept_share
        relevance += concept
        age_days = max(0.0, (reading.now - datetime.fromisoformat(row.recorded_at)).total_seconds() / 86400)
        components = ScoreComponents(
            relevance=round(relevance + c.passed_on, 6), bm25=c.bm25, cosine=c.cosine,
            state_factor=STATE_FACTOR.get(row.state, 0.0), trust_factor=TRUST_FACTOR[row.trust],
            recency=round(0.85 + 0.15 * math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS), 6),
            experience_weight=experience_weight(row.outcome, row.effort),
            temporal_boost=round(reading.temporal_boost(row), 6), passed_on=round(c.passed_on, 6),
            concept=round(concept, 6), concepts=sorted(c.concepts),
        )
        score = (components.relevance * components.state_factor * components.trust_factor * components.recency
                 * components.experience_weight * components.temporal_boost)
        if row.state == "deprioritised" and any(h.strip() and h.lower() in reading.lowered
                                                for h in row.reinstate_hints):
            score = max(score, PINNED_SCORE)
            components.pinned = True
        return score, c, components

    def _pass_to_answers(self, scored: list[tuple[float, _Candidate, ScoreComponents]], scale: _Scale,
                         scope: Scope, project: str, reading: _Reading) -> list[tuple[float, _Candidate, ScoreComponents]]:
        """A strong memory that asks a question lends part of its score to the memory written next
        in the same project and sitting: in a conversation, that is usually its answer."""
        share = reading.rules.answer_share
        questions = {c.row.id: share * score for score, c, _ in scored if score > 0 and _asks(c.row)}
        if not questions or share == 0:
            return scored
        with self.ctx.store.read() as conn:
            following = memories.successors(conn, list(questions), scope, minutes=SITTING_MINUTES)
        if not following:
            return scored
        by_row = {c.row.id: c for _, c, _ in scored}
        fresh = []
        for source, row in following.items():
            candidate = by_row.get(row.id)
            if candidate is None:
                candidate = by_row[row.id] = _Candidate(row)
                fresh.append(candidate)
            candidate.passed_on = max(candidate.passed_on, questions[source])
        hidden = {c.row.id for c in fresh} - {c.row.id for c in self._visible(fresh, scope, project)}
        rescored = [self._components(c, scale, "semantic", reading) for c in by_row.values() if c.row.id not in hidden]
        rescored.sort(key=_ranking)
        return rescored

    def _visible(self, candidates: list[_Candidate], scope: Scope, project: str) -> list[_Candidate]:
        """Filters checked again after SQL (KNN cannot push them all down), plus recall suppressions."""
        if scope.as_of is not None:
            self._replay_transitions(candidates, scope.as_of)
        allowed = [
            c for c in candidates
            if c.row.project in scope.projects
            and (c.row.superseded_at is None if scope.as_of is None else
                 c.row.recorded_at <= scope.as_of and (c.row.superseded_at is None or c.row.superseded_at > scope.as_of))
            and c.row.state in scope.states
            and (scope.include_refuted or c.row.trust != "refuted")
            and (not scope.kinds or c.row.kind in scope.kinds)
            and (scope.valid_at is None or (c.row.valid_from <= scope.valid_at
                                            and (c.row.valid_to is None or c.row.valid_to > scope.valid_at)))
        ]
        suppressed_values = self.graveyard.recall_suppressed_values(project)
        if suppressed_values and allowed:
            with self.ctx.store.read() as conn:
                hidden = memories.rows_with_entities(conn, [c.row.id for c in allowed if not is_shared_id(c.row.id)],
                                                     sorted(suppressed_values))
            # A shared memory has no extracted entities in the store: its text is matched instead.
            patterns = [spelling_pattern(v) for v in suppressed_values]
            hidden |= {c.row.id for c in allowed if is_shared_id(c.row.id)
                       and any(p.search(c.row.content) for p in patterns)}
            allowed = [c for c in allowed if c.row.id not in hidden]
        return allowed

    def _replay_transitions(self, candidates: list[_Candidate], as_of: str) -> None:
        """Give each candidate the state and trust it had at `as_of`."""
        ids = sorted({c.row.memory_id for c in candidates})
        if not ids:
            return
        with self.ctx.store.read() as conn:
            rows = transitions.for_memories(conn, ids)
        history: dict[tuple[int, str], list[tuple[str | None, str, str]]] = {}
        for memory_id, field_name, from_value, to_value, at in rows:
            history.setdefault((memory_id, field_name), []).append((from_value, to_value, at))
        for c in candidates:
            for field_name in ("state", "trust"):
                changes = history.get((c.row.memory_id, field_name))
                if not changes:
                    continue
                before = [to for _, to, at in changes if at <= as_of]
                setattr(c.row, field_name, before[-1] if before else changes[0][0])

    def _log(self, actor: Actor, query: str, project: str, response: RecallResponse) -> None:
        """Queue the recall's log row and the recalled counters: written after the answer, so that
        a recall never waits for another process's write lock."""
        now = self.ctx.now()
        cutoff = (self.ctx.clock() - timedelta(days=RECALL_LOG_DAYS)).strftime(TIME_FORMAT)
        summary = [{"type": r.result_type, "id": r.id, "score": r.score, "name": r.name} for r in response.results]
        row_ids = [r.id for r in response.results if r.result_type == "memory" and not is_shared_id(r.id)]
        results = json.dumps(summary, ensure_ascii=False)
        # A query is kept 30 days: a secret typed into it is kept redacted, not refused (nothing
        # else of a recall is stored); a plain-words query does not load the detectors.
        logged = secrets.redact(query) if secrets.may_hold_secret(query) else query

        def write(conn: Any) -> None:
            recall_log.append(conn, at=now, actor=actor.name, project=project, query=logged, results=results)
            recall_log.prune(conn, cutoff)
            memories.bump_recalled(conn, row_ids, now)

        self.recorder.record(write)

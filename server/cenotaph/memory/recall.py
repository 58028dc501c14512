"""Recall: the graveyard first, then one of two lanes. A syntax-shaped query (a path, a flag,
SCREAMING_CASE, `call(`, a dotted name, code operators) goes to the exact lane (full-text
order, byte-exact matches first, no reranking); anything else to the semantic lane, which
fuses sqlite-vec KNN and FTS5 BM25 by weighted, min-max normalised scores."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from cenotaph.memory import validate
from cenotaph.memory.context import TIME_FORMAT, Context, parse_time
from cenotaph.memory.graveyard import Graveyard
from cenotaph.memory.models import Actor, RecallResponse, RecallResult, ScoreComponents
from cenotaph.nlp import names
from cenotaph.store import memories, recall_log, transitions, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.records import MemoryRow

BM25_WEIGHT = 0.4
STATE_FACTOR = {"active": 1.0, "deprioritised": 0.2}
TRUST_FACTOR = {"confirmed": 1.0, "unverified": 0.9, "disputed": 0.7, "refuted": 0.1}
PINNED_SCORE = 0.6
RECENCY_HALF_LIFE_DAYS = 90
RECALL_LOG_DAYS = 30

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
_WORD = re.compile(r"\w+", re.UNICODE)


def is_syntax_shaped(query: str) -> bool:
    return _SYNTAX.search(query) is not None


def _fts_quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


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


class Recaller:
    def __init__(self, ctx: Context, graveyard: Graveyard) -> None:
        self.ctx = ctx
        self.graveyard = graveyard

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

        warnings = self._graveyard_warnings(query, project)
        chosen = lane or ("exact" if is_syntax_shaped(query) else "semantic")
        if chosen == "exact":
            candidates = self._exact(query, scope, k)
            if not candidates:
                notices.append("no exact match; answered from the semantic lane")
                chosen = "semantic"
        if chosen != "exact":
            candidates = self._semantic(query, scope, k, projects, notices,
                                        use_bm25=chosen != "vector", use_vector=chosen != "bm25")
        results = self._score(query, candidates, scope, project, chosen if chosen in ("exact",) else "semantic", k)
        response = RecallResponse(query=query, project=project, lane="exact" if chosen == "exact" else "semantic",
                                  results=[*warnings, *results], notices=notices)
        if log:
            self._log(actor, query, project, response)
        return response

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
            warnings.append(RecallResult(
                result_type="abandoned_warning", id=a.id, content=f"{a.display_name} was abandoned{effort}: {a.reason}",
                project=a.project, kind="approach", tags=[], state="abandoned", trust="confirmed", score=1.0,
                lane="graveyard", components=None, is_global=a.project == "", name=a.name, reason=a.reason,
                effort=a.effort, ecosystem=a.ecosystem, recorded_at=a.updated_at,
            ))
        return warnings

    # --- lanes -----------------------------------------------------------------------------------

    def _exact(self, query: str, scope: Scope, k: int) -> list[_Candidate]:
        needle = query.strip()
        tokens = _WORD.findall(needle)
        conn = self.ctx.store.conn
        found: dict[int, _Candidate] = {}
        with self.ctx.store.read():
            if tokens:
                phrase = " ".join(_fts_quote(t) for t in tokens)
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

    def _semantic(self, query: str, scope: Scope, k: int, projects: tuple[str, ...], notices: list[str], *,
                  use_bm25: bool, use_vector: bool) -> list[_Candidate]:
        pool = max(60, k * 6)
        found: dict[int, _Candidate] = {}
        conn = self.ctx.store.conn
        if use_bm25:
            expression = self._fts_expression(query)
            if expression:
                with self.ctx.store.read():
                    hits = memories.fts_search(conn, expression, scope, pool)
                    rows = memories.by_row_ids(conn, [rid for rid, _ in hits])
                for rid, score in hits:
                    found[rid] = _Candidate(rows[rid], bm25=score)
        if use_vector:
            if not self.ctx.vectors_current():
                if vectors.dimension(conn) is not None:
                    notices.append("the store's vectors were built by another model: run `cenotaph reindex`")
            else:
                vector = self.ctx.embed(query)
                with self.ctx.store.read():
                    hits = [h for p in projects for h in vectors.knn(conn, p, vector, pool)]
                    missing = [rid for rid, _ in hits if rid not in found]
                    rows = memories.by_row_ids(conn, missing)
                for rid, similarity in hits:
                    if rid in found:
                        found[rid].cosine = similarity
                    elif rid in rows:
                        found[rid] = _Candidate(rows[rid], cosine=similarity)
        return list(found.values())

    def _fts_expression(self, query: str) -> str | None:
        from spacy.lang.en.stop_words import STOP_WORDS

        words = [w.lower() for w in _WORD.findall(query)]
        lemmas = self.ctx.analyzer.lemmas(query).split()
        terms = list(dict.fromkeys(t for t in [*words, *lemmas] if t not in STOP_WORDS and t.strip("_")))
        if not terms:
            return None
        return " OR ".join(_fts_quote(t) for t in terms)

    # --- scoring ---------------------------------------------------------------------------------

    def _score(self, query: str, candidates: list[_Candidate], scope: Scope, project: str, lane: str,
               k: int) -> list[RecallResult]:
        candidates = self._visible(candidates, scope, project)
        bm25 = _minmax({c.row.id: c.bm25 for c in candidates if c.bm25 is not None})
        cosine = _minmax({c.row.id: c.cosine for c in candidates if c.cosine is not None})
        now = self.ctx.clock()
        lowered = query.lower()
        results = []
        for rank, c in enumerate(candidates):
            row = c.row
            if lane == "exact":
                relevance = 1.0 if c.exact else 0.5 * bm25.get(row.id, 0.0) + 0.4
            else:
                relevance = BM25_WEIGHT * bm25.get(row.id, 0.0) + (1 - BM25_WEIGHT) * cosine.get(row.id, 0.0)
            recorded = datetime.fromisoformat(row.recorded_at)
            age_days = max(0.0, (now - recorded).total_seconds() / 86400)
            components = ScoreComponents(
                relevance=round(relevance, 6), bm25=c.bm25, cosine=c.cosine,
                state_factor=STATE_FACTOR.get(row.state, 0.0), trust_factor=TRUST_FACTOR[row.trust],
                recency=round(0.85 + 0.15 * math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS), 6),
                experience_weight=experience_weight(row.outcome, row.effort), temporal_boost=1.0,
            )
            score = (components.relevance * components.state_factor * components.trust_factor * components.recency
                     * components.experience_weight * components.temporal_boost)
            hint_matched = row.state == "deprioritised" and any(
                h.strip() and h.lower() in lowered for h in row.reinstate_hints)
            if hint_matched:
                score = max(score, PINNED_SCORE)
                components.pinned = True
            results.append((rank, score, c, components, hint_matched))
        if lane != "exact":
            results.sort(key=lambda r: -r[1])
        return [
            RecallResult(
                result_type="memory", id=c.row.memory_id, content=c.row.content, project=c.row.project,
                kind=c.row.kind, tags=c.row.tags, state=c.row.state, trust=c.row.trust, score=round(score, 6),
                lane="exact" if lane == "exact" else "semantic", components=components,
                is_global=c.row.project == "" and project != "", disputed=c.row.trust == "disputed",
                reinstate_hint_matched=hint_matched, valid_from=c.row.valid_from, recorded_at=c.row.recorded_at,
            )
            for _, score, c, components, hint_matched in results[:k]
        ]

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
                hidden = memories.rows_with_entities(conn, [c.row.id for c in allowed], sorted(suppressed_values))
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
        now = self.ctx.now()
        cutoff = (self.ctx.clock() - timedelta(days=RECALL_LOG_DAYS)).strftime(TIME_FORMAT)
        summary = [{"type": r.result_type, "id": r.id, "score": r.score, "name": r.name} for r in response.results]
        row_ids = [r.id for r in response.results if r.result_type == "memory"]
        with self.ctx.store.write() as conn:
            recall_log.append(conn, at=now, actor=actor.name, project=project, query=query,
                              results=json.dumps(summary, ensure_ascii=False))
            recall_log.prune(conn, cutoff)
            memories.bump_recalled(conn, row_ids, now)


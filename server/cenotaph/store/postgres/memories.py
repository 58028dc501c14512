"""Memory rows' statements that differ on PostgreSQL: the full-text lane (a generated `tsvector`
column with a GIN index, ranked BM25-like) and the substring lane (pg_trgm)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cenotaph.store.memories import Scope, idf, indexed_rows
from cenotaph.store.postgres import fulltext

# ts_rank's weights for D, C, B, A: context 0.25, lemmas 0.6, content 1 (bm25's column weights on SQLite).
_WEIGHTS = "'{0, 0.25, 0.6, 1.0}'"
_RANK = f"ts_rank({_WEIGHTS}, m.fts, ?::tsquery, 1)"  # 1: divided by 1 + the log of the row's length


def term_documents(conn: Any, terms: Sequence[str]) -> dict[str, int]:
    """How many rows (any project, any column) hold each term, one index scan for all."""
    queries = {term: " <-> ".join(f"'{w}'" for w in fulltext.words(term)) for term in terms}
    counted = [(term, q) for term, q in queries.items() if q]  # a term of no words is in no row
    found: dict[str, int] = {}
    if counted:
        filters = ", ".join("count(*) FILTER (WHERE fts @@ ?::tsquery)" for _ in counted)
        row = conn.execute(f"SELECT {filters} FROM memories WHERE fts @@ ?::tsquery",
                           [*(q for _, q in counted), " | ".join(f"( {q} )" for _, q in counted)]).fetchone()
        found = {term: n for (term, _), n in zip(counted, row, strict=True)}
    return {term: found.get(term, 0) for term in terms}


def fts_search(conn: Any, match: str, scope: Scope, limit: int,
               valid_from_between: tuple[str, str] | None = None,
               documents: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(row id, score, larger is better). Terms OR-ed together are each weighed by FTS5's IDF over
    the whole index, as SQLite's bm25() weighs them, times their ts_rank. The caller's `documents`
    give each term's rows (counted here when missing); a phrase's own rows are counted here, as
    its tokens' rows overstate them."""
    query = fulltext.read(match)
    if query is None:
        return []
    where, params = scope.where()
    if valid_from_between is not None:
        where += " AND m.valid_from >= ? AND m.valid_from < ?"
        params = [*params, *valid_from_between]
    if len(query.branches) == 1:
        rows = conn.execute(
            f"SELECT m.id, {_RANK} AS score FROM memories m WHERE m.fts @@ ?::tsquery AND {where} "
            "ORDER BY score DESC, m.id LIMIT ?",
            [query.whole, query.whole, *params, limit],
        )
        return [(r[0], float(r[1])) for r in rows]
    branches = query.branches
    given = documents if documents is not None and len(documents) == len(branches) else [None] * len(branches)
    counts = [n if n is not None and "<->" not in branch else _rows_matching(conn, branch)
              for branch, n in zip(branches, given, strict=True)]
    total = max(_indexed_rows(conn), *counts)
    # Weighed once per query, not per row: the per-row work is each term's match and rank.
    score = " + ".join(f"CASE WHEN m.fts @@ ?::tsquery THEN {_RANK} * ? ELSE 0 END" for _ in branches)
    score_params = [p for branch, n in zip(branches, counts, strict=True)
                    for p in (branch, branch, idf(total, n))]
    rows = conn.execute(
        f"SELECT m.id, {score} AS score FROM memories m WHERE m.fts @@ ?::tsquery AND {where} "
        "ORDER BY score DESC, m.id LIMIT ?",
        [*score_params, query.whole, *params, limit],
    )
    return [(r[0], float(r[1])) for r in rows]


def _rows_matching(conn: Any, tsquery: str) -> int:
    return conn.execute("SELECT count(*) FROM memories WHERE fts @@ ?::tsquery", (tsquery,)).fetchone()[0]


def _indexed_rows(conn: Any) -> int:
    """The N of the IDF: the planner's row count, which autovacuum keeps, read for free; counted
    while the table was never analysed."""
    estimate = conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass").fetchone()[0]
    return int(estimate) if estimate >= 0 else indexed_rows(conn)


def fts_term_hits(conn: Any, match: str, scope: Scope, store_idf: float) -> list[tuple[int, float, str]]:
    """(row id, score, valid_from) of every row in scope matching one term: the term's rank times
    its IDF over the whole store (`store_idf`, which recall has counted already), as FTS5's bm25()
    has it on SQLite (the caller rescales by the scope's own IDF)."""
    query = fulltext.read(match)
    if query is None:
        return []
    where, params = scope.where()
    rows = conn.execute(
        f"SELECT m.id, {_RANK}, m.valid_from FROM memories m WHERE m.fts @@ ?::tsquery AND {where}",
        [query.whole, query.whole, *params],
    )
    return [(r[0], store_idf * float(r[1]), r[2]) for r in rows]


def matching_rows(conn: Any, match: str) -> int:
    query = fulltext.read(match)
    if query is None:
        return 0
    return _rows_matching(conn, query.whole)


def _like_pattern(needle: str) -> str:
    return "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def substring_search(conn: Any, needle: str, scope: Scope, limit: int) -> list[int]:
    """Row ids whose content contains `needle` byte for byte: LIKE, which the trigram index
    answers for needles of three characters or more."""
    where, params = scope.where()
    rows = conn.execute(
        f"SELECT m.id FROM memories m WHERE m.content LIKE ? AND {where} ORDER BY m.recorded_at DESC LIMIT ?",
        [_like_pattern(needle), *params, limit],
    )
    return [r[0] for r in rows]


def fts_rowids(conn: Any) -> set[int]:
    """Every row is in the full-text index: its vector is a generated column."""
    return {r[0] for r in conn.execute("SELECT id FROM memories")}


def rows_matching(conn: Any, match: str, projects: Sequence[str]) -> list[tuple[int, str]]:
    query = fulltext.read(match)
    if query is None:
        return []
    rows = conn.execute(
        f"SELECT m.id, m.content FROM memories m WHERE m.fts @@ ?::tsquery AND m.superseded_at IS NULL "
        f"AND m.project IN ({','.join('?' * len(projects))})",
        [query.whole, *projects],
    )
    return [(r[0], r[1]) for r in rows]


def purge_deleted_terms(conn: Any) -> None:
    """Nothing to merge: the GIN index drops a row's words with the row version (VACUUM)."""

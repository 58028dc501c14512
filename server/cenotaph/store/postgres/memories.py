"""Memory rows' statements that differ on PostgreSQL: the full-text lane (a generated `tsvector`
column with a GIN index, ranked by FTS5's own BM25, so that both stores rank alike) and the
substring lane (pg_trgm)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cenotaph.store.memories import Scope, idf
from cenotaph.store.postgres import fulltext

_FREQUENCY = "cenotaph_phrase_frequency(m.fts, ?::text[], ?)"
_BM25 = f"cenotaph_bm25({_FREQUENCY}, m.fts_tokens, ?, ?)"


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
    """(row id, BM25 score, larger is better), as FTS5's bm25() scores it on SQLite: each phrase's
    IDF over the whole index times its saturated, length-normalised weighted frequency in the row
    (migration 4's functions and totals), summed. The caller's `documents` give each single-word
    phrase's rows (counted here when missing, and for phrases of more words, whose own rows its
    words' rows overstate). Ties go to the older row, as on SQLite."""
    query = fulltext.read(match)
    if query is None:
        return []
    where, params = scope.where()
    if valid_from_between is not None:
        where += " AND m.valid_from >= ? AND m.valid_from < ?"
        params = [*params, *valid_from_between]
    phrases = query.phrases
    given = documents if documents is not None and len(documents) == len(phrases) else [None] * len(phrases)
    counts = [n if n is not None and len(p.words) == 1 and p.labels == fulltext.ALL_COLUMNS
              else _rows_matching(conn, p.tsquery) for p, n in zip(phrases, given, strict=True)]
    total, average = _totals(conn)
    # Weighed once per query, not per row: the per-row work is each phrase's count in the row.
    score = " + ".join(_BM25 for _ in phrases)
    score_params = [v for p, n in zip(phrases, counts, strict=True)
                    for v in (list(p.words), p.labels, idf(total, n), average)]
    rows = conn.execute(
        f"SELECT m.id, {score} AS score FROM memories m WHERE m.fts @@ ?::tsquery AND {where} "
        "ORDER BY score DESC, m.id LIMIT ?",
        [*score_params, query.whole, *params, limit],
    )
    return [(r[0], float(r[1])) for r in rows]


def _rows_matching(conn: Any, tsquery: str) -> int:
    return conn.execute("SELECT count(*) FROM memories WHERE fts @@ ?::tsquery", (tsquery,)).fetchone()[0]


def _totals(conn: Any) -> tuple[int, float]:
    """The index's rows and their average length in tokens (FTS5's N and avgdl)."""
    rows, tokens = conn.execute("SELECT rows, tokens FROM fts_totals").fetchone()
    return rows, (tokens / rows if rows else 0.0)


def fts_term_hits(conn: Any, match: str, scope: Scope, store_idf: float) -> list[tuple[int, float, str]]:
    """(row id, BM25 score, valid_from) of every row in scope matching one phrase: its BM25 with
    its IDF over the whole store (`store_idf`, which recall has counted already), as FTS5's bm25()
    has it on SQLite (the caller rescales by the scope's own IDF)."""
    query = fulltext.read(match)
    if query is None:
        return []
    (phrase,) = query.phrases
    where, params = scope.where()
    _, average = _totals(conn)
    rows = conn.execute(
        f"SELECT m.id, {_BM25}, m.valid_from FROM memories m WHERE m.fts @@ ?::tsquery AND {where}",
        [list(phrase.words), phrase.labels, store_idf, average, query.whole, *params],
    )
    return [(r[0], float(r[1]), r[2]) for r in rows]


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

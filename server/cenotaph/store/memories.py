"""SQL for memory rows, their full-text index and their extracted entities."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cenotaph.store.dialect import per_dialect
from cenotaph.store.records import MemoryRow

COLUMNS = (
    "id, memory_id, version, project, kind, content, content_hash, tags, source, actor, state, state_reason, "
    "reinstate_hints, trust, trust_reason, polarity, valid_from, valid_to, recorded_at, superseded_at, effort, "
    "outcome, iterations, breakthrough, gotchas, recall_count, last_recalled_at, lemmas, context"
)
_NAMES = tuple(c.strip() for c in COLUMNS.split(","))
_M_COLUMNS = ", ".join(f"m.{name}" for name in _NAMES)
_JSON_LIST_FIELDS = {"tags", "reinstate_hints", "gotchas"}
_JSON_POSITIONS = tuple(i for i, name in enumerate(_NAMES) if name in _JSON_LIST_FIELDS)
# bm25()'s weight of a match in each full-text column, in the index's column order: content,
# lemmas, context. PostgreSQL weighs its labels A, B, C alike (store/postgres/memories.py).
BM25_WEIGHTS = (1.0, 0.6, 0.25)
_BM25 = f"-bm25(memory_fts, {', '.join(map(str, BM25_WEIGHTS))})"


def _row(values: Sequence[Any]) -> MemoryRow:
    fields = list(values)
    for i in _JSON_POSITIONS:
        fields[i] = json.loads(fields[i]) if fields[i] != "[]" else []
    return MemoryRow(*fields)


@dataclass(slots=True)
class Scope:
    """Which rows a read may see. `as_of` reads what the store held then (record time);
    `valid_at` reads what held in the world then (valid time)."""

    projects: tuple[str, ...]
    states: tuple[str, ...] = ("active", "deprioritised")
    include_refuted: bool = False
    as_of: str | None = None
    valid_at: str | None = None
    kinds: tuple[str, ...] = ()
    extra_params: list[Any] = field(default_factory=list)

    def where(self, alias: str = "m") -> tuple[str, list[Any]]:
        clauses = [f"{alias}.project IN ({','.join('?' * len(self.projects))})"]
        params: list[Any] = list(self.projects)
        if self.as_of is None:
            clauses.append(f"{alias}.superseded_at IS NULL")
            clauses.append(f"{alias}.state IN ({','.join('?' * len(self.states))})")
            params.extend(self.states)
            if not self.include_refuted:
                clauses.append(f"{alias}.trust <> 'refuted'")
        else:
            # State and trust as they were then are replayed from transitions by the caller.
            clauses.append(f"{alias}.recorded_at <= ? AND ({alias}.superseded_at IS NULL OR {alias}.superseded_at > ?)")
            params.extend([self.as_of, self.as_of])
        if self.valid_at is not None:
            clauses.append(f"{alias}.valid_from <= ? AND ({alias}.valid_to IS NULL OR {alias}.valid_to > ?)")
            params.extend([self.valid_at, self.valid_at])
        if self.kinds:
            clauses.append(f"{alias}.kind IN ({','.join('?' * len(self.kinds))})")
            params.extend(self.kinds)
        return " AND ".join(clauses), params


def next_memory_id(conn: Any) -> int:
    return conn.execute("SELECT COALESCE(MAX(memory_id), 0) + 1 FROM memories").fetchone()[0]


def insert(conn: Any, row: MemoryRow) -> int:
    """Insert a version row; returns its row id."""
    cur = conn.execute(
        """INSERT INTO memories (memory_id, version, project, kind, content, content_hash, lemmas, context, tags,
               source, actor, state, state_reason, reinstate_hints, trust, trust_reason, polarity, valid_from,
               valid_to, recorded_at, superseded_at, effort, outcome, iterations, breakthrough, gotchas)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            row.memory_id, row.version, row.project, row.kind, row.content, row.content_hash, row.lemmas,
            row.context, json.dumps(row.tags), row.source, row.actor, row.state, row.state_reason,
            json.dumps(row.reinstate_hints), row.trust, row.trust_reason, row.polarity, row.valid_from,
            row.valid_to, row.recorded_at, row.superseded_at, row.effort, row.outcome, row.iterations,
            row.breakthrough, json.dumps(row.gotchas),
        ),
    )
    return cur.lastrowid


def current(conn: Any, memory_id: int) -> MemoryRow | None:
    """The live version of a memory (deleted ones included: their tombstone row stays)."""
    found = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE memory_id = ? AND superseded_at IS NULL", (memory_id,)
    ).fetchone()
    return _row(found) if found else None


def versions(conn: Any, memory_id: int) -> list[MemoryRow]:
    rows = conn.execute(f"SELECT {COLUMNS} FROM memories WHERE memory_id = ? ORDER BY version", (memory_id,))
    return [_row(r) for r in rows]


def by_row_ids(conn: Any, row_ids: Iterable[int]) -> dict[int, MemoryRow]:
    ids = list(row_ids)
    if not ids:
        return {}
    rows = conn.execute(f"SELECT {COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(ids))})", ids)
    return {r[0]: _row(r) for r in rows}


def list_rows(conn: Any, scope: Scope, *, limit: int, order: str = "m.recorded_at DESC") -> list[MemoryRow]:
    where, params = scope.where()
    rows = conn.execute(f"SELECT {_M_COLUMNS} FROM memories m WHERE {where} ORDER BY {order} LIMIT ?", [*params, limit])
    return [_row(r) for r in rows]


def newest(conn: Any, scope: Scope, *, limit: int) -> list[MemoryRow]:
    """The `limit` current rows `scope` sees, newest recorded first. One walk down the index
    (memories_newest, _kind) per project and kind, merged here: over an IN list of projects the
    planner sorts every row of them before keeping the first few."""
    assert scope.as_of is None, "the newest rows are current ones"
    rows = [row for project in scope.projects for kinds in ([(k,) for k in scope.kinds] or [()])
            for row in list_rows(conn, replace(scope, projects=(project,), kinds=kinds), limit=limit,
                                 order="m.recorded_at DESC, m.id DESC")]
    return sorted(rows, key=lambda r: (r.recorded_at, r.id), reverse=True)[:limit]


@per_dialect
def term_documents(conn: Any, terms: Sequence[str]) -> dict[str, int]:
    """How many rows of the full-text index (any project, any column) hold each term, as indexed
    (lower case). A per-connection fts5vocab table reads FTS5's own term index."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_fts_terms USING fts5vocab(main, memory_fts, 'row')")
    return {term: (conn.execute("SELECT doc FROM temp.memory_fts_terms WHERE term = ?", (term,)).fetchone() or (0,))[0]
            for term in terms}


@per_dialect
def indexed_prefixes(conn: Any, prefixes: Sequence[str]) -> set[str]:
    """Those of `prefixes` (lower case, as indexed) that begin a term of the full-text index (any
    project, any column)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_fts_terms USING fts5vocab(main, memory_fts, 'row')")
    return {prefix for prefix in prefixes
            if conn.execute("SELECT 1 FROM temp.memory_fts_terms WHERE term >= ? AND term < ? LIMIT 1",
                            (prefix, prefix + "\U0010ffff")).fetchone()}


def idf(rows: int, holding: int) -> float:
    """FTS5's inverse document frequency, floored as FTS5 floors it."""
    return max(math.log((rows - holding + 0.5) / (holding + 0.5)), 1e-6)


@per_dialect
def fts_search(conn: Any, match: str, scope: Scope, limit: int,
               valid_from_between: tuple[str, str] | None = None,
               documents: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(row id, BM25 score, larger is better) of rows matching an FTS5 expression; optionally only
    rows whose valid time starts in [since, until). `documents`: for an expression of terms OR-ed
    together, the rows of the whole index holding each term's tokens, as the caller counted them
    (term_documents). FTS5 weighs terms itself; PostgreSQL computes the same BM25 and uses them.
    Ties go to the older row on both stores."""
    where, params = scope.where()
    if valid_from_between is not None:
        where += " AND m.valid_from >= ? AND m.valid_from < ?"
        params = [*params, *valid_from_between]
    rows = conn.execute(
        f"""SELECT m.id, {_BM25} AS score
            FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid
            WHERE memory_fts MATCH ? AND {where}
            ORDER BY score DESC, m.id LIMIT ?""",
        [match, *params, limit],
    )
    return [(r[0], r[1]) for r in rows]


@per_dialect
def fts_term_hits(conn: Any, match: str, scope: Scope, store_idf: float) -> list[tuple[int, float, str]]:
    """(row id, BM25 score, valid_from) of every row in scope matching one term (a single-term
    FTS5 expression): its score is the term's IDF over the whole index times its frequency part,
    which the caller rescales by the scope's own IDF. FTS5 computes that IDF itself; `store_idf`,
    the caller's, serves the dialects whose rank has none."""
    where, params = scope.where()
    rows = conn.execute(
        f"""SELECT m.id, {_BM25}, m.valid_from
            FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid
            WHERE memory_fts MATCH ? AND {where}""",
        [match, *params],
    )
    return [(r[0], r[1], r[2]) for r in rows]


@per_dialect
def matching_rows(conn: Any, match: str) -> int:
    """How many rows of the whole full-text index match an FTS5 expression (the n of its IDF)."""
    return conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (match,)).fetchone()[0]


def indexed_rows(conn: Any) -> int:
    """Rows of the full-text index (the N of FTS5's IDF): the triggers keep one per memories row."""
    return conn.execute("SELECT count(*) FROM memories").fetchone()[0]


def count_in_scope(conn: Any, scope: Scope) -> int:
    where, params = scope.where()
    return conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()[0]


# The trigram index answers needles of three characters or more; shorter ones scan the rows.
TRIGRAM = 3


@per_dialect
def substring_search(conn: Any, needle: str, scope: Scope, limit: int) -> list[int]:
    """Row ids whose content contains `needle` byte for byte (the exact lane's last resort)."""
    where, params = scope.where()
    if len(needle) >= TRIGRAM:
        rows = conn.execute(
            f"""SELECT m.id FROM memory_substrings s JOIN memories m ON m.id = s.rowid
                WHERE memory_substrings MATCH ? AND instr(m.content, ?) > 0 AND {where}
                ORDER BY m.recorded_at DESC LIMIT ?""",
            ['"' + needle.replace('"', '""') + '"', needle, *params, limit],
        )
    else:
        rows = conn.execute(
            f"SELECT m.id FROM memories m WHERE instr(m.content, ?) > 0 AND {where} ORDER BY m.recorded_at DESC LIMIT ?",
            [needle, *params, limit],
        )
    return [r[0] for r in rows]


def set_fields(conn: Any, row_id: int, **fields: Any) -> None:
    for name in _JSON_LIST_FIELDS & fields.keys():
        fields[name] = json.dumps(fields[name])
    assignments = ", ".join(f"{name} = ?" for name in fields)
    conn.execute(f"UPDATE memories SET {assignments} WHERE id = ?", [*fields.values(), row_id])


def bump_recalled(conn: Any, memory_ids: Sequence[int], at: str) -> None:
    """One statement for a recall's results (a statement each cost PostgreSQL 1.9 against 1.5 ms
    for ten)."""
    ids = list(dict.fromkeys(memory_ids))
    if ids:
        conn.execute("UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = ? "
                     f"WHERE memory_id IN ({','.join('?' * len(ids))}) AND superseded_at IS NULL", [at, *ids])


def live_with_hash(conn: Any, project: str, kind: str, content_hash: str) -> int | None:
    found = conn.execute(
        "SELECT memory_id FROM memories WHERE project = ? AND kind = ? AND content_hash = ? "
        "AND superseded_at IS NULL AND state IN ('active','deprioritised') LIMIT 1",
        (project, kind, content_hash),
    ).fetchone()
    return found[0] if found else None


def insert_entities(conn: Any, row_id: int, values: Iterable[str]) -> None:
    """A newly written row's entities (every writer links a row it has just inserted: nothing to
    replace, and on PostgreSQL a statement and a round trip fewer)."""
    rows = [(row_id, v) for v in values]
    if rows:
        conn.executemany("INSERT OR IGNORE INTO memory_entities (memory_row, value) VALUES (?, ?)", rows)


def rows_with_entities(conn: Any, row_ids: Sequence[int], values: Sequence[str]) -> set[int]:
    if not row_ids or not values:
        return set()
    rows = conn.execute(
        f"SELECT DISTINCT memory_row FROM memory_entities WHERE memory_row IN ({','.join('?' * len(row_ids))}) "
        f"AND value IN ({','.join('?' * len(values))})",
        [*row_ids, *values],
    )
    return {r[0] for r in rows}


def count_current(conn: Any) -> int:
    return conn.execute("SELECT COUNT(*) FROM memories WHERE superseded_at IS NULL").fetchone()[0]


def all_current(conn: Any) -> list[MemoryRow]:
    rows = conn.execute(f"SELECT {COLUMNS} FROM memories WHERE superseded_at IS NULL AND state <> 'deleted' ORDER BY id")
    return [_row(r) for r in rows]


@per_dialect
def fts_rowids(conn: Any) -> set[int]:
    return {r[0] for r in conn.execute("SELECT rowid FROM memory_fts")}


def all_row_ids(conn: Any) -> set[int]:
    return {r[0] for r in conn.execute("SELECT id FROM memories")}


def add_entity(conn: Any, row_ids: Iterable[int], value: str) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO memory_entities (memory_row, value) VALUES (?, ?)", [(rid, value) for rid in row_ids]
    )


@per_dialect
def rows_matching(conn: Any, match: str, projects: Sequence[str]) -> list[tuple[int, str]]:
    """(row id, content) of current rows in `projects` matching an FTS5 expression."""
    rows = conn.execute(
        f"""SELECT m.id, m.content FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid
            WHERE memory_fts MATCH ? AND m.superseded_at IS NULL AND m.project IN ({','.join('?' * len(projects))})""",
        [match, *projects],
    )
    return [(r[0], r[1]) for r in rows]


def entities_of(conn: Any, row_id: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT value FROM memory_entities WHERE memory_row = ? ORDER BY value", (row_id,))]


def row_ids_of(conn: Any, memory_id: int) -> list[int]:
    return [r[0] for r in conn.execute("SELECT id FROM memories WHERE memory_id = ? ORDER BY version", (memory_id,))]


def erase_content(conn: Any, memory_id: int) -> None:
    """Remove what a forgotten memory said from every version (its hash stays, for the tombstone)."""
    _erase_from_context(conn, memory_id)
    conn.execute(
        "UPDATE memories SET content = '', lemmas = '', context = '', tags = '[]', breakthrough = NULL, "
        "gotchas = '[]' WHERE memory_id = ?",
        (memory_id,),
    )
    conn.execute("DELETE FROM memory_entities WHERE memory_row IN (SELECT id FROM memories WHERE memory_id = ?)",
                 (memory_id,))


def projects(conn: Any) -> list[str]:
    return [r[0] for r in conn.execute("SELECT DISTINCT project FROM memories ORDER BY project")]


def memory_ids(conn: Any) -> list[int]:
    return [r[0] for r in conn.execute("SELECT DISTINCT memory_id FROM memories ORDER BY memory_id")]


def find_lineage(conn: Any, content_hash: str, recorded_at: str) -> int | None:
    """The memory whose first version had this content hash and record time (restore matches on it)."""
    found = conn.execute(
        "SELECT memory_id FROM memories WHERE version = 1 AND content_hash = ? AND recorded_at = ? LIMIT 1",
        (content_hash, recorded_at),
    ).fetchone()
    return found[0] if found else None


def hashes_present(conn: Any, project: str, hashes: Sequence[str]) -> set[str]:
    """Which of `hashes` a current, not forgotten memory of `project` already has."""
    if not hashes:
        return set()
    rows = conn.execute(
        f"SELECT content_hash FROM memories WHERE content_hash IN ({','.join('?' * len(hashes))}) "
        "AND +project = ? AND superseded_at IS NULL AND state <> 'deleted'",  # by hash, not a scan of the project
        [*hashes, project],
    )
    return {r[0] for r in rows}


def forgotten_among(conn: Any, hashes: Sequence[str]) -> set[str]:
    """Which of `hashes` belong to a forgotten memory (a tombstone, or any version of a deleted one)."""
    if not hashes:
        return set()
    marks = ",".join("?" * len(hashes))
    # Both halves go through an index (content hash, then lineage): no scan of the whole store.
    rows = conn.execute(
        f"SELECT content_hash FROM tombstones WHERE content_hash IN ({marks}) UNION "
        f"SELECT m.content_hash FROM memories m WHERE m.content_hash IN ({marks}) AND EXISTS "
        "(SELECT 1 FROM memories d WHERE d.memory_id = m.memory_id AND d.state = 'deleted')",
        [*hashes, *hashes],
    )
    return {r[0] for r in rows}


def forgotten_hashes(conn: Any) -> set[str]:
    """Content hashes of every version of every forgotten memory, and of every tombstone."""
    rows = conn.execute(
        "SELECT content_hash FROM tombstones UNION SELECT content_hash FROM memories WHERE memory_id IN "
        "(SELECT memory_id FROM memories WHERE state = 'deleted')"
    )
    return {r[0] for r in rows}


def embeddable(conn: Any) -> list[tuple[int, str, str, bool]]:
    """(row id, project, content, is current) of every version of every memory not forgotten:
    old versions keep vectors so that as-of reads can still find them."""
    return conn.execute(
        "SELECT id, project, content, superseded_at IS NULL FROM memories WHERE memory_id NOT IN "
        "(SELECT memory_id FROM memories WHERE state = 'deleted') ORDER BY id"
    ).fetchall()


CONTEXT_CHARS = 1000


def context_fragment(content: str, lemmas: str) -> str:
    """What a memory contributes to the full-text context of the memories written after it."""
    return f"{content[:CONTEXT_CHARS]} {lemmas[:CONTEXT_CHARS]}"


def _erase_from_context(conn: Any, memory_id: int) -> None:
    """A forgotten memory's words leave the context of the memories written after it too."""
    for project, content, lemmas in conn.execute(
            "SELECT project, content, lemmas FROM memories WHERE memory_id = ?", (memory_id,)).fetchall():
        fragment = context_fragment(content, lemmas)
        conn.execute("UPDATE memories SET context = replace(context, ?, '') "
                     "WHERE project = ? AND memory_id <> ? AND instr(context, ?) > 0",
                     (fragment, project, memory_id, fragment))


def recent(conn: Any, project: str, *, since: str, limit: int, lookback: int = 200) -> list[tuple[str, str]]:
    """(content, lemmas) of the newest live memories of `project` recorded at or after `since`,
    newest first, among the last `lookback` rows written: a bounded scan whatever the store's size.
    The limit is written into the statement: PostgreSQL then plans it once for every call, where a
    parameter's unknown limit made its one plan look costlier and each call was planned (0.2 ms)."""
    rows = conn.execute(
        f"""SELECT content, lemmas FROM memories
           WHERE id > (SELECT COALESCE(MAX(id), 0) FROM memories) - ? AND +project = ? AND superseded_at IS NULL
             AND state IN ('active', 'deprioritised') AND recorded_at >= ?
           ORDER BY id DESC LIMIT {int(limit)}""",
        (lookback, project, since),
    )
    return [(r[0], r[1]) for r in rows]


def successors(conn: Any, row_ids: Sequence[int], scope: Scope, *, minutes: float,
               lookahead: int = 200) -> dict[int, MemoryRow]:
    """For each row id, the row (within `scope`) of the memory written next in the same project, if
    it was first written within `minutes` of that memory and among the next `lookahead` rows."""
    if not row_ids:
        return {}
    where, params = scope.where("s")
    rows = conn.execute(
        f"""WITH source AS (
                SELECT q.id AS source, q.project AS project, f.id AS first_row, f.recorded_at AS at
                FROM memories q JOIN memories f ON f.memory_id = q.memory_id AND f.version = 1
                WHERE q.id IN ({','.join('?' * len(row_ids))})
            ), following AS (
                SELECT source, at, (SELECT n.memory_id FROM memories n
                                    WHERE n.id > first_row AND n.id <= first_row + ? AND n.version = 1
                                      AND +n.project = source.project
                                    ORDER BY n.id LIMIT 1) AS memory_id
                FROM source
            )
            SELECT following.source, {", ".join(f"s.{name}" for name in _NAMES)}
            FROM following
            JOIN memories f ON f.memory_id = following.memory_id AND f.version = 1
            JOIN memories s ON s.memory_id = following.memory_id
            WHERE (julianday(f.recorded_at) - julianday(following.at)) * 1440 <= ? AND {where}""",
        [*row_ids, lookahead, minutes, *params],
    )
    return {r[0]: _row(r[1:]) for r in rows}


@per_dialect
def purge_deleted_terms(conn: Any) -> None:
    """Where the full-text indexes cannot delete for real (FTS5 `secure-delete` needs SQLite ≥
    3.42), merge them so that the words of deleted rows leave their segments."""
    for table in ("memory_fts", "memory_substrings"):
        found = conn.execute(f"SELECT v FROM {table}_config WHERE k = 'secure-delete'").fetchone()
        if not found or not found[0]:
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


def compactable(conn: Any, project: str, *, valid_until: str, kinds: Sequence[str]) -> list[MemoryRow]:
    """Current rows of `project` that compaction may summarise: visible in recall (active or
    deprioritised), believed (neither disputed nor refuted), of `kinds`, valid since
    `valid_until` or earlier, and not the story of a graveyard record (dead ends stay visible)."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE project = ? AND superseded_at IS NULL "
        "AND state IN ('active', 'deprioritised') AND trust IN ('unverified', 'confirmed') "
        f"AND kind IN ({','.join('?' * len(kinds))}) AND valid_from <= ? "
        "AND memory_id NOT IN (SELECT memory_id FROM approaches WHERE memory_id IS NOT NULL) ORDER BY memory_id",
        [project, *kinds, valid_until],
    )
    return [_row(r) for r in rows]

"""SQL for concepts: the derived links (memory → concept) and co-occurrence pairs, and a person's
verdicts (aliases, removals, dismissed pairs), keyed on normalized values. Plain SQL with `?`
placeholders and `ON CONFLICT DO NOTHING`, which SQLite and PostgreSQL both read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from cenotaph.store.dialect import batched, values_table
from cenotaph.store.memories import Scope
from cenotaph.store.records import ConceptVerdicts

# The memories a concept counts in: current, not forgotten or archived.
_CURRENT = "m.superseded_at IS NULL AND m.state IN ('active','deprioritised')"


# Rows of three values an INSERT takes at most (SQLite binds up to 32,766 values a statement).
_ROWS_A_STATEMENT = 1_000


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


# --- derived ---------------------------------------------------------------------------------------

def link(conn: Any, row_id: int, concepts: Iterable[tuple[str, str]], pairs: Iterable[tuple[str, str]]) -> None:
    """Link one memory row, newly written or its links dropped, to these (value, kind) and (low,
    high): every caller has such a row, so nothing is deleted first (two statements a write)."""
    with batched(conn):
        # A statement for all of a row's links and one for its pairs, not one each: 18 of them took
        # PostgreSQL 1.1 ms, 2 took 0.87.
        for table, columns, rows in (("memory_concepts", "memory_row, concept, kind", list(concepts)),
                                     ("concept_pairs", "memory_row, low, high", list(pairs))):
            for start in range(0, len(rows), _ROWS_A_STATEMENT):
                chunk = rows[start:start + _ROWS_A_STATEMENT]
                conn.execute(f"INSERT INTO {table} ({columns}) VALUES {','.join('(?, ?, ?)' for _ in chunk)} "
                             "ON CONFLICT DO NOTHING", [v for first, second in chunk for v in (row_id, first, second)])


def copy(conn: Any, from_row: int, to_row: int) -> None:
    """A new version of a memory that says the same keeps its concepts."""
    conn.execute("INSERT INTO memory_concepts (memory_row, concept, kind) SELECT ?, concept, kind FROM memory_concepts "
                 "WHERE memory_row = ? ON CONFLICT DO NOTHING", (to_row, from_row))
    conn.execute("INSERT INTO concept_pairs (memory_row, low, high) SELECT ?, low, high FROM concept_pairs "
                 "WHERE memory_row = ? ON CONFLICT DO NOTHING", (to_row, from_row))


def forget_memory(conn: Any, memory_id: int) -> None:
    """A forgotten memory's concepts go with its content (they are words of it)."""
    for table in ("memory_concepts", "concept_pairs"):
        conn.execute(f"DELETE FROM {table} WHERE memory_row IN (SELECT id FROM memories WHERE memory_id = ?)",
                     (memory_id,))


def drop_derived(conn: Any) -> None:
    conn.execute("DELETE FROM memory_concepts")
    conn.execute("DELETE FROM concept_pairs")


def relabel(conn: Any, old: str, new: str) -> None:
    """Every link and pair that says `old` says `new` instead (a pair of the two goes)."""
    conn.execute("INSERT INTO memory_concepts (memory_row, concept, kind) SELECT memory_row, ?, kind "
                 "FROM memory_concepts WHERE concept = ? ON CONFLICT DO NOTHING", (new, old))
    conn.execute("DELETE FROM memory_concepts WHERE concept = ?", (old,))
    conn.execute(
        "INSERT INTO concept_pairs (memory_row, low, high) "
        "SELECT memory_row, CASE WHEN other < ? THEN other ELSE ? END, CASE WHEN other < ? THEN ? ELSE other END "
        "FROM (SELECT memory_row, CASE WHEN low = ? THEN high ELSE low END AS other FROM concept_pairs "
        "      WHERE low = ? OR high = ?) moved WHERE other <> ? ON CONFLICT DO NOTHING",
        (new, new, new, new, old, old, old, new),
    )
    conn.execute("DELETE FROM concept_pairs WHERE low = ? OR high = ?", (old, old))


def unlink(conn: Any, value: str) -> None:
    conn.execute("DELETE FROM memory_concepts WHERE concept = ?", (value,))
    conn.execute("DELETE FROM concept_pairs WHERE low = ? OR high = ?", (value, value))


def unpair(conn: Any, low: str, high: str) -> None:
    conn.execute("DELETE FROM concept_pairs WHERE low = ? AND high = ?", (low, high))


def in_use(conn: Any, value: str) -> bool:
    return conn.execute("SELECT 1 FROM memory_concepts WHERE concept = ? LIMIT 1", (value,)).fetchone() is not None


def current_rows(conn: Any, kinds: Sequence[str], after: int, limit: int) -> list[tuple[int, str]]:
    """(row id, content) of current memories of `kinds`, in row order after `after`: what a rebuild reads."""
    return conn.execute(
        f"SELECT m.id, m.content FROM memories m WHERE {_CURRENT} AND m.kind IN ({_marks(kinds)}) AND m.id > ? "
        "ORDER BY m.id LIMIT ?", (*kinds, after, limit),
    ).fetchall()


def top(conn: Any, project: str, limit: int) -> list[tuple[str, str, int]]:
    """(concept, kind, memories) of `project`, most memories first, from the counts triggers
    keep as links and rows come and go (migration 12; PostgreSQL's 11)."""
    return conn.execute(
        "SELECT concept, MIN(kind), SUM(memories) AS n FROM concept_counts WHERE project = ? "
        "GROUP BY concept ORDER BY n DESC, concept LIMIT ?", (project, limit),
    ).fetchall()


def pair_counts(conn: Any, project: str, values: Sequence[str], window: int) -> list[tuple[str, str, int]]:
    """(low, high, memories) of the pairs that hold one of `values`, in the `window` newest current
    rows of `project` (a project's top concepts are in most of its memories: counting all their
    pairs would grow with the store)."""
    if not values:
        return []
    return conn.execute(
        f"SELECT low, high, COUNT(*) FROM concept_pairs WHERE (low IN ({_marks(values)}) OR high IN ({_marks(values)})) "
        f"AND memory_row IN (SELECT m.id FROM memories m WHERE m.project = ? AND {_CURRENT} ORDER BY m.id DESC LIMIT ?) "
        "GROUP BY low, high", (*values, *values, project, window),
    ).fetchall()


def of_row(conn: Any, row_id: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT concept FROM memory_concepts WHERE memory_row = ? ORDER BY concept",
                                       (row_id,))]


def linked(conn: Any, values: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, str]]:
    """(row id, concept) of the rows `scope` sees linked to one of `values`, newest first."""
    if not values:
        return []
    where, params = scope.where()
    return conn.execute(
        f"SELECT m.id, c.concept FROM memory_concepts c JOIN memories m ON m.id = c.memory_row "
        f"WHERE c.concept IN ({_marks(values)}) AND {where} ORDER BY c.memory_row DESC LIMIT ?",
        (*values, *params, limit),
    ).fetchall()


# --- verdicts --------------------------------------------------------------------------------------

def aliases_of(conn: Any, values: Sequence[str]) -> dict[str, str]:
    """alias → canonical, for those of `values` that are aliases."""
    if not values:
        return {}
    return dict(conn.execute(f"SELECT alias, canonical FROM concept_aliases WHERE alias IN ({_marks(values)})",
                             tuple(values)).fetchall())


def aliases_for(conn: Any, canonicals: Sequence[str]) -> dict[str, list[str]]:
    """canonical → its aliases, sorted."""
    if not canonicals:
        return {}
    found: dict[str, list[str]] = {}
    for alias, canonical in conn.execute(
            f"SELECT alias, canonical FROM concept_aliases WHERE canonical IN ({_marks(canonicals)}) ORDER BY alias",
            tuple(canonicals)):
        found.setdefault(canonical, []).append(alias)
    return found


def reviewed_in(conn: Any, values: Sequence[str]) -> dict[str, str]:
    """value → canonical, for each of `values` that is an alias or a canonical with aliases."""
    if not values:
        return {}
    marks = _marks(values)
    rows = conn.execute(f"SELECT alias, canonical FROM concept_aliases WHERE alias IN ({marks}) OR canonical IN ({marks})",
                        (*values, *values)).fetchall()
    wanted = set(values)
    found: dict[str, str] = {}
    for alias, canonical in rows:
        if alias in wanted:
            found[alias] = canonical
        if canonical in wanted:
            found[canonical] = canonical
    return found


def add_alias(conn: Any, alias: str, canonical: str, *, verdict: str, reason: str | None, actor: str, at: str) -> None:
    """`alias` (and every alias of it) now stands for `canonical`."""
    conn.execute("DELETE FROM concept_aliases WHERE alias = ? OR alias = ?", (alias, canonical))
    conn.execute("UPDATE concept_aliases SET canonical = ? WHERE canonical = ?", (canonical, alias))
    conn.execute("INSERT INTO concept_aliases (alias, canonical, verdict, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?)",
                 (alias, canonical, verdict, reason, actor, at))


def removed(conn: Any, values: Sequence[str]) -> set[str]:
    if not values:
        return set()
    return {r[0] for r in conn.execute(f"SELECT concept FROM concept_removals WHERE concept IN ({_marks(values)})",
                                       tuple(values))}


def add_removal(conn: Any, value: str, *, reason: str | None, actor: str, at: str) -> None:
    conn.execute("INSERT INTO concept_removals (concept, reason, actor, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                 (value, reason, actor, at))


def verdicts(conn: Any, values: Sequence[str]) -> ConceptVerdicts:
    """The verdicts touching `values` and the canonicals they are aliases of, in one statement (a
    memory's write asked three times, each a round trip on PostgreSQL)."""
    found = ConceptVerdicts({}, set(), set())
    if not values:
        return found
    given, params = values_table(conn, values)
    rows = conn.execute(
        f"""WITH given(value) AS ({given}),
                 alias AS (SELECT alias, canonical FROM concept_aliases WHERE alias IN (SELECT value FROM given)),
                 named AS (SELECT value FROM given UNION SELECT canonical FROM alias)
            SELECT 'alias', alias, canonical FROM alias
            UNION ALL SELECT 'removed', concept, NULL FROM concept_removals WHERE concept IN (SELECT value FROM named)
            UNION ALL SELECT 'dismissed', low, high FROM concept_dismissals
                WHERE low IN (SELECT value FROM named) AND high IN (SELECT value FROM named)""",
        params)
    for verdict, first, second in rows:
        if verdict == "alias":
            found.aliases[first] = second
        elif verdict == "removed":
            found.removed.add(first)
        else:
            found.dismissed.add((first, second))
    return found


def add_dismissal(conn: Any, low: str, high: str, *, reason: str | None, actor: str, at: str) -> None:
    conn.execute("INSERT INTO concept_dismissals (low, high, reason, actor, at) VALUES (?, ?, ?, ?, ?) "
                 "ON CONFLICT DO NOTHING", (low, high, reason, actor, at))


# --- restore ---------------------------------------------------------------------------------------

def links_of(conn: Any, row_id: int) -> list[tuple[str, str]]:
    """The (concept, kind) links of one row, to carry into another store."""
    return conn.execute("SELECT concept, kind FROM memory_concepts WHERE memory_row = ?", (row_id,)).fetchall()


def unite_verdicts(src: Any, dst: Any) -> None:
    """Add the verdicts of the store `src` that `dst` lacks (where both judged one value, `dst`'s stands)."""
    for table, columns in (("concept_aliases", "alias, canonical, verdict, reason, actor, at"),
                           ("concept_removals", "concept, reason, actor, at"),
                           ("concept_dismissals", "low, high, reason, actor, at")):
        rows = src.execute(f"SELECT {columns} FROM {table}").fetchall()
        marks = _marks(columns.split(", "))
        dst.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT DO NOTHING", rows)

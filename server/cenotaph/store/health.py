"""SQL for checking the file and its derived indexes: SQLite's integrity check, and the full-text
rows (FTS5) and vectors (vec0) against the memory rows they index."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from cenotaph.store import vectors
from cenotaph.store.connect import StoreBusy, fault
from cenotaph.store.dialect import per_dialect

SUBSTRINGS = "memory_substrings"


@per_dialect
def integrity_problems(conn: Any) -> list[str]:
    """`PRAGMA integrity_check` and FTS5's own check of its index: empty when the file is sound."""
    # A read of each FTS5 table first: on a connection whose FTS5 cache predates another
    # connection's write, the pragma's FTS5 check would report a malformed index that is not.
    for table in ("memory_fts", SUBSTRINGS):
        conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    found = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    problems = [] if found == ["ok"] else found
    try:
        conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')")
    except Exception as exc:  # noqa: BLE001 - the binding's DatabaseError: the index is corrupt
        # Unless another process wrote since this snapshot began: SQLite runs the check as a write,
        # which is then refused at once. The pragma above has read the index already.
        if not isinstance(fault(exc, ""), StoreBusy):
            problems.append(f"memory_fts: {exc}")
    return problems


@per_dialect
def substrings_in_step(conn: Any) -> bool:
    """Whether the trigram index holds exactly the memories' content (FTS5's check against its
    external content table)."""
    try:
        conn.execute(f"INSERT INTO {SUBSTRINGS} ({SUBSTRINGS}, rank) VALUES ('integrity-check', 1)")
    except Exception:  # noqa: BLE001 - the binding's DatabaseError: out of step or corrupt
        return False
    return True


@per_dialect
def substrings_rebuild(conn: Any) -> None:
    conn.execute(f"INSERT INTO {SUBSTRINGS} ({SUBSTRINGS}) VALUES ('rebuild')")


@per_dialect
def fts_out_of_step(conn: Any) -> tuple[list[int], list[int], list[int]]:
    """(memory rows without a full-text row, full-text rows without a memory row, full-text rows
    whose text differs from their memory row's)."""
    missing = [r[0] for r in conn.execute(
        "SELECT id FROM memories WHERE id NOT IN (SELECT rowid FROM memory_fts) ORDER BY id")]
    orphans = [r[0] for r in conn.execute(
        "SELECT rowid FROM memory_fts WHERE rowid NOT IN (SELECT id FROM memories) ORDER BY rowid")]
    stale = [r[0] for r in conn.execute(
        "SELECT m.id FROM memories m JOIN memory_fts f ON f.rowid = m.id "
        "WHERE f.content IS NOT m.content OR f.lemmas IS NOT m.lemmas OR f.context IS NOT m.context ORDER BY m.id")]
    return missing, orphans, stale


@per_dialect
def fts_rewrite(conn: Any, row_ids: Iterable[int]) -> None:
    """Index these memory rows' text afresh (a row that is gone loses its full-text row)."""
    for row_id in row_ids:
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (row_id,))
        conn.execute("INSERT INTO memory_fts (rowid, content, lemmas, context) "
                     "SELECT id, content, lemmas, context FROM memories WHERE id = ?", (row_id,))


def vectors_out_of_step(conn: Any) -> tuple[list[int], list[int]]:
    """(rows that should have a vector and have none, vectors of rows that should have none).
    Every version of every memory not forgotten has one (as-of reads search old versions too)."""
    table = vectors.TABLE
    wanted = ("SELECT id FROM memories WHERE memory_id NOT IN "
              "(SELECT memory_id FROM memories WHERE state = 'deleted')")
    missing = [r[0] for r in conn.execute(
        f"SELECT id FROM ({wanted}) AS wanted WHERE id NOT IN (SELECT row_id FROM {table}) ORDER BY id")]
    orphans = [r[0] for r in conn.execute(
        f"SELECT row_id FROM {table} WHERE row_id NOT IN ({wanted}) ORDER BY row_id")]
    return missing, orphans


def contents(conn: Any, row_ids: Iterable[int]) -> list[tuple[int, str, str]]:
    """(row id, project, content) of these memory rows."""
    ids = list(row_ids)
    if not ids:
        return []
    return conn.execute(f"SELECT id, project, content FROM memories WHERE id IN ({','.join('?' * len(ids))}) "
                        "ORDER BY id", ids).fetchall()


def stored_texts(conn: Any) -> Iterator[tuple[int, int, str, str, str, str | None, str]]:
    """(memory id, version, project, content, tags, breakthrough, gotchas) of every version not forgotten."""
    yield from conn.execute("SELECT memory_id, version, project, content, tags, breakthrough, gotchas FROM memories "
                            "WHERE state <> 'deleted' ORDER BY memory_id, version")

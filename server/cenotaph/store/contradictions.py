"""SQL for contradiction links and dismissals."""

from __future__ import annotations

from typing import Any

from cenotaph.store import scoped
from cenotaph.store.records import ContradictionRow


def add(conn: Any, *, project: str, memory_a: int, memory_b: int, found_by: str, explanation: str, actor: str,
        at: str) -> int:
    cur = conn.execute(
        "INSERT INTO contradictions (project, memory_a, memory_b, found_by, explanation, actor, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (project, memory_a, memory_b, found_by, explanation, actor, at),
    )
    return cur.lastrowid


def is_dismissed(conn: Any, hash_a: str, hash_b: str) -> bool:
    low, high = sorted((hash_a, hash_b))
    return conn.execute("SELECT 1 FROM dismissals WHERE hash_low = ? AND hash_high = ?", (low, high)).fetchone() is not None


def is_linked(conn: Any, memory_a: int, memory_b: int) -> bool:
    """An open or resolved link between the two (a dismissal is keyed on content instead)."""
    return conn.execute(
        "SELECT 1 FROM contradictions WHERE status <> 'dismissed' "
        "AND ((memory_a = ? AND memory_b = ?) OR (memory_a = ? AND memory_b = ?))",
        (memory_a, memory_b, memory_b, memory_a),
    ).fetchone() is not None


_COLUMNS = ("id, project, memory_a, memory_b, found_by, explanation, status, resolution, reason, actor, created_at, "
            "decided_at, decided_by")


def get(conn: Any, contradiction_id: int) -> ContradictionRow | None:
    found = conn.execute(f"SELECT {_COLUMNS} FROM contradictions WHERE id = ?", (contradiction_id,)).fetchone()
    return ContradictionRow(*found) if found else None


def listing(conn: Any, *, project: str | None, status: str | None) -> list[ContradictionRow]:
    rows = scoped.rows_in_scope(conn, "contradictions", _COLUMNS, project=project, status=status)
    return [ContradictionRow(*r) for r in rows]


def open_for_memory(conn: Any, memory_id: int) -> list[ContradictionRow]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM contradictions WHERE status = 'open' AND (memory_a = ? OR memory_b = ?) ORDER BY id",
        (memory_id, memory_id),
    )
    return [ContradictionRow(*r) for r in rows]


def decide(conn: Any, contradiction_id: int, *, status: str, resolution: str | None, reason: str, actor: str,
           at: str) -> None:
    conn.execute(
        "UPDATE contradictions SET status = ?, resolution = ?, reason = ?, decided_at = ?, decided_by = ? WHERE id = ?",
        (status, resolution, reason, at, actor, contradiction_id),
    )


def dismiss_pair(conn: Any, hash_a: str, hash_b: str, *, reason: str, actor: str, at: str) -> None:
    low, high = sorted((hash_a, hash_b))
    conn.execute(
        "INSERT OR IGNORE INTO dismissals (hash_low, hash_high, reason, actor, at) VALUES (?, ?, ?, ?, ?)",
        (low, high, reason, actor, at),
    )


def all_rows(conn: Any) -> list[ContradictionRow]:
    return [ContradictionRow(*r) for r in conn.execute(f"SELECT {_COLUMNS} FROM contradictions ORDER BY id")]


def insert_row(conn: Any, row: ContradictionRow) -> int:
    cur = conn.execute(
        f"INSERT INTO contradictions ({_COLUMNS.partition(', ')[2]}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row.project, row.memory_a, row.memory_b, row.found_by, row.explanation, row.status, row.resolution,
         row.reason, row.actor, row.created_at, row.decided_at, row.decided_by),
    )
    return cur.lastrowid


def dismissals(conn: Any) -> list[tuple[str, str, str, str, str]]:
    """(hash_low, hash_high, reason, actor, at) of every dismissal."""
    return conn.execute("SELECT hash_low, hash_high, reason, actor, at FROM dismissals ORDER BY at").fetchall()

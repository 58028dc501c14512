"""SQL for contradiction links and dismissals."""

from __future__ import annotations

from typing import Any


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
    return conn.execute(
        "SELECT 1 FROM contradictions WHERE (memory_a = ? AND memory_b = ?) OR (memory_a = ? AND memory_b = ?)",
        (memory_a, memory_b, memory_b, memory_a),
    ).fetchone() is not None

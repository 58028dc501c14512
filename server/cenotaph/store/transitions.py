"""SQL for state and trust transitions (with their reasons) and tombstones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def add(conn: Any, *, memory_id: int, field: str, from_value: str | None, to_value: str, reason: str | None,
        actor: str, at: str) -> None:
    conn.execute(
        "INSERT INTO transitions (memory_id, field, from_value, to_value, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (memory_id, field, from_value, to_value, reason, actor, at),
    )


def for_memories(conn: Any, memory_ids: Sequence[int]) -> list[tuple[int, str, str | None, str, str]]:
    """(memory_id, field, from, to, at) in the order they happened."""
    if not memory_ids:
        return []
    return conn.execute(
        f"SELECT memory_id, field, from_value, to_value, at FROM transitions "
        f"WHERE memory_id IN ({','.join('?' * len(memory_ids))}) ORDER BY id",
        list(memory_ids),
    ).fetchall()

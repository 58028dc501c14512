"""SQL for state and trust transitions (with their reasons) and tombstones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cenotaph.store.records import TombstoneRow, TransitionRow


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


_COLUMNS = "id, memory_id, field, from_value, to_value, reason, actor, at"


def history(conn: Any, memory_id: int) -> list[TransitionRow]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM transitions WHERE memory_id = ? ORDER BY id", (memory_id,))
    return [TransitionRow(*r) for r in rows]


def add_tombstone(conn: Any, *, memory_id: int, content_hash: str, reason: str, actor: str, at: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO tombstones (memory_id, content_hash, reason, actor, at) VALUES (?, ?, ?, ?, ?)",
        (memory_id, content_hash, reason, actor, at),
    )


def tombstone(conn: Any, memory_id: int) -> TombstoneRow | None:
    found = conn.execute(
        "SELECT memory_id, content_hash, reason, actor, at FROM tombstones WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    return TombstoneRow(*found) if found else None


def tombstones(conn: Any) -> list[TombstoneRow]:
    return [TombstoneRow(*r) for r in conn.execute(
        "SELECT memory_id, content_hash, reason, actor, at FROM tombstones ORDER BY memory_id")]

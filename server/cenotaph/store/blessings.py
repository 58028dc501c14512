"""SQL for blessings: a person's word that a memory is a lesson worth compiling."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cenotaph.store.records import BlessingRow


def add(conn: Any, *, memory_id: int, project: str, reason: str | None, actor: str, at: str) -> bool:
    """Bless `memory_id`; False when it was blessed already (the first blessing stands)."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO blessings (memory_id, project, reason, actor, at) VALUES (?, ?, ?, ?, ?)",
        (memory_id, project, reason, actor, at),
    )
    return cur.rowcount > 0


def blessed_among(conn: Any, memory_ids: Iterable[int]) -> set[int]:
    ids = sorted(set(memory_ids))
    if not ids:
        return set()
    found = conn.execute(f"SELECT memory_id FROM blessings WHERE memory_id IN ({','.join('?' * len(ids))})", ids)
    return {r[0] for r in found}


def all_rows(conn: Any) -> list[BlessingRow]:
    return [BlessingRow(*r) for r in conn.execute(
        "SELECT memory_id, project, reason, actor, at FROM blessings ORDER BY memory_id")]

"""SQL for the recall log (kept 30 days): what was recalled, by whom, with which results."""

from __future__ import annotations

from typing import Any

from cenotaph.store.dialect import per_dialect
from cenotaph.store.records import RecallLogRow


def append(conn: Any, *, at: str, actor: str, project: str, query: str, results: str) -> None:
    conn.execute(
        "INSERT INTO recall_log (at, actor, project, query, results) VALUES (?, ?, ?, ?, ?)",
        (at, actor, project, query, results),
    )


def prune(conn: Any, before: str) -> None:
    conn.execute("DELETE FROM recall_log WHERE at < ?", (before,))


def since(conn: Any, project: str, at: str) -> list[RecallLogRow]:
    rows = conn.execute(
        "SELECT id, at, actor, project, query, results FROM recall_log WHERE project IN (?, '') AND at >= ? ORDER BY id",
        (project, at),
    )
    return [RecallLogRow(*r) for r in rows]


@per_dialect
def forget_memory(conn: Any, memory_id: int) -> None:
    """Drop the recalls that returned a forgotten memory: their queries and results quoted it."""
    conn.execute(
        "DELETE FROM recall_log WHERE EXISTS (SELECT 1 FROM json_each(recall_log.results) "
        "WHERE json_extract(value, '$.type') = 'memory' AND json_extract(value, '$.id') = ?)",
        (memory_id,),
    )

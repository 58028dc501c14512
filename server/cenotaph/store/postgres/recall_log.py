"""The recall log's statements that differ on PostgreSQL (JSON functions)."""

from __future__ import annotations

from typing import Any


def forget_memory(conn: Any, memory_id: int) -> None:
    conn.execute(
        "DELETE FROM recall_log WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(recall_log.results::jsonb) AS r "
        "WHERE r->>'type' = 'memory' AND r->>'id' = ?)",
        (str(memory_id),),
    )

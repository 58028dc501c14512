"""SQL for document chunks: where each chunk memory lies in its file."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class ChunkRow:
    memory_id: int
    project: str
    path: str
    heading: str
    ordinal: int
    start_line: int
    end_line: int


_COLUMNS = "memory_id, project, path, heading, ordinal, start_line, end_line"


def put(conn: Any, row: ChunkRow) -> None:
    conn.execute(
        f"INSERT INTO document_chunks ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id) DO UPDATE SET "
        "path = excluded.path, heading = excluded.heading, ordinal = excluded.ordinal, "
        "start_line = excluded.start_line, end_line = excluded.end_line",
        (row.memory_id, row.project, row.path, row.heading, row.ordinal, row.start_line, row.end_line),
    )


def of_path(conn: Any, project: str, path: str) -> list[ChunkRow]:
    """The live (not archived, not forgotten) chunks of one file."""
    rows = conn.execute(
        f"SELECT {', '.join('d.' + c.strip() for c in _COLUMNS.split(','))} FROM document_chunks d "
        "JOIN memories m ON m.memory_id = d.memory_id AND m.superseded_at IS NULL "
        "WHERE d.project = ? AND d.path = ? AND m.state IN ('active', 'deprioritised') ORDER BY d.start_line",
        (project, path),
    )
    return [ChunkRow(*r) for r in rows]


def live_paths(conn: Any, project: str) -> set[str]:
    rows = conn.execute(
        "SELECT DISTINCT d.path FROM document_chunks d JOIN memories m ON m.memory_id = d.memory_id "
        "AND m.superseded_at IS NULL WHERE d.project = ? AND m.state IN ('active', 'deprioritised')", (project,))
    return {path for (path,) in rows}


def locations(conn: Any, memory_ids: Sequence[int]) -> dict[int, ChunkRow]:
    found: dict[int, ChunkRow] = {}
    ids = list(dict.fromkeys(memory_ids))
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        rows = conn.execute(f"SELECT {_COLUMNS} FROM document_chunks WHERE memory_id IN "
                            f"({', '.join('?' * len(part))})", part)
        found.update((r[0], ChunkRow(*r)) for r in rows)
    return found


def same_file(conn: Any, memory_ids: Iterable[int], path: str, project: str) -> set[int]:
    """Those of `memory_ids` that are chunks of `path`."""
    ids = list(memory_ids)
    if not ids:
        return set()
    rows = conn.execute(f"SELECT memory_id FROM document_chunks WHERE project = ? AND path = ? AND memory_id IN "
                        f"({', '.join('?' * len(ids))})", (project, path, *ids))
    return {r[0] for r in rows}

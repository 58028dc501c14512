"""SQL for anchors: where in a repository's code a memory is about (memory/knowledge/anchors/)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cenotaph.store.records import AnchorRow

_COLUMNS = ("memory_id, project, path, start_line, end_line, text, lines_before, lines_after, revision, state, "
            "taken_at, checked_at")


def put(conn: Any, row: AnchorRow) -> None:
    """Anchor a memory, or re-anchor it (a memory has one anchor)."""
    conn.execute("DELETE FROM anchors WHERE memory_id = ?", (row.memory_id,))
    conn.execute(f"INSERT INTO anchors ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (row.memory_id, row.project, row.path, row.start_line, row.end_line, row.text, row.lines_before,
                  row.lines_after, row.revision, row.state, row.taken_at, row.checked_at))


def follow(conn: Any, memory_id: int, *, path: str, start_line: int, end_line: int, state: str, at: str) -> None:
    """Where a check found the anchored text now (its fingerprint stays as it was taken)."""
    conn.execute("UPDATE anchors SET path = ?, start_line = ?, end_line = ?, state = ?, checked_at = ? "
                 "WHERE memory_id = ?", (path, start_line, end_line, state, at, memory_id))


def of(conn: Any, memory_ids: Iterable[int]) -> dict[int, AnchorRow]:
    ids = sorted(set(memory_ids))
    if not ids:
        return {}
    found = conn.execute(f"SELECT {_COLUMNS} FROM anchors WHERE memory_id IN ({','.join('?' * len(ids))})", ids)
    return {r[0]: AnchorRow(*r) for r in found}


def in_project(conn: Any, projects: Iterable[str], path: str | None = None) -> list[AnchorRow]:
    """The anchors of memories in `projects` (of one file's, when `path` is given), in id order."""
    scopes = sorted(set(projects))
    sql = f"SELECT {_COLUMNS} FROM anchors WHERE project IN ({','.join('?' * len(scopes))})"
    params: list[Any] = [*scopes]
    if path is not None:
        sql += " AND path = ?"
        params.append(path)
    return [AnchorRow(*r) for r in conn.execute(sql + " ORDER BY memory_id", params)]

"""SQL for suppressions keyed on normalized values."""

from __future__ import annotations

from typing import Any

from cenotaph.store.records import SuppressionRow

_COLUMNS = "id, project, kind, value, reason, actor, created_at, lifted_at, lifted_reason, lifted_by"


def add(conn: Any, *, project: str, kind: str, value: str, reason: str, actor: str, at: str) -> int:
    existing = conn.execute(
        "SELECT id FROM suppressions WHERE project = ? AND kind = ? AND value = ? AND lifted_at IS NULL",
        (project, kind, value),
    ).fetchone()
    if existing:
        return existing[0]
    cur = conn.execute(
        "INSERT INTO suppressions (project, kind, value, reason, actor, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (project, kind, value, reason, actor, at),
    )
    return cur.lastrowid


def lift(conn: Any, suppression_id: int, *, reason: str, actor: str, at: str) -> None:
    conn.execute(
        "UPDATE suppressions SET lifted_at = ?, lifted_reason = ?, lifted_by = ? WHERE id = ?",
        (at, reason, actor, suppression_id),
    )


def active(conn: Any, *, kind: str | None = None) -> list[SuppressionRow]:
    if kind is None:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM suppressions WHERE lifted_at IS NULL ORDER BY id")
    else:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM suppressions WHERE lifted_at IS NULL AND kind = ? ORDER BY id", (kind,)
        )
    return [SuppressionRow(*r) for r in rows]


def all_rows(conn: Any) -> list[SuppressionRow]:
    return [SuppressionRow(*r) for r in conn.execute(f"SELECT {_COLUMNS} FROM suppressions ORDER BY id")]


def get(conn: Any, suppression_id: int) -> SuppressionRow | None:
    found = conn.execute(f"SELECT {_COLUMNS} FROM suppressions WHERE id = ?", (suppression_id,)).fetchone()
    return SuppressionRow(*found) if found else None


def find_active(conn: Any, *, project: str, kind: str, value: str) -> SuppressionRow | None:
    found = conn.execute(
        f"SELECT {_COLUMNS} FROM suppressions WHERE project = ? AND kind = ? AND value = ? AND lifted_at IS NULL",
        (project, kind, value),
    ).fetchone()
    return SuppressionRow(*found) if found else None


def insert_row(conn: Any, row: SuppressionRow) -> int:
    """Copy a suppression as it is, lifted or not (restore)."""
    cur = conn.execute(
        "INSERT INTO suppressions (project, kind, value, reason, actor, created_at, lifted_at, lifted_reason, "
        "lifted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row.project, row.kind, row.value, row.reason, row.actor, row.created_at, row.lifted_at, row.lifted_reason,
         row.lifted_by),
    )
    return cur.lastrowid

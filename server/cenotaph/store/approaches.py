"""SQL for the graveyard: abandoned approaches and their aliases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cenotaph.store.records import ApproachRow

_COLUMNS = (
    "id, project, name, display_name, ecosystem, reason, effort, outcome, status, status_reason, memory_id, "
    "actor, created_at, updated_at"
)


def _with_aliases(conn: Any, rows: list[tuple]) -> list[ApproachRow]:
    approaches = [ApproachRow(*r) for r in rows]
    if approaches:
        by_id = {a.id: a for a in approaches}
        found = conn.execute(
            f"SELECT approach_id, alias FROM approach_aliases WHERE approach_id IN ({','.join('?' * len(by_id))}) "
            "ORDER BY alias",
            list(by_id),
        )
        for approach_id, alias in found:
            by_id[approach_id].aliases.append(alias)
    return approaches


def upsert(conn: Any, *, project: str, name: str, display_name: str, ecosystem: str, reason: str,
           effort: int | None, outcome: str, memory_id: int | None, actor: str, at: str) -> int:
    """Abandon (or abandon again) `name` in `project`; returns the approach id."""
    conn.execute(
        f"""INSERT INTO approaches (project, name, display_name, ecosystem, reason, effort, outcome, status,
                status_reason, memory_id, actor, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'abandoned', NULL, ?, ?, ?, ?)
            ON CONFLICT (project, name) DO UPDATE SET
                display_name = excluded.display_name, ecosystem = excluded.ecosystem, reason = excluded.reason,
                effort = excluded.effort, outcome = excluded.outcome, status = 'abandoned', status_reason = NULL,
                memory_id = COALESCE(excluded.memory_id, approaches.memory_id), actor = excluded.actor,
                updated_at = excluded.updated_at""",
        (project, name, display_name, ecosystem, reason, effort, outcome, memory_id, actor, at, at),
    )
    return conn.execute("SELECT id FROM approaches WHERE project = ? AND name = ?", (project, name)).fetchone()[0]


def add_aliases(conn: Any, approach_id: int, aliases: Iterable[str]) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO approach_aliases (approach_id, alias) VALUES (?, ?)",
        [(approach_id, a) for a in aliases],
    )


def set_status(conn: Any, approach_id: int, status: str, reason: str, actor: str, at: str) -> None:
    conn.execute(
        "UPDATE approaches SET status = ?, status_reason = ?, actor = ?, updated_at = ? WHERE id = ?",
        (status, reason, actor, at, approach_id),
    )


def set_effort(conn: Any, approach_id: int, effort: int, actor: str, at: str) -> None:
    conn.execute("UPDATE approaches SET effort = ?, actor = ?, updated_at = ? WHERE id = ?",
                 (effort, actor, at, approach_id))


def set_ecosystem(conn: Any, approach_id: int, name: str, ecosystem: str, actor: str, at: str) -> None:
    """Refile a record in another ecosystem, under that ecosystem's key; all else stays."""
    conn.execute("UPDATE approaches SET name = ?, ecosystem = ?, actor = ?, updated_at = ? WHERE id = ?",
                 (name, ecosystem, actor, at, approach_id))


def get(conn: Any, approach_id: int) -> ApproachRow | None:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM approaches WHERE id = ?", (approach_id,)).fetchall()
    found = _with_aliases(conn, rows)
    return found[0] if found else None


def find(conn: Any, project: str, name: str) -> ApproachRow | None:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM approaches WHERE project = ? AND name = ?", (project, name)).fetchall()
    found = _with_aliases(conn, rows)
    return found[0] if found else None


def all_rows(conn: Any, *, status: str | None = None) -> list[ApproachRow]:
    if status is None:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM approaches ORDER BY id").fetchall()
    else:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM approaches WHERE status = ? ORDER BY id", (status,)).fetchall()
    return _with_aliases(conn, rows)


def put(conn: Any, row: ApproachRow) -> int:
    """Write an approach as it is in `row` (restore), keyed on (project, name); returns its id."""
    conn.execute(
        f"""INSERT INTO approaches ({_COLUMNS.partition(', ')[2]})
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (project, name) DO UPDATE SET
                display_name = excluded.display_name, ecosystem = excluded.ecosystem, reason = excluded.reason,
                effort = excluded.effort, outcome = excluded.outcome, status = excluded.status,
                status_reason = excluded.status_reason, memory_id = excluded.memory_id, actor = excluded.actor,
                updated_at = excluded.updated_at""",
        (row.project, row.name, row.display_name, row.ecosystem, row.reason, row.effort, row.outcome, row.status,
         row.status_reason, row.memory_id, row.actor, row.created_at, row.updated_at),
    )
    approach_id = conn.execute("SELECT id FROM approaches WHERE project = ? AND name = ?",
                               (row.project, row.name)).fetchone()[0]
    add_aliases(conn, approach_id, row.aliases)
    return approach_id

"""SQL for mining: each source's cursor (how far a repository's history or a transcript file was
read) and the candidates a person dismissed."""

from __future__ import annotations

from typing import Any


def cursor(conn: Any, project: str, source: str, key: str) -> str | None:
    found = conn.execute("SELECT value FROM mining_cursors WHERE project = ? AND source = ? AND key = ?",
                         (project, source, key)).fetchone()
    return found[0] if found else None


def cursors(conn: Any, project: str, source: str) -> dict[str, str]:
    rows = conn.execute("SELECT key, value FROM mining_cursors WHERE project = ? AND source = ?", (project, source))
    return dict(rows.fetchall())


def set_cursor(conn: Any, project: str, source: str, key: str, value: str, at: str) -> None:
    conn.execute(
        "INSERT INTO mining_cursors (project, source, key, value, updated_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (project, source, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        (project, source, key, value, at),
    )


def dismiss(conn: Any, *, project: str, ecosystem: str, name: str, reason: str, actor: str, at: str) -> None:
    conn.execute(
        "INSERT INTO candidate_dismissals (project, ecosystem, name, reason, actor, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project, ecosystem, name) DO UPDATE SET reason = excluded.reason, "
        "actor = excluded.actor, created_at = excluded.created_at",
        (project, ecosystem, name, reason, actor, at),
    )


def undismiss(conn: Any, *, project: str, ecosystem: str, name: str) -> None:
    conn.execute("DELETE FROM candidate_dismissals WHERE project = ? AND ecosystem = ? AND name = ?",
                 (project, ecosystem, name))


def dismissed(conn: Any, project: str) -> set[tuple[str, str]]:
    """(ecosystem, normalized name) pairs a person turned down in `project`."""
    rows = conn.execute("SELECT ecosystem, name FROM candidate_dismissals WHERE project = ?", (project,))
    return {(ecosystem, name) for ecosystem, name in rows}


def all_dismissals(conn: Any) -> list[tuple[str, str, str, str, str, str]]:
    """(project, ecosystem, name, reason, actor, created_at) of every dismissal, for restore."""
    return conn.execute("SELECT project, ecosystem, name, reason, actor, created_at FROM candidate_dismissals "
                        "ORDER BY project, ecosystem, name").fetchall()


def keep_dismissal(conn: Any, project: str, ecosystem: str, name: str, reason: str, actor: str, at: str) -> bool:
    """Add a dismissal unless one is already recorded for the name (that one stays); True if added."""
    done = conn.execute(
        "INSERT INTO candidate_dismissals (project, ecosystem, name, reason, actor, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project, ecosystem, name) DO NOTHING",
        (project, ecosystem, name, reason, actor, at),
    )
    return done.rowcount == 1

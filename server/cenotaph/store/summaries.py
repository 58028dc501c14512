"""SQL for compaction's links: which summary memory stands for which superseded source, and the
state each source had before (so that withdrawing the summary restores it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def link(conn: Any, *, summary_id: int, project: str, cluster_id: str, sources: Sequence[tuple[int, str]],
         at: str) -> None:
    """`sources`: (memory id, state before it was superseded)."""
    conn.executemany(
        "INSERT INTO summary_sources (summary_id, source_id, project, cluster_id, previous_state, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(summary_id, source_id, project, cluster_id, state, at) for source_id, state in sources],
    )


def standing(conn: Any, summary_id: int) -> list[tuple[int, str]]:
    """(source id, previous state) of the sources `summary_id` still stands for."""
    return conn.execute(
        "SELECT source_id, previous_state FROM summary_sources WHERE summary_id = ? AND restored_at IS NULL "
        "ORDER BY source_id", (summary_id,)).fetchall()


def mark_restored(conn: Any, summary_id: int, at: str) -> None:
    conn.execute("UPDATE summary_sources SET restored_at = ? WHERE summary_id = ? AND restored_at IS NULL",
                 (at, summary_id))


def restored(conn: Any, summary_id: int) -> list[tuple[int, str, str]]:
    """(source id, previous state, when restored) of the sources `summary_id` no longer stands for."""
    return conn.execute(
        "SELECT source_id, previous_state, restored_at FROM summary_sources "
        "WHERE summary_id = ? AND restored_at IS NOT NULL ORDER BY source_id", (summary_id,)).fetchall()


def stand_again(conn: Any, summary_id: int, source_id: int) -> None:
    conn.execute("UPDATE summary_sources SET restored_at = NULL WHERE summary_id = ? AND source_id = ?",
                 (summary_id, source_id))


def summarised_by(conn: Any, source_id: int) -> int | None:
    """The summary that stands for `source_id` now, if any."""
    found = conn.execute(
        "SELECT summary_id FROM summary_sources WHERE source_id = ? AND restored_at IS NULL "
        "ORDER BY created_at DESC, summary_id DESC LIMIT 1", (source_id,)).fetchone()
    return found[0] if found else None


def sources_of(conn: Any, summary_id: int) -> list[int]:
    """Every source `summary_id` was applied to, restored or not."""
    return [r[0] for r in conn.execute(
        "SELECT source_id FROM summary_sources WHERE summary_id = ? ORDER BY source_id", (summary_id,))]


_LINK_COLUMNS = "summary_id, source_id, project, cluster_id, previous_state, created_at, restored_at"


def all_links(conn: Any) -> list[tuple]:
    """Every link, as (summary_id, source_id, project, cluster_id, previous_state, created_at, restored_at)."""
    return conn.execute(f"SELECT {_LINK_COLUMNS} FROM summary_sources ORDER BY summary_id, source_id").fetchall()


def keep_link(conn: Any, link: Sequence[Any]) -> int:
    """Add a link (a backup's) unless it is here already; a restoration the backup knows of is
    kept too. Returns 1 if anything changed."""
    changed = conn.execute(f"INSERT OR IGNORE INTO summary_sources ({_LINK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           list(link)).rowcount
    if not changed and link[6] is not None:
        changed = conn.execute("UPDATE summary_sources SET restored_at = ? WHERE summary_id = ? AND source_id = ? "
                               "AND restored_at IS NULL", (link[6], link[0], link[1])).rowcount
    return changed

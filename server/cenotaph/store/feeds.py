"""SQL for feeds and the knowledge entries pulled from them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class FeedRow:
    id: int
    project: str
    url: str
    title: str | None
    expires_days: int
    etag: str | None
    modified: str | None
    last_pulled: str | None
    last_success: str | None
    last_error: str | None
    created_at: str
    entries: int = 0  # live entries


@dataclass(slots=True)
class EntryRow:
    memory_id: int
    feed_id: int
    entry_key: str
    link: str | None
    title: str | None
    expires_at: str | None
    promoted_at: str | None


_FEED = ("f.id, f.project, f.url, f.title, f.expires_days, f.etag, f.modified, f.last_pulled, f.last_success, "
         "f.last_error, f.created_at")
_LIVE_COUNT = ("(SELECT COUNT(*) FROM feed_entries e JOIN memories m ON m.memory_id = e.memory_id "
               "AND m.superseded_at IS NULL AND m.state IN ('active', 'deprioritised') WHERE e.feed_id = f.id)")
_ENTRY = "memory_id, feed_id, entry_key, link, title, expires_at, promoted_at"


def add(conn: Any, *, project: str, url: str, expires_days: int, at: str) -> int:
    return conn.execute("INSERT INTO feeds (project, url, expires_days, created_at) VALUES (?, ?, ?, ?)",
                        (project, url, expires_days, at)).lastrowid


def find(conn: Any, project: str, url: str) -> FeedRow | None:
    found = conn.execute(f"SELECT {_FEED}, {_LIVE_COUNT} FROM feeds f WHERE f.project = ? AND f.url = ?",
                         (project, url)).fetchone()
    return FeedRow(*found) if found else None


def get(conn: Any, feed_id: int) -> FeedRow | None:
    found = conn.execute(f"SELECT {_FEED}, {_LIVE_COUNT} FROM feeds f WHERE f.id = ?", (feed_id,)).fetchone()
    return FeedRow(*found) if found else None


def listing(conn: Any, project: str | None) -> list[FeedRow]:
    where, params = ("WHERE f.project = ?", (project,)) if project is not None else ("", ())
    return [FeedRow(*r) for r in conn.execute(f"SELECT {_FEED}, {_LIVE_COUNT} FROM feeds f {where} ORDER BY f.id",
                                              params)]


def remove(conn: Any, feed_id: int) -> None:
    conn.execute("DELETE FROM feeds WHERE id = ?", (feed_id,))


def record_pull(conn: Any, feed_id: int, *, at: str, error: str | None, etag: str | None = None,
                modified: str | None = None, title: str | None = None) -> None:
    if error is not None:
        conn.execute("UPDATE feeds SET last_pulled = ?, last_error = ? WHERE id = ?", (at, error, feed_id))
        return
    conn.execute("UPDATE feeds SET last_pulled = ?, last_success = ?, last_error = NULL, etag = ?, modified = ?, "
                 "title = COALESCE(?, title) WHERE id = ?", (at, at, etag, modified, title, feed_id))


def entries(conn: Any, feed_id: int) -> dict[str, EntryRow]:
    rows = conn.execute(f"SELECT {_ENTRY} FROM feed_entries WHERE feed_id = ?", (feed_id,))
    return {r[2]: EntryRow(*r) for r in rows}


def links_in(conn: Any, project: str) -> set[str]:
    rows = conn.execute("SELECT e.link FROM feed_entries e JOIN feeds f ON f.id = e.feed_id "
                        "WHERE f.project = ? AND e.link IS NOT NULL", (project,))
    return {link for (link,) in rows}


def put_entry(conn: Any, row: EntryRow) -> None:
    conn.execute(f"INSERT INTO feed_entries ({_ENTRY}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id) DO UPDATE "
                 "SET link = excluded.link, title = excluded.title",
                 (row.memory_id, row.feed_id, row.entry_key, row.link, row.title, row.expires_at, row.promoted_at))


def entry_of(conn: Any, memory_id: int) -> EntryRow | None:
    found = conn.execute(f"SELECT {_ENTRY} FROM feed_entries WHERE memory_id = ?", (memory_id,)).fetchone()
    return EntryRow(*found) if found else None


def entries_of(conn: Any, memory_ids: Sequence[int]) -> dict[int, EntryRow]:
    found: dict[int, EntryRow] = {}
    ids = list(dict.fromkeys(memory_ids))
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        rows = conn.execute(f"SELECT {_ENTRY} FROM feed_entries WHERE memory_id IN ({', '.join('?' * len(part))})",
                            part)
        found.update((r[0], EntryRow(*r)) for r in rows)
    return found


def promote(conn: Any, memory_id: int, at: str) -> None:
    conn.execute("UPDATE feed_entries SET expires_at = NULL, promoted_at = ? WHERE memory_id = ?", (at, memory_id))


def expired(conn: Any, now: str) -> list[int]:
    """Memories of entries past their expiry, never promoted, still live."""
    rows = conn.execute(
        "SELECT e.memory_id FROM feed_entries e JOIN memories m ON m.memory_id = e.memory_id "
        "AND m.superseded_at IS NULL WHERE e.expires_at IS NOT NULL AND e.expires_at <= ? AND e.promoted_at IS NULL "
        "AND m.state IN ('active', 'deprioritised') ORDER BY e.memory_id", (now,))
    return [mid for (mid,) in rows]

"""SQL for the append-only, hash-chained event log (audit trail and change feed)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from cenotaph.store.records import EventRow

GENESIS = "0" * 64
_COLUMNS = "seq, at, actor, action, target, project, before, after, reason, prev_hash, hash"


def event_hash(prev_hash: str, at: str, actor: str, action: str, target: str, project: str,
               before: str | None, after: str | None, reason: str | None) -> str:
    payload = json.dumps([prev_hash, at, actor, action, target, project, before, after, reason], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


_INSERT = ("INSERT INTO events (at, actor, action, target, project, before, after, reason, prev_hash, hash) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _head(conn: Any) -> str:
    last = conn.execute("SELECT hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    return last[0] if last else GENESIS


def _chained(prev_hash: str, *, at: str, actor: str, action: str, target: str, project: str,
             before: Any = None, after: Any = None, reason: str | None = None) -> tuple:
    """The row to insert after the event whose hash is `prev_hash`; its own hash comes last."""
    before_json = None if before is None else json.dumps(before, ensure_ascii=False, sort_keys=True)
    after_json = None if after is None else json.dumps(after, ensure_ascii=False, sort_keys=True)
    digest = event_hash(prev_hash, at, actor, action, target, project, before_json, after_json, reason)
    return (at, actor, action, target, project, before_json, after_json, reason, prev_hash, digest)


def append(conn: Any, *, at: str, actor: str, action: str, target: str, project: str,
           before: Any = None, after: Any = None, reason: str | None = None) -> int:
    """Append one event inside the caller's write transaction; returns its sequence number."""
    row = _chained(_head(conn), at=at, actor=actor, action=action, target=target, project=project,
                   before=before, after=after, reason=reason)
    return conn.execute(_INSERT, row).lastrowid


def append_many(conn: Any, entries: Sequence[dict[str, Any]]) -> None:
    """Append several events (each given as append's keyword arguments) inside the caller's write
    transaction, chained in order: one read of the head for the lot instead of one per event."""
    prev_hash = _head(conn)
    rows = []
    for entry in entries:
        rows.append(_chained(prev_hash, **entry))
        prev_hash = rows[-1][-1]
    conn.executemany(_INSERT, rows)


def last_seq(conn: Any) -> int:
    return conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]


def since(conn: Any, seq: int, limit: int = 1000) -> list[EventRow]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))
    return [EventRow(*r) for r in rows]


def query(conn: Any, *, target: str | None, since_at: str | None, limit: int) -> list[EventRow]:
    clauses, params = ["1"], []
    if target is not None:
        clauses.append("target = ?")
        params.append(target)
    if since_at is not None:
        clauses.append("at >= ?")
        params.append(since_at)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM events WHERE {' AND '.join(clauses)} ORDER BY seq LIMIT ?", [*params, limit]
    )
    return [EventRow(*r) for r in rows]


def iterate(conn: Any, batch: int = 5000):
    seq = 0
    while True:
        rows = since(conn, seq, batch)
        if not rows:
            return
        yield from rows
        seq = rows[-1].seq


def touches_since(conn: Any, seq: int, prefixes: tuple[str, ...]) -> bool:
    """Whether any event after `seq` targets a record whose target starts with one of `prefixes`."""
    clause = " OR ".join("target LIKE ?" for _ in prefixes)
    found = conn.execute(
        f"SELECT 1 FROM events WHERE seq > ? AND ({clause}) LIMIT 1", [seq, *(p + "%" for p in prefixes)]
    ).fetchone()
    return found is not None


def allocated_head(conn: Any) -> int:
    """The highest sequence number ever handed out (AUTOINCREMENT's record): above the last row
    only if rows were deleted from the end."""
    found = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
    return found[0] if found else 0

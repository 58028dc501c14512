"""SQL for the append-only, hash-chained event log (audit trail and change feed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cenotaph.store.dialect import in_snapshot, per_dialect

if TYPE_CHECKING:
    from cenotaph.store.records import EventRow

# hashlib, and the rows (records.py), are imported by the functions that use them: an agent's
# hook reads the log's head without them.
GENESIS = "0" * 64
_COLUMNS = "seq, at, actor, action, target, project, before, after, reason, prev_hash, hash"


def tags_hash(tags: list[str]) -> str:
    """What an event keeps of a memory's tags: forgetting the memory leaves no tag readable."""
    import hashlib

    return hashlib.sha256(json.dumps(tags, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def event_hash(prev_hash: str, at: str, actor: str, action: str, target: str, project: str,
               before: str | None, after: str | None, reason: str | None) -> str:
    import hashlib

    payload = json.dumps([prev_hash, at, actor, action, target, project, before, after, reason], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


_INSERT = ("INSERT INTO events (at, actor, action, target, project, before, after, reason, prev_hash, hash) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


@per_dialect
def _insert_statement(conn: Any) -> str:
    return _INSERT


@per_dialect
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
    return conn.execute(_insert_statement(conn), row).lastrowid


def append_many(conn: Any, entries: Sequence[dict[str, Any]]) -> None:
    """Append several events (each given as append's keyword arguments) inside the caller's write
    transaction, chained in order: one read of the head for the lot instead of one per event."""
    prev_hash = _head(conn)
    rows = []
    for entry in entries:
        rows.append(_chained(prev_hash, **entry))
        prev_hash = rows[-1][-1]
    conn.executemany(_insert_statement(conn), rows)


def last_seq(conn: Any) -> int:
    return in_snapshot(conn, "events.last_seq",
                       lambda: conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])


def get(conn: Any, seq: int) -> EventRow | None:
    from cenotaph.store.records import EventRow

    found = conn.execute(f"SELECT {_COLUMNS} FROM events WHERE seq = ?", (seq,)).fetchone()
    return EventRow(*found) if found else None


def since(conn: Any, seq: int, limit: int = 1000) -> list[EventRow]:
    from cenotaph.store.records import EventRow

    rows = conn.execute(f"SELECT {_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))
    return [EventRow(*r) for r in rows]


def query(conn: Any, *, target: str | None, since_at: str | None, limit: int, actor: str | None = None,
          newest_first: bool = False) -> list[EventRow]:
    from cenotaph.store.records import EventRow

    clauses, params = ["TRUE"], []
    if target is not None:
        clauses.append("target = ?")
        params.append(target)
    if actor is not None:
        clauses.append("actor = ?")
        params.append(actor)
    if since_at is not None:
        clauses.append("at >= ?")
        params.append(since_at)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM events WHERE {' AND '.join(clauses)} ORDER BY seq{' DESC' if newest_first else ''} "
        "LIMIT ?", [*params, limit]
    )
    return [EventRow(*r) for r in rows]


def iterate(conn: Any, batch: int = 5000, *, after: int = 0):
    """Every event after `after`, in order, read in batches."""
    seq = after
    while True:
        rows = since(conn, seq, batch)
        if not rows:
            return
        yield from rows
        seq = rows[-1].seq


def touches_since(conn: Any, seq: int, prefixes: tuple[str, ...]) -> bool:
    """Whether any event after `seq` targets a record whose target starts with one of `prefixes`."""
    touching, params = _touching(seq, prefixes)
    return conn.execute(f"{touching} LIMIT 1", params).fetchone() is not None


def head_touching(conn: Any, seq: int, prefixes: tuple[str, ...]) -> tuple[int, bool]:
    """The log's last sequence number, and `touches_since(seq, prefixes)`, in one statement (a
    round trip fewer on PostgreSQL for a cache that asks both)."""
    touching, params = _touching(seq, prefixes)
    head, touched = conn.execute(f"SELECT (SELECT COALESCE(MAX(seq), 0) FROM events), EXISTS ({touching})",
                                 params).fetchone()
    return head, bool(touched)


def _touching(seq: int, prefixes: tuple[str, ...]) -> tuple[str, list[Any]]:
    """The events after `seq` whose target starts with one of `prefixes`, and the parameters."""
    clause = " OR ".join("target LIKE ?" for _ in prefixes)
    return f"SELECT 1 FROM events WHERE seq > ? AND ({clause})", [seq, *(p + "%" for p in prefixes)]


@per_dialect
def allocated_head(conn: Any) -> int:
    """The highest sequence number ever handed out (AUTOINCREMENT's record): above the last row
    only if rows were deleted from the end."""
    found = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
    return found[0] if found else 0


# --- scrubbed events -------------------------------------------------------------------------------
# An event written before events kept only hashes may quote text that forgetting must erase. Such
# an event is rewritten once (by a migration, behind the append-only triggers) and keeps its
# original hash, so the chain still links; `event_scrubs` records the hash of its new form, and a
# `scrub` event appended to the chain attests that list of (seq, new hash) with a digest, so
# neither the rewritten rows nor the list can be changed afterwards without `audit verify` noticing.

SCRUB_ACTION = "scrub"


def row_hash(row: EventRow) -> str:
    """The hash of an event as it now reads."""
    return event_hash(row.prev_hash, row.at, row.actor, row.action, row.target, row.project,
                      row.before, row.after, row.reason)


def scrub_digest(entries: Sequence[tuple[int, str]]) -> str:
    """The digest a `scrub` event records over the (seq, new hash) pairs it attests."""
    import hashlib

    return hashlib.sha256("\n".join(f"{seq}:{digest}" for seq, digest in sorted(entries)).encode()).hexdigest()


@per_dialect
def scrubs(conn: Any) -> dict[int, tuple[str, int]]:
    """seq → (hash of the event as rewritten, seq of the `scrub` event that attests it)."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'event_scrubs'").fetchone()
    if not exists:
        return {}
    return {seq: (digest, scrub_seq) for seq, digest, scrub_seq
            in conn.execute("SELECT seq, hash, scrub_seq FROM event_scrubs")}


def rewrite_payload(conn: Any, seq: int, *, after: Any) -> str:
    """Inside a migration that has lifted the append-only triggers: replace one event's `after`
    (keeping its stored hash); returns the hash of its new form, for `event_scrubs`."""
    from cenotaph.store.records import EventRow

    after_json = None if after is None else json.dumps(after, ensure_ascii=False, sort_keys=True)
    conn.execute("UPDATE events SET after = ? WHERE seq = ?", (after_json, seq))
    row = conn.execute(f"SELECT {_COLUMNS} FROM events WHERE seq = ?", (seq,)).fetchone()
    return row_hash(EventRow(*row))


def attest_scrubs(conn: Any, entries: Sequence[tuple[int, str]], *, at: str, reason: str) -> None:
    """Append the `scrub` event for `entries` and record them under its sequence number."""
    scrub_seq = append(conn, at=at, actor="cenotaph", action=SCRUB_ACTION, target="events", project="",
                       after={"scrubbed": len(entries), "digest": scrub_digest(entries)}, reason=reason)
    conn.executemany("INSERT INTO event_scrubs (seq, hash, scrub_seq) VALUES (?, ?, ?)",
                     [(seq, digest, scrub_seq) for seq, digest in entries])

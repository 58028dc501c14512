"""The event log's statements that differ on PostgreSQL: appends serialize on an advisory lock so
that the chain stays one chain under writers on many machines, and number themselves without gaps."""

from __future__ import annotations

from typing import Any

from cenotaph.store.events import GENESIS

# Held until the appending transaction ends: the next appender reads the head only once this
# one's event is committed (READ COMMITTED reads it then).
CHAIN_LOCK = 0x63656E6F_00000003


def _insert_statement(conn: Any) -> str:
    # The sequence number is the head's plus one, under the lock: rolled-back appends leave no gap.
    return ("INSERT INTO events (seq, at, actor, action, target, project, before, after, reason, prev_hash, hash) "
            "VALUES ((SELECT COALESCE(MAX(seq), 0) + 1 FROM events), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _head(conn: Any) -> str:
    with conn.pipeline():  # one round trip
        conn.execute("SELECT pg_advisory_xact_lock(?)", (CHAIN_LOCK,))
        found = conn.execute("SELECT hash FROM events ORDER BY seq DESC LIMIT 1")
    last = found.fetchone()
    return last[0] if last else GENESIS


def allocated_head(conn: Any) -> int:
    """The highest sequence number ever appended (kept by a trigger in `event_head`)."""
    return conn.execute("SELECT seq FROM event_head").fetchone()[0]


def scrubs(conn: Any) -> dict[int, tuple[str, int]]:
    return {seq: (digest, scrub_seq) for seq, digest, scrub_seq
            in conn.execute("SELECT seq, hash, scrub_seq FROM event_scrubs")}

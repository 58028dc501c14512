"""The audit log: append-only (triggers reject UPDATE and DELETE) and hash-chained, so that an
edit made behind the triggers' back is found and the first bad row named. The one sanctioned
rewrite, scrubbing text out of events written before events kept only hashes, is checked against
the `scrub` event that attests it (store/events.py)."""

from __future__ import annotations

import json

from cenotaph.memory import validate
from cenotaph.memory.context import Context, parse_time
from cenotaph.memory.models import AuditReport
from cenotaph.store import events
from cenotaph.store.records import EventRow


def verify(ctx: Context, since: AuditReport | None = None) -> AuditReport:
    """The chain from its start, or, given `since` (an earlier report that found it whole), only
    the events after that report's head, chained on from its hash: the rows it covered are not
    read again, so an edit made to them since is found by a check from the start, not by this one.
    A head whose row no longer has the hash it had is checked from the start."""
    since = since if since is not None and since.ok and since.head > 0 else None
    if since is not None:
        with ctx.store.read() as conn:
            kept = events.get(conn, since.head)
        if kept is None or kept.hash != since.head_hash:
            since = None
    checked = since.checked if since else 0
    expected_prev = since.head_hash if since else events.GENESIS
    last_seq = since.head if since else 0
    with ctx.store.read() as conn:
        allocated = events.allocated_head(conn)
        scrubbed = events.scrubs(conn)
        attested: dict[int, list[tuple[int, str]]] = {}
        for seq, (digest, scrub_seq) in scrubbed.items():
            if scrub_seq > last_seq:  # a scrub event at or before a resumed head was checked then
                attested.setdefault(scrub_seq, []).append((seq, digest))
        for row in events.iterate(conn, after=last_seq):
            checked += 1
            if row.seq != last_seq + 1:
                return AuditReport(False, checked, last_seq, row.seq,
                                   f"events #{last_seq + 1}–#{row.seq - 1} are missing before event #{row.seq}")
            if row.prev_hash != expected_prev:
                return AuditReport(False, checked, last_seq, row.seq,
                                   f"event #{row.seq} does not chain to event #{last_seq} (previous hash differs)")
            digest = events.event_hash(row.prev_hash, row.at, row.actor, row.action, row.target, row.project,
                                       row.before, row.after, row.reason)
            rewritten = scrubbed.get(row.seq)
            if digest != row.hash and (rewritten is None or rewritten[0] != digest or rewritten[1] <= row.seq):
                return AuditReport(False, checked, last_seq, row.seq,
                                   f"event #{row.seq} was altered: its hash does not match its content")
            if row.action == events.SCRUB_ACTION:
                claim = json.loads(row.after or "{}")
                entries = attested.pop(row.seq, [])
                if claim.get("scrubbed") != len(entries) or claim.get("digest") != events.scrub_digest(entries):
                    return AuditReport(False, checked, last_seq, row.seq,
                                       f"the events rewritten under event #{row.seq} are not the ones it attests")
            expected_prev = row.hash
            last_seq = row.seq
    if attested:
        first = min(seq for entries in attested.values() for seq, _ in entries)
        return AuditReport(False, checked, last_seq, first,
                           f"event #{first} is listed as rewritten, but no scrub event attests it")
    if allocated > last_seq:
        return AuditReport(False, checked, last_seq, last_seq + 1,
                           f"events #{last_seq + 1}–#{allocated} were removed from the end of the log")
    return AuditReport(True, checked, last_seq, head_hash=expected_prev)


def log(ctx: Context, *, target: str | None = None, since: str | None = None, limit: int = 1000,
        actor: str | None = None, newest_first: bool = False) -> list[EventRow]:
    """Events, oldest first (or the newest `limit`, newest first); `target` is e.g. `memory:12` (a
    bare number means a memory); `actor`, only those this actor made."""
    if target is not None:
        target = validate.text(target, "target", max_length=300).strip()
        if target.isdigit():
            target = f"memory:{target}"
    if actor is not None:
        actor = validate.text(actor, "actor", max_length=300).strip()
    since_at = parse_time(since, "since") if since is not None else None
    limit = validate.integer(limit, "limit", low=1, high=1_000_000)
    with ctx.store.read() as conn:
        return events.query(conn, target=target, since_at=since_at, limit=limit, actor=actor,
                            newest_first=newest_first)

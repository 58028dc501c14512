"""The graveyard in a small file beside a SQLite store (`<store>-graveyard.json`): every approach
and every active suppression, with the event log's head it reflects (sequence number and chain
hash). An agent's hook reads it on every tool call instead of opening the store
(memory/graveyard/verdicts.py); `db.Store.write` rewrites it after a write that changed the
graveyard, and a reader that found it stale rewrites it from the store.

A reader trusts it only while the event it names is still the log's event at that number (the
same store, not one restored or recreated at the same path) and no event since targets an
approach or a suppression: every change to those tables appends such an event, in the same
transaction. A file written by another process, half written, or from another version of this
format reads as missing."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

from cenotaph.store import events
from cenotaph.store.graveyard_rows import ApproachRow, SuppressionRow

FORMAT = 1
READ_WAIT_SECONDS = 0.2  # a WAL reader waits only while a crashed writer's log is recovered
# Event targets that change the graveyard: an approach's record or a suppression.
TARGETS = ("approach:", "suppression:")


class GraveyardFile(NamedTuple):
    """The graveyard as the file holds it."""

    seq: int  # the event log's head when it was read
    hash: str  # that event's chain hash ("" for an empty log)
    approaches: list[ApproachRow]
    suppressions: list[SuppressionRow]  # the active ones


def path_for(db: Path) -> Path:
    return Path(f"{db}-graveyard.json")


def head(conn: Any) -> tuple[int, str]:
    found = conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    return (found[0], found[1]) if found else (0, "")


def read(conn: Any) -> GraveyardFile:
    """The graveyard as the store holds it; `conn` is in a read transaction, so the rows and the
    head are one snapshot."""
    from cenotaph.store import approaches, suppressions  # the writer's: a hook only loads the file

    seq, digest = head(conn)
    return GraveyardFile(seq, digest, approaches.all_rows(conn), suppressions.active(conn))


def current_beside(db: Path, graveyard: GraveyardFile) -> bool:
    """Whether the SQLite store `db` still holds `graveyard`, read through the standard library's
    sqlite3 without sqlite-vec (store/connect.py loads it, ≈ 2 ms of an agent's hook). False when
    the store cannot be read at once (a SQLite too old for its schema, a file that is no store,
    recovery of a crashed writer's log): the caller reads the store, waiting as configured.
    The connection is closed before this returns: two copies of SQLite (this and sqlean) must not
    hold the same file open in one process at once, as each would release the other's locks."""
    try:
        conn = sqlite3.connect(str(db), isolation_level=None, timeout=READ_WAIT_SECONDS, check_same_thread=False)
    except (OSError, sqlite3.Error):
        return False
    try:
        conn.execute("BEGIN")
        fresh = current(conn, graveyard)
        conn.execute("COMMIT")
        return fresh
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def current(conn: Any, graveyard: GraveyardFile) -> bool:
    """Whether the store's graveyard is still what `graveyard` holds."""
    found = conn.execute("SELECT hash FROM events WHERE seq = ?", (graveyard.seq,)).fetchone()
    if (found[0] if found else "") != graveyard.hash:
        return False
    return not events.touches_since(conn, graveyard.seq, TARGETS)


def write(path: Path, graveyard: GraveyardFile) -> None:
    """Replace the file at once (a reader sees the old file or the new one, never a part)."""
    text = json.dumps({"format": FORMAT, "seq": graveyard.seq, "hash": graveyard.hash,
                       "approaches": [asdict(a) for a in graveyard.approaches],
                       "suppressions": [asdict(s) for s in graveyard.suppressions]}, ensure_ascii=False)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def load(path: Path) -> GraveyardFile | None:
    """The file's graveyard; None when there is none, or it cannot be read as this format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["format"] != FORMAT:
            return None
        return GraveyardFile(int(data["seq"]), str(data["hash"]), [ApproachRow(**a) for a in data["approaches"]],
                             [SuppressionRow(**s) for s in data["suppressions"]])
    except (OSError, ValueError, TypeError, KeyError):
        return None

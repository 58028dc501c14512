"""psycopg 3 connections that take the store's shared SQL as written for SQLite: `?` placeholders
become PostgreSQL's own (`$1`, `$2`, …, sent as they are: psycopg's cursor parses a statement for
its `%s` at each call when it is long or has many parameters, 0.3 ms for the full-text lane's),
`INSERT OR IGNORE` becomes `ON CONFLICT DO NOTHING`, SQLite's index hints (`+column`)
go, and an INSERT into a table with a generated key returns it as the cursor's `lastrowid`.
Each statement is translated once (cached)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg

from cenotaph.store.dialect import POSTGRES

# Tables whose key the database generates, and its column (for `lastrowid`).
GENERATED_KEYS = {
    "memories": "id", "events": "seq", "contradictions": "id", "feeds": "id", "proposals": "id",
    "suppressions": "id", "transitions": "id", "recall_log": "id", "approaches": "id",
}
_INSERT_INTO = re.compile(r"^\s*INSERT\s+(?:OR\s+IGNORE\s+)?INTO\s+(\w+)", re.IGNORECASE)
_OR_IGNORE = re.compile(r"^(\s*INSERT)\s+OR\s+IGNORE\b", re.IGNORECASE)
# SQLite's "do not use an index on this column" (`+project`, `+n.project`): no meaning here.
_INDEX_HINT = re.compile(r"(?<![\w)\]'\"])\+(?=(?:\w+\.)?project\b)")
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\?")


@lru_cache(maxsize=4096)
def translate(sql: str, with_params: bool = True) -> tuple[str, bool]:
    """(PostgreSQL statement, whether it returns a generated key)."""
    text = _INDEX_HINT.sub("", sql)
    if _OR_IGNORE.match(text):
        text = _OR_IGNORE.sub(r"\1", text).rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
    returning = False
    insert = _INSERT_INTO.match(text)
    if insert and insert.group(1).lower() in GENERATED_KEYS:
        if not _RETURNING.search(text):
            text = text.rstrip().rstrip(";") + f" RETURNING {GENERATED_KEYS[insert.group(1).lower()]}"
        returning = True
    if with_params:
        numbers = itertools.count(1)
        text = _PLACEHOLDER.sub(lambda _: f"${next(numbers)}", text)
    return text, returning


class PgCursor(psycopg.RawCursor):
    """A cursor that speaks the store's shared SQL and reports `lastrowid` like sqlite3's."""

    lastrowid: int | None = None

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> PgCursor:  # type: ignore[override]
        if isinstance(query, str):
            query, returning = translate(query, params is not None)
        else:
            returning = False
        with self.connection.begun():
            super().execute(query, params, **kwargs)
        if returning:
            row = self.fetchone()
            self.lastrowid = row[0] if row else None
        return self

    def executemany(self, query: Any, params_seq: Any, **kwargs: Any) -> None:  # type: ignore[override]
        if isinstance(query, str):
            query, _ = translate(query, True)
        with self.connection.begun():
            super().executemany(query, params_seq, **kwargs)


# Values a read transaction asks for once each (`dialect.in_snapshot`), read in one statement when
# the first of them is asked for: a recall asks for the log's head, the full-text totals and the
# store's model, three round trips for a few microseconds of work each. Each key's subqueries: one
# value, or a tuple of them.
MODEL_READ = "SELECT value FROM meta WHERE key = 'embedding_model'"
_READ_TOGETHER: dict[str, tuple[str, ...]] = {
    "events.last_seq": ("SELECT COALESCE(MAX(seq), 0) FROM events",),
    "fts_totals": ("SELECT rows FROM fts_totals", "SELECT tokens FROM fts_totals"),
    "meta.embedding_model": (MODEL_READ,),
}


class PgConnection(psycopg.Connection):
    """The connection the store modules are handed on PostgreSQL (`dialect` tells them apart)."""

    dialect = POSTGRES
    sign_index: Any = None  # its copy of the vectors' signs (store/sign_index.py)
    returned_at = 0.0  # when it last went back to the pool (time.monotonic(); store/postgres/db.py)
    # The BEGIN of a transaction opened and not yet sent (`begin`): it goes with the first statement.
    pending_begin: str | None = None
    snapshot_memo: dict[str, Any] | None = None  # a read transaction's values read once (`begin`)
    # What a write transaction read with its lock (the store's model: store/postgres/db.py), until
    # it writes that itself (`set_meta`, a COPY into `meta`).
    write_memo: dict[str, Any] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cursor_factory = PgCursor

    def begin(self, statement: str, *, snapshot: bool = False) -> None:
        """Open a transaction (on this autocommit connection) with `statement` (a BEGIN), sent in
        the same round trip as the transaction's first statement, not in one of its own: a
        recall's or a remember's transactions each cost one round trip less, and one in which
        nothing is read costs none. A `snapshot` (a read: one snapshot, nothing written) keeps
        what `dialect.in_snapshot` reads until it ends."""
        self.pending_begin = statement
        self.snapshot_memo = {} if snapshot else None

    def end(self, commit: bool) -> None:
        """COMMIT (or ROLLBACK) the transaction `begin` opened, if any statement was sent in it."""
        self.snapshot_memo = self.write_memo = None
        if self.pending_begin is not None:
            self.pending_begin = None
            return
        if self.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            self.execute("COMMIT" if commit else "ROLLBACK")

    @property
    def in_pipeline(self) -> bool:
        return self.pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF

    def read_together(self, key: str) -> dict[str, Any] | None:
        """Every value read together with `key`'s, by key (None when `key` is read alone)."""
        if key not in _READ_TOGETHER:
            return None
        values = iter(self.execute("SELECT " + ", ".join(f"({subquery})" for subqueries in _READ_TOGETHER.values()
                                                         for subquery in subqueries)).fetchone())
        return {name: next(values) if len(subqueries) == 1 else tuple(next(values) for _ in subqueries)
                for name, subqueries in _READ_TOGETHER.items()}

    def copy_rows(self, table: str, names: list[str], rows: Iterable[tuple]) -> None:
        """`rows` into `table`'s columns `names` in one COPY: a statement's triggers run once for
        them all. A pending BEGIN is sent first, on its own: COPY cannot go in a pipeline."""
        if self.pending_begin is not None:
            psycopg.Cursor.execute(self.cursor(), self.pending_begin)
            self.pending_begin = None
        if table == "meta":
            self.write_memo = None
        with self.cursor().copy(f"COPY {table} ({', '.join(names)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    @contextmanager
    def begun(self) -> Iterator[None]:
        """Around a statement: the pending BEGIN sent ahead of it, in one pipeline (the block's own,
        or the one the statement is already in)."""
        statement = self.pending_begin
        if statement is None:
            yield
            return
        self.pending_begin = None
        if self.in_pipeline:
            psycopg.Cursor.execute(self.cursor(), statement)
            yield
            return
        with self.pipeline():
            psycopg.Cursor.execute(self.cursor(), statement)
            yield

    def executemany(self, query: str, params_seq: Any) -> PgCursor:
        """As sqlite3's connections have it."""
        cur = self.cursor()
        cur.executemany(query, params_seq)
        return cur

"""Which SQL dialect a connection speaks, and the dispatch of the few store functions whose SQL
differs between SQLite and PostgreSQL.

Most of the store's SQL is shared: the PostgreSQL connection (`store/postgres/connection.py`)
translates `?` placeholders and a few SQLite spellings centrally. A function whose statements
cannot be shared is decorated with `per_dialect`; on a PostgreSQL connection the call goes to the
function of the same name in `cenotaph.store.postgres.<module>` instead."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

F = TypeVar("F", bound=Callable[..., Any])

POSTGRES = "postgres"


def is_postgres(conn: Any) -> bool:
    # sqlite3's connections carry no `dialect`; the PostgreSQL connection class does.
    return getattr(conn, "dialect", None) == POSTGRES


def batched(conn: Any) -> AbstractContextManager[Any]:
    """Statements sent together: on PostgreSQL a pipeline, one round trip until a result is read
    (an error is raised at the latest when the block ends, inside the caller's transaction).
    Inside another batch they join it: psycopg ends a nested pipeline with a round trip of its own."""
    return conn.pipeline() if is_postgres(conn) and not conn.in_pipeline else nullcontext()


def values_table(conn: Any, values: Sequence[Any]) -> tuple[str, tuple[Any, ...]]:
    """A `SELECT` of the text `values` as rows of one column, and its parameters: on PostgreSQL one array,
    so that a statement reading any number of values is one statement, prepared and planned once
    for all calls (each count of `VALUES (?),…` was a statement of its own, planned again at each
    call: 0.33 ms a memory's write); SQLite's `VALUES` list is planned in the process."""
    if is_postgres(conn):
        return "SELECT unnest(?::text[])", (list(values),)
    return f"VALUES {','.join('(?)' for _ in values)}", tuple(values)


def in_snapshot(conn: Any, key: str, read: Callable[[], Any]) -> Any:
    """`read()`, once per read transaction on PostgreSQL: its snapshot holds still (REPEATABLE
    READ, and nothing written in it), so a value read twice costs a second round trip for the
    same answer (the log's head and the full-text totals: read by several steps of a recall). The
    values the connection reads together (`PgConnection.read_together`) come with the first of
    them asked for. SQLite's reads are calls in the process: each is read."""
    memo = getattr(conn, "snapshot_memo", None)
    if memo is None:
        # A write's transaction keeps what it read with its lock (PgConnection.write_memo).
        written = getattr(conn, "write_memo", None)
        return written[key] if written is not None and key in written else read()
    if key not in memo:
        memo.update(conn.read_together(key) or {key: read()})
    return memo[key]


def per_dialect(func: F) -> F:
    """Send calls made with a PostgreSQL connection (the first argument) to the PostgreSQL twin."""
    module = func.__module__.rsplit(".", 1)[1]
    twin: list[Callable[..., Any]] = []

    @functools.wraps(func)
    def dispatch(conn: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(conn, "dialect", None) == POSTGRES:
            if not twin:
                twin.append(getattr(importlib.import_module(f"cenotaph.store.postgres.{module}"), func.__name__))
            return twin[0](conn, *args, **kwargs)
        return func(conn, *args, **kwargs)

    return dispatch  # type: ignore[return-value]


def is_postgres_url(location: Any) -> bool:
    """Whether a store location names a PostgreSQL database (libpq's URL forms)."""
    return str(location).lower().startswith(("postgresql://", "postgres://"))


def redact(url: str) -> str:
    """The URL without its password, for messages and `doctor`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{parts.username}@" if parts.username else ""
    netloc += host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))

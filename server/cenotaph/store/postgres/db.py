"""The store on a PostgreSQL server: a pool of psycopg connections, with the interface of
`store.db.Store` (write()/read() context managers yielding a connection the store modules take)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from cenotaph.store.connect import NotPermitted, StoreUnavailable, busy, busy_timeout_ms
from cenotaph.store.db import MetaMixin
from cenotaph.store.dialect import redact
from cenotaph.store.postgres import migrations
from cenotaph.store.postgres.connection import MODEL_READ, PgConnection

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5
POOL_SIZE = 8
# How long the pool's own attempts to replace a lost connection go on. Their waits double each time
# (1, 2, 4 … s): after a long outage the next would come well after the server is back, and the
# first call then would time out. Once they stop, a call that finds no connection opens one at once.
RECONNECT_TIMEOUT_S = CONNECT_TIMEOUT_S
# Writers queue on this transaction-level advisory lock, as SQLite's writers queue on BEGIN
# IMMEDIATE: the domain's read-then-write steps (the next memory id, the event chain's head) stay
# atomic across every process on every machine.
WRITE_LOCK = 0x63656E6F_00000002
# A connection handed back this recently is handed out again without the pool's check (an empty
# statement: a round trip, 5 of a remember's 28). A server gone meanwhile fails that transaction,
# which rolls back and is told as any connection lost mid-transaction is (PostgresUnavailable); the
# pool replaces the connection.
UNCHECKED_REUSE_S = 1.0


def _check(conn: PgConnection) -> None:
    if time.monotonic() - conn.returned_at > UNCHECKED_REUSE_S:
        ConnectionPool.check_connection(conn)


# The tables the triggers keep a count in, a row updated again by each write (event_head,
# fts_totals: one row each).
TRIGGER_COUNTERS = ("event_head", "fts_totals", "word_rows", "content_pairs", "concept_counts")


class PostgresUnavailable(StoreUnavailable):
    """The PostgreSQL server cannot be reached, or lacks what the store needs."""


def _describe(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _extensions(conn: PgConnection, where: str) -> None:
    """pgvector and pg_trgm in this database: created if missing and permitted."""
    for name, why in (("vector", "pgvector, for the vectors"), ("pg_trgm", "pg_trgm, for the substring search")):
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = ?", (name,)).fetchone():
            continue
        try:
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
        except psycopg.Error as exc:
            raise PostgresUnavailable(
                f"the PostgreSQL store at {where} lacks the `{name}` extension ({why}) and it could not be "
                f"created ({_describe(exc)}): run `CREATE EXTENSION {name};` in that database as its owner or a "
                "superuser (the server must have it installed)") from None


class PostgresStore(MetaMixin):
    """A PostgreSQL database with its migrations applied. Each thread's `write()`/`read()` holds
    one pooled connection for its transaction (nested calls share it); a connection lost in the
    middle rolls the transaction back on the server, and the pool replaces it."""

    dialect = "postgres"
    # What `cenotaph backup` names instead of copying a file (memory/operations/backup.py).
    backed_up_by = ("pg_dump (one consistent snapshot while others write) or continuous WAL archiving with "
                    "point-in-time recovery")

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE) -> None:
        self.url = url
        self.path = redact(url)  # what messages and `doctor` show
        self._local = threading.local()
        # This process's writes now waiting for the write lock (the advisory lock), by thread.
        self._lock_waits = 0
        self._lock_waits_lock = threading.Lock()
        self._direct: PgConnection | None = None
        try:
            with PgConnection.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                _extensions(conn, self.path)
                self.schema_version = migrations.migrate(conn)
                # The person, on this store: what every door names in the events (cenotaph.identity).
                self.role: str | None = conn.execute("SELECT current_user").fetchone()[0]
        except psycopg.errors.InsufficientPrivilege as exc:  # a newer schema to apply, which only its owner may
            raise PostgresUnavailable(f"cannot open the PostgreSQL store at {self.path}: {_describe(exc)} (its owner "
                                      "applies this Cenotaph's migrations by opening it first)") from None
        except psycopg.OperationalError as exc:
            raise PostgresUnavailable(f"cannot open the PostgreSQL store at {self.path}: {_describe(exc)}") from None
        self._pool = ConnectionPool(
            url, min_size=1, max_size=pool_size, connection_class=PgConnection, configure=register_vector,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
            check=_check, timeout=CONNECT_TIMEOUT_S * 2, name="cenotaph", open=False,
            reconnect_timeout=RECONNECT_TIMEOUT_S,
        )
        self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S * 2)

    @property
    def conn(self) -> PgConnection:
        """A connection outside any transaction (each statement commits on its own), as SQLite's
        `Store.conn` is: for tools and tests that look at the tables directly. Opened on first use."""
        if self._direct is None or self._direct.closed:
            self._direct = PgConnection.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            register_vector(self._direct)
        return self._direct

    def truncate_wal_after_commit(self) -> None:
        """Once the current write commits, VACUUM the tables a `forget` rewrites, so that the old
        row versions holding what was erased leave the tables and their indexes now rather than
        at the next autovacuum. (The server's WAL and its archives keep them for as long as the
        server's own retention says: that is the server administrator's to set.)"""
        if getattr(self._local, "conn", None) is None:
            with self._pool.connection() as conn:
                self._vacuum(conn)
        else:
            self._local.vacuum = True

    def settle(self) -> None:
        """After a bulk load (migrate-store into this store): VACUUM (ANALYZE) now, not at
        autovacuum's next round. Until then the planner has no statistics and no row count (the
        full-text IDF's N), and the GIN indexes search their unmerged pending entries one by one:
        recall ran at half speed on a freshly copied 10,000-memory store. The counters the triggers
        keep are written again first: the load's one transaction left a version of each row at every
        change, none of them prunable until it committed, and a table of one live row stayed as long
        as all of them (the log's head and the full-text totals 540 and 640 pages at 100,000
        memories, each scanned at every write; a word's count among 24 MB of versions at 10,000)."""
        with self._pool.connection() as conn:
            try:
                conn.execute(f"VACUUM (FULL) {', '.join(TRIGGER_COUNTERS)}")
                conn.execute("VACUUM (ANALYZE)")
            except psycopg.Error as exc:  # e.g. not the tables' owner: autovacuum gets there later
                log.warning("could not VACUUM (ANALYZE) after the copy (autovacuum will): %s", _describe(exc))

    def close(self) -> None:
        if self._direct is not None:
            self._direct.close()
        self._pool.close()

    @contextmanager
    def _transaction(self, writing: bool, wait: float | None = None, *, snapshot: bool = True) -> Iterator[Any]:
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is not None:  # nested: the outer transaction's connection
            if writing and not local.writing:
                conn.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
                local.writing = True
                conn.snapshot_memo = None  # what is written next would leave it stale
            yield conn
            return
        local.vacuum = False
        waited = busy_timeout_ms() / 1000 if wait is None else wait
        try:
            with self._pool.connection() as conn:
                # A read is one snapshot for the whole read, as SQLite's read transaction is:
                # counts and rows read apart must agree (recall's IDF divides them). A read of one
                # statement needs none: the statement is its own.
                if writing or snapshot:
                    conn.begin("BEGIN" if writing else "BEGIN ISOLATION LEVEL REPEATABLE READ", snapshot=not writing)
                local.conn, local.writing = conn, writing
                try:
                    if writing:
                        # Bounded, as SQLite's busy timeout bounds its writers; the lock taken with
                        # the BEGIN, in one round trip. (0 would mean no limit: a wait of 0 is the
                        # shortest one instead.)
                        # The store's model comes in the same round trip, read once the lock is held
                        # (a statement of its own: its snapshot follows the lock's wait).
                        with self._waiting(), conn.pipeline():
                            conn.execute("SELECT set_config('lock_timeout', ?, true), pg_advisory_xact_lock(?), "
                                         "set_config('lock_timeout', '0', true)",
                                         (str(max(1, int(waited * 1000))), WRITE_LOCK))
                            model = conn.execute(MODEL_READ)
                        # Read once the pipeline has synced (`_meta_value` would fetch inside it: a
                        # round trip of its own).
                        found = model.fetchone()
                        conn.write_memo = {"meta.embedding_model": found[0] if found else None}
                    yield conn
                except BaseException:
                    try:
                        conn.end(commit=False)
                    except psycopg.Error:  # the connection is lost: the server rolled back; the pool replaces it
                        pass
                    raise
                else:
                    conn.end(commit=True)
                finally:
                    local.conn = None
                # Not the pool's `reset` callback, which hands a connection back from a worker
                # thread: the next caller would find none ready and the pool would open another.
                conn.returned_at = time.monotonic()
                if local.vacuum:
                    self._vacuum(conn)
        except psycopg.errors.LockNotAvailable:
            raise busy(self._holder(), waited) from None
        except psycopg.errors.InsufficientPrivilege as exc:  # rolled back: nothing was written
            raise NotPermitted(self._refusal(exc)) from None
        except psycopg.OperationalError as exc:
            # The server went away mid-transaction: it rolled the transaction back; the pool
            # drops the broken connection and opens another for the next caller.
            raise PostgresUnavailable(f"the PostgreSQL store at {self.path} failed: {_describe(exc)}") from None

    def _vacuum(self, conn: PgConnection) -> None:
        try:
            conn.execute("VACUUM memories, memory_entities, recall_log")
        except psycopg.Error as exc:  # e.g. not the tables' owner: autovacuum gets there later
            log.warning("could not VACUUM after forgetting (autovacuum will): %s", _describe(exc))

    def _refusal(self, exc: psycopg.errors.InsufficientPrivilege) -> str:
        """One sentence naming the role needed: the reviewer-only triggers' own (migration
        `_m0009_team_roles`), or the GRANTs' "permission denied" told as a role."""
        if exc.diag.message_hint == "cenotaph: role":
            return exc.diag.message_primary or str(exc)
        try:
            with self._pool.connection() as conn:
                held = conn.execute("SELECT cenotaph_team_role()").fetchone()[0]
        except psycopg.Error:
            held = "none"
        if held in ("none", "reader"):
            has = "no team role" if held == "none" else "the reader role"
            return f"changing this store needs the writer role, and {self.role} has {has} in this store"
        return f"{self.role} may not do this in this store: {exc.diag.message_primary or exc}"

    @contextmanager
    def _waiting(self) -> Iterator[None]:
        with self._lock_waits_lock:
            self._lock_waits += 1
        try:
            yield
        finally:
            with self._lock_waits_lock:
                self._lock_waits -= 1

    @property
    def waiting_for_lock(self) -> bool:
        """Whether a write of this process waits for the write lock now (the language server
        shows it: commands._domain)."""
        return self._lock_waits > 0

    def holder(self) -> str | None:
        """Who holds the write lock (None: nobody, or unknown)."""
        return self._holder()

    def _holder(self) -> str | None:
        """The session holding the write lock, as the server knows it."""
        try:
            with self._pool.connection() as conn:
                row = conn.execute(
                    "SELECT a.pid, a.application_name, a.client_addr FROM pg_locks l JOIN pg_stat_activity a "
                    "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted LIMIT 1").fetchone()
        except psycopg.Error:
            return None
        if row is None:
            return None
        pid, application, address = row
        return f"server process {pid} ({application or 'a client'}{f' at {address}' if address else ''})"

    @contextmanager
    def write(self, wait: float | None = None) -> Iterator[Any]:
        """One write transaction, waiting for the write lock at most `wait` seconds (default: the
        busy timeout)."""
        with self._transaction(True, wait) as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Any]:
        with self._transaction(False) as conn:
            yield conn

    @contextmanager
    def read_one(self) -> Iterator[Any]:
        """A read of one statement, outside any transaction (inside the caller's, if any): its
        BEGIN and COMMIT would be a round trip more for what the statement alone sees consistently."""
        with self._transaction(False, snapshot=False) as conn:
            yield conn

    def versions(self) -> tuple[str, str]:
        with self.read() as conn:
            server = conn.execute("SHOW server_version").fetchone()[0]
            vector = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
        return server, vector

    def describe(self) -> dict[str, str]:
        server, vector = self.versions()
        return {"store_kind": "postgresql", "postgresql_version": server, "pgvector_version": vector}

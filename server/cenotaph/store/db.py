"""The store: one SQLite file shared by every Cenotaph process (or, behind the same interface, a
PostgreSQL database shared by a team: store/postgres/)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cenotaph.store import migrations
from cenotaph.store.connect import StoreUnavailable, open_connection, versions
from cenotaph.store.dialect import is_postgres_url, redact

log = logging.getLogger(__name__)

# Reader connections kept open between reads. A burst of concurrent reads (the MCP tools run on a
# pool of worker threads) opens more, and those close after their read: each holds its own page
# cache and a copy of sqlite-vec's state.
IDLE_READERS = 4


class MetaMixin:
    """The `meta` table's key-value reads and writes, the same on every store."""

    def get_meta(self, key: str) -> str | None:
        # Through read() like every read: a statement left open on the writer's connection while
        # another thread's BEGIN IMMEDIATE runs makes that write fail at once ("database is locked").
        with self.read() as conn:  # type: ignore[attr-defined]
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


class Store(MetaMixin):
    """A writer connection with its migrations applied, and reader connections beside it. Writes
    go through `write()` (BEGIN IMMEDIATE on the writer, so concurrent writers queue on the busy
    timeout instead of failing on upgrade), reads through `read()` (one snapshot, on a reader)."""

    def __init__(self, path: Path | str, *, create_folder: bool = True) -> None:
        if is_postgres_url(path):  # not a file name: SQLite would create one called that
            raise StoreUnavailable(f"{redact(str(path))} is a PostgreSQL store: open it with cenotaph.app.open_store")
        self.path = Path(path) if str(path) != ":memory:" else path
        self.conn = open_connection(path, create_folder=create_folder)
        self._lock = threading.RLock()  # the writer connection's: one write at a time in this process
        self._local = threading.local()  # this thread's open transaction's connection
        self._idle_readers: list[Any] = []  # reader connections between reads (see read())
        self._readers: list[Any] = []  # every reader connection opened, to close them all
        self._readers_lock = threading.Lock()
        self._truncate_wal = False
        self.schema_version = migrations.migrate(self.conn)
        if self.get_meta(migrations.VACUUM_PENDING):
            self._vacuum()

    def truncate_wal_after_commit(self) -> None:
        """Once the current write commits, copy the WAL into the file and empty it, so that the
        page images of what was just erased do not stay readable in the `-wal` file."""
        with self._lock:
            if self._open() is self.conn:
                self._truncate_wal = True
            else:
                self._checkpoint()

    def settle(self) -> None:
        """After a bulk load (migrate-store into this store). SQLite keeps no planner statistics
        here and its FTS5 and vec0 indexes are current as written: nothing to do."""

    def _checkpoint(self) -> None:
        if str(self.path) == ":memory:":
            return
        busy, _, _ = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:  # another process kept reading past the busy timeout; its next checkpoint empties it
            log.warning("the WAL could not be emptied yet: another process is reading the store")

    def _vacuum(self) -> None:
        """Rewrite the file once after upgrading a store that forgot memories before free pages
        were zeroed (see migrations.VACUUM_PENDING); if another process holds the file, the next
        open tries again."""
        try:
            self.conn.execute("VACUUM")
        except Exception as exc:  # noqa: BLE001 - the binding's own OperationalError; retried next open
            log.warning("could not rewrite the store to drop forgotten content from free pages yet: %s", exc)
            return
        with self.write() as conn:
            conn.execute("DELETE FROM meta WHERE key = ?", (migrations.VACUUM_PENDING,))
        self._checkpoint()

    def close(self) -> None:
        with self._lock, self._readers_lock:
            for reader in self._readers:
                reader.close()
            self._readers.clear()
            self._idle_readers.clear()
            self.conn.close()

    def _open(self) -> Any:
        """The connection of this thread's open transaction, or None outside one."""
        return getattr(self._local, "conn", None)

    @contextmanager
    def _in(self, conn: Any, begin: str) -> Iterator[Any]:
        """One transaction on `conn`, which this thread's nested reads and writes then share."""
        conn.execute(begin)
        self._local.conn = conn
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            self._local.conn = None
        conn.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[Any]:
        outer = self._open()
        if outer is self.conn:  # nested: the outer write's connection
            yield outer
            return
        if outer is not None:
            # A read's snapshot cannot become a write without failing when another process has
            # written since: write first, or after the read.
            raise RuntimeError("a write inside a read: the read's snapshot cannot be written from")
        with self._lock:
            try:
                with self._in(self.conn, "BEGIN IMMEDIATE") as conn:
                    yield conn
            except BaseException:
                self._truncate_wal = False
                raise
            if self._truncate_wal:
                self._truncate_wal = False
                self._checkpoint()

    @contextmanager
    def read(self) -> Iterator[Any]:
        """One snapshot, on a reader connection of its own: WAL lets it read while this
        process's writer waits for another process's write lock, so a read (the language
        server's event loop does them) never queues behind a write. A :memory: store is one
        connection's alone, so there reads share the writer's."""
        outer = self._open()
        if outer is not None:
            yield outer
            return
        if str(self.path) == ":memory:":
            with self._lock, self._in(self.conn, "BEGIN") as conn:
                yield conn
            return
        reader = self._reader()
        try:
            with self._in(reader, "BEGIN") as conn:
                yield conn
        finally:
            self._give_back(reader)

    def _reader(self) -> Any:
        with self._readers_lock:
            if self._idle_readers:
                return self._idle_readers.pop()
        reader = open_connection(self.path)
        with self._readers_lock:
            self._readers.append(reader)
        return reader

    def _give_back(self, reader: Any) -> None:
        with self._readers_lock:
            if reader not in self._readers:  # closed with the store meanwhile
                return
            if len(self._idle_readers) < IDLE_READERS:
                self._idle_readers.append(reader)
                return
            self._readers.remove(reader)
        reader.close()

    def versions(self) -> tuple[str, str]:
        with self.read() as conn:
            return versions(conn)

    def describe(self) -> dict[str, str]:
        """What `doctor` shows of the store's engine."""
        from cenotaph.store.connect import binding

        sqlite_version, vec_version = self.versions()
        return {"sqlite_binding": binding().name, "sqlite_version": sqlite_version, "sqlite_vec_version": vec_version}

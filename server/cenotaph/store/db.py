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


class MetaMixin:
    """The `meta` table's key-value reads and writes, the same on every store."""

    def get_meta(self, key: str) -> str | None:
        # Under the lock like every read: a read left open on the shared connection while another
        # thread's BEGIN IMMEDIATE runs makes that write fail at once with "database is locked".
        with self.read() as conn:  # type: ignore[attr-defined]
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


class Store(MetaMixin):
    """A connection with its migrations applied. Writes go through `write()` (BEGIN IMMEDIATE,
    so concurrent writers queue on the busy timeout instead of failing on upgrade), reads through
    `read()` (one snapshot)."""

    def __init__(self, path: Path | str) -> None:
        if is_postgres_url(path):  # not a file name: SQLite would create one called that
            raise StoreUnavailable(f"{redact(str(path))} is a PostgreSQL store: open it with cenotaph.app.open_store")
        self.path = Path(path) if str(path) != ":memory:" else path
        self.conn = open_connection(path)
        self._lock = threading.RLock()
        self._depth = 0
        self._truncate_wal = False
        self.schema_version = migrations.migrate(self.conn)
        if self.get_meta(migrations.VACUUM_PENDING):
            self._vacuum()

    def truncate_wal_after_commit(self) -> None:
        """Once the current write commits, copy the WAL into the file and empty it, so that the
        page images of what was just erased do not stay readable in the `-wal` file."""
        with self._lock:
            if self._depth:
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
        with self._lock:
            self.conn.close()

    @contextmanager
    def write(self) -> Iterator[Any]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self.conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self.conn
            except BaseException:
                self._depth = 0
                self._truncate_wal = False
                self.conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self.conn.execute("COMMIT")
            if self._truncate_wal:
                self._truncate_wal = False
                self._checkpoint()

    @contextmanager
    def read(self) -> Iterator[Any]:
        with self._lock:
            if self._depth:
                yield self.conn
                return
            self.conn.execute("BEGIN")
            self._depth = 1
            try:
                yield self.conn
            finally:
                self._depth = 0
                self.conn.execute("COMMIT")

    def versions(self) -> tuple[str, str]:
        with self._lock:
            return versions(self.conn)

    def describe(self) -> dict[str, str]:
        """What `doctor` shows of the store's engine."""
        from cenotaph.store.connect import binding

        sqlite_version, vec_version = self.versions()
        return {"sqlite_binding": binding().name, "sqlite_version": sqlite_version, "sqlite_vec_version": vec_version}

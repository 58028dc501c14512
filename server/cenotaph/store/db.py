"""The store: one SQLite file shared by every Cenotaph process (or, behind the same interface, a
PostgreSQL database shared by a team: store/postgres/)."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from cenotaph.store import events, graveyard_file, migrations
from cenotaph.store.connect import (
    StoreUnavailable, binding, busy_timeout_ms, fault, gone, open_connection, versions,
)
from cenotaph.store.dialect import in_snapshot, is_postgres_url, redact

log = logging.getLogger(__name__)

# Reader connections kept open between reads. A burst of concurrent reads (the MCP tools run on a
# pool of worker threads) opens more, and those close after their read: each holds its own page
# cache and a copy of sqlite-vec's state.
IDLE_READERS = 4
_NOTE_WIDTH = 200  # the holder note's bytes (store.holder_note)


def _meta_value(conn: Any, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


class MetaMixin:
    """The `meta` table's key-value reads and writes, the same on every store."""

    def get_meta(self, key: str) -> str | None:
        # Through read() like every read: a statement left open on the writer's connection while
        # another thread's BEGIN IMMEDIATE runs makes that write fail at once ("database is locked").
        with self.read() as conn:  # type: ignore[attr-defined]
            return in_snapshot(conn, f"meta.{key}", lambda: _meta_value(conn, key))

    def set_meta(self, conn: Any, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
        if getattr(conn, "write_memo", None) is not None:  # PostgreSQL's write read it with its lock
            conn.write_memo = None


class Store(MetaMixin):
    """A writer connection with its migrations applied, and reader connections beside it. Writes
    go through `write()` (BEGIN IMMEDIATE on the writer, so concurrent writers queue on the busy
    timeout instead of failing on upgrade), reads through `read()` (one snapshot, on a reader)."""

    role: str | None = None  # a file has no logins: the person is found at the door (cenotaph.identity)

    def __init__(self, path: Path | str, *, create_folder: bool = True) -> None:
        if is_postgres_url(path):  # not a file name: SQLite would create one called that
            raise StoreUnavailable(f"{redact(str(path))} is a PostgreSQL store: open it with cenotaph.app.open_store")
        self.path = Path(path) if str(path) != ":memory:" else path
        self.conn = open_connection(path, create_folder=create_folder)
        self._identity = self._file_identity()
        self._lock = threading.RLock()  # the writer connection's: one write at a time in this process
        self._local = threading.local()  # this thread's open transaction's connection
        self._idle_readers: list[Any] = []  # reader connections between reads (see read())
        self._readers: list[Any] = []  # every reader connection opened, to close them all
        self._readers_lock = threading.Lock()
        self._truncate_wal = False
        # True while a write of this process waits in BEGIN IMMEDIATE: it runs under self._lock, so
        # only another process's write can keep it waiting there.
        self.waiting_for_lock = False
        try:
            self.schema_version = migrations.migrate(self.conn)
            if self.get_meta(migrations.VACUUM_PENDING):
                self._vacuum()
        except BaseException as exc:
            self.conn.close()
            translated = self._fault(exc)
            if translated is exc:
                raise
            raise translated from None

    @property
    def holder_note(self) -> Path | None:
        """A small file beside the store naming the process that last took its write lock: what
        "the store is busy" tells whoever waited too long."""
        return None if str(self.path) == ":memory:" else Path(f"{self.path}-holder")

    def _note_holder(self) -> None:
        note = self.holder_note
        if note is None:
            return
        command = " ".join([os.path.basename(sys.argv[0]) if sys.argv else "python", *sys.argv[1:3]])
        try:
            # Written over in place at a fixed width: truncating the file first took 2–3 ms of every
            # write here (the file system frees and allocates its block), this 3 µs.
            fd = os.open(note, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.write(fd, f"{os.getpid()} {command}".encode()[:_NOTE_WIDTH].ljust(_NOTE_WIDTH))
            finally:
                os.close(fd)
        except OSError:  # only a courtesy to the next waiter: a full disk must not fail the write
            pass

    def _file_identity(self) -> tuple[int, int] | None:
        if str(self.path) == ":memory:":
            return None
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return found.st_dev, found.st_ino

    def _check_in_place(self) -> None:
        """Refuse a write once the store's file is no longer at its path (its folder moved, its
        mount gone): in WAL mode SQLite would write on through the open descriptors, to a file no
        later process finds (on a tmpfs, one that vanishes with the last descriptor)."""
        if self._identity is not None and self._file_identity() != self._identity:
            raise gone(self.path)

    def holder(self) -> str | None:
        """Who holds the write lock, as far as the note says (None: unknown, or it has ended)."""
        note = self.holder_note
        try:
            pid_text, _, command = note.read_text().rstrip().partition(" ") if note else ("", "", "")
            pid = int(pid_text)
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return f"process {pid} ({command})"

    def _fault(self, exc: BaseException, wait: float | None = None) -> BaseException:
        """A binding's error as the StoreFault that says what happened, else itself."""
        if not isinstance(exc, binding().module.DatabaseError) or isinstance(exc, binding().module.IntegrityError):
            return exc
        text = str(exc).lower()
        holder = self.holder() if "locked" in text or "busy" in text else None
        return fault(exc, self.path, holder, wait) or exc

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
            self._rollback(conn)
            raise
        finally:
            self._local.conn = None
        try:
            conn.execute("COMMIT")
        except BaseException:  # a commit that fails (busy, disk full) must not leave the transaction open
            self._rollback(conn)
            raise

    @staticmethod
    def _rollback(conn: Any) -> None:
        try:
            conn.execute("ROLLBACK")
        except binding().module.OperationalError:  # SQLite already rolled it back (an I/O error does)
            pass

    @contextmanager
    def write(self, wait: float | None = None) -> Iterator[Any]:
        """One write transaction; it waits for another process's write lock at most `wait`
        seconds (default: the busy timeout), then raises StoreBusy naming who holds it."""
        outer = self._open()
        if outer is self.conn:  # nested: the outer write's connection
            yield outer
            return
        if outer is not None:
            # A read's snapshot cannot become a write without failing when another process has
            # written since: write first, or after the read.
            raise RuntimeError("a write inside a read: the read's snapshot cannot be written from")
        with self._lock:
            if wait is not None:
                self.conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            try:
                self.waiting_for_lock = True
                with self._in(self.conn, "BEGIN IMMEDIATE") as conn:
                    self.waiting_for_lock = False
                    self._check_in_place()
                    self._note_holder()
                    head = events.last_seq(conn)
                    yield conn
            except BaseException as exc:
                self.waiting_for_lock = False
                self._truncate_wal = False
                translated = self._fault(exc, wait)
                if translated is exc:
                    raise
                raise translated from None
            finally:
                if wait is not None:
                    self.conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
            if self._truncate_wal:
                self._truncate_wal = False
                self._checkpoint()
            self._graveyard_file_after(head)

    @property
    def graveyard_file(self) -> Path | None:
        """Where the graveyard's copy for agents' hooks lives (store/graveyard_file.py)."""
        return None if str(self.path) == ":memory:" else graveyard_file.path_for(self.path)

    def write_graveyard_file(self) -> None:
        """Rewrite the graveyard's copy from the store. Only a courtesy to the next hook, which
        reads the store when the copy is missing or stale: a full disk must not fail a write."""
        if self.graveyard_file is None:
            return
        try:
            with self.read() as conn:
                graveyard_file.write(self.graveyard_file, graveyard_file.read(conn))
        except OSError as exc:
            log.debug("the graveyard's copy was not written: %s", exc)

    def _graveyard_file_after(self, head: int) -> None:
        """After a committed write: the copy is rewritten if the write changed the graveyard."""
        if self.graveyard_file is None:
            return
        with self.read() as conn:
            changed = events.touches_since(conn, head, graveyard_file.TARGETS)
        if changed:
            self.write_graveyard_file()

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
        except BaseException as exc:
            translated = self._fault(exc)
            if translated is exc:
                raise
            raise translated from None
        finally:
            self._give_back(reader)

    def read_one(self) -> AbstractContextManager[Any]:
        """A read of one statement: here a read like any other (PostgreSQL's differs)."""
        return self.read()

    def _reader(self) -> Any:
        with self._readers_lock:
            if self._idle_readers:
                return self._idle_readers.pop()
        # A new reader opens the file by its path: once the file has left it (folder moved, mount
        # gone), SQLite would create an empty store there and the read would fail on a missing table.
        self._check_in_place()
        reader = open_connection(self.path, create_folder=False)
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

"""Opening the SQLite file: a binding that can load sqlite-vec, WAL, foreign keys, a busy timeout,
and autocommit so that every write transaction is an explicit `BEGIN IMMEDIATE`."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

# How long a write waits for another process's write lock before it gives up with "the store is
# busy" (SQLite has one writer at a time). CENOTAPH_BUSY_TIMEOUT (seconds) sets it.
BUSY_TIMEOUT_MS = 30_000


def _log() -> logging.Logger:
    # logging is imported only to log: an agent's hook opens the store on every denial.
    import logging

    return logging.getLogger(__name__)


def busy_timeout_ms() -> int:
    raw = os.environ.get("CENOTAPH_BUSY_TIMEOUT")
    if not raw:
        return BUSY_TIMEOUT_MS
    try:
        return max(0, int(float(raw) * 1000))
    except ValueError:
        _log().warning("ignoring CENOTAPH_BUSY_TIMEOUT=%r: not a number of seconds", raw)
        return BUSY_TIMEOUT_MS

# PyPI bindings that bundle an SQLite able to load extensions, in order of preference.
_FALLBACK_BINDINGS = ("sqlean", "pysqlite3")


class StoreUnavailable(RuntimeError):
    """The store cannot be used: no SQLite binding here can load sqlite-vec, its address names no
    store (another scheme, a file that is not SQLite, a missing folder), or the file cannot be
    read or written (StoreFault)."""


class NotPermitted(StoreUnavailable):
    """The store refused the change to the person asking (a PostgreSQL role without the right:
    docs/postgresql.md): nothing was written, and the message names the role needed."""


class StoreFault(StoreUnavailable):
    """The store's file failed under an operation (full disk, read-only, gone, damaged, or busy
    past the wait): the transaction was rolled back, and the message says what happened."""


class StoreBusy(StoreFault):
    """Another process held the write lock for longer than the busy timeout."""


_FAULTS = (  # SQLite's message → what the person is told (the store's path is added)
    (("database is locked", "database is busy"), None),
    (("database or disk is full",), "the disk holding the store is full: nothing was written"),
    (("readonly database", "read-only"), "the store is read-only (check the file's and its folder's permissions): "
                                         "nothing was written"),
    (("malformed", "not a database", "file is not a database"),
     "the store is damaged: run `cenotaph repair` (or restore a backup with `cenotaph restore`)"),
    (("disk i/o error", "unable to open database file", "no such file"),
     "the store's file could not be read or written (a full disk, or its folder went away): nothing was written"),
)


def busy(holder: str | None, waited: float) -> StoreBusy:
    return StoreBusy(f"the store is busy: {holder or 'another process'} holds it (waited {waited:g} s; "
                     "CENOTAPH_BUSY_TIMEOUT sets how long) — try again when it is done")


def gone(path: Path | str) -> StoreFault:
    return StoreFault(f"the store's file is gone from its folder (moved, deleted, or a mount that went away): "
                      f"nothing was written ({path})")


def fault(exc: BaseException, path: Path | str, holder: str | None = None,
          waited: float | None = None) -> StoreFault | None:
    """The StoreFault for a binding's error, or None when it is not one of the file's faults."""
    text = str(exc).lower()
    for needles, message in _FAULTS:
        if any(n in text for n in needles):
            if message is None:
                return busy(holder, busy_timeout_ms() / 1000 if waited is None else waited)
            return StoreFault(f"{_cause(text, path) or message} ({path}; SQLite said: {exc})")
    return None


def _cause(text: str, path: Path | str) -> str | None:
    """What the file system says of an I/O error or a file SQLite could not open: SQLite reports
    a full disk met while extending its shared-memory file, or a read-only mount, no better."""
    if "disk i/o" not in text and "unable to open" not in text:
        return None
    folder = Path(path).parent
    if not folder.is_dir():
        return "the store's folder is gone (a mount that went away?): nothing was written"
    if not os.access(folder, os.W_OK):
        return "the store is read-only (its folder cannot be written): nothing was written"
    if _disk_full(path):
        return "the disk holding the store is full: nothing was written"
    return None


def _disk_full(path: Path | str) -> bool:
    """Whether the file system holding `path` has (next to) no room left: SQLite reports a write
    that found none as an I/O error when it was extending its shared-memory or journal file."""
    try:
        stat = os.statvfs(Path(path).parent)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < 64 * 1024


SCHEMES = ("postgresql://", "postgres://")  # the URLs that are stores; anything else is a file path
# `scheme:/…`: a URL, not a file name (a Windows drive, `C:\…`, has a one-letter scheme and a backslash).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")


def check_address(location: Path | str) -> None:
    """Refuse a URL of another scheme before it becomes a file of that name (`postgresq://…`
    would create a SQLite file whose path holds the password)."""
    text = str(location)
    if _URL.match(text) and not text.lower().startswith(SCHEMES):
        from cenotaph.store.dialect import redact

        raise StoreUnavailable(f"{redact(text)!r} is not a store address: a store is a "
                               f"{' or '.join(SCHEMES)} URL or a file path")


def check_file(path: Path, *, create_folder: bool) -> None:
    """Refuse a folder, and a missing folder unless asked to create it (a typo in `--db` must not
    leave folders behind)."""
    if path.is_dir():
        raise StoreUnavailable(f"{path} is a folder, not a store file")
    if not path.exists() and not path.parent.is_dir():
        if not create_folder:
            raise StoreUnavailable(f"the folder {path.parent} does not exist: create it, or name a store in "
                                   "a folder that does (only the default store's folder is created)")
        path.parent.mkdir(parents=True, exist_ok=True)


def _check_header(b: Binding, conn: Any, path: Path | str) -> None:
    """Refuse, untouched, a file that is not SQLite. SQLite reads the header, not a descriptor of
    our own: closing one would drop every POSIX lock this process holds on the file, its other
    connections' too, and the next process to close the store would take this one for gone and
    delete the WAL under it (its later commits lost, its reads "malformed": SQLite's
    howtocorrupt.html, 2.2). SQLite's own descriptors stay open while its locks are held."""
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    except b.module.DatabaseError as exc:
        if "not a database" not in str(exc).lower():
            raise
        raise StoreUnavailable(f"{path} is not a store (not an SQLite file); it was left untouched") from None


@dataclass(frozen=True, slots=True)
class Binding:
    module: ModuleType
    name: str
    connection: type  # the binding's Connection, able to carry a copy of the vector signs


def _connection_class(module: ModuleType) -> type:
    class Connection(module.Connection):  # type: ignore[name-defined,misc]
        """A connection that keeps its own copy of the vector table's signs (store/sign_index.py)."""

        sign_index: Any = None

    return Connection


def _load_sqlite_vec(conn: Any) -> None:
    # The extension is found next to the `sqlite_vec` package without importing it: the package
    # imports numpy, which would delay the language server's answer to `initialize`.
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or spec.origin is None:
        raise ImportError("sqlite-vec is not installed")
    conn.load_extension(os.path.join(os.path.dirname(spec.origin), "vec0"))


def _can_load_extensions(module: ModuleType) -> bool:
    try:
        conn = module.connect(":memory:")
    except Exception:  # noqa: BLE001 - a broken binding is simply not a candidate
        return False
    try:
        conn.enable_load_extension(True)
        _load_sqlite_vec(conn)
        return True
    except Exception:  # noqa: BLE001
        return False
    finally:
        conn.close()


_binding: Binding | None = None


def binding() -> Binding:
    """The standard library's sqlite3 when it can load extensions, else a PyPI binding that can."""
    global _binding
    if _binding is not None:
        return _binding
    candidates: list[tuple[str, ModuleType]] = [("sqlite3", sqlite3)]
    for name in _FALLBACK_BINDINGS:
        try:
            candidates.append((name, importlib.import_module(name if name != "pysqlite3" else "pysqlite3.dbapi2")))
        except ImportError:
            continue
    for name, module in candidates:
        if _can_load_extensions(module):
            _binding = Binding(module=module, name=name, connection=_connection_class(module))
            if "logging" in sys.modules:  # the CLI and the servers set it up; an agent's hook does not import it
                _log().debug("using SQLite binding %s", name)
            return _binding
    raise StoreUnavailable(
        "This Python's sqlite3 cannot load extensions and no fallback binding is installed. "
        "Install one that can: pip install sqlean-py (or pysqlite3-binary)."
    )


def open_connection(path: Path | str, *, readonly: bool = False, create_folder: bool = True) -> Any:
    """A connection with sqlite-vec loaded, WAL, foreign keys and a busy timeout."""
    b = binding()
    try:
        return _open(b, path, readonly, create_folder)
    except b.module.OperationalError as exc:
        found = fault(exc, path)
        if found is None:
            raise
        raise found from None
    except OSError as exc:  # its folder could not be made: read-only, or on a mount that went away
        raise StoreFault(f"the store's folder cannot be used ({path}): {exc.strerror or exc}") from None


def _open(b: Binding, path: Path | str, readonly: bool, create_folder: bool) -> Any:
    timeout_ms = busy_timeout_ms()
    if str(path) != ":memory:":
        check_address(path)
        check_file(Path(path), create_folder=create_folder)
    conn = b.module.connect(str(path), isolation_level=None, check_same_thread=False, timeout=timeout_ms / 1000,
                            factory=b.connection)
    try:
        _check_header(b, conn, path)
        _configure(conn, path, timeout_ms, readonly)
    except BaseException:
        conn.close()
        raise
    return conn


def _configure(conn: Any, path: Path | str, timeout_ms: int, readonly: bool) -> None:
    conn.enable_load_extension(True)
    _load_sqlite_vec(conn)
    conn.enable_load_extension(False)
    conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
    conn.execute("PRAGMA foreign_keys = ON")
    # Forgotten means gone: deleted content is overwritten with zeros, not left in free pages.
    conn.execute("PRAGMA secure_delete = ON")
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    if readonly:
        conn.execute("PRAGMA query_only = ON")


def versions(conn: Any) -> tuple[str, str]:
    """(SQLite version, sqlite-vec version) of a connection."""
    sqlite_version, vec_version = conn.execute("SELECT sqlite_version(), vec_version()").fetchone()
    return sqlite_version, vec_version

"""Opening the SQLite file: a binding that can load sqlite-vec, WAL, foreign keys, a busy timeout,
and autocommit so that every write transaction is an explicit `BEGIN IMMEDIATE`."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 30_000

# PyPI bindings that bundle an SQLite able to load extensions, in order of preference.
_FALLBACK_BINDINGS = ("sqlean", "pysqlite3")


class StoreUnavailable(RuntimeError):
    """The store cannot be opened: no SQLite binding on this Python can load sqlite-vec, or its
    address names no store (another scheme, a file that is not SQLite, a missing folder)."""


SCHEMES = ("postgresql://", "postgres://")  # the URLs that are stores; anything else is a file path
# `scheme:/…`: a URL, not a file name (a Windows drive, `C:\…`, has a one-letter scheme and a backslash).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")
_SQLITE_HEADER = b"SQLite format 3\x00"


def check_address(location: Path | str) -> None:
    """Refuse a URL of another scheme before it becomes a file of that name (`postgresq://…`
    would create a SQLite file whose path holds the password)."""
    text = str(location)
    if _URL.match(text) and not text.lower().startswith(SCHEMES):
        from cenotaph.store.dialect import redact

        raise StoreUnavailable(f"{redact(text)!r} is not a store address: a store is a "
                               f"{' or '.join(SCHEMES)} URL or a file path")


def check_file(path: Path, *, create_folder: bool) -> None:
    """Refuse, untouched, a path that is not a SQLite file, and a missing folder unless asked
    to create it (a typo in `--db` must not leave folders behind)."""
    if path.is_dir():
        raise StoreUnavailable(f"{path} is a folder, not a store file")
    if path.exists():
        try:
            with path.open("rb") as file:
                header = file.read(len(_SQLITE_HEADER))
        except OSError as exc:
            raise StoreUnavailable(f"{path} cannot be read: {exc.strerror}") from None
        if header and header != _SQLITE_HEADER:
            raise StoreUnavailable(f"{path} is not a store (not an SQLite file); it was left untouched")
    elif not path.parent.is_dir():
        if not create_folder:
            raise StoreUnavailable(f"the folder {path.parent} does not exist: create it, or name a store in "
                                   "a folder that does (only the default store's folder is created)")
        path.parent.mkdir(parents=True, exist_ok=True)


@dataclass(frozen=True, slots=True)
class Binding:
    module: ModuleType
    name: str


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
            _binding = Binding(module=module, name=name)
            log.debug("using SQLite binding %s", name)
            return _binding
    raise StoreUnavailable(
        "This Python's sqlite3 cannot load extensions and no fallback binding is installed. "
        "Install one that can: pip install sqlean-py (or pysqlite3-binary)."
    )


def open_connection(path: Path | str, *, readonly: bool = False, create_folder: bool = True) -> Any:
    """A connection with sqlite-vec loaded, WAL, foreign keys and a busy timeout."""
    b = binding()
    if str(path) != ":memory:":
        check_address(path)
        check_file(Path(path), create_folder=create_folder)
    conn = b.module.connect(str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.enable_load_extension(True)
    _load_sqlite_vec(conn)
    conn.enable_load_extension(False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    # Forgotten means gone: deleted content is overwritten with zeros, not left in free pages.
    conn.execute("PRAGMA secure_delete = ON")
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    if readonly:
        conn.execute("PRAGMA query_only = ON")
    return conn


def versions(conn: Any) -> tuple[str, str]:
    """(SQLite version, sqlite-vec version) of a connection."""
    sqlite_version, vec_version = conn.execute("SELECT sqlite_version(), vec_version()").fetchone()
    return sqlite_version, vec_version

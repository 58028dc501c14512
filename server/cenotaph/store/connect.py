"""Opening the SQLite file: a binding that can load sqlite-vec, WAL, foreign keys, a busy timeout,
and autocommit so that every write transaction is an explicit `BEGIN IMMEDIATE`."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
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
    """No SQLite binding on this Python can load sqlite-vec."""


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


def open_connection(path: Path | str, *, readonly: bool = False) -> Any:
    """A connection with sqlite-vec loaded, WAL, foreign keys and a busy timeout."""
    b = binding()
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
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

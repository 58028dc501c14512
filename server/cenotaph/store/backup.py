"""Copying store files with SQLite's online backup API: consistent while other processes write."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cenotaph.store.connect import binding

SQLITE_HEADER = b"SQLite format 3\x00"


class NotADatabase(Exception):
    """The file is not an SQLite database."""


def is_sqlite(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def copy(source: Path, target: Path, *, readonly_source: bool = False) -> None:
    """Copy the database at `source` to `target` in one backup step (one consistent snapshot),
    as a self-contained file (rollback journal, no -wal beside it). `target` appears whole or not at all."""
    module = binding().module
    uri = f"file:{quote(str(source.resolve()))}" + ("?mode=ro" if readonly_source else "")
    partial = target.with_name(target.name + ".partial")
    src = module.connect(uri, uri=True)
    try:
        dst = module.connect(str(partial))
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")
        finally:
            dst.close()
        os.replace(partial, target)
    except module.DatabaseError as exc:
        raise NotADatabase(str(exc)) from exc
    finally:
        src.close()
        partial.unlink(missing_ok=True)


def read_only(path: Path) -> Any:
    """A plain read-only connection: the file stays as it is (no switch to WAL, nothing beside it)."""
    return binding().module.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)


def tables(conn: Any) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def meta(conn: Any, key: str) -> str | None:
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return found[0] if found else None

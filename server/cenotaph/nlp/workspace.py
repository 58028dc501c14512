"""What a workspace's own files say about the names its code imports, each kind of document
asked of the ecosystem that reads it (`base.Document.import_names`: Cargo.toml renames for
Rust, the installed distributions for Python).

Read from disk, cached per file or environment and re-read when its modification time moves, so
a re-scan while typing costs a few `stat` calls.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from cenotaph.nlp import ecosystems
from cenotaph.nlp.ecosystems.base import NONE, ImportNames, ImportResolver

RECHECK_SECONDS = 2.0  # how long an answer stands before the files behind it are looked at again


class ImportNameCache:
    """ImportNames for the documents of a workspace, each file read once per modification; an
    answer is reused for RECHECK_SECONDS without touching the disk, as a document is re-scanned
    on every pause in typing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._recent: dict[tuple[str, str], tuple[float, ImportNames]] = {}  # (kind, directory)
        self._resolvers: dict[str, ImportResolver] = {}  # by document kind

    def for_document(self, path: str, kind: str, folders: Iterable[Path]) -> ImportNames:
        """What the workspace folder holding the document at `path` (the deepest of `folders`
        that does) says about the document's imports."""
        resolver = self._resolver(kind)
        if resolver is None:
            return NONE
        key = (kind, os.path.dirname(path))
        now = self._clock()
        recent = self._recent.get(key)
        if recent is not None and now - recent[0] < RECHECK_SECONDS:
            return recent[1]
        document = Path(path)
        folder = next((f for f in sorted(folders, key=lambda f: len(f.parts), reverse=True)
                       if document.is_relative_to(f)), None)
        names = NONE if folder is None else resolver.names(document, folder)
        self._recent[key] = (now, names)
        return names

    def _resolver(self, kind: str) -> ImportResolver | None:
        if (resolver := self._resolvers.get(kind)) is None:
            document = ecosystems.load().documents.get(kind)
            make = document and document.import_names
            if make is None:
                return None
            resolver = self._resolvers[kind] = make()
        return resolver

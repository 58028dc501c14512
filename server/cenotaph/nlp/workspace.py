"""What a workspace's own files say about the names its code imports, each kind of document
asked of the ecosystem that reads it (`base.Document.import_names`: Cargo.toml renames for
Rust, the installed distributions for Python), and which manifests a repository holds and what
they declare (`Manifests`: where `abandon NAME` learns NAME's ecosystem).

Read from disk, cached per file or environment and re-read when its modification time moves, so
a re-scan while typing costs a few `stat` calls.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cenotaph.nlp import ecosystems
from cenotaph.nlp.detect import MAX_MANIFEST_BYTES, Declaration, declarations
from cenotaph.nlp.ecosystems.base import NONE, ImportNames, ImportResolver, Stamp, stamp
from cenotaph.nlp.names import fold

log = logging.getLogger(__name__)

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


# ---------------------------------------------------------------------------------------------
# A repository's manifests

# Folders that hold other projects' files (installed packages, build output), never the
# repository's own manifests; hidden folders (.git, .venv) are skipped as well.
_NOT_OURS = frozenset({"node_modules", "target", "vendor", "dist", "build", "site-packages", "__pycache__", "venv",
                       "env", "third_party", "testdata", "fixtures"})
MAX_DEPTH = 3  # how far below the root a manifest is looked for (a monorepo's `services/api/`)
MAX_FOLDERS = 2000  # a bound on the walk, for a home folder opened by mistake


@dataclass(frozen=True, slots=True)
class Manifest:
    path: str  # relative to the repository's root, '/'-separated
    kind: str  # its document kind: "package_json", "cargo_toml", …
    ecosystem: str  # the ecosystem whose document it is ("container" for a Dockerfile)
    # Whether it says what the repository's own code is written against (pyproject.toml,
    # package.json, Cargo.toml, go.mod…: `base.Document.at_root`), not its tooling or its image.
    primary: bool
    declarations: tuple[Declaration, ...]


def _document_ecosystems() -> dict[str, str]:
    return {document.kind: ecosystem.name for ecosystem in ecosystems.load().ecosystems
            for document in ecosystem.documents}


class Manifests:
    """The manifests of a repository and what each declares, each file read once per
    modification (a language server asks on every abandon; the CLI once), and what its
    environment says import names stand for."""

    def __init__(self) -> None:
        self._read: dict[Path, tuple[Stamp, Manifest]] = {}
        self._imports = ImportNameCache()

    def _import_table(self, ecosystem: str, root: Path | None) -> dict[str, str]:
        """Folded import name → folded package, as the repository's own files and environment say
        (its .venv's installed distributions: `packages_distributions()` of that environment,
        read from its metadata without importing anything)."""
        if root is None:
            return {}
        for document in ecosystems.get(ecosystem).documents:
            if document.import_names is not None:
                # Each of its manifests' folders says its own too (a Cargo member's renames and
                # those it inherits from the workspace root): the root's answer first.
                folders = dict.fromkeys([root, *((root / m.path).parent for m in self.of(root)
                                                 if m.ecosystem == ecosystem)])
                table: dict[str, str] = {}
                for folder in folders:
                    names = self._imports.for_document(str(folder / "_"), document.kind, [root])
                    for module, package in (names.cargo if ecosystem == "cargo" else names.pypi).items():
                        table.setdefault(module, package)
                return table
        return {}

    def resolve(self, name: str, ecosystem: str, root: Path | None) -> str | None:
        """The package the import name `name` stands for in the repository, if it says."""
        return self._import_table(ecosystem, root).get(fold(name))

    def import_names(self, key: str, ecosystem: str, root: Path | None) -> set[str]:
        """The folded import names the repository says stand for the package `key`."""
        return {module for module, package in self._import_table(ecosystem, root).items() if package == key}

    def of(self, root: Path) -> list[Manifest]:
        """The manifests under `root` (to MAX_DEPTH folders down), shallowest first."""
        owners = _document_ecosystems()
        found = []
        for path in _manifest_files(root):
            kind = ecosystems.document_kind(f"{path.parent.name}/{path.name}")
            current = stamp(path)
            if kind is None or current is None or current[1] > MAX_MANIFEST_BYTES:
                continue
            cached = self._read.get(path)
            if cached is None or cached[0] != current:
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError as exc:
                    log.debug("manifest %s: %s", path, exc)
                    continue
                scan = declarations(str(path), text)
                document = ecosystems.document(kind)
                cached = self._read[path] = (current, Manifest(
                    path.relative_to(root).as_posix(), kind, owners[kind], document.at_root,
                    scan.declarations if scan is not None else ()))
            found.append(cached[1])
        return found


def _manifest_files(root: Path) -> list[Path]:
    manifests = ecosystems.manifest_kinds()
    found: list[Path] = []
    folders = [(root, 0)]
    visited = 0
    while folders and visited < MAX_FOLDERS:
        folder, depth = folders.pop(0)
        visited += 1
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH and not entry.name.startswith(".") and entry.name.lower() not in _NOT_OURS:
                        folders.append((Path(entry.path), depth + 1))
                elif entry.is_file() and ecosystems.document_kind(
                        entry.name if folder == root else f"{folder.name}/{entry.name}") in manifests:
                    found.append(Path(entry.path))
            except OSError:
                continue
    return found

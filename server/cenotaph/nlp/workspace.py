"""What a workspace's own files say about the names its code imports: the crates Cargo.toml
renames (`memmap = { package = "memmap2" }` makes `use memmap::` the crate memmap2) and the
import names the distributions installed in the workspace's Python environment provide
(`yaml_env_tag` is the distribution pyyaml-env-tag).

Read from disk, cached per file or environment and re-read when its modification time moves, so
a re-scan while typing costs a few `stat` calls.
"""

from __future__ import annotations

import csv
import logging
import os
import time
import tomllib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cenotaph.nlp.names import fold

log = logging.getLogger(__name__)

_Stamp = tuple[int, int]  # (st_mtime_ns, st_size)


@dataclass(frozen=True, slots=True, eq=False)  # compared by identity: cached, so stable while files are
class ImportNames:
    """Folded import name → the folded package it stands for, per ecosystem."""

    cargo: Mapping[str, str] = field(default_factory=dict)  # crate key in code → crate on crates.io
    pypi: Mapping[str, str] = field(default_factory=dict)  # top-level module → distribution

    def resolve(self, name: str, ecosystem: str) -> str | None:
        table = self.cargo if ecosystem == "cargo" else self.pypi if ecosystem == "pypi" else None
        return table.get(fold(name)) if table else None


NONE = ImportNames()


def _stamp(path: Path) -> _Stamp | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


# ---------------------------------------------------------------------------------------------
# Cargo


@dataclass(frozen=True, slots=True)
class _CargoManifest:
    renames: dict[str, str]  # dependency key → package, for the keys renamed here
    inherited: frozenset[str]  # keys declared `{ workspace = true }`
    workspace_renames: dict[str, str] | None  # [workspace.dependencies] renames; None: no [workspace]


_CARGO_TABLES = ("dependencies", "dev-dependencies", "build-dependencies", "dev_dependencies",
                 "build_dependencies")


def _dependency_tables(data: dict) -> list[dict]:
    tables = [data.get(name) for name in _CARGO_TABLES]
    for target in (data.get("target") or {}).values():
        if isinstance(target, dict):
            tables.extend(target.get(name) for name in _CARGO_TABLES)
    return [table for table in tables if isinstance(table, dict)]


def _renames(table: dict) -> dict[str, str]:
    return {fold(key): fold(spec["package"]) for key, spec in table.items()
            if isinstance(spec, dict) and isinstance(spec.get("package"), str)}


def _read_cargo(path: Path) -> _CargoManifest | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        log.debug("not reading %s: %s", path, exc)
        return None
    renames: dict[str, str] = {}
    inherited = set()
    for table in _dependency_tables(data):
        renames.update(_renames(table))
        inherited.update(fold(key) for key, spec in table.items()
                         if isinstance(spec, dict) and spec.get("workspace") is True)
    workspace = data.get("workspace")
    workspace_renames = None
    if isinstance(workspace, dict):
        dependencies = workspace.get("dependencies")
        workspace_renames = _renames(dependencies) if isinstance(dependencies, dict) else {}
    return _CargoManifest(renames, frozenset(inherited), workspace_renames)


KINDS = frozenset({"rust", "python"})  # the document kinds whose imports the workspace names
RECHECK_SECONDS = 2.0  # how long an answer stands before the files behind it are looked at again


class ImportNameCache:
    """ImportNames for the documents of a workspace, each file read once per modification; an
    answer is reused for RECHECK_SECONDS without touching the disk, as a document is re-scanned
    on every pause in typing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._recent: dict[tuple[str, str], tuple[float, ImportNames]] = {}  # (kind, directory)
        self._manifests: dict[Path, tuple[_Stamp, _CargoManifest | None]] = {}
        self._cargo: dict[tuple, tuple[tuple, ImportNames]] = {}  # (member, root) manifest → (stamps, names)
        self._environments: dict[Path, tuple[tuple, ImportNames]] = {}

    def for_document(self, path: str, kind: str, folders: Iterable[Path]) -> ImportNames:
        """What the workspace folder holding the document at `path` (the deepest of `folders`
        that does) says about the document's imports."""
        if kind not in KINDS:
            return NONE
        key = (kind, os.path.dirname(path))
        now = self._clock()
        recent = self._recent.get(key)
        if recent is not None and now - recent[0] < RECHECK_SECONDS:
            return recent[1]
        document = Path(path)
        folder = next((f for f in sorted(folders, key=lambda f: len(f.parts), reverse=True)
                       if document.is_relative_to(f)), None)
        if folder is None:
            names = NONE
        elif kind == "rust":
            names = self._cargo_names(document, folder)
        else:
            names = self._python_names(folder)
        self._recent[key] = (now, names)
        return names

    # --- Cargo -----------------------------------------------------------------------------

    def _manifest(self, path: Path) -> tuple[_Stamp, _CargoManifest | None] | None:
        stamp = _stamp(path)
        if stamp is None:
            return None
        cached = self._manifests.get(path)
        if cached is None or cached[0] != stamp:
            cached = self._manifests[path] = (stamp, _read_cargo(path))
        return cached

    def _cargo_names(self, document: Path, folder: Path) -> ImportNames:
        """The renames of the nearest Cargo.toml above `document`, and those it inherits from
        the workspace root's `[workspace.dependencies]`."""
        nearest = root = None
        directory = document.parent
        while directory.is_relative_to(folder):
            found = self._manifest(directory / "Cargo.toml")
            if found is not None and found[1] is not None:
                if nearest is None:
                    nearest = (directory / "Cargo.toml", *found)
                if found[1].workspace_renames is not None:
                    root = (directory / "Cargo.toml", *found)
                    break
            if directory == directory.parent:
                break
            directory = directory.parent
        if nearest is None:
            return NONE
        key, stamps = (nearest[0], root and root[0]), (nearest[1], root and root[1])
        cached = self._cargo.get(key)
        if cached is None or cached[0] != stamps:
            member: _CargoManifest = nearest[2]
            workspace_renames = root[2].workspace_renames if root else {}
            # `memmap = { workspace = true }` takes the workspace's rename along.
            renames = {k: v for k, v in (workspace_renames or {}).items() if k in member.inherited}
            renames.update(member.renames)
            cached = self._cargo[key] = (stamps, ImportNames(cargo=renames))
        return cached[1]

    # --- Python ----------------------------------------------------------------------------

    def _python_names(self, folder: Path) -> ImportNames:
        site_packages = _site_packages(folder)
        if not site_packages:
            return NONE
        stamps = tuple((directory, _stamp(directory)) for directory in site_packages)
        cached = self._environments.get(folder)
        if cached is None or cached[0] != stamps:
            cached = self._environments[folder] = (stamps, ImportNames(pypi=_distributions(site_packages)))
        return cached[1]


# ---------------------------------------------------------------------------------------------
# Python environments


def _site_packages(folder: Path) -> list[Path]:
    """The site-packages of the workspace's environment: `.venv` or `venv` in the folder, else
    the one $VIRTUAL_ENV names."""
    candidates = [folder / ".venv", folder / "venv"]
    if virtual_env := os.environ.get("VIRTUAL_ENV"):
        candidates.append(Path(virtual_env))
    for environment in candidates:
        if not (environment / "pyvenv.cfg").is_file():
            continue
        found = sorted((environment / "lib").glob("python*/site-packages"))
        found += [path for path in [environment / "Lib" / "site-packages"] if path.is_dir()]  # Windows
        if found:
            return found
    return []


def _distributions(site_packages: list[Path]) -> dict[str, str]:
    """Folded top-level import name → the folded distribution that installs it; a name that
    several distributions share (a namespace such as `google`) stands for none of them."""
    providers: dict[str, set[str]] = defaultdict(set)
    for directory in site_packages:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")) or not entry.is_dir():
                continue
            distribution = fold(entry.name.rsplit(".", 1)[0].split("-", 1)[0])
            for module in _top_level(Path(entry.path)):
                providers[fold(module)].add(distribution)
    return {module: next(iter(dists)) for module, dists in providers.items() if len(dists) == 1}


def _top_level(metadata: Path) -> set[str]:
    """The import names a distribution provides: its `top_level.txt`, else the first part of
    the paths in its RECORD."""
    try:
        return {line.strip() for line in (metadata / "top_level.txt").read_text(encoding="utf-8").splitlines()
                if line.strip() and "/" not in line}
    except (OSError, UnicodeDecodeError):
        pass
    try:
        rows = (metadata / "RECORD").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return set()
    modules = set()
    for row in csv.reader(rows):
        if not row:
            continue
        top = row[0].split("/", 1)[0]
        if "/" in row[0]:
            if not top.endswith((".dist-info", ".egg-info", ".data")) and top not in ("..", "__pycache__"):
                modules.add(top)
        elif top.endswith((".py", ".so", ".pyd")):
            modules.add(top.split(".", 1)[0])  # a module file: `six.py`, `_cffi_backend.cpython-311-….so`
    return modules

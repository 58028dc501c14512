"""Team memory in the repository: `.cenotaph/` at the repository root holds one file per shared
entry, so that two people sharing different things never touch the same file (and never meet a
merge conflict):

    .cenotaph/graveyard/<ecosystem>/<normalized-name>.toml   an abandoned approach (TOML)
    .cenotaph/memories/<slug>-<short-hash>.md                a decision or note: TOML front matter
                                                             between `+++` lines, then the content verbatim

The files are the source of truth for shared entries. They are read into memory here and never
copied into the store: deleting a file removes the entry (git keeps its history), and two clones
on different branches that use one store each see their own branch's folder. Rendering is
deterministic: the same entry gives the same bytes (a fixed key order, and `shared_at` and
`author` kept from the file when an entry is shared again). The formats are in
shared_schema/shared-approach.schema.json and shared-memory.schema.json."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
import threading
import tomllib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cenotaph.memory.errors import CenotaphError, InvalidInput
from cenotaph.memory.models import KINDS, TRUSTS
from cenotaph.nlp import ecosystems, names
from cenotaph.store.records import ApproachRow, MemoryRow

FORMAT_VERSION = 1
FOLDER = ".cenotaph"
GRAVEYARD = "graveyard"
MEMORIES = "memories"
SOURCE = "repo"
# Shared entries have no row in the store; their ids sit above any the store hands out (SQLite
# would need a trillion rows) and below 2**53, so JavaScript clients keep them exact.
SHARED_ID_BASE = 2**40
_ID_SPAN = 2**52

_FRONT_MATTER = "+++"
_SLUG_WORDS = 6
_SLUG_LENGTH = 40
_HASH_LENGTH = 10
_TOML_LINE = re.compile(r"at line (\d+)")
_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_APPROACH_KEYS = ("format", "ecosystem", "name", "display_name", "reason", "effort", "aliases", "breakthrough",
                  "gotchas", "author", "shared_at", "valid_from", "trust")
_MEMORY_KEYS = ("format", "kind", "tags", "author", "shared_at", "valid_from", "valid_to", "trust")


def is_shared_id(record_id: int) -> bool:
    return record_id >= SHARED_ID_BASE


def source_of(approach: ApproachRow) -> str:
    """`repo` for an approach shared in the repository, `store` for one in the store."""
    return approach.source if isinstance(approach, RepoApproach) else "store"


def shared_id(root: Path, path: str) -> int:
    """A stable id for the entry at `path` in the repository at `root`."""
    digest = hashlib.sha256(f"{root}\0{path}".encode("utf-8", "surrogateescape")).digest()
    return SHARED_ID_BASE + int.from_bytes(digest[:8], "big") % _ID_SPAN


# --- entries -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SharedApproach:
    """An abandoned approach as the repository holds it."""

    path: str  # relative to the repository root, '/'-separated
    ecosystem: str
    name: str  # normalized
    display_name: str
    reason: str
    author: str
    shared_at: str  # the store's time format
    trust: str = "confirmed"
    effort: int | None = None
    aliases: tuple[str, ...] = ()
    breakthrough: str | None = None
    gotchas: tuple[str, ...] = ()
    valid_from: str | None = None


@dataclass(frozen=True, slots=True)
class SharedNote:
    """A decision, note, fact, preference or experience as the repository holds it."""

    path: str
    kind: str
    content: str
    author: str
    shared_at: str
    trust: str = "confirmed"
    tags: tuple[str, ...] = ()
    valid_from: str | None = None
    valid_to: str | None = None


@dataclass(frozen=True, slots=True)
class SharedProblem:
    """A file of the folder that cannot be read; the other entries still work."""

    path: str
    message: str
    line: int = 0  # 0-based


@dataclass(slots=True)
class RepoApproach(ApproachRow):
    """A shared approach as the graveyard's other records look (source `repo`, no store row)."""

    source: str = SOURCE
    path: str = ""
    trust: str = "confirmed"
    breakthrough: str | None = None
    gotchas: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FolderState:
    """One repository's `.cenotaph/` as last read."""

    root: Path
    project: str
    fingerprint: tuple[tuple[str, int, int], ...]
    approaches: tuple[SharedApproach, ...] = ()
    notes: tuple[SharedNote, ...] = ()
    problems: tuple[SharedProblem, ...] = ()
    # What each file (path, size, mtime) held when it was read: the next load reuses it.
    read: dict[tuple[str, int, int], SharedApproach | SharedNote | SharedProblem] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.root / FOLDER

    def approach_rows(self) -> list[RepoApproach]:
        return [RepoApproach(
            id=shared_id(self.root, a.path), project=self.project, name=a.name, display_name=a.display_name,
            ecosystem=a.ecosystem, reason=a.reason, effort=a.effort, outcome="abandoned", status="abandoned",
            status_reason=None, memory_id=None, actor=a.author, created_at=a.shared_at, updated_at=a.shared_at,
            aliases=list(a.aliases), path=a.path, trust=a.trust, breakthrough=a.breakthrough,
            gotchas=list(a.gotchas),
        ) for a in self.approaches]

    def memory_rows(self) -> list[tuple[MemoryRow, str]]:
        """Each shared memory as the store's rows look (source `repo`), with its file."""
        rows = []
        for note in self.notes:
            row_id = shared_id(self.root, note.path)
            rows.append((MemoryRow(
                id=row_id, memory_id=row_id, version=1, project=self.project, kind=note.kind, content=note.content,
                content_hash=hashlib.sha256(note.content.encode("utf-8", "surrogatepass")).hexdigest(),
                tags=list(note.tags), source=SOURCE, actor=note.author, state="active", state_reason=None,
                reinstate_hints=[], trust=note.trust, trust_reason=None, polarity=0,
                valid_from=note.valid_from or note.shared_at, valid_to=note.valid_to, recorded_at=note.shared_at,
                superseded_at=None, effort=None, outcome=None, iterations=None, breakthrough=None, gotchas=[],
                recall_count=0, last_recalled_at=None,
            ), note.path))
        return rows


# --- paths ---------------------------------------------------------------------------------------


def approach_path(ecosystem: str, key: str) -> str:
    """`.cenotaph/graveyard/<ecosystem>/<key>.toml`; a key with '/' (an npm scope, a Go module,
    an image with its registry) becomes folders."""
    parts = key.split("/")
    if any(p in ("", ".", "..") or "\\" in p or "\x00" in p for p in parts):
        raise InvalidInput(f"{key!r} cannot be a file name in the shared folder", field="name")
    return "/".join((FOLDER, GRAVEYARD, ecosystem, *parts[:-1], parts[-1] + ".toml"))


def slug(content: str) -> str:
    folded = unicodedata.normalize("NFKD", content).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", folded)[:_SLUG_WORDS]
    text = "-".join(words)[:_SLUG_LENGTH].strip("-")
    return text or "memory"


def memory_path(content: str) -> str:
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_LENGTH]
    return f"{FOLDER}/{MEMORIES}/{slug(content)}-{digest}.md"


# --- rendering -----------------------------------------------------------------------------------


def _toml_string(value: str) -> str:
    out = []
    for ch in value:
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def _toml(table: dict[str, Any], order: tuple[str, ...]) -> str:
    """A flat TOML table in a fixed key order; absent values (None, empty lists) are left out."""
    lines = [f"{key} = {_toml_value(table[key])}" for key in order
             if table.get(key) is not None and table.get(key) != () and table.get(key) != []]
    return "\n".join(lines) + "\n"


def _file_time(value: str) -> str:
    """The store's time (microseconds) to the file's (seconds, UTC): what a reviewer reads."""
    return value[:19] + "Z"


def render_approach(entry: SharedApproach) -> str:
    return _toml({
        "format": FORMAT_VERSION, "ecosystem": entry.ecosystem, "name": entry.name,
        "display_name": entry.display_name, "reason": entry.reason, "effort": entry.effort,
        "aliases": sorted(entry.aliases), "breakthrough": entry.breakthrough, "gotchas": list(entry.gotchas),
        "author": entry.author, "shared_at": _file_time(entry.shared_at),
        "valid_from": _file_time(entry.valid_from) if entry.valid_from else None, "trust": entry.trust,
    }, _APPROACH_KEYS)


def render_note(entry: SharedNote) -> str:
    front = _toml({
        "format": FORMAT_VERSION, "kind": entry.kind, "tags": list(entry.tags), "author": entry.author,
        "shared_at": _file_time(entry.shared_at),
        "valid_from": _file_time(entry.valid_from) if entry.valid_from else None,
        "valid_to": _file_time(entry.valid_to) if entry.valid_to else None, "trust": entry.trust,
    }, _MEMORY_KEYS)
    return f"{_FRONT_MATTER}\n{front}{_FRONT_MATTER}\n{entry.content}"


# --- reading -------------------------------------------------------------------------------------


class _Malformed(Exception):
    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _table(text: str, line_offset: int = 0) -> dict[str, Any]:
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        raise _Malformed(f"not valid TOML: {exc}", (int(found[1]) - 1 if found else 0) + line_offset) from None
    version = table.get("format")
    if version != FORMAT_VERSION:
        if version is None:
            raise _Malformed("no `format` version", line_offset)
        raise _Malformed(f"unknown format version {version!r} (this Cenotaph reads {FORMAT_VERSION})", line_offset)
    return table


def _field(table: dict[str, Any], key: str, kind: type | tuple[type, ...], *, required: bool = True) -> Any:
    value = table.get(key)
    if value is None:
        if required:
            raise _Malformed(f"`{key}` is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        raise _Malformed(f"`{key}` has the wrong type ({type(value).__name__})")
    if isinstance(value, str) and not value.strip() and required:
        raise _Malformed(f"`{key}` is empty")
    return value


def _texts(table: dict[str, Any], key: str) -> tuple[str, ...]:
    values = _field(table, key, list, required=False) or []
    if not all(isinstance(v, str) for v in values):
        raise _Malformed(f"`{key}` must be a list of text")
    return tuple(values)


def _time(table: dict[str, Any], key: str, *, required: bool) -> str | None:
    # Not with this module: the language server imports it before its domain stack (numpy) loads.
    from cenotaph.memory.context import parse_time

    value = _field(table, key, str, required=required)
    if value is None:
        return None
    try:
        return parse_time(value, key)
    except CenotaphError as exc:
        raise _Malformed(f"`{key}`: {exc.message}") from None


def _known(table: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise _Malformed(f"unknown key(s) for format {FORMAT_VERSION}: {', '.join(unknown)}")


def _common(table: dict[str, Any]) -> dict[str, Any]:
    trust = _field(table, "trust", str, required=False) or "confirmed"
    if trust not in TRUSTS:
        raise _Malformed(f"`trust` {trust!r} is not one of {', '.join(TRUSTS)}")
    return {"author": _field(table, "author", str), "shared_at": _time(table, "shared_at", required=True),
            "trust": trust, "valid_from": _time(table, "valid_from", required=False)}


def read_approach(path: str, text: str) -> SharedApproach:
    """The approach a graveyard file holds; its path says its ecosystem and normalized name."""
    parts = path.split("/")
    if len(parts) < 4 or not parts[-1].endswith(".toml"):
        raise _Malformed("a graveyard entry is .cenotaph/graveyard/<ecosystem>/<name>.toml")
    ecosystem = parts[2]
    if ecosystem not in ecosystems.NAMES:
        raise _Malformed(f"{ecosystem!r} is not an ecosystem ({', '.join(ecosystems.NAMES)})")
    key = "/".join([*parts[3:-1], parts[-1].removesuffix(".toml")])
    table = _table(text)
    _known(table, _APPROACH_KEYS)
    if _field(table, "ecosystem", str) != ecosystem:
        raise _Malformed(f"`ecosystem` is {table['ecosystem']!r} but the file is under {ecosystem}/")
    name = _field(table, "name", str)
    normalized = ecosystems.normalize(name, ecosystem)
    if not normalized or normalized != name or normalized != key:
        raise _Malformed(f"the name {name!r} does not normalize to the file's name {key!r} "
                         f"(normalized: {normalized!r})")
    effort = _field(table, "effort", int, required=False)
    if effort is not None and not 1 <= effort <= 5:
        raise _Malformed(f"`effort` {effort} is outside 1–5")
    aliases = tuple(names.fold(a) for a in _texts(table, "aliases"))
    return SharedApproach(path=path, ecosystem=ecosystem, name=name,
                          display_name=_field(table, "display_name", str, required=False) or name,
                          reason=_field(table, "reason", str), effort=effort, aliases=aliases,
                          breakthrough=_field(table, "breakthrough", str, required=False),
                          gotchas=_texts(table, "gotchas"), **_common(table))


def read_note(path: str, text: str) -> SharedNote:
    first, sep, rest = text.partition("\n")
    if first.rstrip("\r") != _FRONT_MATTER or not sep:
        raise _Malformed(f"a shared memory starts with a `{_FRONT_MATTER}` line (TOML front matter)")
    match = re.search(rf"^{re.escape(_FRONT_MATTER)}\r?(?:\n|\Z)", rest, re.MULTILINE)
    if match is None:
        raise _Malformed(f"the front matter has no closing `{_FRONT_MATTER}` line")
    table = _table(rest[:match.start()], line_offset=1)
    content = rest[match.end():]
    if not content.strip():
        raise _Malformed("the memory has no content", text.count("\n"))
    _known(table, _MEMORY_KEYS)
    kind = _field(table, "kind", str)
    if kind not in KINDS:
        raise _Malformed(f"`kind` {kind!r} is not one of {', '.join(KINDS)}", 1)
    common = _common(table)
    return SharedNote(path=path, kind=kind, content=content, tags=_texts(table, "tags"),
                      valid_to=_time(table, "valid_to", required=False), **common)


def fingerprint(root: Path) -> tuple[tuple[str, int, int], ...]:
    """(path, size, mtime) of every regular file under the shared folder's graveyard/ and
    memories/, sorted: names, sizes and modification times are cheap to read, and they move on
    every checkout, pull or edit. Plain strings: this runs on every live-refresh round."""
    found = []
    prefix = len(str(root)) + 1
    stack = [os.path.join(root, FOLDER, GRAVEYARD), os.path.join(root, FOLDER, MEMORIES)]
    while stack:
        current = stack.pop()
        try:
            entries = os.scandir(current)
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue  # editors' swap files, our own temporary files
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        found.append((entry.path[prefix:].replace(os.sep, "/"), st.st_size, st.st_mtime_ns))
                except OSError:
                    continue
    return tuple(sorted(found))


def _read(root: Path, path: str) -> SharedApproach | SharedNote | SharedProblem:
    try:
        text = (root / path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return SharedProblem(path, f"cannot be read: {exc}")
    try:
        if path.startswith(f"{FOLDER}/{GRAVEYARD}/"):
            if not path.endswith(".toml"):
                raise _Malformed("a graveyard entry is a .toml file")
            return read_approach(path, text)
        if path.endswith(".md"):
            return read_note(path, text)
        raise _Malformed("a shared memory is a .md file")
    except _Malformed as exc:
        return SharedProblem(path, exc.message, exc.line)


def load(root: Path, project: str, previous: FolderState | None = None) -> FolderState:
    """The folder as its files say now; a file whose size and time are as in `previous` is not
    read again (a pull that changes one file of hundreds reads that one)."""
    listed = fingerprint(root)
    known = previous.read if previous is not None else {}
    read = {key: known[key] if key in known else _read(root, key[0]) for key in listed}
    entries = list(read.values())
    return FolderState(root=root, project=project, fingerprint=listed,
                       approaches=tuple(e for e in entries if isinstance(e, SharedApproach)),
                       notes=tuple(e for e in entries if isinstance(e, SharedNote)),
                       problems=tuple(e for e in entries if isinstance(e, SharedProblem)), read=read)


# --- writing -------------------------------------------------------------------------------------


def git_author(root: Path) -> str | None:
    """The committer's name as git knows it in this repository (who the team will see)."""
    for key in ("user.name", "user.email"):
        try:
            found = subprocess.run(["git", "config", "--get", key], cwd=root, capture_output=True, text=True,
                                   timeout=5, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        if found.returncode == 0 and found.stdout.strip():
            return found.stdout.strip()
    return None


def holds(root: Path, path: str, text: str) -> bool:
    """Whether the file holds `text` already."""
    try:
        return (root / path).read_bytes() == text.encode("utf-8")
    except OSError:  # missing, or a folder where the file goes (writing it says so)
        return False


def write(root: Path, path: str, text: str) -> bool:
    """Write the file if its bytes differ (atomically); True when it changed."""
    target = root / path
    data = text.encode("utf-8")
    if holds(root, path, text):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):  # no half-written file left in the team's folder
            temporary.unlink()
        raise
    return True


def remove(root: Path, path: str) -> bool:
    target = root / path
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    # Leave no empty folders behind (git does not keep them either).
    folder = target.parent
    while folder.is_relative_to(root / FOLDER):
        try:
            folder.rmdir()
        except OSError:
            break
        folder = folder.parent
    return True


def existing(root: Path, path: str) -> SharedApproach | SharedNote | None:
    """The entry at `path` as the file holds it now, if it reads."""
    try:
        text = (root / path).read_text(encoding="utf-8")
        return read_approach(path, text) if path.endswith(".toml") else read_note(path, text)
    except (OSError, UnicodeDecodeError, _Malformed):
        return None


# --- the folders this process reads --------------------------------------------------------------


class SharedFolders:
    """The repositories whose `.cenotaph/` this process reads, each for its project. `refresh()`
    is the state check (a stat of the folders' files) that the edges make on each refresh: it
    re-reads a folder only when its fingerprint has moved, and `generation` counts the changes."""

    def __init__(self) -> None:
        self._states: dict[Path, FolderState] = {}
        self._lock = threading.Lock()
        self.generation = 0

    def attach(self, repositories: Iterable[tuple[Path, str]]) -> None:
        """Read these repositories (root, project), and no others."""
        wanted = {root.resolve(): project for root, project in repositories}
        with self._lock:
            kept = {root: state for root, state in self._states.items() if wanted.get(root) == state.project}
            for root, project in wanted.items():
                if root not in kept:
                    kept[root] = load(root, project)
            if set(kept) != set(self._states) or any(kept[r] is not self._states.get(r) for r in kept):
                self.generation += 1
            self._states = kept

    def refresh(self) -> bool:
        """Re-read each folder whose files changed; True when any did."""
        changed = False
        with self._lock:
            for root, state in list(self._states.items()):
                if fingerprint(root) != state.fingerprint:
                    self._states[root] = load(root, state.project, state)
                    changed = True
            if changed:
                self.generation += 1
        return changed

    def states(self) -> list[FolderState]:
        with self._lock:
            return list(self._states.values())

    def for_project(self, project: str) -> FolderState | None:
        """The repository a share in `project` is written to."""
        return next((s for s in self.states() if s.project == project), None)

    def containing(self, path: Path) -> FolderState | None:
        """The repository whose shared folder holds `path`."""
        return next((s for s in self.states() if path.is_relative_to(s.folder)), None)

"""Cargo (crates.io): `use` and `extern crate` in Rust, Cargo.toml, `cargo add` and `cargo remove`,
and the crates a workspace's Cargo.toml files rename (`memmap = { package = "memmap2" }` makes
`use memmap::` the crate memmap2)."""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cenotaph.nlp.ecosystems import base
from cenotaph.nlp.ecosystems.base import (
    LINE_COMMENT,
    Context,
    Document,
    Ecosystem,
    Hit,
    ImportNames,
    Installer,
    Stamp,
    closed_by,
    continues_word,
    lex,
    multi_line_string,
    name_rule,
    stamp,
    syntax,
)
from cenotaph.nlp.ecosystems.shell import pattern_span
from cenotaph.nlp.ecosystems.tomlscan import Span, TomlScan, parses
from cenotaph.nlp.names import fold

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# Imports in Rust

_RUST_COMMENT_DELIMITER = re.compile(r"/\*|\*/")


def _rust_block_comment(text: str, opener: re.Match[str]) -> tuple[int, int]:
    depth = 1  # Rust block comments nest
    for delimiter in _RUST_COMMENT_DELIMITER.finditer(text, opener.end()):
        depth += 1 if delimiter.group() == "/*" else -1
        if depth == 0:
            return delimiter.end(), delimiter.end()
    return len(text), len(text)


_RUST_ESCAPED_STRING = multi_line_string('"')
_WORD_CHARACTER = re.compile(r"\w")


def _rust_string(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
    """A string, raw (`r"…"`, `br#"…"#`, no escapes) when `r` and any '#' come right before."""
    quote = opener.start()
    hashes = 0
    while quote - hashes > 0 and text[quote - hashes - 1] == "#":
        hashes += 1
    r = quote - hashes - 1
    prefix = r - 1 if r > 0 and text[r - 1] in "bc" else r
    if r < 0 or text[r] != "r" or (prefix > 0 and _WORD_CHARACTER.match(text, prefix - 1)):
        return _RUST_ESCAPED_STRING(text, opener)
    terminator = '"' + "#" * hashes
    body_end = text.find(terminator, opener.end())
    if body_end < 0:
        return len(text), len(text)
    return body_end, body_end + len(terminator)


_RUST = syntax(
    comments={"//": LINE_COMMENT, "/*": _rust_block_comment},
    strings={
        '"': _rust_string,
        # A quote that does not close a character literal is a lifetime or a label: no token.
        "'": closed_by(
            r"(?:\\(?:u\{[0-9A-Fa-f]{1,6}\}|x[0-9A-Fa-f]{2}|[^\r\n])|[^'\\\r\n])(?P<close>')"
        ),
    },
)

_RUST_USE = re.compile(r"use\s+(?:::\s*)?(?:(?P<crate>\w+)|(?P<group>\{))")
_RUST_EXTERN_CRATE = re.compile(r"extern\s+crate\s+(?P<crate>\w+)")
_RUST_GROUP_TOKEN = re.compile(r"\w+|[{},;]")
_RUST_LOCAL_ITEM = re.compile(r"(?:mod|enum)\s+(?P<name>\w+)")
_RUST_NOT_CRATES = frozenset(
    {"std", "core", "alloc", "proc_macro", "crate", "self", "super", "Self"}
)


def _rust_group_roots(code: str, position: int) -> Iterator[tuple[int, int]]:
    """The first path segment of each item in a root `use {a::b, c}` group."""
    depth = 1
    expects_item = True
    for token in _RUST_GROUP_TOKEN.finditer(code, position):
        match token.group():
            case "{":
                depth += 1
            case "}":
                depth -= 1
                if depth == 0:
                    return
            case ",":
                expects_item = depth == 1
            case ";":
                return
            case _ if expects_item and depth == 1:
                expects_item = False
                yield token.span()


def _import_hits(text: str, _context: Context) -> Iterator[Hit]:
    code = lex(text, _RUST).code
    # `use parser::X` names a module of this crate when the file declares `mod parser`.
    def keyword_matches(pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        return (m for m in pattern.finditer(code) if not continues_word(code, m.start(), "#"))

    local = _RUST_NOT_CRATES | {item["name"] for item in keyword_matches(_RUST_LOCAL_ITEM)}
    spans = [extern.span("crate") for extern in keyword_matches(_RUST_EXTERN_CRATE)]
    for use in keyword_matches(_RUST_USE):
        if use["crate"]:
            spans.append(use.span("crate"))
        else:
            spans.extend(_rust_group_roots(code, use.end()))
    for start, end in spans:
        if code[start:end] not in local:
            yield Hit(start, end, "cargo", "import")


# ---------------------------------------------------------------------------------------------
# Cargo.toml

_DEPENDENCY_TABLES = tuple(  # in order: a key renamed in two tables takes the last one's rename
    # Cargo still accepts the underscore spellings of older manifests.
    "dependencies dev-dependencies build-dependencies dev_dependencies build_dependencies".split()
)


def _cargo_table_depth(path: tuple[str, ...]) -> int:
    """How many keys of `path` name a Cargo dependency table (0 when none does)."""
    if path[:1] and path[0] in _DEPENDENCY_TABLES:
        return 1
    if path[:2] == ("workspace", "dependencies"):
        return 2
    if len(path) >= 3 and path[0] == "target" and path[2] in _DEPENDENCY_TABLES:
        return 3
    return 0


_CRATE_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _cargo_group(dependency: tuple[str, ...]) -> str:
    """`main`, `dev`, `build`, `workspace`, or `target:<cfg>:<one of the first three>`."""
    if dependency[0] == "workspace":
        return "workspace"
    table = dependency[-2]
    base = "dev" if table.startswith("dev") else "build" if table.startswith("build") else "main"
    return f"target:{dependency[1]}:{base}" if dependency[0] == "target" else base


def _cargo_toml_hits(text: str, _context: Context) -> Iterator[Hit]:
    dependencies: list[tuple[tuple[str, ...], Span]] = []  # (dependency's full path, its key)
    renamed: dict[tuple[str, ...], Span] = {}  # dependency's full path -> `package = "real"`
    # `path = "../wincolor"`: a crate of the repository's own (a workspace member), no choice.
    local: set[tuple[str, ...]] = set()
    for entry in TomlScan(text).entries:
        path = tuple(key.text for key in entry.path)
        depth = _cargo_table_depth(path)
        if not depth or len(path) <= depth:
            continue
        dependencies.append((path[: depth + 1], entry.path[depth]))
        if path[depth + 1 :] == ("package",) and entry.strings:
            renamed[path[: depth + 1]] = entry.strings[0]
        elif path[depth + 1 :] == ("path",):
            local.add(path[: depth + 1])
    reported: set[int] = set()
    for dependency, key in dependencies:
        if dependency in local:
            continue
        name = renamed.get(dependency, key)
        if name.start not in reported and _CRATE_NAME.fullmatch(name.text):
            reported.add(name.start)
            yield Hit(name.start, name.end, "cargo", "declaration", _cargo_group(dependency))


_CARGO = Installer(
    "cargo", ("cargo",), frozenset({"add"}),
    frozenset("-F --features -p --package --rename --registry --path --git --branch --tag --rev --target "
              "--manifest-path".split()),
    pattern_span(r"[A-Za-z0-9][\w-]*(?=@|\Z)"), frozenset({"remove", "rm"}), hint="cargo",
)


# ---------------------------------------------------------------------------------------------
# The workspace's renames


@dataclass(frozen=True, slots=True)
class _Manifest:
    renames: dict[str, str]  # dependency key → package, for the keys renamed here
    inherited: frozenset[str]  # keys declared `{ workspace = true }`
    workspace_renames: dict[str, str] | None  # [workspace.dependencies] renames; None: no [workspace]


def _dependency_tables(data: dict) -> list[dict]:
    tables = [data.get(name) for name in _DEPENDENCY_TABLES]
    for target in (data.get("target") or {}).values():
        if isinstance(target, dict):
            tables.extend(target.get(name) for name in _DEPENDENCY_TABLES)
    return [table for table in tables if isinstance(table, dict)]


def _renames(table: dict) -> dict[str, str]:
    return {fold(key): fold(spec["package"]) for key, spec in table.items()
            if isinstance(spec, dict) and isinstance(spec.get("package"), str)}


def _read_manifest(path: Path) -> _Manifest | None:
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
    return _Manifest(renames, frozenset(inherited), workspace_renames)


class CrateRenames:
    """The renames of the nearest Cargo.toml above a document, and those it inherits from the
    workspace root's `[workspace.dependencies]`; each file read once per modification."""

    def __init__(self) -> None:
        self._manifests: dict[Path, tuple[Stamp, _Manifest | None]] = {}
        self._combined: dict[tuple, tuple[tuple, ImportNames]] = {}  # (member, root) manifest → (stamps, names)

    def _manifest(self, path: Path) -> tuple[Stamp, _Manifest | None] | None:
        current = stamp(path)
        if current is None:
            return None
        cached = self._manifests.get(path)
        if cached is None or cached[0] != current:
            cached = self._manifests[path] = (current, _read_manifest(path))
        return cached

    def names(self, document: Path, folder: Path) -> ImportNames:
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
            return base.NONE
        key, stamps = (nearest[0], root and root[0]), (nearest[1], root and root[1])
        cached = self._combined.get(key)
        if cached is None or cached[0] != stamps:
            member: _Manifest = nearest[2]
            workspace_renames = root[2].workspace_renames if root else {}
            # `memmap = { workspace = true }` takes the workspace's rename along.
            renames = {k: v for k, v in (workspace_renames or {}).items() if k in member.inherited}
            renames.update(member.renames)
            cached = self._combined[key] = (stamps, ImportNames(cargo=renames))
        return cached[1]


# ---------------------------------------------------------------------------------------------

# Cargo.lock: one `[[package]]` table a crate, its `name` first.
_LOCKED_CRATE = re.compile(r'^name\s*=\s*"([^"]+)"', re.MULTILINE)
LOCK_FILES = {"cargo.lock": lambda text: (match[1] for match in _LOCKED_CRATE.finditer(text))}


ECOSYSTEMS = (
    Ecosystem(
        "cargo",
        language="rust",
        documents=(
            Document("rust", ("?*.rs",), _import_hits, import_names=CrateRenames),
            Document("cargo_toml", ("cargo.toml",), _cargo_toml_hits, manifest=True, at_root=True, well_formed=parses),
        ),
        # crates.io's rules; `serde@1` (cargo add) and `serde = "1"` carry versions.
        name_problem=name_rule(r"[A-Za-z][A-Za-z0-9_-]*", "crate", "a letter, then letters, digits, - and _",
                               versions=r"@|\s*=", flags=re.ASCII, max_length=64),
        project_installers=(_CARGO,),
    ),
)

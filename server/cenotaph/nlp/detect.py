"""Where a document names a package, tool or image: imports in code, declarations in manifests
and Dockerfiles, plain mentions in prose, each with its exact LSP range; what a manifest
declares; what a shell command installs. The ecosystem modules (`cenotaph.nlp.ecosystems`) read
the files: this is the dispatch from a file to its reader, from the readers' offsets to LSP
positions, and from the names found to the graveyard's keys."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from functools import cache, lru_cache, partial
from operator import attrgetter
from typing import NamedTuple

from cenotaph.nlp import ecosystems
from cenotaph.nlp.ecosystems import shell
from cenotaph.nlp.ecosystems.base import (
    NONE,
    Context,
    ImportNames,
    Installer,
    MentionKind,
    line_starts,
    utf16_column,
)
from cenotaph.nlp.ecosystems.shell import PackageCommand


class Mention(NamedTuple):  # a tuple: documents hold thousands, built on every keystroke
    name: str  # the name as written in the document
    # What the graveyard is asked about: the package an import stands for in its workspace
    # (base.ImportNames), else ecosystems.normalize(name, ecosystem) (folded, in prose).
    key: str
    ecosystem: str
    kind: MentionKind
    line: int  # 0-based
    start: int  # 0-based column in UTF-16 code units
    end: int  # exclusive, UTF-16 code units


def detect(path: str, text: str, vocabulary: frozenset[str] = frozenset(),
           import_names: ImportNames = NONE) -> list[Mention]:
    """All places in `text` that name a package, tool or image, with exact ranges, sorted by
    (line, start). `vocabulary` holds the folded names (names.fold) that prose is matched
    against, case-insensitively and on whole tokens, in Markdown and instruction files;
    `import_names`, what the workspace says an imported name stands for."""
    document = ecosystems.document_for(path)
    if document is None:
        return []
    hits = document.scan(text, Context(vocabulary, _installers(text)))
    starts = line_starts(text)
    ascii_text = text.isascii()
    mentions = []
    for start, end, ecosystem, kind, _group in hits:
        name = text[start:end]
        line = bisect_right(starts, start) - 1
        line_start = starts[line]
        if ascii_text:
            column, length = start - line_start, end - start
        else:
            column = utf16_column(text[line_start:start], start - line_start)
            length = len(name.encode("utf-16-le", "surrogatepass")) // 2
        key = (kind == "import" and import_names.resolve(name, ecosystem)) or _key(name, ecosystem)
        mentions.append(Mention(name, key, ecosystem, kind, line, column, column + length))
    mentions.sort(key=attrgetter("line", "start", "end"))
    return mentions


def _installers(text: str) -> Callable[[], tuple[Installer, ...]]:
    """The installers that may run in `text`, found at the first scanner's asking, once."""
    return cache(partial(ecosystems.installers_in, text, project=False))


@lru_cache(maxsize=8192)
def _key(name: str, ecosystem: str) -> str:
    # Cached across documents: a file names the same few packages over and over, and each
    # re-scan while typing meets the names of the last one again.
    return ecosystems.normalize(name, ecosystem)


# ---------------------------------------------------------------------------------------------
# Manifest declarations, for reading a repository's history (the same scanners as `detect`)


class Declaration(NamedTuple):
    name: str  # as written (for a Cargo key renamed with `package = "…"`, the package it names)
    key: str  # ecosystems.normalize(name, ecosystem)
    ecosystem: str
    # Where it is declared: `main`, `dev`, `test`, `build` (build-system requires, setup_requires,
    # build-dependencies), `extra:<name>`, `group:<name>` (dependency groups, Poetry groups),
    # `peer`, `optional`, `bundled`, `override`, `replace` and `indirect` (go.mod), `workspace`,
    # `target:<cfg>:<main|dev|build>` (Cargo); "" for a Dockerfile's installs.
    group: str


class ManifestScan(NamedTuple):
    """What a manifest declares, and whether it parses."""

    declarations: tuple[Declaration, ...]
    well_formed: bool  # False when the file does not parse as its format (TOML, JSON, Python)


def declarations(path: str, text: str) -> ManifestScan | None:
    """What a manifest declares (None when `path` is no manifest), from the scanners `detect`
    uses."""
    document = ecosystems.document_for(path)
    if document is None or not document.manifest:
        return None
    found = tuple(
        Declaration(text[hit.start : hit.end], _key(text[hit.start : hit.end], hit.ecosystem), hit.ecosystem,
                    hit.group)
        for hit in document.scan(text, Context(installers=_installers(text)))
        if hit.kind == "declaration"
    )
    return ManifestScan(found, document.well_formed is None or document.well_formed(text))


MAX_MANIFEST_BYTES = 2_000_000


# ---------------------------------------------------------------------------------------------
# Shell commands (an agent's tool calls): which packages a command line adds to a project or
# takes out of it. Not Dockerfiles': `go get` and `cargo add` change a project's manifest, and
# the removals matter only here.


def package_commands(script: str) -> list[PackageCommand]:
    """The installs and removals in a shell command line (several commands joined by `&&`, `;`,
    `|` or new lines; environment assignments and `sudo` before them), in order."""
    return shell.package_commands(script, ecosystems.project_installers())

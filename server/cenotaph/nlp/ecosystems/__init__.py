"""The ecosystems a name may live in, one module each, and the registry the rest of the code asks:
which ecosystem reads this file (`document_kind`, `document_for`), what a name's key is in
ecosystem X (`normalize`, `lookup_keys`), whether its registry would take the name at all
(`name_problem`), which installers a shell command may run.

Each module describes its ecosystems with `base.Ecosystem`: the documents that import or declare
its names (file patterns, scanner, whether a manifest), its name rules and its installers. The
modules are imported at first use, not with this package: the language server answers
`initialize` before their patterns are compiled (`lsp.features.diagnostics.preload`). A question
about one file, one command line or one ecosystem imports only the modules that may answer it
(PROGRAMS, FILES and ALIASED below tell which): an agent's hook, started for every tool call,
loads one module or none.

Adding an ecosystem:
1. write `<module>.py` here ending with `ECOSYSTEMS = (Ecosystem("<name>", documents=…, …),)`;
2. add the line `"<name>": "<module>",` to MODULES below, and the module's programs and file
   patterns to PROGRAMS and FILES (tests/nlp/test_ecosystems.py compares them with the module).
Detection, manifest reading, history and transcript mining, graveyard keys and the ecosystem
choices of the CLI, the MCP tools and the editor commands follow from the registry. What the
editors are promised follows by hand: a new ecosystem is a value of `ecosystem` in
shared_schema/commands.schema.json (tests/lsp/test_schema.py compares), a new document kind one
of the `fileKinds` setting in lsp.settings.FileKind and settings.schema.json
(tests/nlp/test_ecosystems.py compares).
"""

from __future__ import annotations

import importlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from fnmatch import translate
from functools import cache, lru_cache
from pathlib import PurePosixPath
from typing import Final, NamedTuple
from urllib.parse import unquote

from cenotaph.nlp.ecosystems.base import Document, Ecosystem, Installer
from cenotaph.nlp.names import fold

# Every ecosystem a name may be recorded in, with the module of this package that describes it,
# in the order users are shown them (CLI choices, schemas).
MODULES: Final[Mapping[str, str | None]] = {
    "pypi": "python",
    "npm": "npm",
    "cargo": "cargo",
    "go": "go",
    "container": "containers",
    "apt": "containers",
    "apk": "containers",
    "conda": "conda",
    "tool": None,  # a command-line tool: named by people, declared by no file
    "other": "prose",  # a name met in prose
}
NAMES: Final = tuple(MODULES)
DEFAULT: Final = "pypi"  # the ecosystem of a name nothing else tells about
# Recorded when neither the name's spelling nor the workspace's manifests tell: its key is the
# folded name, which every ecosystem's lookup includes, so the record matches in any of them.
ANY: Final = "any"

# Which modules a question needs, so that it imports those alone: the words each module's
# installers' programs start with (a command line without any runs none of them), the file
# patterns its documents read, the modules whose ecosystems give names aliases.
PROGRAMS: Final[Mapping[str, tuple[str, ...]]] = {
    "python": ("pip", "python", "uv", "poetry", "pdm"),  # pipx, pipenv and uvx start with these
    "npm": ("npm", "npx", "pnp", "yarn", "bun"),
    "cargo": ("cargo",),
    "go": ("go",),
    "containers": ("apt", "apk"),
    "conda": ("conda", "mamba"),
}
FILES: Final[Mapping[str, tuple[str, ...]]] = {
    "python": ("?*.py", "?*.pyi", "pyproject.toml", "*requirements*.txt", "*requirements*.in", "requirements/?*.txt",
               "requirements/?*.in", "constraints*.txt", "constraints*.in", "setup.py", "setup.cfg", "tox.ini",
               "pipfile", ".pre-commit-config.yaml", ".pre-commit-config.yml"),
    "npm": ("?*.js", "?*.jsx", "?*.ts", "?*.tsx", "?*.mjs", "?*.cjs", "?*.mts", "?*.cts", "package.json"),
    "cargo": ("?*.rs", "cargo.toml"),
    "go": ("?*.go", "go.mod"),
    "containers": ("dockerfile", "dockerfile.*", "*.dockerfile", "containerfile", "containerfile.*"),
    "conda": ("environment.yml", "environment.yaml", "environment-*.yml", "environment-*.yaml"),
    "prose": ("?*.md", "?*.markdown", "?*.rst", "?*.txt", "readme", "agents.md", "claude.md", ".cursorrules", ".github/copilot-instructions.md"),
}
ALIASED: Final = ("python",)


class Registry(NamedTuple):
    """The ecosystems of some modules, and what their documents and installers are looked up by."""

    ecosystems: tuple[Ecosystem, ...]  # in the order of MODULES
    by_name: dict[str, Ecosystem]
    documents: dict[str, Document]  # by kind, in registry order
    exact: dict[str, str]  # file name, or `parent/name`, → kind
    patterns: tuple[tuple[re.Pattern[str], bool, str], ...]  # (glob, matched on `parent/name`, kind)
    manifests: frozenset[str]  # the kinds that declare dependencies
    root_manifests: tuple[str, ...]  # kinds, in the order a workspace's root is read
    system_installers: tuple[Installer, ...]
    project_installers: tuple[Installer, ...]
    command_hint: re.Pattern[bytes]  # matches every command line a project installer may run


_UNDESCRIBED = Ecosystem(ANY)  # the rules of a name no module describes: folded


def _specificity(pattern: str) -> int:
    """0: a whole name; 1: the name's start is written out (`dockerfile.*`); 2: only its end
    (`?*.py`). The most specific pattern that matches a path decides its kind."""
    if not any(char in pattern for char in "*?["):
        return 0
    return 2 if pattern.rsplit("/", 1)[-1][0] in "*?[" else 1


@cache
def _described(module_name: str) -> dict[str, Ecosystem]:
    """The ecosystems a module of this package describes, by name; the module imported here."""
    described = {}
    for ecosystem in importlib.import_module(f"{__name__}.{module_name}").ECOSYSTEMS:
        assert MODULES.get(ecosystem.name) == module_name, f"{module_name} describes {ecosystem.name}"
        described[ecosystem.name] = ecosystem
    assert described.keys() == {name for name, module in MODULES.items() if module == module_name}, \
        f"{module_name} left one out"
    return described


@cache
def _undescribed(name: str) -> Ecosystem:
    return Ecosystem(name)


def _in_order(module_names: Iterable[str]) -> tuple[Ecosystem, ...]:
    """The ecosystems of `module_names`, in the order of MODULES (every one: all of NAMES)."""
    wanted = set(module_names)
    return tuple(_described(module)[name] if module else _undescribed(name) for name, module in MODULES.items()
                 if module in wanted)


@cache
def load() -> Registry:
    """The registry, its modules imported on the first call."""
    return _registry(tuple(dict.fromkeys(MODULES.values())))


@cache
def _registry(module_names: tuple[str | None, ...]) -> Registry:
    """The registry of some modules (None: the ecosystems no module describes): what a question
    that only they may answer reads (`document_kind` of a file one of them reads)."""
    ecosystems = _in_order(module_names)

    documents: dict[str, Document] = {}
    exact: dict[str, str] = {}
    globs = []  # (specificity, registry order, pattern, on `parent/name`, kind)
    for ecosystem in ecosystems:
        for document in ecosystem.documents:
            assert document.kind not in documents, f"two ecosystems read {document.kind}"
            assert all(p == p.lower() for p in document.patterns), f"{document.kind}: patterns are lower case"
            documents[document.kind] = document
            for pattern in document.patterns:
                if (specificity := _specificity(pattern)) == 0:
                    exact[pattern] = document.kind
                else:
                    globs.append((specificity, len(globs), re.compile(translate(pattern)), "/" in pattern,
                                  document.kind))
    roots = sorted((ecosystem.root_rank, order, document.kind) for order, ecosystem in enumerate(ecosystems)
                   for document in ecosystem.documents if document.at_root)

    project_installers = tuple(installer for ecosystem in ecosystems for installer in ecosystem.project_installers)
    assert all(installer.hint for installer in project_installers), "every project installer has a hint"
    hints = "|".join(dict.fromkeys(re.escape(installer.hint) for installer in project_installers))
    globs.sort(key=lambda glob: glob[:2])
    return Registry(
        ecosystems=ecosystems,
        by_name={ecosystem.name: ecosystem for ecosystem in ecosystems},
        documents=documents,
        exact=exact,
        patterns=tuple((pattern, in_folder, kind) for *_, pattern, in_folder, kind in globs),
        manifests=frozenset(kind for kind, document in documents.items() if document.manifest),
        root_manifests=tuple(kind for *_, kind in roots),
        system_installers=tuple(installer for ecosystem in ecosystems for installer in ecosystem.system_installers),
        project_installers=project_installers,
        command_hint=re.compile(hints.encode()),
    )


@cache
def _aliases() -> dict[str, str]:
    """Folded name → the key of the package it stands for, from the modules in ALIASED."""
    return {alias: key for ecosystem in _in_order(ALIASED) for alias, key in ecosystem.aliases.items()}


@cache
def _aliased_by() -> dict[str, list[str]]:
    """Key → the folded names that stand for it, unsorted: built in one pass over the table for an
    agent's hook (its index asks for a few keys), sorted when asked."""
    aliased_by: dict[str, list[str]] = defaultdict(list)
    for alias, key in _aliases().items():
        if alias != key:
            aliased_by[key].append(alias)
    return dict(aliased_by)


# ---------------------------------------------------------------------------------------------
# Names


def get(name: str | None) -> Ecosystem:
    """The ecosystem called `name` (None: DEFAULT), its module alone imported; for a name no
    module describes ("any"), the rules every ecosystem falls back on."""
    name = DEFAULT if name is None else name
    if name not in MODULES:
        return _UNDESCRIBED
    module = MODULES[name]
    return _described(module)[name] if module else _undescribed(name)


def normalize(name: str, ecosystem: str | None = None) -> str:
    """The graveyard's key for `name` in `ecosystem` (see each module's `normalize`: PEP 503 for
    PyPI, npm names with their scope, Go module paths as written, images without tag or digest,
    everything else folded)."""
    return get(ecosystem).normalize(name.strip())


def name_problem(name: str, ecosystem: str | None = None) -> str | None:
    """What `ecosystem`'s registry would refuse in `name` (see each module's `name_problem`: PEP
    508 for PyPI, npm's rules with scopes, crates.io's, Go import paths, image references…), or
    None when it is a name there. In ANY, a name is one when some ecosystem takes it."""
    if ecosystem == ANY:
        problems = [described.name_problem(name) for described in load().ecosystems]
        return None if None in problems else get(spelled_ecosystem(name)).name_problem(name)
    return get(ecosystem).name_problem(name)


def lookup_keys(name: str, ecosystem: str | None = None) -> tuple[str, ...]:
    """Every key under which `name` may have been abandoned: its normalized form, its folded
    form, and those its ecosystem adds, and the package an alias stands for (the import `yaml`
    is pyyaml)."""
    described = get(ecosystem)
    folded = fold(name)
    keys = [described.normalize(name.strip()), folded, *described.other_keys(name)]
    if alias := _aliases().get(folded):
        keys.append(alias)
    return tuple(dict.fromkeys(k for k in keys if k))


def aliases_for(name: str) -> tuple[str, ...]:
    """The names known to stand for the package `name` (e.g. `pyyaml` → `yaml`)."""
    return tuple(sorted(_aliased_by().get(fold(name), ())))


def modules(key: str, ecosystem: str) -> tuple[str, ...]:
    """The names code imports the package `key` of `ecosystem` by, as written (`PIL` for pillow)."""
    return get(ecosystem).modules(key)


def spelled_ecosystem(name: str) -> str | None:
    """The ecosystem a name's spelling gives away (an npm scope, a Go module path), if any."""
    return next((ecosystem.name for ecosystem in load().ecosystems if ecosystem.spelled(name)), None)


def language(ecosystem: str) -> str:
    """What a person calls an ecosystem's code ("python" for pypi), else the ecosystem's name."""
    return get(ecosystem).language or ecosystem


def enclosing(name: str, ecosystem: str | None) -> tuple[str, ...]:
    """The names that may hold `name` in its ecosystem, nearest first (a Go package's modules)."""
    return tuple(get(ecosystem).enclosing(name))


def lineage(key: str, ecosystem: str) -> str:
    """The key every major version of `key` shares (Go's `example.com/mod/v2` → `example.com/mod`)."""
    return get(ecosystem).lineage(key)


def is_type_stubs(key: str) -> bool:
    """Whether a key names types for another package (`@types/node`, `types-requests`)."""
    return any(ecosystem.is_type_stubs(key) for ecosystem in load().ecosystems)


# ---------------------------------------------------------------------------------------------
# Files


# Cached: a git history or a repository's lint names thousands of paths, each asked about more than once.
@lru_cache(maxsize=8192)
def document_for(path: str) -> Document | None:
    """The document a file path (or URI path) is, or None when no ecosystem reads it."""
    parts = PurePosixPath(unquote(path.replace("\\", "/"))).parts
    if not parts:
        return None
    name = parts[-1].lower()
    in_folder = f"{parts[-2].lower() if len(parts) > 1 else ''}/{name}"
    # The registry of the modules one of whose patterns matches: most paths need one module, or none.
    registry = _registry(tuple(module for module, patterns in _file_patterns()
                               if any(pattern.match(in_folder if on_folder else name) for pattern, on_folder in patterns)))
    kind = registry.exact.get(name) or registry.exact.get(in_folder) or next(
        (kind for pattern, on_folder, kind in registry.patterns if pattern.match(in_folder if on_folder else name)), None)
    return None if kind is None else registry.documents[kind]


def document_kind(path: str) -> str | None:
    """The kind of document a file path (or URI path) is, or None when no ecosystem reads it."""
    document = document_for(path)
    return None if document is None else document.kind


@cache
def _file_patterns() -> tuple[tuple[str, tuple[tuple[re.Pattern[str], bool], ...]], ...]:
    """FILES compiled: per module, (pattern, matched on `parent/name`)."""
    return tuple((module, tuple((re.compile(translate(glob)), "/" in glob) for glob in globs))
                 for module, globs in FILES.items())


def document(kind: str) -> Document:
    return load().documents[kind]


def documents() -> tuple[Document, ...]:
    return tuple(load().documents.values())


def manifest_kinds() -> frozenset[str]:
    return load().manifests


def root_manifest_kinds() -> tuple[str, ...]:
    """The manifests read at a workspace's root to tell a name's ecosystem, in the order read."""
    return load().root_manifests


# ---------------------------------------------------------------------------------------------
# Installers


def system_installers() -> tuple[Installer, ...]:
    """What a Dockerfile's shell commands may install with, every ecosystem's."""
    return load().system_installers


def project_installers() -> tuple[Installer, ...]:
    """What adds packages to a project or removes them (`uv add`, `npm remove`, `go get`)."""
    return load().project_installers


def installers_in(text: str, *, project: bool = True) -> tuple[Installer, ...]:
    """The installers that may run in `text`, as `project_installers()` then `system_installers()`
    order them (without the project's when not `project`): those of the modules whose programs it
    names. Each of them needs its program's name in the line, so the others would find nothing."""
    ecosystems = _in_order(module for module, words in PROGRAMS.items() if any(word in text for word in words))
    found = [installer for ecosystem in ecosystems for installer in ecosystem.project_installers] if project else []
    found += [installer for ecosystem in ecosystems for installer in ecosystem.system_installers]
    return tuple(dict.fromkeys(found))


def command_hint() -> re.Pattern[bytes]:
    """A cheap test a command line passes whenever a project installer may be in it."""
    return load().command_hint


@cache
def lock_readers() -> dict[str, tuple[str, Callable[[str], Iterable[str]]]]:
    """Lock file name (lower case) → (ecosystem, what reads the names it resolves), from each
    module's `LOCK_FILES`. A name a lock file resolves is in use, whoever asked for it."""
    readers = {}
    for name, module_name in MODULES.items():
        if module_name is None:
            continue
        module = importlib.import_module(f"{__name__}.{module_name}")
        for file_name, reader in getattr(module, "LOCK_FILES", {}).items():
            readers[file_name] = (name, reader)
    return readers

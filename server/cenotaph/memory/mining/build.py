"""Which manifests the build uses, read from the repository at HEAD: workspace membership (Cargo
`[workspace] members` / `exclude`, npm and yarn `workspaces`, `pnpm-workspace.yaml`, `go.work`)
decides what is live, and a manifest outside every workspace that claims its folder counts only
when something builds or installs it (a CI workflow, Makefile, justfile, tox or nox file,
Dockerfile or script names its folder). A Cargo.toml with no Rust source beside it is data (a
test input, a copy kept for a highlighter's tests), not a crate. Also the names of the
repository's own packages: depending on one is no third-party choice."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from cenotaph.memory.mining.history import Repository
from cenotaph.nlp import ecosystems
from cenotaph.nlp.ecosystems import shell

Key = tuple[str, str]

# Files that build, test or install parts of a repository: where a folder is named when it is built.
_BUILD_FILE = re.compile(r"(?:^|/)(?:\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.yml|\.circleci/config\.yml|"
                         r"azure-pipelines\.ya?ml|\.travis\.yml|makefile|gnumakefile|justfile|tox\.ini|noxfile\.py|"
                         r"netlify\.toml|vercel\.json|(?:[^/]*\.)?dockerfile(?:\.[^/]*)?|[^/]+\.sh|"
                         r"\.cargo/config(?:\.toml)?|readthedocs\.ya?ml|\.readthedocs\.ya?ml)$", re.IGNORECASE)
_BUILD_BYTES = 3_000_000
_GO_USE = re.compile(r"^\s*use\s+(?:\(\s*([^)]*)\)|(\S+))", re.MULTILINE)
_PNPM_PACKAGES = re.compile(r"^packages:\s*\n((?:\s+-.*\n?|\s*#.*\n?|\s*\n)*)", re.MULTILINE)
_RUST = re.compile(r"\.rs$")


@dataclass(slots=True)
class Build:
    outside: dict[str, str] = field(default_factory=dict)  # manifest path at HEAD -> why the build does not use it
    own: set[Key] = field(default_factory=set)  # the names of the repository's own packages
    # What a build file at HEAD installs (`python -m pip install tox` in a workflow): key -> that file.
    installed: dict[Key, str] = field(default_factory=dict)


@dataclass(slots=True)
class _Workspace:
    root: str  # its folder ("" at the repository's root)
    file: str
    members: list[str]
    exclude: list[str]


def read(repo: Repository, files: Mapping[str, str], manifests: Iterable[str]) -> Build:
    """What the build at HEAD uses among `manifests` (paths), from `files` (path -> blob at HEAD)."""
    manifests = list(manifests)
    lower = {path: path.rsplit("/", 1)[-1].lower() for path in files}
    wanted = [path for path in files if lower[path] in ("cargo.toml", "package.json", "pnpm-workspace.yaml", "go.work",
                                                         "go.mod", "pyproject.toml")
              and (path in manifests or lower[path] in ("pnpm-workspace.yaml", "go.work"))]
    # The root package.json's scripts build and install too (`cd website && npm ci`).
    builders = [path for path in files if _BUILD_FILE.search(path) or path == "package.json"]
    contents = repo.blobs(files[path] for path in [*wanted, *builders])
    text = {path: contents.get(files[path], b"").decode("utf-8", "replace") for path in {*wanted, *builders}}
    build = Build()
    workspaces: list[_Workspace] = []
    path_deps: set[str] = set()
    with_workspace: set[str] = set()
    for path in wanted:
        folder = path.rpartition("/")[0]
        name = lower[path]
        if name == "cargo.toml":
            data = _toml(text[path])
            own = (data.get("package") or {}).get("name")
            if isinstance(own, str):
                build.own.add(("cargo", ecosystems.normalize(own, "cargo")))
            if isinstance(workspace := data.get("workspace"), dict):
                with_workspace.add(folder)
                workspaces.append(_Workspace(folder, path, _strings(workspace.get("members")),
                                             _strings(workspace.get("exclude"))))
            path_deps.update(_join(folder, dep) for dep in _cargo_paths(data))
        elif name == "package.json":
            data = _json(text[path])
            if isinstance(own := data.get("name"), str):
                build.own.add(("npm", ecosystems.normalize(own, "npm")))
            members = data.get("workspaces")
            if isinstance(members, dict):
                members = members.get("packages")
            if members:
                workspaces.append(_Workspace(folder, path, _strings(members), []))
        elif name == "pnpm-workspace.yaml":
            found = _PNPM_PACKAGES.search(text[path] + "\n")
            globs = [line.strip()[1:].strip().strip("'\"") for line in (found[1] if found else "").splitlines()
                     if line.strip().startswith("-")]
            workspaces.append(_Workspace(folder, path, [g for g in globs if not g.startswith("!")],
                                         [g[1:] for g in globs if g.startswith("!")]))
        elif name == "go.work":
            uses = [u for found in _GO_USE.finditer(text[path]) for u in (found[1] or found[2]).split()
                    if not u.startswith("//")]
            workspaces.append(_Workspace(folder, path, uses, []))
        elif name == "go.mod":
            if module := re.search(r"^module\s+(\S+)", text[path], re.MULTILINE):
                build.own.add(("go", ecosystems.normalize(module[1], "go")))
        elif name == "pyproject.toml":
            data = _toml(text[path])
            own = (data.get("project") or {}).get("name") or ((data.get("tool") or {}).get("poetry") or {}).get("name")
            if isinstance(own, str):
                build.own.add(("pypi", ecosystems.normalize(own, "pypi")))
    builds = "\n".join(text[path] for path in builders)[:_BUILD_BYTES]
    for path in builders:
        # A Dockerfile is a manifest already, and the root package.json's scripts are JSON strings.
        if path != "package.json" and ecosystems.document_kind(path) not in ecosystems.manifest_kinds():
            for ecosystem, name in installs(text[path]):
                build.installed.setdefault((ecosystem, ecosystems.normalize(name, ecosystem)), path)
    rust_folders = {path.rpartition("/")[0] for path in files if _RUST.search(path)}
    for path in manifests:
        folder = path.rpartition("/")[0]
        kind = lower.get(path, path.rsplit("/", 1)[-1].lower())
        if kind == "cargo.toml" and folder and not any(f == folder or f.startswith(f"{folder}/") for f in rust_folders):
            build.outside[path] = "a Cargo.toml with no Rust source beside it: data, not a crate"
            continue
        claims = [w for w in workspaces if w.file != path and w.root != folder and _under(folder, w.root)
                  and _same_ecosystem(kind, w.file)]
        if not claims or folder in with_workspace or folder in path_deps:
            continue
        if any(_member(folder, w) for w in claims) or _named(builds, folder):
            continue
        build.outside[path] = f"not a member of the workspace in {claims[0].file}, and nothing builds {folder}/"
    return build


# A CI file's step (`- run: pip install tox`, `script: npm i -g yarn`) holds a shell line after its key.
_STEP_KEY = re.compile(r"^\s*(?:-\s+)?(?:run|script|before_install|install|before_script|command)\s*:\s*(?:[|>][-+]?\s*)?",
                       re.IGNORECASE)


def shell_lines(text: str) -> str:
    """`text` (a workflow, a Makefile, a script) as shell lines: a YAML step's key taken off."""
    return "\n".join(_STEP_KEY.sub("", line) for line in text.splitlines())


def installs(text: str) -> Iterable[tuple[str, str]]:
    """(ecosystem, name) of each package a build file's commands install."""
    for line in shell_lines(text).splitlines():
        if installers := ecosystems.installers_in(line, project=False):
            for found in shell.package_commands(line, installers):
                if not found.removes:
                    yield from ((found.ecosystem, name) for name in found.names)


def own_name(path: str, text: str) -> Key | None:
    """The package a pyproject.toml, package.json or Cargo.toml names as its own, if it does."""
    name = path.rsplit("/", 1)[-1].lower()
    if name == "package.json":
        own, ecosystem = _json(text).get("name"), "npm"
    elif name == "cargo.toml":
        own, ecosystem = (_toml(text).get("package") or {}).get("name"), "cargo"
    elif name == "pyproject.toml":
        data = _toml(text)
        own = (data.get("project") or {}).get("name") or ((data.get("tool") or {}).get("poetry") or {}).get("name")
        ecosystem = "pypi"
    else:
        return None
    return (ecosystem, ecosystems.normalize(own, ecosystem)) if isinstance(own, str) and own.strip() else None


def former_own(repo: Repository, changes: Iterable[tuple[str, str, str]]) -> set[Key]:
    """The names the repository's own packages gave up in `changes` ((path, old blob, new blob) of
    a pyproject.toml, package.json or Cargo.toml): the project renamed, its old name is no
    dependency it dropped."""
    changes = [c for c in changes if c[0].rsplit("/", 1)[-1].lower() in ("pyproject.toml", "package.json", "cargo.toml")]
    contents = repo.blobs(blob for _, old, new in changes for blob in (old, new))
    found: set[Key] = set()
    for path, old, new in changes:
        before = own_name(path, contents.get(old, b"").decode("utf-8", "replace"))
        after = own_name(path, contents.get(new, b"").decode("utf-8", "replace"))
        if before and after and before != after:
            found.add(before)
    return found


def _same_ecosystem(kind: str, workspace_file: str) -> bool:
    name = workspace_file.rsplit("/", 1)[-1].lower()
    return {"cargo.toml": "cargo.toml", "package.json": "package.json", "pnpm-workspace.yaml": "package.json",
            "go.work": "go.mod"}.get(name) == kind


def _member(folder: str, workspace: _Workspace) -> bool:
    relative = folder[len(workspace.root) + 1:] if workspace.root else folder
    return any(_glob(g).fullmatch(relative) for g in workspace.members) and \
        not any(_glob(g).fullmatch(relative) for g in workspace.exclude)


@cache
def _glob(pattern: str) -> re.Pattern[str]:
    pattern = pattern.strip().removeprefix("./").rstrip("/")
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 3 if pattern.startswith("**/", i) else 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _under(folder: str, root: str) -> bool:
    return not root or folder.startswith(f"{root}/")


def _named(builds: str, folder: str) -> bool:
    """Whether a build file names `folder` as a path (`cd website`, `working-directory: fuzz`)."""
    return re.search(rf"(?<![\w.-]){re.escape(folder)}(?![\w-])", builds) is not None


def _join(folder: str, relative: str) -> str:
    parts = [p for p in folder.split("/") if p]
    for part in relative.replace("\\", "/").split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def _cargo_paths(data: dict) -> Iterable[str]:
    """The `path = "…"` of every dependency table, targets' included."""
    tables = [data, *((data.get("target") or {}).values()), data.get("workspace") or {}]
    for table in tables:
        if not isinstance(table, dict):
            continue
        for section in ("dependencies", "dev-dependencies", "build-dependencies"):
            for spec in (table.get(section) or {}).values():
                if isinstance(spec, dict) and isinstance(spec.get("path"), str):
                    yield spec["path"]


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}


def _json(text: str) -> dict:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}

"""Which project a call is about: `--project`, else `.cenotaph.toml`'s `project` in the
repository root, else the normalized git `origin` URL, else the repository's absolute path."""

from __future__ import annotations

import re
from pathlib import Path

# configparser and tomllib are imported where a file needs them: an agent's hook resolves the
# project on every call that installs or edits, mostly from `.cenotaph.toml` alone.

ROOT_MARKERS = (".git", ".cenotaph.toml")


def repository_root(start: Path) -> Path | None:
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return folder
    return None


def normalize_remote(url: str) -> str:
    """`git@github.com:Owner/Repo.git`, `https://user@github.com/Owner/Repo/` → `github.com/owner/repo`."""
    url = url.strip()
    scp = re.match(r"^(?:[\w.-]+@)?([\w.-]+):(?!//)(.+)$", url)
    if scp and "://" not in url:
        host, path = scp.groups()
    else:
        match = re.match(r"^[a-z+]+://(?:[^@/]+@)?([^/:]+)(?::\d+)?/(.+)$", url, re.IGNORECASE)
        if not match:
            return url.rstrip("/").removesuffix(".git").lower()
        host, path = match.groups()
    path = path.strip("/").removesuffix(".git")
    return f"{host.lower()}/{path.lower()}"


def _origin_url(root: Path) -> str | None:
    git = root / ".git"
    if git.is_file():  # a worktree or submodule: "gitdir: <path>"
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            gitdir = (root / text.split(":", 1)[1].strip()).resolve()
            common = gitdir / "commondir"
            git = (gitdir / common.read_text().strip()).resolve() if common.exists() else gitdir
    config_file = git / "config"
    if not config_file.is_file():
        return None
    import configparser

    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read(config_file, encoding="utf-8")
    except configparser.Error:
        return None
    section = 'remote "origin"'
    return parser.get(section, "url", fallback=None) if parser.has_section(section) else None


# `project = "…"` on a line of its own before any table, the string without escapes: the form the
# README shows, read without tomllib (≈ 2.5 ms of an agent's hook, which resolves the
# project on every call that installs or edits). Any other form is read by tomllib.
_PLAIN_PROJECT = re.compile(r'project[ \t]*=[ \t]*"([^"\\\n]*)"[ \t]*(?:#[^\n]*)?')
_PLAIN_LINE = re.compile(r'[ \t]*(?:#[^\n]*)?')


def _declared_project(text: str) -> str | None:
    lines = text.splitlines()
    plain = [(i, found[1]) for i, line in enumerate(lines) if (found := _PLAIN_PROJECT.fullmatch(line))]
    # Only comments and blank lines above it, and no other mention of `project` below.
    if len(plain) == 1 and all(_PLAIN_LINE.fullmatch(line) for line in lines[:plain[0][0]]) \
            and "project" not in "\n".join(lines[plain[0][0] + 1:]):
        declared: object = plain[0][1]
    else:
        import tomllib

        try:
            declared = tomllib.loads(text).get("project")
        except tomllib.TOMLDecodeError:
            return None
    return declared.strip() or None if isinstance(declared, str) else None


def resolve(explicit: str | None, start: Path) -> str:
    if explicit is not None:
        return explicit
    root = repository_root(start)
    if root is None:
        return str(start.resolve())
    settings = root / ".cenotaph.toml"
    if settings.is_file():
        declared = _declared_project(settings.read_text(encoding="utf-8"))
        if declared:
            return declared
    origin = _origin_url(root)
    if origin:
        return normalize_remote(origin)
    return str(root)


def display_name(project: str) -> str:
    """What a person calls the project in a file others read: the last component of its id (the
    repository's name of `github.com/owner/repo`, the folder's of an absolute path), so that a
    local path never leaves the machine. The global scope ("") is "every project"."""
    parts = [p for p in re.split(r"[/\\]", project.strip()) if p and not re.fullmatch(r"[A-Za-z]:", p)]
    return parts[-1] if parts else "every project"

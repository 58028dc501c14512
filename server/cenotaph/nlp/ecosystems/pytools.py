"""The Python tooling's own declarations: tox.ini's `deps`, the hooks of
.pre-commit-config.yaml and Pipenv's Pipfile. Their names are as much a project's choices as its manifests' (flake8 and
black leaving for ruff happen there), so the history miner reads them."""

from __future__ import annotations

from collections.abc import Iterator

from cenotaph.nlp.ecosystems import base, pep508
from cenotaph.nlp.ecosystems.base import Context, Hit, LazyPattern

# A tox factor condition before a dependency (`py38: pytest`, `{py37,py38}-django,!lowest: x`);
# a URL's scheme is none: no blank follows its colon.
_FACTORS = LazyPattern(r"[ \t]*[!\w{},.+-]+:(?=[ \t]|$)")


def tox_hits(text: str, _context: Context) -> Iterator[Hit]:
    """Each name in a `[testenv]` or `[testenv:…]` section's `deps`, one requirement a line,
    after its factor condition; `-r` files, URLs and `{[section]deps}` substitutions name none."""
    for section, key, offset, value in base.ini_values(text):
        if key.lower() != "deps" or not (section == "testenv" or section.startswith("testenv:")):
            continue
        content = value.split(" #", 1)[0]
        if factors := _FACTORS.match(content):
            offset, content = offset + factors.end(), content[factors.end() :]
        indent = len(content) - len(content.lstrip())
        yield from pep508.line_hits(offset + indent, content.strip(), "test")


_REPO = LazyPattern(r"(?P<key>[ \t]*(?:-[ \t]+)?)repo:[ \t]*['\"]?(?P<url>[^\s'\"#]+)")
_ADDITIONAL = LazyPattern(r"(?P<key>[ \t]*(?:-[ \t]+)?)additional_dependencies:[ \t]*")
_ITEM = LazyPattern(r"(?P<indent>[ \t]*)-[ \t]+['\"]?")
_FLOW_ITEM = LazyPattern(r"[ \t]*['\"]?(?P<item>[^,\]'\"]*)")
# What a hook repository's name adds to its tool's (`ruff-pre-commit`, `mirrors-mypy`); the
# repository of pre-commit's own hooks is named so on PyPI (pre-commit-hooks).
_REPO_PREFIXES = ("pre-commit-", "mirrors-")
_REPO_SUFFIXES = ("-pre-commit", ".git")


def pre_commit_hits(text: str, _context: Context) -> Iterator[Hit]:
    """The tool each hook repository is (the URL's last segment without the hook-repository
    affixes: `https://github.com/astral-sh/ruff-pre-commit` is ruff) and each hook's
    `additional_dependencies`, as PyPI names (most hooks are Python's)."""
    items_from: int | None = None  # the column at or after which `- item` lines are additional dependencies
    for offset, line in base.lines(text):
        if items_from is not None:
            item = _ITEM.match(line)
            if item and len(item["indent"]) >= items_from:
                yield from _requirement(offset + item.end(), line[item.end() :])
                continue
            if line.strip() and not line.lstrip().startswith("#"):
                items_from = None
        if repo := _REPO.match(line):
            yield from _repository(offset + repo.start("url"), repo["url"])
        elif additional := _ADDITIONAL.match(line):
            rest = line[additional.end() :]
            if rest.startswith("["):
                position = additional.end() + 1
                for piece in rest[1:].split("]", 1)[0].split(","):
                    found = _FLOW_ITEM.match(piece)
                    assert found is not None  # it matches any text
                    yield from _requirement(offset + position + found.start("item"), found["item"])
                    position += len(piece) + 1
            else:
                items_from = len(additional["key"])


def _repository(offset: int, url: str) -> Iterator[Hit]:
    if "/" not in url:
        return  # `local`, `meta`: hooks of no repository
    path = url.rstrip("/")
    start = path.rfind("/") + 1
    name = path[start:]
    for suffix in _REPO_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    for prefix in _REPO_PREFIXES:
        if name.lower().startswith(prefix) and name[len(prefix) :].lower() != "hooks":
            start, name = start + len(prefix), name[len(prefix) :]
    if name and pep508.name_span(name) == (0, len(name)):
        yield Hit(offset + start, offset + start + len(name), "pypi", "declaration", "dev")


def _requirement(offset: int, requirement: str) -> Iterator[Hit]:
    content = requirement.split(" #", 1)[0].rstrip().rstrip("'\"")
    if span := pep508.name_span(content):
        yield Hit(offset + span[0], offset + span[1], "pypi", "declaration", "dev")


_PIPFILE_SECTION = LazyPattern(r"[ \t]*\[(?P<name>[^\]]+)\]")
_PIPFILE_KEY = LazyPattern(r"[ \t]*(?P<quote>[\"']?)(?P<name>[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?)(?P=quote)[ \t]*=")
# Pipfile's tables that are not package categories.
_PIPFILE_OTHER = frozenset({"source", "requires", "pipenv", "scripts"})


def pipfile_hits(text: str, _context: Context) -> Iterator[Hit]:
    """Pipfile (TOML): each key of `[packages]` (group "main"), `[dev-packages]` ("dev") and any
    other category table, read line by line so that a file mid-edit still yields its names."""
    group: str | None = None
    for offset, line in base.lines(text):
        if section := _PIPFILE_SECTION.match(line):
            name = section["name"].strip().strip("[]\"'")
            group = None if name in _PIPFILE_OTHER or name.startswith("source") else \
                {"packages": "main", "dev-packages": "dev"}.get(name, name)
        elif group is not None and (key := _PIPFILE_KEY.match(line)):
            yield Hit(offset + key.start("name"), offset + key.end("name"), "pypi", "declaration", group)

"""Conda packages: an ecosystem of their own (as apt's are), matched by their folded name
(conda-forge's `numpy` is PyPI's), installed by conda, mamba and micromamba in a Dockerfile, and
declared in an environment file (environment.yml, whose `pip:` list is PyPI's)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cenotaph.nlp.ecosystems import base, pep508
from cenotaph.nlp.ecosystems.base import Context, Document, Ecosystem, Hit, Installer, name_rule
from cenotaph.nlp.ecosystems.shell import pattern_span

# A match spec may name its channel (`conda-forge::numpy`) and carry a version or build
# (`numpy=1.26`, `'numpy>=1'`, `numpy[build=py311*]`).
_SPEC = r"(?:[\w./:-]+::)?(?P<name>[A-Za-z0-9_][\w.+-]*+)(?=[=<>!~\[ ]|\Z)"
_CONDA = Installer(
    "conda",
    ("conda", "mamba"),
    frozenset({"install", "create"}),
    frozenset(
        "-c --channel -n --name -p --prefix --file --solver --repodata-fn --subdir --platform "
        "--experimental --strict-channel-priority-level".split()
    ),
    pattern_span(_SPEC),
    # conda-forge packages a Python library under its PyPI name (`conda install requests`).
    same_as=lambda name: ("pypi", name),
)
# micromamba reads an environment file with `-f` (conda's old `--force`), and takes its root.
_MICROMAMBA = _CONDA._replace(
    programs=("micromamba",), options_with_argument=_CONDA.options_with_argument | {"-f", "-r", "--root-prefix"}
)

_TOP_KEY = re.compile(r"(?P<key>[\w-]+):")
_ITEM = re.compile(r"(?P<indent>[ \t]*)-[ \t]+(?P<quote>['\"]?)")
_PIP_LIST = re.compile(r"[ \t]*-[ \t]+pip:[ \t]*(?:#.*)?\Z")
_CONDA_NAME = re.compile(_SPEC)


def _environment_hits(text: str, _context: Context) -> Iterator[Hit]:
    """environment.yml: each item of the top-level `dependencies` list (a conda match spec), and
    of its `- pip:` list (a PyPI requirement), read line by line."""
    in_dependencies = False
    pip_indent: int | None = None  # the pip list's items are indented deeper than this
    for offset, line in base.lines(text):
        if key := _TOP_KEY.match(line):
            in_dependencies, pip_indent = key["key"] == "dependencies", None
            continue
        item = _ITEM.match(line)
        if not in_dependencies or item is None:
            continue
        if pip_indent is not None and len(item["indent"]) > pip_indent:
            content = line[item.end():].split(" #", 1)[0].rstrip().rstrip("'\"")
            if span := pep508.name_span(content):
                yield Hit(offset + item.end() + span[0], offset + item.end() + span[1], "pypi", "declaration")
            continue
        pip_indent = len(item["indent"]) if _PIP_LIST.match(line) else None
        if pip_indent is None and (spec := _CONDA_NAME.match(line, item.end())):
            yield Hit(offset + spec.start("name"), offset + spec.end("name"), "conda", "declaration")


ECOSYSTEMS = (
    Ecosystem("conda", system_installers=(_CONDA, _MICROMAMBA), siblings=("pypi",),
              documents=(Document("environment_yml", ("environment.yml", "environment.yaml", "environment-*.yml",
                                                      "environment-*.yaml"), _environment_hits, manifest=True),),
              name_problem=name_rule(r"[a-z0-9_][a-z0-9_.+-]*", "conda", "letters, digits and _ . + -",
                                     versions=r"==?|[<>]=?|!=|~=|\[", flags=re.IGNORECASE | re.ASCII)),
)

"""PEP 508 requirement names, as the Python manifests write them (requirements files, setup.cfg,
tox.ini): where the name is in a requirement or a pip requirement line."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cenotaph.nlp.ecosystems.base import Hit

NAME_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_NAME = re.compile(rf"[ \t]*(?P<name>{NAME_PATTERN})[ \t]*(?=[\[(<>=!~;@]|--|\Z)")
ARCHIVE_SUFFIXES = (".whl", ".zip", ".gz", ".bz2", ".xz", ".tgz", ".tar")
_EGG_FRAGMENT = re.compile(r"#egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")


def name_span(requirement: str) -> tuple[int, int] | None:
    """The PEP 508 name at the start of `requirement` (specifiers, extras, markers, `@ url` and
    pip's `--hash` options may follow), or None when it starts with a path or URL."""
    match = _NAME.match(requirement)
    if match is None or match["name"].lower().endswith(ARCHIVE_SUFFIXES):
        return None
    return match.span("name")


def line_hits(offset: int, content: str, group: str) -> Iterator[Hit]:
    """The name a pip requirement line (without its comment) declares, if any."""
    option = content.lstrip()
    if not option.startswith("-"):
        span = name_span(content)
    elif option.startswith(("-e", "--editable")):
        span = None
    else:
        return  # -r, -c, --index-url and the other options name no package
    if span is None:
        # An editable or URL requirement is named by its `#egg=` fragment, if any.
        egg = _EGG_FRAGMENT.search(content)
        span = egg.span("name") if egg else None
    if span:
        yield Hit(offset + span[0], offset + span[1], "pypi", "declaration", group)

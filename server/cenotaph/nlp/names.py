"""The comparison key every name shares, whatever its ecosystem: what the graveyard, the
detectors, the suppressions and the text analysis agree on before any ecosystem's own rules
(`cenotaph.nlp.ecosystems.normalize`) apply."""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[-_.]+")


def fold(name: str) -> str:
    """The comparison key of any name: lower case, runs of '-', '_' and '.' folded to '-'
    (PEP 503 for PyPI, and the same equivalence crates.io applies to '-' and '_')."""
    return _SEPARATORS.sub("-", name.strip()).lower()

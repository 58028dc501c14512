"""Prose (Markdown, an agent's instructions): plain mentions of the names the graveyard holds, in
no ecosystem in particular."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cenotaph.nlp.ecosystems.base import Context, Document, Ecosystem, Hit
from cenotaph.nlp.names import fold

# A token runs over word characters joined by '.', '+', '-' and '/', so that `scikit-learn`,
# `@scope/pkg` and `github.com/mattn/go-sqlite3` are whole tokens and `onnx` never matches
# inside `onnxruntime`.
_PROSE_TOKEN = re.compile(r"@?\w[\w.+-]*(?:/\w[\w.+-]*)*")


def _path_segments(token: str) -> Iterator[tuple[int, int]]:
    """Offsets of the '/'-separated segments of `token`, `@scope/name` kept together."""
    parts = token.split("/")
    position = 0
    while parts:
        part = parts.pop(0)
        length = len(part)
        if part.startswith("@") and parts:
            length += 1 + len(parts.pop(0))
        yield position, position + length
        position += length + 1


def _prose_key(word: str) -> str:
    # fold() without its regular expression for the common word without separators: prose
    # documents have thousands of words.
    lower = word.lower()
    return fold(lower) if "-" in lower or "_" in lower or "." in lower else lower


def _token_hits(word: str, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The spans of a prose token (sentence punctuation stripped) that name something."""
    key = _prose_key(word)
    if key in vocabulary:
        return [(0, len(word))]
    # A path or URL mentions each package it is made of (`github.com/psf/requests`). The folded
    # path's parts are its segments' keys, so that most paths are ruled out by one fold.
    if "/" not in word or not any(part in vocabulary for part in _scoped_parts(key.split("/"))):
        return []
    return [(start, end) for start, end in _path_segments(word) if _prose_key(word[start:end]) in vocabulary]


def _scoped_parts(parts: list[str]) -> Iterator[str]:
    """Each part of a path, and each `@scope/name` pair of them."""
    yield from parts
    yield from (f"{scope}/{name}" for scope, name in zip(parts, parts[1:]) if scope.startswith("@"))


def _prose_hits(text: str, context: Context) -> Iterator[Hit]:
    vocabulary = context.vocabulary
    if not vocabulary:
        return
    # Each distinct token is looked up once (a long document repeats its words), and the
    # positions are only walked for the tokens that name something: most documents have none.
    spans = {}
    for token in set(_PROSE_TOKEN.findall(text)):
        if found := _token_hits(token.rstrip(".-"), vocabulary):
            spans[token] = found
    if not spans:
        return
    for token in _PROSE_TOKEN.finditer(text):
        if (found := spans.get(token.group())) is not None:
            start = token.start()
            for span_start, span_end in found:
                yield Hit(start + span_start, start + span_end, "other", "mention")


ECOSYSTEMS = (
    Ecosystem(
        "other",
        documents=(
            Document("markdown", ("?*.md", "?*.markdown"), _prose_hits, prose=True),
            Document("instructions", ("agents.md", "claude.md", ".cursorrules", ".github/copilot-instructions.md"),
                     _prose_hits, prose=True, instructions=True),
        ),
    ),
)

"""What recall reads of a query's words: the tokens the full-text index makes of them, each word
with its lemma's tokens, the share of them a text holds, and the stem an inflected word's relatives
begin with."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from cenotaph.nlp.analysis import query_stop_words

WORD = re.compile(r"\w+", re.UNICODE)
# A word typed as a flag (`--with`, `--only`) names an option, not a function word: it is kept.
_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")
# What a question types as code: a --flag, a dotted name (`attrs.define`, `__init__.py`), a name
# joined by underscores (snake_case, SCREAMING_CASE, __dunder__).
_IDENTIFIER = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*|\b[A-Za-z_]\w+(?:\.[A-Za-z_]\w*)+\b|\b\w*[A-Za-z]\w*_\w+\b")


def index_tokens(term: str) -> list[str]:
    """The tokens the full-text index's tokenizer (unicode61, diacritics removed) makes of `term`."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", term.lower()) if not unicodedata.combining(c))
    return [t for t in re.split(r"[\W_]+", folded) if t]


@dataclass(frozen=True, slots=True)
class QueryWord:
    """A word of the query as typed, and the index tokens that hold it."""

    typed: str
    tokens: frozenset[str]  # the index tokens that hold it: its own and its lemma's


def search_words(query: str, flags: bool = True) -> list[str]:
    """The query's words a search reads, lower-cased, stop words left out but (`flags`) those typed
    as a flag: "What happens to --with when --only is given?" asks about "with" and "only"."""
    stop_words = query_stop_words()
    kept = {w.lower() for flag in _FLAG.findall(query) for w in WORD.findall(flag)} if flags else set()
    return [w for w in (w.lower() for w in WORD.findall(query)) if w not in stop_words or w in kept]


def identifiers(query: str) -> tuple[str, ...]:
    """The identifiers a query types, lower-cased: `--only`, `__attrs_pre_init__`, `tox.ini`."""
    return tuple(dict.fromkeys(m.lower() for m in _IDENTIFIER.findall(query)))


def query_words(query: str, analyzer: Any, flags: bool = True) -> list[QueryWord]:
    """The query's words (stop words left out, but not a flag's: `search_words`), each with the index
    tokens that hold it: its own and its lemma's ("mondays" is found in "Monday")."""
    words = search_words(query, flags)
    lemmas = analyzer.lemmas(" ".join(words)).split() if words else []
    if len(lemmas) != len(words):  # the lemmatizer split a word: its own tokens only
        lemmas = words
    return [QueryWord(w, frozenset(index_tokens(w)) | frozenset(index_tokens(lemma)))
            for w, lemma in zip(words, lemmas, strict=True)]


def word_share(words: list[QueryWord], tokens: frozenset[str]) -> float:
    """The share of the query's words a text whose index tokens are `tokens` holds."""
    return sum(1 for w in words if w.tokens & tokens) / len(words) if words else 0.0


# An inflected word's relatives begin with its stem: "symlinking" is in a text that says "symlinks".
_INFLECTION = re.compile(r"(?:ing|ly|ed|es|s)$")
_STEM_LETTERS = 4


def stem(word: str) -> str | None:
    """What an inflected word's relatives begin with, or None when it shows no inflection."""
    stem = _INFLECTION.sub("", word)
    return stem if stem != word and len(stem) >= _STEM_LETTERS and stem.isalpha() else None


@functools.lru_cache(maxsize=4096)
def heading_tokens(heading_path: str) -> frozenset[str]:
    return frozenset(index_tokens(heading_path))


def fts_quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'

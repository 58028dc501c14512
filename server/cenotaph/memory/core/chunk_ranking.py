"""How a document chunk is read beyond its cosine and BM25 (document chunks only: notes and
conversations rank as before): a changelog ranks below the page it announces; a chunk's headings say
what its section is about, read in the query's inflections as well as their own; a chunk that
holds few of the question's words answers it only when it says the same in other words; and when
no chunk stands out from the crowd nearest the question, none answers it but in other words."""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from cenotaph.memory.core.query_words import QueryWord, heading_tokens, index_tokens, word_share
from cenotaph.store.records import MemoryRow

# A changelog's entry names the feature its page explains, in fewer words: the page ranks first.
CHANGELOG_FACTOR = 0.8
# A section's headings say what it is about in a few words: a document chunk gains this much
# relevance × the share of the query's words (weighed by IDF) its heading path holds
# (bench/docs_qa.py --cv: 0.15 in three folds of four).
HEADING_WEIGHT = 0.15
# A chunk holding less than this share of the query's words (in its text, lemmas or headings) is
# an answer only at the cosine an unknown word asks for (recall.UNKNOWN_WORD_COSINE): the questions
# no page answers found a chunk sharing half their words, the answering chunks hold most of theirs
# (bench/docs_qa.py --cv).
DOCUMENT_SHARE = 0.6
# A question the documents answer has a chunk that stands out from the others nearest it; one they do
# not answer finds a crowd of chunks each about as near as the next. When the best document cosine
# lies less than DOCUMENT_STANDOUT above the STANDOUT_RANK-th best, a chunk is an answer only at the
# cosine an unknown word asks for (recall.UNKNOWN_WORD_COSINE). On the docs-QA benchmark the
# answering questions' margin was 0.047 at the least (5th percentile 0.066), the unanswerable ones'
# 0.02–0.17 (bench/docs_qa.py --cv: 0.04 in all four folds).
DOCUMENT_STANDOUT = 0.04
STANDOUT_RANK = 10
# A page whose outermost heading says it is a changelog or release notes.
_CHANGELOG = re.compile(r"(?:change ?log|changes\b|release (?:notes|history|announcements?)|history$|news$|what'?s new)",
                        re.IGNORECASE)


def is_changelog(heading_path: str) -> bool:
    return _CHANGELOG.match(heading_path.split(" › ")[0].strip()) is not None


def weighted_share(words: list[QueryWord], rarity: list[float], tokens: frozenset[str]) -> float:
    """The share of the query's words, each weighed by its rarity, that `tokens` hold: the project's
    name in every page counts for little, the section's subject for much."""
    total = sum(rarity)
    return sum(r for w, r in zip(words, rarity, strict=True) if w.tokens & tokens) / total if total else 0.0


def heading_forms(heading_path: str, words: list[QueryWord], analyzer: Any) -> frozenset[str]:
    """A heading path's index tokens and their lemmas' ("Package modes" holds "mode", "Loading order"
    "load"), as a query word holds its own and its lemma's. Only a token beginning as a query
    token does (its first two letters: "using", "use") is lemmatized: an inflection keeps its
    word's start, and a recall's hundred headings cost a few lookups, not a hundred spaCy runs
    (0.2 ms each)."""
    tokens = heading_tokens(heading_path)
    starts = {t[:2] for w in words for t in w.tokens}
    return tokens.union(*(_lemma_tokens(t, analyzer) for t in tokens if t[:2] in starts))


@functools.lru_cache(maxsize=8192)
def _lemma_tokens(token: str, analyzer: Any) -> frozenset[str]:
    """spaCy's lemma of one word, without a trained model read from a table: the same in a heading
    as alone."""
    return frozenset(index_tokens(analyzer.lemmas(token)))


def relevance(relevance: float, row: MemoryRow, words: list[QueryWord], rarity: list[float], analyzer: Any, *,
              changelog_factor: float, heading_weight: float) -> float:
    """A document chunk's relevance, read with its place and its words."""
    if is_changelog(row.context):
        relevance *= changelog_factor
    relevance += heading_weight * weighted_share(words, rarity, heading_forms(row.context, words, analyzer))
    return relevance


def standout(cosines: list[float]) -> float:
    """How far the best of the document chunks' cosines lies above the STANDOUT_RANK-th best; with
    fewer chunks than that there is no crowd to stand out from (infinity)."""
    if len(cosines) < STANDOUT_RANK:
        return math.inf
    best = sorted(cosines, reverse=True)
    return best[0] - best[STANDOUT_RANK - 1]


def held_share(words: list[QueryWord], row: MemoryRow, analyzer: Any) -> float:
    """The share of the query's words a chunk holds in its text, its lemmas or its headings."""
    held = text_tokens(row.content) | text_tokens(row.lemmas) | heading_forms(row.context, words, analyzer)
    return word_share(words, held)


def holds_enough(words: list[QueryWord], identifiers: tuple[str, ...], row: MemoryRow, analyzer: Any,
                 share: float) -> bool:
    """Whether a chunk holds enough of the question's words to answer it below the cosine that
    says the same in other words: `share` of them (`held_share`), or every identifier the question
    types, as typed ("Why does `__attrs_pre_init__` exist?" holds one word of two, the one that
    names its subject)."""
    if identifiers and all(i in row.content.lower() for i in identifiers):
        return True
    return held_share(words, row, analyzer) >= share


@functools.lru_cache(maxsize=4096)
def text_tokens(content: str) -> frozenset[str]:
    """A text's index tokens: the same chunks come back across the recalls of a session."""
    return frozenset(index_tokens(content))

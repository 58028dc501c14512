"""FTS5 match expressions, as the domain writes them, read as PostgreSQL text-search queries.

The domain speaks one small part of FTS5's query language (memory/core/recall.py, memory/graveyard/approaches.py):
quoted terms, implicit AND, OR, parentheses, `NEAR(… , n)` and the column filter `content :`.
Here a term becomes the words FTS5's unicode61 tokenizer makes of it (`"staging_database"` is the
phrase `staging <-> database`), the column filter the weight the `fts` column gives the content
(A), and NEAR a conjunction (its callers check the distance on the text). The result is a
`tsquery` literal: its lexemes are letters and digits only, so nothing in it needs escaping.
Beside it, the expression's phrases in FTS5's order, each with the columns it may match in: what
bm25() weighs one by one (store/postgres/memories.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(r'\s*(?:"((?:[^"]|"")*)"|(\w+)|([():,]))')
_WORDS = re.compile(r"[\W_]+")
# The `fts` column's weights: content A, lemmas B, context C (store/postgres/migrations.py).
COLUMN_WEIGHTS = {"content": "A", "lemmas": "B", "context": "C"}
# The ASCII punctuation marks, and the runic letters that stand for them in the substring lane's
# marked trigram index (migration 17's `cenotaph_marked`, and `marked` here).
PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'
PUNCTUATION_MARKS = "ᚠᚡᚢᚣᚤᚥᚦᚧᚨᚩᚪᚫᚬᚭᚮᚯᚰᚱᚲᚳᚴᚵᚶᚷᚸᚹᚺᚻᚼᚽᚾᚿ"
_MARKS = str.maketrans(PUNCTUATION, PUNCTUATION_MARKS)


class UnreadableMatch(ValueError):
    """An expression outside the part of FTS5's language the domain uses."""


# The Latin letters that decompose into a base letter and accents, and the letter each folds to, as
# the index folds them (migration 3's `cenotaph_folded_words`, migration 22's) and as SQLite's
# unicode61 tokenizer does.
DIACRITICS = ("ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪī"
              "ĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǦǧ"
              "ǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳ")
DIACRITICS_FOLDED = ("aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeeeeeeeeeegggggggghhiiiiii"
                     "iiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzsoouuaaiioouuuuuuuuuuaaaaggkk"
                     "oooojggnnaaaaaaeeeeiiiioooorrrruuuusstthhaaeeooooooooyy")
_FOLD = str.maketrans(DIACRITICS, DIACRITICS_FOLDED)


def marked(text: str) -> str:
    """`text` with each ASCII punctuation mark written as its letter, as `cenotaph_marked` writes it."""
    return text.translate(_MARKS)


def words(text: str) -> list[str]:
    return [w for w in _WORDS.split(text.translate(_FOLD).lower()) if w]


@dataclass(frozen=True, slots=True)
class Phrase:
    """One phrase of the expression: its words, and the weight labels of the columns it is
    searched in (all three unless a column filter names one)."""

    words: tuple[str, ...]
    labels: str

    @property
    def single_word(self) -> bool:
        """One word searched in every column: its count in each row is kept in the postings."""
        return len(self.words) == 1 and self.labels == ALL_COLUMNS

    @property
    def tsquery(self) -> str:
        label = "" if self.labels == ALL_COLUMNS else f":{self.labels}"
        return " <-> ".join(f"'{w}'{label}" for w in self.words)


ALL_COLUMNS = "ABC"


@dataclass(frozen=True, slots=True)
class Query:
    """A tsquery literal per top-level OR branch (one for anything else), and the phrases."""

    branches: tuple[str, ...]
    phrases: tuple[Phrase, ...]

    @property
    def whole(self) -> str:
        return " | ".join(f"( {b} )" for b in self.branches)

    @property
    def any_phrase(self) -> bool:
        """Each branch is one phrase: a row matches when one of the phrases is in it. (A kept
        branch holds a phrase at least, and a branch dropped for a phrase without words keeps the
        others it read among the phrases: the counts agree only when each branch is one.)"""
        return len(self.branches) == len(self.phrases)


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        position = 0
        text = text.rstrip()
        while position < len(text):
            found = _TOKEN.match(text, position)
            if not found:
                raise UnreadableMatch(f"cannot read the match expression at {text[position:]!r}")
            quoted, bare, punct = found.groups()
            if quoted is not None:
                self.tokens.append(("phrase", quoted.replace('""', '"')))
            elif bare is not None:
                self.tokens.append(("word", bare))
            else:
                self.tokens.append((punct, punct))
            position = found.end()
        self.at = 0
        self.phrases: list[Phrase] = []

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, kind: str) -> str:
        token = self.peek()
        if token is None or token[0] != kind:
            raise UnreadableMatch(f"expected {kind} in the match expression")
        self.at += 1
        return token[1]

    def is_word(self, value: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == "word" and token[1].upper() == value

    # Each returns a tsquery literal, or None for what matches nothing (a term with no words).
    def branches(self, weight: str) -> list[str | None]:
        parts = [self.conjunction(weight)]
        while self.is_word("OR"):
            self.at += 1
            parts.append(self.conjunction(weight))
        return parts

    def disjunction(self, weight: str) -> str | None:
        kept = [p for p in self.branches(weight) if p is not None]
        return " | ".join(f"( {p} )" for p in kept) if kept else None

    def conjunction(self, weight: str) -> str | None:
        parts = [self.unary(weight)]
        while (token := self.peek()) is not None and token[0] != ")" and not self.is_word("OR"):
            if self.is_word("AND"):
                self.at += 1
            parts.append(self.unary(weight))
        if any(p is None for p in parts):
            return None
        return " & ".join(f"( {p} )" for p in parts) if len(parts) > 1 else parts[0]

    def unary(self, weight: str) -> str | None:
        token = self.peek()
        if token is not None and token[0] == "word" and token[1].upper() not in ("NEAR", "AND", "OR", "NOT"):
            column = token[1].lower()
            if column not in COLUMN_WEIGHTS:
                raise UnreadableMatch(f"unknown column {token[1]!r} in the match expression")
            self.at += 1
            self.take(":")
            weight = COLUMN_WEIGHTS[column]
        return self.primary(weight)

    def primary(self, weight: str) -> str | None:
        token = self.peek()
        if token is None:
            raise UnreadableMatch("the match expression ends too early")
        if token[0] == "phrase":
            self.at += 1
            return self.phrase(token[1], weight)
        if token[0] == "(":
            self.at += 1
            inner = self.disjunction(weight)
            self.take(")")
            return inner
        if self.is_word("NEAR"):
            self.at += 1
            self.take("(")
            phrases = []
            while (t := self.peek()) is not None and t[0] == "phrase":
                self.at += 1
                phrases.append(self.phrase(t[1], weight))
            if self.peek() is not None and self.peek()[0] == ",":
                self.at += 1
                self.take("word")
            self.take(")")
            if not phrases or any(p is None for p in phrases):
                return None
            return " & ".join(f"( {p} )" for p in phrases)
        raise UnreadableMatch(f"unexpected {token[1]!r} in the match expression")

    def phrase(self, text: str, weight: str) -> str | None:
        found = words(text)
        if not found:
            return None  # FTS5 counts such a phrase, but it matches nowhere and adds nothing
        self.phrases.append(Phrase(tuple(found), weight or ALL_COLUMNS))
        return self.phrases[-1].tsquery


@lru_cache(maxsize=1024)
def read(match: str) -> Query | None:
    """The query for an FTS5 expression; None when it can match nothing."""
    parser = _Parser(match)
    branches = parser.branches("")
    if parser.peek() is not None:
        raise UnreadableMatch(f"unexpected {parser.peek()[1]!r} in the match expression")
    kept = tuple(b for b in branches if b is not None)
    return Query(kept, tuple(parser.phrases)) if kept else None

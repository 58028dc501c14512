"""Text analysis with spaCy, offline: a blank English pipeline with a lookup lemmatizer (the
English table of spacy-lookups-data, shipped in this package), a PhraseMatcher on LOWER for
approach names and aliases, and Matcher rules for polarity. `import spacy` costs most of a
second, so nothing here is loaded until first use."""

from __future__ import annotations

import functools
import gzip
import json
import re
import sys
import threading
import types
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from cenotaph.nlp.names import fold

# Polarity vocabulary: a recommendation for something vs. one against it.
_FOR_LEMMAS = ["use", "prefer", "recommend", "adopt", "keep", "choose", "pick", "enable", "stick", "work", "rely"]
_AGAINST_LEMMAS = [
    "avoid", "abandon", "drop", "remove", "ditch", "deprecate", "ban", "disable", "fail", "crash", "break",
    "hang", "leak", "segfault", "revert", "uninstall", "forbid",
]
_AGAINST_WORDS = ["broken", "unusable", "flaky", "unstable", "incompatible", "buggy"]
_NEGATORS = ["not", "n't", "never", "no", "nobody", "without"]
_POLAR_WORDS = frozenset([*_FOR_LEMMAS, *_AGAINST_LEMMAS, *_AGAINST_WORDS, *_NEGATORS, "always", "switch", "away",
                          "rid", "longer", "stop"])
# What a stance is about: the content words nearest its polar words, inside one sentence.
_SUBJECT_WINDOW = 4
_SENTENCE_ENDS = frozenset(".!?;:")

# Names in prose that look like packages even when the vocabulary does not know them yet.
_PACKAGE_SHAPED = re.compile(r"(?<![\w@/.-])(@[a-z0-9][\w.-]*/[a-z0-9][\w.-]*|[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?![\w/-])")
_BACKTICKED = re.compile(r"`([A-Za-z0-9@][\w@/.\-]*)`")

# Concepts (memory/core/concepts.py): package names (the entities above), file paths, code identifiers
# and noun chunks. A blank pipeline has no parser to chunk nouns with, so a chunk is a maximal run
# of content tokens (not stop words, punctuation, numbers or polar words), lemmatized: a run of up
# to CHUNK_TOKENS gives itself and each of its words, a longer one (a list, most often) its words.
CHUNK_TOKENS = 3
MAX_CONCEPTS = 40
_FILE_SUFFIX = (r"(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|go|rs|toml|json|md|rst|txt|ya?ml|lock|cfg|ini|sh|lua|c|h|cc|cpp|"
                r"hpp|java|kt|rb|sql|html|css|scss|vue|svelte|env|conf|xml|proto)")
_PATH = re.compile(rf"(?<![\w@/.:~-])(?:\.{{1,2}}/|~/|/)?[\w.-]+(?:/[\w.-]+)+/?|(?<![\w/.-])[\w-]+\.{_FILE_SUFFIX}(?![\w/])")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
    r"|[A-Za-z_]\w*(?=\())(?!\w)")


def _import_spacy() -> Any:
    """spaCy without its command line. `spacy/__init__` imports `spacy.cli` (typer, weasel and
    every training command) only to offer `spacy.info`: 0.18 s of CPU and 355 modules in every
    process that analyses text, for a pipeline that never uses them. Stand-ins take their place
    during the import and leave after it, so that a later `import spacy.cli` gets the real one."""
    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    stand_ins = {name: types.ModuleType(name) for name in ("spacy.cli", "spacy.cli.info")}

    def info(*args: Any, **kwargs: Any) -> Any:
        from spacy.cli.info import info as real

        return real(*args, **kwargs)

    stand_ins["spacy.cli.info"].info = info  # type: ignore[attr-defined]
    stand_ins["spacy.cli"].info = stand_ins["spacy.cli.info"]  # type: ignore[attr-defined]
    sys.modules.update(stand_ins)
    try:
        import spacy
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    return spacy


@dataclass(frozen=True, slots=True)
class Analysis:
    lemmas: str
    polarity: int  # +1 recommends, -1 recommends against, 0 neither
    entities: frozenset[str]
    # Lemmas of the content words around the polar words: two memories of opposite polarity
    # contradict only when they take their sides about something they share.
    subjects: frozenset[str] = frozenset()
    # (value, kind) in order of strength: packages, paths, identifiers, chunks, then words.
    concepts: tuple[tuple[str, str], ...] = ()


class Analyzer:
    """One spaCy pipeline per process, built on first use; thread-safe."""

    def __init__(self) -> None:
        self._nlp: Any = None
        self._matcher: Any = None
        self._phrases: Any = None
        self._vocabulary: frozenset[str] = frozenset()
        self._source: object = None  # the last collection handed to set_vocabulary, to skip re-folding it
        self._lock = threading.RLock()

    @property
    def loaded(self) -> bool:
        return self._nlp is not None

    def preload(self) -> threading.Thread:
        thread = threading.Thread(target=self._load, name="cenotaph-analyzer", daemon=True)
        thread.start()
        return thread

    def _load(self) -> Any:
        with self._lock:
            if self._nlp is not None:
                return self._nlp
            spacy = _import_spacy()
            from spacy.language import Language
            from spacy.lookups import Lookups
            from spacy.matcher import Matcher

            table_path = resources.files("cenotaph.nlp") / "data" / "en_lemma_lookup.json.gz"
            table: dict[str, str] = json.loads(gzip.decompress(table_path.read_bytes()))
            nlp = spacy.blank("en")
            lookups = Lookups()
            lookups.add_table("lemma_lookup", table)
            nlp.add_pipe("lemmatizer", config={"mode": "lookup"}).initialize(lookups=lookups)

            # The lookup table is keyed on lower-case words; a capitalised word ("Switched") missed it.
            if "cenotaph_lower_lemma" not in Language.factories:

                @Language.component("cenotaph_lower_lemma")
                def lower_lemma(doc):  # type: ignore[no-untyped-def]
                    for token in doc:
                        lemma = token.lemma_
                        if lemma == token.text and token.lower_ != token.text:
                            lemma = table.get(token.lower_, token.lower_)
                        token.lemma_ = lemma.lower()
                    return doc

            nlp.add_pipe("cenotaph_lower_lemma")

            matcher = Matcher(nlp.vocab)
            matcher.add("FOR", [[{"LEMMA": {"IN": _FOR_LEMMAS}}], [{"LEMMA": "switch"}, {"LOWER": "to"}],
                                [{"LOWER": "always"}], [{"LEMMA": "go"}, {"LOWER": "with"}]])
            matcher.add("AGAINST", [
                [{"LEMMA": {"IN": _AGAINST_LEMMAS}}],
                [{"LOWER": {"IN": _AGAINST_WORDS}}],
                [{"LOWER": {"IN": _NEGATORS}}, {"IS_ALPHA": True, "OP": "?"}, {"LEMMA": {"IN": _FOR_LEMMAS}}],
                [{"LEMMA": {"IN": ["switch", "move", "migrate", "stay"]}}, {"LOWER": "away"}],
                [{"LEMMA": "get"}, {"LOWER": "rid"}],
                [{"LOWER": "no"}, {"LOWER": "longer"}],
                [{"LOWER": "stop"}, {"LEMMA": "use"}],
                [{"LOWER": "never"}],
            ])
            self._matcher = matcher
            self._nlp = nlp
            return nlp

    def set_vocabulary(self, names: Iterable[str]) -> None:
        """Approach names and aliases (any spelling) that entity extraction recognises."""
        if names is self._source:
            return
        vocabulary = frozenset(fold(n) for n in names if n.strip())
        with self._lock:
            self._source = names
            if vocabulary == self._vocabulary and self._phrases is not None:
                return
            nlp = self._load()
            from spacy.matcher import PhraseMatcher

            phrases = PhraseMatcher(nlp.vocab, attr="LOWER")
            patterns = [nlp.make_doc(v) for v in vocabulary]
            # Folding maps '_' and '.' to '-'; match the other spellings people write too.
            patterns += [nlp.make_doc(v.replace("-", sep)) for v in vocabulary if "-" in v for sep in ("_", ".", "")]
            if patterns:
                phrases.add("NAME", patterns)
            self._phrases = phrases
            self._vocabulary = vocabulary

    def lemmas(self, text: str) -> str:
        nlp = self._load()
        with self._lock:
            doc = nlp(text)
        return " ".join(t.lemma_ for t in doc if not t.is_punct and not t.is_space)

    def analyze(self, text: str) -> Analysis:
        nlp = self._load()
        with self._lock:
            doc = nlp(text)
            lemmas = " ".join(t.lemma_ for t in doc if not t.is_punct and not t.is_space)
            polarity, subjects = self._stance(doc)
            entities = {fold(doc[start:end].text) for start, end in self._name_spans(doc)}
            entities.update(fold(m) for m in _PACKAGE_SHAPED.findall(text))
            entities.update(fold(m) for m in _BACKTICKED.findall(text))
            concepts = _concepts(doc, text, entities)
        return Analysis(lemmas=lemmas, polarity=polarity, entities=frozenset(entities), subjects=subjects,
                        concepts=concepts)

    def concept_key(self, text: str) -> str:
        """The normalized value of a concept a person names, as extraction would have made it."""
        text = text.strip()
        if _PATH.fullmatch(text) and _is_path(text):
            return _path_value(text)
        if _IDENTIFIER.fullmatch(text):
            return text.lower()
        if " " not in text and re.search(r"[-_.@/]", text):
            return fold(text)
        nlp = self._load()
        with self._lock:
            doc = nlp(text)
        return " ".join(t.lemma_ for t in doc if not t.is_punct and not t.is_space)

    def _name_spans(self, doc: Any) -> list[tuple[int, int]]:
        """Vocabulary matches that stand alone: "onnx" in "onnx-tools" is another name."""
        if self._phrases is None:
            return []
        spans = []
        for _, start, end in sorted(self._phrases(doc), key=lambda m: m[1]):
            glued_before = start > 0 and not doc[start - 1].whitespace_ and doc[start - 1].text in "-_/@."
            glued_after = end < len(doc) - 1 and not doc[end - 1].whitespace_ and doc[end].text in "-_/"
            if not (glued_before or glued_after):
                spans.append((start, end))
        return spans

    def _stance(self, doc: Any) -> tuple[int, frozenset[str]]:
        """Polarity, and the subjects of the polar words (empty when polarity is 0)."""
        for_spans: list[tuple[int, int]] = []
        against_spans: list[tuple[int, int]] = []
        for match_id, start, end in self._matcher(doc):
            label = doc.vocab.strings[match_id]
            (for_spans if label == "FOR" else against_spans).append((start, end))
        # A recommendation inside a negation ("don't use") counts against, not for.
        for_spans = [s for s in for_spans if not any(a[0] <= s[0] < a[1] for a in against_spans)]
        score = len(for_spans) - len(against_spans)
        polarity = (score > 0) - (score < 0)
        if polarity == 0:
            return 0, frozenset()
        subjects: set[str] = set()
        for start, end in for_spans + against_spans:
            subjects.update(self._around(doc, start, -1), self._around(doc, end - 1, 1))
        return polarity, frozenset(subjects)

    @staticmethod
    def _around(doc: Any, index: int, step: int) -> list[str]:
        """Up to _SUBJECT_WINDOW content-word lemmas from `index` towards one end of its sentence."""
        found: list[str] = []
        i = index + step
        while 0 <= i < len(doc) and len(found) < _SUBJECT_WINDOW and doc[i].text not in _SENTENCE_ENDS:
            token = doc[i]
            if (token.is_alpha or "-" in token.text) and not token.is_stop and len(token.text) > 1 \
                    and token.lemma_ not in _POLAR_WORDS:
                found.append(token.lemma_)
            i += step
        return found

    def names_in(self, text: str) -> list[str]:
        """Vocabulary names (folded) that occur in `text` as whole names, in order of appearance."""
        nlp = self._load()
        with self._lock:
            doc = nlp.make_doc(text)
            return list(dict.fromkeys(fold(doc[s:e].text) for s, e in self._name_spans(doc)))


def _is_path(match: str) -> bool:
    """`src/app`, `./build`, `notes.md`; not `and/or` or `client/server`."""
    return ("/" not in match or match.startswith(("/", "./", "../", "~/")) or match.count("/") >= 2
            or "." in match.rsplit("/", 1)[-1])


def _path_value(match: str) -> str:
    return match.rstrip(".").removeprefix("./")


def _concepts(doc: Any, text: str, entities: set[str]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {value: "package" for value in sorted(entities)}
    taken: list[tuple[int, int]] = [m.span() for m in _URL.finditer(text)]  # a URL is no concept
    for m in _PATH.finditer(text):
        if not any(s <= m.start() < e for s, e in taken) and _is_path(m.group()):
            found.setdefault(_path_value(m.group()), "path")
            taken.append(m.span())
    for m in _IDENTIFIER.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken) or fold(m.group()) in entities:
            continue
        found.setdefault(m.group().lower(), "identifier")
        taken.append(m.span())
    chunks: list[str] = []
    words: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        if 1 < len(run) <= CHUNK_TOKENS:
            chunks.append(" ".join(run))
        words.extend(run)
        run.clear()

    for token in doc:
        start = token.idx
        content = (not token.is_stop and not token.is_punct and not token.like_num and len(token.text) > 1
                   and any(c.isalpha() for c in token.text) and token.text.replace("-", "").isalnum()
                   and token.lemma_ not in _POLAR_WORDS and fold(token.text) not in entities
                   and not any(s <= start < e for s, e in taken))
        if content:
            run.append(token.lemma_)
        else:
            close_run()
    close_run()
    for value in chunks:
        found.setdefault(value, "phrase")
    for value in words:
        found.setdefault(value, "phrase")
    return tuple(list(found.items())[:MAX_CONCEPTS])


# spaCy's English stop words are made for parsing, not search: they drop verbs and nouns a query
# means ("what did she show", "the first name"). Full-text queries keep these.
_MEANINGFUL = frozenset({
    "call", "give", "go", "make", "made", "move", "name", "put", "say", "see", "show", "take", "used", "using",
    "keep", "get", "first", "third", "last", "next", "top", "back", "front", "side", "full", "empty", "serious",
    "amount", "bottom", "part", "one", "two", "three", "four", "five", "six", "eight", "nine", "ten", "eleven",
    "twelve", "fifteen", "twenty", "forty", "fifty", "sixty", "hundred", "together", "alone", "never", "always",
    "often", "sometimes",
})


@functools.cache
def function_words() -> frozenset[str]:
    """spaCy's English stop words: function words and the commonest verbs and adverbs."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@functools.cache
def query_stop_words() -> frozenset[str]:
    """Words a full-text query leaves out: function words and question words."""
    return function_words() - _MEANINGFUL

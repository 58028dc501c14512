"""Prose (Markdown, reStructuredText, plain text, an agent's instructions): the names the
graveyard holds, where the document writes them as code. A name is found in code blocks and
inline code (`cenotaph.nlp.ecosystems.markup` says where those are), on install command lines
(`pip install requests`, even inside a sentence) and on import lines; in running prose it is an
English word (cross-origin requests, a black background, rich text) and is left alone. An agent's
instruction file adds one prose rule: a sentence that recommends the name (`Use requests for
HTTP`) is what the agent will follow."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache

from cenotaph.nlp import ecosystems
from cenotaph.nlp.ecosystems import markup
from cenotaph.nlp.ecosystems.base import Context, Document, Ecosystem, Hit, Installer, LazyPattern
from cenotaph.nlp.names import fold

# A token runs over word characters joined by '.', '+', '-' and '/', so that `scikit-learn`,
# `@scope/pkg` and `github.com/mattn/go-sqlite3` are whole tokens and `onnx` never matches
# inside `onnxruntime`.
_PROSE_TOKEN = LazyPattern(r"@?\w[\w.+-]*(?:/\w[\w.+-]*)*")

Span = tuple[int, int]


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


def _token_hits(word: str, vocabulary: frozenset[str]) -> list[Span]:
    """The spans of a token (sentence punctuation stripped) that name something: the whole token,
    the packages a path or URL is made of (`github.com/psf/requests`), or the package before an
    attribute (`requests.get`)."""
    key = _prose_key(word)
    if key in vocabulary:
        return [(0, len(word))]
    if "/" in word:
        # The folded path's parts are its segments' keys, so that most paths are ruled out by one fold.
        if not any(part in vocabulary for part in _scoped_parts(key.split("/"))):
            return []
        return [(start, end) for start, end in _path_segments(word) if _prose_key(word[start:end]) in vocabulary]
    head = word.split(".", 1)[0]
    return [(0, len(head))] if "." in word and _prose_key(head) in vocabulary else []


def _scoped_parts(parts: list[str]) -> Iterator[str]:
    """Each part of a path, and each `@scope/name` pair of them."""
    yield from parts
    yield from (f"{scope}/{name}" for scope, name in zip(parts, parts[1:]) if scope.startswith("@"))


def _words_in(text: str, start: int, end: int, vocabulary: frozenset[str], seen: dict[str, list[Span]]) -> Iterator[Span]:
    """The names among the tokens of text[start:end]; `seen` keeps each distinct token's lookup
    (a document repeats its words)."""
    for token in _PROSE_TOKEN.finditer(text, start, end):
        word = token.group()
        if (found := seen.get(word)) is None:
            found = seen[word] = _token_hits(word.rstrip(".-"), vocabulary)
        for span_start, span_end in found:
            yield token.start() + span_start, token.start() + span_end


# The English inside code: comments (`#` or `//` after a space or at a line's start) and
# docstrings. "# Handle cross-origin requests" in a Python block is prose.
_CODE_PROSE = LazyPattern(r"\"\"\"[\s\S]*?(?:\"\"\"|\Z)|'''[\s\S]*?(?:'''|\Z)|(?:(?<=\s)|^)(?:#|//)[^\n]*", re.M)


def _code_hits(text: str, code: list[Span], vocabulary: frozenset[str]) -> Iterator[Span]:
    seen: dict[str, list[Span]] = {}
    for start, end in code:
        position = start
        for english in _CODE_PROSE.finditer(text, start, end):
            yield from _words_in(text, position, english.start(), vocabulary, seen)
            position = english.end()
        yield from _words_in(text, position, end, vocabulary, seen)


# ---------------------------------------------------------------------------------------------
# Install and import lines, wherever they are written


@cache
def _install_commands(installers: tuple[Installer, ...]) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, Installer]]:
    """One pattern for every installer's install form (`pip install`, `python -m pip install`,
    `npm i`, `cargo add`, `yarn workspace web add`), followed by its arguments up to the end of
    the line, of the inline code, or of the shell command; and one for the lines worth trying it
    on (an alternation of programs tried at every offset of a long document costs tens of ms)."""
    alternatives, by_group = [], {}
    for number, installer in enumerate(installers):
        if not installer.subcommands:  # a runner (`npx x`) runs a package rather than install it
            continue
        skipped = rf"(?:[ \t]+[^\s`]+){{{installer.skipped}}}"
        subcommands = "|".join(map(re.escape, sorted(installer.subcommands)))
        alternatives.append(rf"(?P<i{number}>(?:{'|'.join(installer.programs)}){skipped}"
                            rf"(?:[ \t]+-[^\s`]+)*[ \t]+(?:{subcommands}))")
        by_group[f"i{number}"] = installer
    # The arguments are looked ahead at, so that a second command on the line is found too.
    pattern = rf"(?<![\w./-])(?:{'|'.join(alternatives)})(?=(?P<args>[ \t][^\n`;|&()<>]*))"
    subcommands = sorted({subcommand for installer in by_group.values() for subcommand in installer.subcommands})
    hint = re.compile(rf"[ \t](?:{'|'.join(map(re.escape, subcommands))})[ \t]")
    return re.compile(pattern), hint, by_group


_ARGUMENT = LazyPattern(r"\S+")
# Where a sentence that mentions an install command leaves its arguments: "run pip install
# requests and restart", "pip install httpx to get HTTP/2".
_NOT_ARGUMENTS = frozenset("and or to then for if in with from which that the a an on into first instead before after "
                           "so as is are will you it this but again when where via using".split())
_QUOTES = "'\""


def _lines_with(hint: LazyPattern, text: str) -> Iterator[Span]:
    """The lines (start, end) where `hint` matches, each once."""
    position = 0
    while found := hint.search(text, position):
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end())
        position = end = len(text) if end < 0 else end
        yield start, end


def _install_hits(text: str, context: Context) -> Iterator[Span]:
    pattern, hint, by_group = _install_commands(context.installers() + ecosystems.project_installers())
    for command in (found for start, end in _lines_with(hint, text) for found in pattern.finditer(text, start, end)):
        installer = next(installer for group, installer in by_group.items() if command[group] is not None)
        skip_next = False
        for argument in _ARGUMENT.finditer(command.group("args")):
            word = argument.group()
            if skip_next or word.startswith("-"):
                skip_next = not skip_next and "=" not in word and word in installer.options_with_argument
                continue
            if word.lower() in _NOT_ARGUMENTS:
                break
            stripped = word.strip(_QUOTES).rstrip(".,:")
            offset = command.start("args") + argument.start() + (len(word) - len(word.lstrip(_QUOTES)))
            if (span := installer.package_span(stripped)) is not None:
                yield offset + span[0], offset + span[1]
            if word[-1] in ".,:" and not word.endswith(".."):  # the sentence goes on without it
                break


# Import lines of Python (also after a `>>>` prompt), JavaScript, Rust and Go, one statement a
# line: `import requests`, `from requests import get`, `import x from "moment"`, `use serde::…`.
_IMPORT_LINE = LazyPattern(
    r"""^[ \t]*(?:(?:>>>|\.\.\.)[ \t]+)?(?:
        from[ \t]+(?P<from>[\w.]+)[ \t]+import\b
      | import[ \t]+(?P<imports>[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)
            [ \t]*;?[ \t]*(?:\#[^\n]*)?$
      | (?:pub[ \t]+)?use[ \t]+(?P<use>\w+)::
      | extern[ \t]+crate[ \t]+(?P<crate>\w+)
      | import[ \t]+(?:\w+[ \t]+)?"(?P<go>[^"\n]+)"
      | import[ \t]+[^\n'"]*?\bfrom[ \t]+['"](?P<esm>[^'"\n]+)['"]
      | import[ \t]+['"](?P<bare>[^'"\n]+)['"]
    )""", re.M | re.X)
_IMPORT_HINT = LazyPattern(r"\b(?:import|use|crate)\b")
_REQUIRE = LazyPattern(r"""\b(?:require|import)\([ \t]*['"](?P<module>[^'"\s]+)['"][ \t]*\)""")
_IMPORTED = LazyPattern(r"(?:^|,)[ \t]*([\w.]+)")  # the modules of `import a.b as c, d`


def _import_hits(text: str, vocabulary: frozenset[str]) -> Iterator[Span]:
    modules: list[Span] = [found.span("module") for found in _REQUIRE.finditer(text)]
    for line in (found for start, end in _lines_with(_IMPORT_HINT, text)
                 if (found := _IMPORT_LINE.match(text, start, end))):
        if line["imports"] is not None:
            start = line.start("imports")
            modules += [(start + m.start(1), start + m.end(1)) for m in _IMPORTED.finditer(line["imports"])]
        else:
            modules.append(next(line.span(group) for group in ("from", "use", "crate", "go", "esm", "bare")
                                if line[group] is not None))
    for start, end in modules:
        yield from ((start + s, start + e) for s, e in _token_hits(text[start:end], vocabulary))


# ---------------------------------------------------------------------------------------------
# An agent's instructions: the sentences that recommend a name

_RECOMMENDS = LazyPattern(r"\b(?:use[sd]?|using|prefer(?:s|red)?|recommend(?:s|ed)?|adopt|choose|pick|install|add"
                         r"|stick[ \t]+(?:to|with)|rely[ \t]+on|go[ \t]+with|switch[ \t]+to|migrate[ \t]+to"
                         r"|depend[ \t]+on)\b", re.I)
# What ends the part of a sentence a recommendation is about: the sentence, or a contrast
# ("Use httpx instead of requests", "prefer httpx over requests").
_RECOMMENDATION_END = LazyPattern(r"[.!?;:](?=\s|$)|\n|\b(?:instead|rather|not|never|over|than|except|unlike|but|vs"
                                 r"|versus|replac\w*|avoid\w*)\b", re.I)
_NEGATED = LazyPattern(r"\b(?:not|never|no|don't|do not|avoid|without|stop)\b|n't\b", re.I)
_SENTENCE_START = LazyPattern(r"[.!?;:\n][^.!?;:\n]*\Z")


def _recommendation_hits(text: str, vocabulary: frozenset[str], code: list[Span]) -> Iterator[Span]:
    seen: dict[str, list[Span]] = {}
    for verb in _RECOMMENDS.finditer(text):
        window = max(0, verb.start() - 200)
        before = _SENTENCE_START.search(text, window, verb.start())
        if _NEGATED.search(text, before.start() if before else window, verb.start()):
            continue
        stop = _RECOMMENDATION_END.search(text, verb.end())
        for start, end in _words_in(text, verb.end(), stop.start() if stop else len(text), vocabulary, seen):
            if not any(code_start <= start < code_end for code_start, code_end in code):
                yield start, end


# ---------------------------------------------------------------------------------------------
# The scanners


def _scanner(regions: Callable[[str], list[Span]], *, instructions: bool = False) -> Callable[[str, Context], Iterator[Hit]]:
    def scan(text: str, context: Context) -> Iterator[Hit]:
        vocabulary = context.vocabulary
        if not vocabulary:
            return
        code = regions(text)
        spans = set(_code_hits(text, code, vocabulary))
        spans.update(_install_hits(text, context))
        spans.update(_import_hits(text, vocabulary))
        if instructions:
            spans.update(_recommendation_hits(text, vocabulary, code))
        for start, end in sorted(spans):
            if _prose_key(text[start:end]) in vocabulary:  # an install's argument is any package
                yield Hit(start, end, "other", "mention")

    return scan


ECOSYSTEMS = (
    Ecosystem(
        "other",
        documents=(
            Document("markdown", ("?*.md", "?*.markdown"), _scanner(markup.markdown), prose=True),
            Document("restructuredtext", ("?*.rst",), _scanner(markup.restructuredtext), prose=True),
            Document("plaintext", ("?*.txt", "readme"), _scanner(markup.plain), prose=True),
            Document("instructions", ("agents.md", "claude.md", ".cursorrules", ".github/copilot-instructions.md"),
                     _scanner(markup.markdown, instructions=True), prose=True, instructions=True),
        ),
    ),
)

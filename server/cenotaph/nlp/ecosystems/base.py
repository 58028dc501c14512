"""What every ecosystem module is made of and shares: the description types (`Ecosystem`,
`Document`, `Installer`), the hit a scanner yields, the workspace's import names, offsets turned
into LSP positions, and the lexer that blanks comments and strings out of code.

Scanners work on the raw text and tolerate files that are mid-edit: nothing relies on a parser
succeeding. They yield character offsets into the text; the dispatch (`cenotaph.nlp.detect`)
turns them into (line, UTF-16 column) positions once, at the end.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol

from cenotaph.nlp.names import fold

MentionKind = Literal["import", "declaration", "mention"]
# The description types are named tuples, not dataclasses: an agent's hook imports this module on
# every tool call, and making a frozen dataclass costs ≈ 0.5 ms (these and the dataclasses module
# itself were most of the 10 ms a pass lost in the hook's round 5, docs/benchmarks.md).
EMPTY: Mapping[str, str] = MappingProxyType({})

# What a compiled pattern is used for here: LazyPattern takes them from it at first use.
_PATTERN_ATTRIBUTES = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split", "pattern",
                       "flags", "groups", "groupindex")


class LazyPattern:
    """`re.compile(pattern, flags)` at its first use, then its methods: a module that reads many
    formats compiles only the patterns of those a call reads (an agent's hook, started for each
    tool call, reads one command line or one file). Used after that, it costs what the compiled
    pattern's methods cost: they are this object's own attributes."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # only for what is not set yet: the first use
        compiled = re.compile(*self._source)
        for attribute in _PATTERN_ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)


class Hit(NamedTuple):
    start: int  # offset into the text
    end: int
    ecosystem: str
    kind: MentionKind
    group: str = ""  # a manifest declaration's group (see `detect.Declaration.group`); "" elsewhere


# ---------------------------------------------------------------------------------------------
# Descriptions


class Installer(NamedTuple):
    """A package manager as a shell command runs it: `pip install x`, `npm remove y`."""

    ecosystem: str
    # The programs that run it: a pattern for the program's file name, then any words that must
    # follow it (`python[\d.]* -m pip`).
    programs: tuple[str, ...]
    subcommands: frozenset[str]  # the subcommands that install or add
    options_with_argument: frozenset[str]
    package_span: Callable[[str], tuple[int, int] | None]  # the name an argument installs
    removals: frozenset[str] = frozenset()  # the subcommands that take packages out again
    # Options whose argument is a package too (`uv run --with x`, `pipx inject`'s none), and those
    # whose argument is the package a runner's command comes from (`npx -p x cmd`: `cmd` is no package).
    package_options: frozenset[str] = frozenset()
    source_options: frozenset[str] = frozenset()
    # Which positional arguments are packages: "all"; "first" (a runner: `npx x args…`, unless a
    # source option named it); "none" (`uv run --with x script.py`).
    positionals: Literal["all", "first", "none"] = "all"
    skipped: int = 0  # positional arguments before the subcommand that name no package (`yarn workspace web add`)
    # The package of another ecosystem a name installs the same library as (conda-forge's `requests`
    # is PyPI's; Debian's `python3-requests` too): (ecosystem, name), or None.
    same_as: Callable[[str], tuple[str, str] | None] | None = None
    # Bytes a command line running it always holds: the cheap test before an agent's transcript
    # line is parsed (`go get`, not `go`, which most lines hold).
    hint: str = ""


class Context(NamedTuple):
    """What a scan may need besides the text."""

    vocabulary: frozenset[str] = frozenset()  # the folded names prose is matched against
    # What a Dockerfile's shell commands or a document's install lines may run, asked for only by
    # the scanners that read commands: finding them searches the whole text for every ecosystem's
    # programs, 5 % of a requirements file's detection, which needs none.
    installers: Callable[[], tuple[Installer, ...]] = tuple


Scanner = Callable[[str, Context], Iterable[Hit]]


class ImportResolver(Protocol):
    def names(self, document: Path, folder: Path) -> ImportNames:
        """What the workspace `folder` says the imports of the file at `document` stand for."""
        ...


class Document(NamedTuple):
    """A kind of file an ecosystem reads."""

    kind: str  # the settings' file kind: "python", "requirements", "package_json", …
    # File names, as globs matched case-insensitively on the name, or on `parent/name` when the
    # pattern holds a '/'. Lower case. A path several patterns match goes to the most specific
    # (see `cenotaph.nlp.ecosystems.document_kind`).
    patterns: tuple[str, ...]
    scan: Scanner
    manifest: bool = False  # declares dependencies: read when mining a repository's history
    at_root: bool = False  # read at a workspace's root to tell which ecosystem declares a name
    well_formed: Callable[[str], bool] | None = None  # whether the text parses as its format; None: any does
    prose: bool = False  # matched against the graveyard's vocabulary: it names things in words
    instructions: bool = False  # an agent's instructions: a line there may recommend what it names
    group_in_name: bool = False  # the file's name tells its declarations' group (requirements-dev.txt)
    import_names: Callable[[], ImportResolver] | None = None  # reads what the workspace says imports are


def _no_keys(_name: str) -> tuple[str, ...]:
    return ()


def _never(_name: str) -> bool:
    return False


def _itself(name: str) -> str:
    return name


# What is wrong with a name as an ecosystem's registry would see it, or None when it is one.
NameRule = Callable[[str], "str | None"]


def unprintable(name: str) -> str | None:
    """The rule every ecosystem shares: no whitespace, control, format or unassigned character
    (a name with a newline becomes a file name with one; a zero-width space hides a twin)."""
    for char in name:
        if unicodedata.category(char)[0] in "CZ":
            described = unicodedata.name(char, f"U+{ord(char):04X}")
            return f"contains {described} ({char!r}): a name holds no whitespace or control characters"
    return None


def name_rule(pattern: str, registry: str, allowed: str, *, versions: str = "", flags: int = re.IGNORECASE | re.ASCII,
              max_length: int = 214) -> NameRule:
    """A rule: the whole name matches `pattern` (`registry` names the rules it follows, `allowed`
    says them in words). A name followed by a version (what the pattern `versions` matches at its
    start: `==`, `@`) is told which part is the name, so the version goes in the reason instead."""
    whole = LazyPattern(pattern, flags)
    version = LazyPattern(versions) if versions else None

    def problem(name: str) -> str | None:
        if not name:
            return "is empty"
        head = whole.match(name)
        if head and head.group() and version and version.match(name, head.end()):
            return (f"{name!r} carries a version: the {registry} name is {head.group()!r} "
                    f"(`{name[head.end():]}` is a version specifier; say which versions in the reason)")
        if found := unprintable(name):
            return found
        if len(name) > max_length:
            return f"is {len(name)} characters; a {registry} name has at most {max_length}"
        if head is None or head.end() != len(name):
            return f"{name!r} is not a valid {registry} name: {allowed}"
        return None

    return problem


# A command, or a name met in prose (no '/': a name is one file under `.cenotaph/graveyard/`): a word of letters or digits, and . _ - + # inside.
WORD_NAME = name_rule(r"[^\W_](?:[\w.+#-]*[\w+#])?", "tool or prose", "letters, digits and . _ - + #, starting with a "
                      "letter or digit", flags=0, max_length=100)


class Ecosystem(NamedTuple):
    """One ecosystem the graveyard knows: the files that declare or import its names, and the
    rules its names follow."""

    name: str  # as recorded: "pypi", "npm", …
    language: str = ""  # what a person calls the code its packages serve ("python" for pypi), if one
    documents: tuple[Document, ...] = ()
    normalize: Callable[[str], str] = fold  # the graveyard's key for a (stripped) name
    name_problem: NameRule = WORD_NAME  # what its registry would refuse in a name
    # Folded names that stand for a package under another name (the import `yaml` is the
    # distribution pyyaml), whatever the ecosystem they were met in.
    aliases: Mapping[str, str] = EMPTY
    other_keys: Callable[[str], tuple[str, ...]] = _no_keys  # more keys a name may be recorded under
    # The names code imports a package (by its key) under, as written: what a linter bans
    # (`PIL` for pillow); empty when its code does not import it by a name of its own.
    modules: Callable[[str], tuple[str, ...]] = _no_keys
    enclosing: Callable[[str], Sequence[str]] = _no_keys  # the names that may hold it, nearest first
    spelled: Callable[[str], bool] = _never  # whether a name's spelling gives the ecosystem away
    system_installers: tuple[Installer, ...] = ()  # what a Dockerfile's RUN installs with
    project_installers: tuple[Installer, ...] = ()  # what adds to a project's manifest, or removes
    is_backport: Callable[[str], bool] = _never  # a newer standard library's feature, for older ones
    is_type_stubs: Callable[[str], bool] = _never  # types for another package (`@types/node`)
    # The key every major version of a package shares, where a new major version is a new name
    # (Go's `example.com/mod/v2`, `gopkg.in/yaml.v3`): moving to it is an upgrade.
    lineage: Callable[[str], str] = _itself
    # The URLs installed packages' metadata names (repository, home page), for declared names
    # (key → name as written): key → URLs.
    project_urls: Callable[[Path, Mapping[str, str]], dict[str, list[str]]] | None = None
    # Where its root manifests rank when a workspace's root tells a name's ecosystem (lower
    # first; ties in registry order).
    root_rank: int = 0
    # The ecosystems that declare the same software by the same name (a PyPI package in a conda
    # environment's list; a system package and the image that ships it).
    siblings: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# What a workspace says its imports stand for


class ImportNames:
    """Folded import name → the folded package it stands for, per ecosystem. Compared by identity:
    cached, so stable while files are (a scan's cache key holds it)."""

    __slots__ = ("cargo", "pypi")

    def __init__(self, cargo: Mapping[str, str] = EMPTY, pypi: Mapping[str, str] = EMPTY) -> None:
        self.cargo = cargo  # crate key in code → crate on crates.io
        self.pypi = pypi  # top-level module → distribution

    def resolve(self, name: str, ecosystem: str) -> str | None:
        table = self.cargo if ecosystem == "cargo" else self.pypi if ecosystem == "pypi" else None
        return table.get(fold(name)) if table else None


NONE = ImportNames()

Stamp = tuple[int, int]  # (st_mtime_ns, st_size)


def stamp(path: Path) -> Stamp | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


# ---------------------------------------------------------------------------------------------
# Positions

_NEWLINE = LazyPattern(r"\r\n|\r|\n")  # the three line breaks LSP recognises
_LONE_CARRIAGE_RETURN = LazyPattern(r"\r(?!\n)")


def utf16_column(line: str, index: int) -> int:
    """The LSP column of `line[index]`: characters outside the BMP count as two code units."""
    return len(line[:index].encode("utf-16-le", "surrogatepass")) // 2


def line_starts(text: str) -> list[int]:
    """The offset at which each line of `text` starts."""
    if _LONE_CARRIAGE_RETURN.search(text):
        return [0] + [line_break.end() for line_break in _NEWLINE.finditer(text)]
    # Only '\n' ends a line ('\r\n' ends with one): the line lengths add up in C.
    return [0, *accumulate(map((1).__add__, map(len, text.split("\n"))))]


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of every line, the content without its line break."""
    position = 0
    for line_break in _NEWLINE.finditer(text):
        yield position, text[position : line_break.start()]
        position = line_break.end()
    yield position, text[position:]


_INI_SECTION = LazyPattern(r"\[(?P<name>[^\]\r\n]+)\]")
_INI_KEY = LazyPattern(r"(?P<key>[^=:\s][^=:]*?)[ \t]*[=:][ \t]*")


def ini_values(text: str) -> Iterator[tuple[str, str, int, str]]:
    """(section in lower case, key, offset, the value's text on one line) for every line of every
    value of an INI file (setup.cfg, tox.ini), as configparser reads them: a value continues on
    indented lines, and comment or blank lines inside it are skipped."""
    section = ""
    key: str | None = None  # the key whose value is being read
    for offset, line in lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if line[:1] in " \t":
            if key is not None:
                yield section, key, offset, line
            continue
        key = None
        if header := _INI_SECTION.match(line):
            section = header["name"].strip().lower()
        elif found := _INI_KEY.match(line):
            key = found["key"].strip()
            yield section, key, offset + found.end(), line[found.end() :]


# ---------------------------------------------------------------------------------------------
# Lexing code: comments and string contents are blanked out (offsets and line breaks kept) so
# that import patterns can be matched on what is really code.

# A closer receives the text and the match of a token's opening delimiter and returns
# (end of the token's body, end of the token), or None when the delimiter turned out not to
# open a token (a Rust lifetime, a JavaScript division).
Closer = Callable[[str, re.Match[str]], tuple[int, int] | None]


class Syntax(NamedTuple):
    """What blanks a language's comments and strings out: the delimiters that open them."""

    openers: re.Pattern[str]
    comments: Mapping[str, Closer]  # blanked whole: comments, and JavaScript regex literals
    strings: Mapping[str, Closer]  # blanked inside their quotes; both keyed by opening delimiter


def syntax(comments: Mapping[str, Closer], strings: Mapping[str, Closer]) -> Syntax:
    # A plain alternation of literals, longest first: `re` then finds their first characters at
    # C speed, which a group around each delimiter would prevent.
    delimiters = sorted([*comments, *strings], key=len, reverse=True)
    return Syntax(re.compile("|".join(map(re.escape, delimiters))), comments, strings)


class Lexed(NamedTuple):
    """A text lexed: its code, and where its strings are."""

    code: str  # the text with comments and string contents blanked; quotes are kept
    strings: dict[int, tuple[int, int, int]]  # opening offset -> (content start, content end, end)


_NOT_LINE_BREAK = LazyPattern(r"[^\r\n]")


def _blank(source: str) -> str:
    """`source` with every character but line breaks replaced by a space."""
    if "\n" in source or "\r" in source:
        return _NOT_LINE_BREAK.sub(" ", source)
    return " " * len(source)


def lex(text: str, syntax: Syntax) -> Lexed:
    pieces: list[str] = []
    strings: dict[int, tuple[int, int, int]] = {}
    copied = 0  # text[:copied] is already in pieces
    scan = 0
    while opener := syntax.openers.search(text, scan):
        comment_closer = syntax.comments.get(opener.group())
        closed = (comment_closer or syntax.strings[opener.group()])(text, opener)
        if closed is None:
            scan = opener.end()
            continue
        body_end, end = closed
        if comment_closer:
            blank_start, blank_end = opener.start(), end
        else:
            blank_start, blank_end = opener.end(), body_end
            strings[opener.start()] = (opener.end(), body_end, end)
        pieces.append(text[copied:blank_start])
        pieces.append(_blank(text[blank_start:blank_end]))
        copied = blank_end
        scan = end
    pieces.append(text[copied:])
    return Lexed("".join(pieces), strings)


def closed_by(pattern: str) -> Closer:
    """A closer for tokens whose rest matches `pattern`; its group `close` is the terminator."""
    rest_pattern = LazyPattern(pattern, re.S)

    def close(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
        rest = rest_pattern.match(text, opener.end())
        return None if rest is None else (rest.start("close"), rest.end())

    return close


def single_line_string_rest(quote: str) -> str:
    # An unterminated string ends with its line, so a stray quote mid-edit damages one line only.
    return rf"(?:[^{quote}\\\r\n]++|\\(?:\r\n|.)?)*+(?P<close>{quote}|(?=[\r\n])|\Z)"


def triple_quoted_rest(quote: str) -> str:
    body = rf"(?:[^{quote}\\]++|\\.?|{quote}(?!{quote}{quote}))*+"
    return rf"{body}(?P<close>{quote * 3}|\Z)"


def single_line_string(quote: str) -> Closer:
    return closed_by(single_line_string_rest(quote))


def multi_line_string(quote: str) -> Closer:
    return closed_by(rf"(?:[^{quote}\\]++|\\.?)*+(?P<close>{quote}|\Z)")


LINE_COMMENT_REST = r"[^\r\n]*+(?P<close>)"
LINE_COMMENT = closed_by(LINE_COMMENT_REST)
BLOCK_COMMENT = closed_by(r".*?(?P<close>\*/|\Z)")


def continues_word(code: str, index: int, joiners: str = "") -> bool:
    """Whether the character before code[index] makes a keyword found there part of a longer
    name (`transform`, `Array.from`, `r#use`)."""
    return index > 0 and (code[index - 1].isalnum() or code[index - 1] in "_" + joiners)

"""Where a document names a package, tool or image: imports in code, declarations in manifests
and Dockerfiles, plain mentions in prose, each with its exact LSP range.

Every scanner works on the raw text and tolerates files that are mid-edit: nothing here relies
on a parser succeeding. Scanners yield character offsets into the text; `detect` turns them into
(line, UTF-16 column) positions once, at the end.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import accumulate
import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from pathlib import PurePosixPath
from typing import Literal, NamedTuple
from urllib.parse import unquote

from cenotaph.nlp.names import fold, normalize
from cenotaph.nlp.workspace import NONE, ImportNames

MentionKind = Literal["import", "declaration", "mention"]


class Mention(NamedTuple):  # a tuple: documents hold thousands, built on every keystroke
    name: str  # the name as written in the document
    # What the graveyard is asked about: the package an import stands for in its workspace
    # (workspace.ImportNames), else names.normalize(name, ecosystem); names.fold(name) in prose.
    key: str
    ecosystem: str
    kind: MentionKind
    line: int  # 0-based
    start: int  # 0-based column in UTF-16 code units
    end: int  # exclusive, UTF-16 code units


class _Hit(NamedTuple):
    start: int  # offset into the text
    end: int
    ecosystem: str
    kind: MentionKind
    group: str = ""  # a manifest declaration's group (see `Declaration.group`); "" elsewhere


# ---------------------------------------------------------------------------------------------
# Document kinds

_NAME_KINDS: Mapping[str, str] = {
    "agents.md": "instructions",
    "claude.md": "instructions",
    ".cursorrules": "instructions",
    "pyproject.toml": "pyproject",
    "package.json": "package_json",
    "cargo.toml": "cargo_toml",
    "go.mod": "go_mod",
    "setup.py": "setup_py",
    "setup.cfg": "setup_cfg",
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
}

_SUFFIX_KINDS: Mapping[str, str] = {
    ".py": "python",
    ".pyi": "python",
    **dict.fromkeys((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"), "javascript"),
    ".go": "go",
    ".rs": "rust",
    ".md": "markdown",
    ".markdown": "markdown",
}


def document_kind(path: str) -> str | None:
    """Classify a file path (or URI path) into the kind of scan it gets, or None when the file
    is not scanned."""
    parts = PurePosixPath(unquote(path.replace("\\", "/"))).parts
    if not parts:
        return None
    name = parts[-1].lower()
    parent = parts[-2].lower() if len(parts) > 1 else ""
    if name in _NAME_KINDS:
        return _NAME_KINDS[name]
    if name == "copilot-instructions.md" and parent == ".github":
        return "instructions"
    if name.startswith(("dockerfile.", "containerfile.")) or name.endswith(".dockerfile"):
        return "dockerfile"
    stem, _, extension = name.rpartition(".")
    suffix = f".{extension}" if stem else ""
    if suffix in (".txt", ".in") and (
        "requirements" in stem or stem.startswith("constraints") or parent == "requirements"
    ):
        return "requirements"
    return _SUFFIX_KINDS.get(suffix)


# ---------------------------------------------------------------------------------------------
# Positions

_NEWLINE = re.compile(r"\r\n|\r|\n")  # the three line breaks LSP recognises
_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")


def utf16_column(line: str, index: int) -> int:
    """The LSP column of `line[index]`: characters outside the BMP count as two code units."""
    return len(line[:index].encode("utf-16-le", "surrogatepass")) // 2


def _line_starts(text: str) -> list[int]:
    """The offset at which each line of `text` starts."""
    if _LONE_CARRIAGE_RETURN.search(text):
        return [0] + [line_break.end() for line_break in _NEWLINE.finditer(text)]
    # Only '\n' ends a line ('\r\n' ends with one): the line lengths add up in C.
    return [0, *accumulate(map((1).__add__, map(len, text.split("\n"))))]


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of every line, the content without its line break."""
    position = 0
    for line_break in _NEWLINE.finditer(text):
        yield position, text[position : line_break.start()]
        position = line_break.end()
    yield position, text[position:]


# ---------------------------------------------------------------------------------------------
# Lexing code: comments and string contents are blanked out (offsets and line breaks kept) so
# that import patterns can be matched on what is really code.

# A closer receives the text and the match of a token's opening delimiter and returns
# (end of the token's body, end of the token), or None when the delimiter turned out not to
# open a token (a Rust lifetime, a JavaScript division).
_Closer = Callable[[str, re.Match[str]], tuple[int, int] | None]


@dataclass(frozen=True, slots=True)
class _Syntax:
    openers: re.Pattern[str]
    comments: Mapping[str, _Closer]  # blanked whole: comments, and JavaScript regex literals
    strings: Mapping[str, _Closer]  # blanked inside their quotes; both keyed by opening delimiter


def _syntax(comments: Mapping[str, _Closer], strings: Mapping[str, _Closer]) -> _Syntax:
    # A plain alternation of literals, longest first: `re` then finds their first characters at
    # C speed, which a group around each delimiter would prevent.
    delimiters = sorted([*comments, *strings], key=len, reverse=True)
    return _Syntax(re.compile("|".join(map(re.escape, delimiters))), comments, strings)


@dataclass(frozen=True, slots=True)
class _Lexed:
    code: str  # the text with comments and string contents blanked; quotes are kept
    strings: dict[int, tuple[int, int, int]]  # opening offset -> (content start, content end, end)


_NOT_LINE_BREAK = re.compile(r"[^\r\n]")


def _blank(source: str) -> str:
    """`source` with every character but line breaks replaced by a space."""
    if "\n" in source or "\r" in source:
        return _NOT_LINE_BREAK.sub(" ", source)
    return " " * len(source)


def _lex(text: str, syntax: _Syntax) -> _Lexed:
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
    return _Lexed("".join(pieces), strings)


def _closed_by(pattern: str) -> _Closer:
    """A closer for tokens whose rest matches `pattern`; its group `close` is the terminator."""
    rest_pattern = re.compile(pattern, re.S)

    def close(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
        rest = rest_pattern.match(text, opener.end())
        return None if rest is None else (rest.start("close"), rest.end())

    return close


def _single_line_string_rest(quote: str) -> str:
    # An unterminated string ends with its line, so a stray quote mid-edit damages one line only.
    return rf"(?:[^{quote}\\\r\n]++|\\(?:\r\n|.)?)*+(?P<close>{quote}|(?=[\r\n])|\Z)"


def _triple_quoted_rest(quote: str) -> str:
    body = rf"(?:[^{quote}\\]++|\\.?|{quote}(?!{quote}{quote}))*+"
    return rf"{body}(?P<close>{quote * 3}|\Z)"


def _single_line_string(quote: str) -> _Closer:
    return _closed_by(_single_line_string_rest(quote))


def _multi_line_string(quote: str) -> _Closer:
    return _closed_by(rf"(?:[^{quote}\\]++|\\.?)*+(?P<close>{quote}|\Z)")


_LINE_COMMENT_REST = r"[^\r\n]*+(?P<close>)"
_LINE_COMMENT = _closed_by(_LINE_COMMENT_REST)
_BLOCK_COMMENT = _closed_by(r".*?(?P<close>\*/|\Z)")

_JS_REGEX_BODY = re.compile(
    r"(?:[^/\\\[\r\n]++|\\[^\r\n]?|\[(?:[^\]\\\r\n]++|\\[^\r\n]?)*+\]?)*+(?P<close>/|(?=[\r\n])|\Z)"
)
_JS_OPERAND_EXPECTED_AFTER = frozenset("(,=:[!&|?{};")


def _js_regex_literal(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
    # A '/' opens a regular expression only where an operand is expected; elsewhere it divides.
    # Reading a quote inside a regex as a string would swallow the code that follows.
    before = opener.start() - 1
    while before >= 0 and text[before] in " \t\r\n":
        before -= 1
    if before >= 0 and text[before] not in _JS_OPERAND_EXPECTED_AFTER:
        return None
    body = _JS_REGEX_BODY.match(text, opener.end())
    assert body is not None  # every part of the pattern may match empty
    return body.end(), body.end()


_RUST_COMMENT_DELIMITER = re.compile(r"/\*|\*/")


def _rust_block_comment(text: str, opener: re.Match[str]) -> tuple[int, int]:
    depth = 1  # Rust block comments nest
    for delimiter in _RUST_COMMENT_DELIMITER.finditer(text, opener.end()):
        depth += 1 if delimiter.group() == "/*" else -1
        if depth == 0:
            return delimiter.end(), delimiter.end()
    return len(text), len(text)


_RUST_ESCAPED_STRING = _multi_line_string('"')
_WORD_CHARACTER = re.compile(r"\w")


def _rust_string(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
    """A string, raw (`r"…"`, `br#"…"#`, no escapes) when `r` and any '#' come right before."""
    quote = opener.start()
    hashes = 0
    while quote - hashes > 0 and text[quote - hashes - 1] == "#":
        hashes += 1
    r = quote - hashes - 1
    prefix = r - 1 if r > 0 and text[r - 1] in "bc" else r
    if r < 0 or text[r] != "r" or (prefix > 0 and _WORD_CHARACTER.match(text, prefix - 1)):
        return _RUST_ESCAPED_STRING(text, opener)
    terminator = '"' + "#" * hashes
    body_end = text.find(terminator, opener.end())
    if body_end < 0:
        return len(text), len(text)
    return body_end, body_end + len(terminator)


_JAVASCRIPT = _syntax(
    comments={"//": _LINE_COMMENT, "/*": _BLOCK_COMMENT, "/": _js_regex_literal},
    strings={
        '"': _single_line_string('"'),
        "'": _single_line_string("'"),
        "`": _multi_line_string("`"),
    },
)

_GO = _syntax(
    comments={"//": _LINE_COMMENT, "/*": _BLOCK_COMMENT},
    strings={
        '"': _single_line_string('"'),
        "`": _closed_by(r"[^`]*+(?P<close>`|\Z)"),
        "'": _single_line_string("'"),
    },
)

_RUST = _syntax(
    comments={"//": _LINE_COMMENT, "/*": _rust_block_comment},
    strings={
        '"': _rust_string,
        # A quote that does not close a character literal is a lifetime or a label: no token.
        "'": _closed_by(
            r"(?:\\(?:u\{[0-9A-Fa-f]{1,6}\}|x[0-9A-Fa-f]{2}|[^\r\n])|[^'\\\r\n])(?P<close>')"
        ),
    },
)


# ---------------------------------------------------------------------------------------------
# Shared name grammars

_REQUIREMENT_NAME_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_REQUIREMENT_NAME = re.compile(rf"[ \t]*(?P<name>{_REQUIREMENT_NAME_PATTERN})[ \t]*(?=[\[(<>=!~;@]|--|\Z)")
_ARCHIVE_SUFFIXES = (".whl", ".zip", ".gz", ".bz2", ".xz", ".tgz", ".tar")


def _requirement_name_span(requirement: str) -> tuple[int, int] | None:
    """The PEP 508 name at the start of `requirement` (specifiers, extras, markers, `@ url` and
    pip's `--hash` options may follow), or None when it starts with a path or URL."""
    match = _REQUIREMENT_NAME.match(requirement)
    if match is None or match["name"].lower().endswith(_ARCHIVE_SUFFIXES):
        return None
    return match.span("name")


_NPM_NAME = re.compile(r"(?:@[\w.~-]+/)?[A-Za-z0-9][\w.~-]*", re.ASCII)


def _npm_name_length(spec: str, followers: str) -> int | None:
    """Length of the npm package name (`@scope/name` or `name`) at the start of `spec` when one of
    `followers` or the end comes after it."""
    match = _NPM_NAME.match(spec)
    if match is None or (match.end() < len(spec) and spec[match.end()] not in followers):
        return None
    if spec[: match.end()].lower().endswith((".tgz", ".tar.gz")):
        return None
    return match.end()


def _image_name_length(reference: str) -> int:
    """Length of an image reference without its `:tag` and `@digest` (a registry port stays)."""
    name = reference.split("@", 1)[0]
    colon = name.rfind(":")
    return colon if colon > name.rfind("/") else len(name)


# ---------------------------------------------------------------------------------------------
# Python

_PY_SPACE = r"(?:[ \t\f]|\\(?:\r\n|\r|\n))"
# A statement starts the file, a line, or follows a ';' or the ':' of a compound statement
# (`try: import x`), blanks in between.
_PY_STATEMENT_START = r"[\r\n;:]"
_PY_STATEMENT = re.compile(
    rf"{_PY_STATEMENT_START}?[ \t\f]*+(?P<keyword>import|from){_PY_SPACE}+"
)
_PY_CANDIDATE = re.compile(rf"(?:import|from){_PY_SPACE}+")
# From code to the next statement start followed by `import` or `from` (or to the end): comments
# and strings are passed over inside the regular expression engine, so the work done in Python is
# per import statement, not per token. The string and comment grammars are the other lexers'.
_PY_TO_STATEMENT = re.compile(
    "(?:"
    + "|".join(
        [
            r"[^'\"#\r\n;:]++",
            rf"{_PY_STATEMENT_START}(?![ \t\f]*+(?:import|from){_PY_SPACE})",
            f"#{_LINE_COMMENT_REST}",
            *(
                f"{opener}{rest}"
                for quote in "\"'"
                for opener, rest in (
                    (quote * 3, _triple_quoted_rest(quote)),
                    (quote, _single_line_string_rest(quote)),
                )
            ),
        ]
    ).replace("(?P<close>", "(?:")  # one pattern holds several terminators: unnamed here
    + ")*+",
    re.S,
)
_PY_IMPORTED_MODULE = re.compile(
    rf"(?P<top>\w+)(?:{_PY_SPACE}*\.{_PY_SPACE}*\w+)*"  # a.b.c
    rf"(?:{_PY_SPACE}+as{_PY_SPACE}+\w+)?"  # as alias
    rf"{_PY_SPACE}*(?P<more>,{_PY_SPACE}*)?"
)
_PY_NOT_A_LIBRARY = frozenset({"__future__"})


def _last_python_candidate(text: str) -> int | None:
    """The end of the last `_PY_CANDIDATE` match, found from the end of the text."""
    ends = []
    for keyword in ("import", "from"):
        end = len(text)
        while (start := text.rfind(keyword, 0, end)) >= 0:
            if candidate := _PY_CANDIDATE.match(text, start):
                ends.append(candidate.end())
                break
            end = start + len(keyword) - 1  # occurrences that start before this one
    return max(ends, default=None)


def _python_statements(text: str) -> Iterator[re.Match[str]]:
    """The `import` and `from` keywords of code that start a statement (match _PY_STATEMENT)."""
    # The scan stops at the last candidate (usually in the import block at the top): a string
    # still open there hides it, as it should.
    last = _last_python_candidate(text)
    if last is None:
        return
    statement = _PY_STATEMENT.match(text)  # the first line follows no line break
    position = 0
    while True:
        if statement is not None:
            yield statement
            # Not its end: a line continuation in the blanks after the keyword starts a line.
            position = statement.end("keyword")
        position = _PY_TO_STATEMENT.match(text, position, last).end()
        if position >= last:
            return
        statement = _PY_STATEMENT.match(text, position)
        assert statement is not None  # the scan stops only where a statement starts


def _python_hits(text: str) -> Iterator[_Hit]:
    for statement in _python_statements(text):
        # Module names are read from the raw text: their grammar holds no quote or '#', so it
        # never runs into a string or comment. After `from`, a relative module (`from . import
        # x`) starts with a dot: no match.
        position = statement.end()
        while module := _PY_IMPORTED_MODULE.match(text, position):
            if module["top"] not in _PY_NOT_A_LIBRARY:
                yield _Hit(*module.span("top"), "pypi", "import")
            if statement["keyword"] == "from" or module["more"] is None:
                break
            position = module.end()


def _continues_word(code: str, index: int, joiners: str = "") -> bool:
    """Whether the character before code[index] makes a keyword found there part of a longer
    name (`transform`, `Array.from`, `r#use`)."""
    return index > 0 and (code[index - 1].isalnum() or code[index - 1] in "_" + joiners)


# ---------------------------------------------------------------------------------------------
# JavaScript / TypeScript

# `from "p"` (import and export declarations), `import "p"`, `import("p")`, `require("p")`;
# the quote is left to the lookahead so that its offset finds the string literal.
_JS_SPECIFIER = re.compile(r"""(?P<keyword>from|import|require)\s*(?P<call>\(\s*)?(?=["'`])""")
_JS_IMPORT_FORMS = frozenset(
    {("from", False), ("import", False), ("import", True), ("require", True)}  # (keyword, call)
)

_NODE_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram "
    "diagnostics_channel dns domain events fs http http2 https inspector module net os path "
    "perf_hooks process punycode querystring readline repl stream string_decoder sys timers tls "
    "trace_events tty url util v8 vm wasi worker_threads zlib".split()
)


def _javascript_hits(text: str) -> Iterator[_Hit]:
    lexed = _lex(text, _JAVASCRIPT)
    for specifier in _JS_SPECIFIER.finditer(lexed.code):
        form = (specifier["keyword"], specifier["call"] is not None)
        if form not in _JS_IMPORT_FORMS or _continues_word(lexed.code, specifier.start(), "$."):
            continue
        literal = lexed.strings.get(specifier.end())
        if literal is None:
            continue
        content_start, content_end, _ = literal
        spec = text[content_start:content_end]
        # Relative, absolute, `node:`/URL and aliased (`~/`, `#internal`) specifiers do not match.
        length = _npm_name_length(spec, "/")
        if length and spec[:length] not in _NODE_BUILTINS:
            yield _Hit(content_start, content_start + length, "npm", "import")


# ---------------------------------------------------------------------------------------------
# Go

_GO_IMPORT = re.compile(r"^[ \t]*import[ \t]*(?:(?P<block>\()|(?=[\w.\"`]))", re.M)
_GO_IMPORT_SPEC = re.compile(r"[\s;]*(?:[\w.]+[ \t]*)?(?=[\"`])")
_GO_IMPORT_PATH = re.compile(r"[^\s\"`\\]+")


def _go_hits(text: str) -> Iterator[_Hit]:
    lexed = _lex(text, _GO)
    for declaration in _GO_IMPORT.finditer(lexed.code):
        position = declaration.end()
        while spec := _GO_IMPORT_SPEC.match(lexed.code, position):
            literal = lexed.strings.get(spec.end())
            if literal is None:
                break
            content_start, content_end, position = literal
            path = text[content_start:content_end]
            # The standard library's paths have no dot in their first element; a path left
            # unterminated mid-edit runs into the code after it.
            if "." in path.split("/", 1)[0] and _GO_IMPORT_PATH.fullmatch(path):
                yield _Hit(content_start, content_end, "go", "import")
            if not declaration["block"]:
                break


# ---------------------------------------------------------------------------------------------
# Rust

_RUST_USE = re.compile(r"use\s+(?:::\s*)?(?:(?P<crate>\w+)|(?P<group>\{))")
_RUST_EXTERN_CRATE = re.compile(r"extern\s+crate\s+(?P<crate>\w+)")
_RUST_GROUP_TOKEN = re.compile(r"\w+|[{},;]")
_RUST_LOCAL_ITEM = re.compile(r"(?:mod|enum)\s+(?P<name>\w+)")
_RUST_NOT_CRATES = frozenset(
    {"std", "core", "alloc", "proc_macro", "crate", "self", "super", "Self"}
)


def _rust_group_roots(code: str, position: int) -> Iterator[tuple[int, int]]:
    """The first path segment of each item in a root `use {a::b, c}` group."""
    depth = 1
    expects_item = True
    for token in _RUST_GROUP_TOKEN.finditer(code, position):
        match token.group():
            case "{":
                depth += 1
            case "}":
                depth -= 1
                if depth == 0:
                    return
            case ",":
                expects_item = depth == 1
            case ";":
                return
            case _ if expects_item and depth == 1:
                expects_item = False
                yield token.span()


def _rust_hits(text: str) -> Iterator[_Hit]:
    code = _lex(text, _RUST).code
    # `use parser::X` names a module of this crate when the file declares `mod parser`.
    def keyword_matches(pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        return (m for m in pattern.finditer(code) if not _continues_word(code, m.start(), "#"))

    local = _RUST_NOT_CRATES | {item["name"] for item in keyword_matches(_RUST_LOCAL_ITEM)}
    spans = [extern.span("crate") for extern in keyword_matches(_RUST_EXTERN_CRATE)]
    for use in keyword_matches(_RUST_USE):
        if use["crate"]:
            spans.append(use.span("crate"))
        else:
            spans.extend(_rust_group_roots(code, use.end()))
    for start, end in spans:
        if code[start:end] not in local:
            yield _Hit(start, end, "cargo", "import")


# ---------------------------------------------------------------------------------------------
# requirements.txt and friends

_REQUIREMENTS_COMMENT = re.compile(r"(?:^|[ \t])#")  # pip: a '#' at the start or after a blank
_EGG_FRAGMENT = re.compile(r"#egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")


# Any physical line; a common requirement line (a name then a specifier, a comment or the end,
# no backslash anywhere) also has its name read here, so that most lines cost no Python work.
_REQUIREMENT_LINE = re.compile(
    r"(?:\A|(?<=\n)|(?<=\r)(?!\n))"  # a line start: after '\n', after '\r' not in "\r\n"
    rf"(?:[ \t]*(?P<name>{_REQUIREMENT_NAME_PATTERN})[ \t]*+"
    # What _REQUIREMENT_NAME accepts after the name; the end of content is a comment or blanks.
    r"(?=[\[(<>=!~;@]|--|(?<=[ \t])#|[^\S\r\n]*+(?:[\r\n]|\Z))"
    r"(?=[^\r\n\\]*+(?:[\r\n]|\Z)))?"
    r"[^\r\n]*+"
)


def _requirements_hits(text: str) -> Iterator[_Hit]:
    starts_requirement = True  # False on the continuation lines of a requirement
    for physical_line in _REQUIREMENT_LINE.finditer(text):
        name = physical_line["name"]
        if name is not None and not name.lower().endswith(_ARCHIVE_SUFFIXES):
            if starts_requirement:
                yield _Hit(*physical_line.span("name"), "pypi", "declaration", "main")
            starts_requirement = True  # without a backslash, the line does not continue
            continue
        offset, line = physical_line.start(), physical_line.group()
        comment = _REQUIREMENTS_COMMENT.search(line)
        content = line[: comment.start()] if comment else line.rstrip()
        # As in pip, a line carrying a comment never continues onto the next one.
        continues = comment is None and content.endswith("\\")
        if continues:
            content = content[:-1]
        if starts_requirement and content.strip():
            yield from _requirement_line_hits(offset, content)
            starts_requirement = False
        if not continues:
            starts_requirement = True


def _requirement_line_hits(offset: int, content: str) -> Iterator[_Hit]:
    option = content.lstrip()
    if not option.startswith("-"):
        span = _requirement_name_span(content)
    elif option.startswith(("-e", "--editable")):
        span = None
    else:
        return  # -r, -c, --index-url and the other options name no package
    if span is None:
        # An editable or URL requirement is named by its `#egg=` fragment, if any.
        egg = _EGG_FRAGMENT.search(content)
        span = egg.span("name") if egg else None
    if span:
        yield _Hit(offset + span[0], offset + span[1], "pypi", "declaration", "main")


# ---------------------------------------------------------------------------------------------
# TOML (pyproject.toml, Cargo.toml): a forgiving scan that keeps the offsets tomllib drops.

_TOML_TOKEN = re.compile(
    r"(?P<space>[ \t]+|#[^\r\n]*)"
    r"|(?P<newline>\r\n|\r|\n)"
    r'|(?P<multiline>"""(?:[^"\\]++|\\.?|"(?!""))*+(?:"""|\Z)'
    r"|'''(?:[^']++|'(?!''))*+(?:'''|\Z))"
    r'|(?P<string>"(?:[^"\\\r\n]++|\\[^\r\n]?)*+"?'
    r"|'[^'\r\n]*+'?)"
    r"|(?P<bare>[\w-]+)"
    r"|(?P<punct>[\[\]{}=,.])"
    r"|(?P<other>.)",
    re.S,
)


@dataclass(frozen=True, slots=True)
class _Span:
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _TomlEntry:
    path: tuple[_Span, ...]  # table header keys followed by the (dotted) key
    strings: tuple[_Span, ...]  # a string value, or the top-level strings of an array value


class _TomlScan:
    """Table headers and keys with their values' strings, in document order. Every key of an
    inline table is an entry of its own, under the path of the key that holds the table."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._tokens = [
            (token.lastgroup, token.start(), token.end())
            for token in _TOML_TOKEN.finditer(text)
            if token.lastgroup != "space"
        ]
        self.entries: list[_TomlEntry] = []
        table: tuple[_Span, ...] = ()
        i = 0
        while i < len(self._tokens):
            header = self._header(i)
            if header is not None:
                table, i = header
                self.entries.append(_TomlEntry(table, ()))
                continue
            keys, after_keys = self._key(i)
            if keys and self._is_punct(after_keys, "="):
                i = self._value(after_keys + 1, table + keys)
                if self._at_line_start(i):
                    continue
            i = self._next_line(i)

    def _is_punct(self, i: int, char: str) -> bool:
        if i >= len(self._tokens):
            return False
        kind, start, _ = self._tokens[i]
        return kind == "punct" and self._text[start] == char

    def _is_newline(self, i: int) -> bool:
        return i < len(self._tokens) and self._tokens[i][0] == "newline"

    def _at_line_start(self, i: int) -> bool:
        return i == 0 or self._is_newline(i - 1)

    def _next_line(self, i: int) -> int:
        while i < len(self._tokens) and not self._is_newline(i):
            i += 1
        return i + 1

    def _span(self, i: int) -> _Span:
        kind, start, end = self._tokens[i]
        if kind == "string":
            terminated = end - start >= 2 and self._text[end - 1] == self._text[start]
            start, end = start + 1, end - 1 if terminated else end
        return _Span(self._text[start:end], start, end)

    def _key(self, i: int) -> tuple[tuple[_Span, ...], int]:
        keys: list[_Span] = []
        while i < len(self._tokens) and self._tokens[i][0] in ("bare", "string"):
            keys.append(self._span(i))
            i += 1
            if not self._is_punct(i, "."):
                break
            i += 1
        return tuple(keys), i

    def _header(self, i: int) -> tuple[tuple[_Span, ...], int] | None:
        """The keys of the `[table]` or `[[array.of.tables]]` header at token i, and the index
        after it; None unless a whole line there has the shape of a header."""
        if not (self._at_line_start(i) and self._is_punct(i, "[")):
            return None
        brackets = 2 if self._is_punct(i + 1, "[") else 1
        keys, j = self._key(i + brackets)
        for _ in range(brackets):
            if not self._is_punct(j, "]"):
                return None
            j += 1
        if not keys or (j < len(self._tokens) and not self._is_newline(j)):
            return None
        return keys, j

    def _value(self, i: int, path: tuple[_Span, ...]) -> int:
        if i < len(self._tokens) and self._tokens[i][0] == "string":
            self.entries.append(_TomlEntry(path, (self._span(i),)))
            return i + 1
        if self._is_punct(i, "["):
            strings, i = self._array(i + 1)
            self.entries.append(_TomlEntry(path, strings))
            return i
        self.entries.append(_TomlEntry(path, ()))
        if self._is_punct(i, "{"):
            return self._inline_table(i + 1, path)
        while i < len(self._tokens) and not (
            self._is_newline(i) or any(self._is_punct(i, char) for char in ",]}")
        ):
            i += 1  # a number, boolean or date
        return i

    def _array(self, i: int) -> tuple[tuple[_Span, ...], int]:
        strings: list[_Span] = []
        depth, braces = 1, 0
        while i < len(self._tokens):
            kind, start, _ = self._tokens[i]
            char = self._text[start]
            if kind == "newline" and self._header(i + 1) is not None:
                return tuple(strings), i + 1  # an array left open mid-edit ends at the next table
            if kind == "string" and depth == 1 and braces == 0:
                strings.append(self._span(i))  # strings inside inline tables are not items
            elif kind == "punct":
                match char:
                    case "[":
                        depth += 1
                    case "]":
                        depth -= 1
                        if depth == 0:
                            return tuple(strings), i + 1
                    case "{":
                        braces += 1
                    case "}":
                        braces = max(0, braces - 1)
            i += 1
        return tuple(strings), i

    def _inline_table(self, i: int, path: tuple[_Span, ...]) -> int:
        while i < len(self._tokens):
            if self._is_punct(i, "}"):
                return i + 1
            if self._is_newline(i) and self._header(i + 1) is not None:
                return i + 1
            keys, after_keys = self._key(i)
            if keys and self._is_punct(after_keys, "="):
                i = self._value(after_keys + 1, path + keys)
            else:
                i += 1
        return i


def _table(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _array(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _grouped(value: object) -> list[object]:
    """The items of every array in a table of named groups."""
    return [item for group in _table(value).values() for item in _array(group)]


def _pyproject_declared(text: str) -> set[str] | None:
    """Folded names of everything the file declares, or None when it does not parse."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    project = _table(data.get("project"))
    requirements = [
        *_array(project.get("dependencies")),
        *_grouped(project.get("optional-dependencies")),
        *_grouped(data.get("dependency-groups")),
        *_array(_table(data.get("build-system")).get("requires")),
    ]
    declared = set()
    for requirement in requirements:
        if isinstance(requirement, str) and (span := _requirement_name_span(requirement)):
            declared.add(fold(requirement[span[0] : span[1]]))
    poetry = _table(_table(data.get("tool")).get("poetry"))
    poetry_tables = [
        poetry.get("dependencies"),
        poetry.get("dev-dependencies"),
        *(_table(group).get("dependencies") for group in _table(poetry.get("group")).values()),
    ]
    declared.update(fold(name) for table in poetry_tables for name in _table(table))
    return declared


def _is_requirement_array(path: tuple[str, ...]) -> bool:
    return (
        path in (("project", "dependencies"), ("build-system", "requires"))
        or (len(path) == 3 and path[:2] == ("project", "optional-dependencies"))
        or (len(path) == 2 and path[0] == "dependency-groups")
    )


def _poetry_table_depth(path: tuple[str, ...]) -> int:
    """How many keys of `path` name a Poetry dependency table (0 when none does)."""
    if path[:3] in (("tool", "poetry", "dependencies"), ("tool", "poetry", "dev-dependencies")):
        return 3
    if len(path) >= 5 and path[:3] == ("tool", "poetry", "group") and path[4] == "dependencies":
        return 5
    return 0


def _pyproject_group(path: tuple[str, ...], poetry_depth: int) -> str:
    if poetry_depth == 5:
        return f"group:{path[3]}"
    if poetry_depth == 3:
        return "dev" if path[2] == "dev-dependencies" else "main"
    if path[0] == "build-system":
        return "build"
    if path[0] == "dependency-groups":
        return f"group:{path[1]}"
    return f"extra:{path[2]}" if len(path) == 3 else "main"


def _pyproject_hits(text: str) -> Iterator[_Hit]:
    declared = _pyproject_declared(text)
    reported: set[int] = set()
    for entry in _TomlScan(text).entries:
        path = tuple(key.text for key in entry.path)
        names: list[tuple[int, int]] = []
        depth = 0
        if _is_requirement_array(path):
            for string in entry.strings:
                if span := _requirement_name_span(string.text):
                    names.append((string.start + span[0], string.start + span[1]))
        elif (depth := _poetry_table_depth(path)) and len(path) > depth:
            key = entry.path[depth]
            is_name = _requirement_name_span(key.text) == (0, len(key.text))
            if is_name and key.text.lower() != "python":  # python: the interpreter, no package
                names.append((key.start, key.end))
        for start, end in names:
            # The scan sees every occurrence; when the file parses, tomllib says which count.
            if start not in reported and (declared is None or fold(text[start:end]) in declared):
                reported.add(start)
                yield _Hit(start, end, "pypi", "declaration", _pyproject_group(path, depth))


_CARGO_DEPENDENCY_TABLES = frozenset(
    # Cargo still accepts the underscore spellings of older manifests.
    "dependencies dev-dependencies build-dependencies dev_dependencies build_dependencies".split()
)


def _cargo_table_depth(path: tuple[str, ...]) -> int:
    """How many keys of `path` name a Cargo dependency table (0 when none does)."""
    if path[:1] and path[0] in _CARGO_DEPENDENCY_TABLES:
        return 1
    if path[:2] == ("workspace", "dependencies"):
        return 2
    if len(path) >= 3 and path[0] == "target" and path[2] in _CARGO_DEPENDENCY_TABLES:
        return 3
    return 0


_CRATE_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _cargo_group(dependency: tuple[str, ...]) -> str:
    """`main`, `dev`, `build`, `workspace`, or `target:<cfg>:<one of the first three>`."""
    if dependency[0] == "workspace":
        return "workspace"
    table = dependency[-2]
    base = "dev" if table.startswith("dev") else "build" if table.startswith("build") else "main"
    return f"target:{dependency[1]}:{base}" if dependency[0] == "target" else base


def _cargo_toml_hits(text: str) -> Iterator[_Hit]:
    dependencies: list[tuple[tuple[str, ...], _Span]] = []  # (dependency's full path, its key)
    renamed: dict[tuple[str, ...], _Span] = {}  # dependency's full path -> `package = "real"`
    for entry in _TomlScan(text).entries:
        path = tuple(key.text for key in entry.path)
        depth = _cargo_table_depth(path)
        if not depth or len(path) <= depth:
            continue
        dependencies.append((path[: depth + 1], entry.path[depth]))
        if path[depth + 1 :] == ("package",) and entry.strings:
            renamed[path[: depth + 1]] = entry.strings[0]
    reported: set[int] = set()
    for dependency, key in dependencies:
        name = renamed.get(dependency, key)
        if name.start not in reported and _CRATE_NAME.fullmatch(name.text):
            reported.add(name.start)
            yield _Hit(name.start, name.end, "cargo", "declaration", _cargo_group(dependency))


# ---------------------------------------------------------------------------------------------
# package.json: a forgiving scan, so that a missing comma or brace mid-edit loses little.

_JSON_TOKEN = re.compile(r'"(?:[^"\\\r\n]++|\\.)*+"?|[{}\[\]:,]')


@dataclass(slots=True)
class _JsonContainer:
    path: tuple[str, ...]  # keys leading from the root object to this container
    is_object: bool
    expects_key: bool = True
    key: str = ""  # the latest key read in this object


def _json_strings(text: str) -> Iterator[tuple[tuple[str, ...], bool, int, int]]:
    """(path, is a key, content start, content end) of each string: a key's path is its object's,
    a value's path ends with its key."""
    stack: list[_JsonContainer] = []
    for token in _JSON_TOKEN.finditer(text):
        char = token.group()[0]
        top = stack[-1] if stack else None
        if char in "{[":
            path = () if top is None else top.path + ((top.key,) if top.is_object else ())
            stack.append(_JsonContainer(path, char == "{"))
        elif char in "}]":
            if stack:
                stack.pop()
            if stack and stack[-1].is_object:
                stack[-1].expects_key = True
        elif char in ":,":
            if top and top.is_object:
                top.expects_key = char == ","
        elif top is not None:
            terminated = token.end() - token.start() >= 2 and token.group().endswith('"')
            start, end = token.start() + 1, token.end() - 1 if terminated else token.end()
            if top.is_object and top.expects_key:
                top.key = text[start:end]
                top.expects_key = False
                yield top.path, True, start, end
            else:
                yield top.path + ((top.key,) if top.is_object else ()), False, start, end
                # After a value the next string is a key even if the comma is still missing.
                top.expects_key = top.is_object


_NPM_DEPENDENCY_OBJECTS = frozenset(
    {"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"}
)
_NPM_GROUPS: Mapping[str, str] = {
    "dependencies": "main", "devDependencies": "dev", "peerDependencies": "peer", "optionalDependencies": "optional",
}
_NPM_BUNDLED_ARRAYS = frozenset({"bundleDependencies", "bundledDependencies"})
_NPM_OVERRIDE_OBJECTS = frozenset({"overrides", "resolutions"})


def _npm_override_target(selector: str) -> tuple[int, int] | None:
    """The package an `overrides`/`resolutions` key applies to: the last package of a yarn path
    such as `**/parent/@scope/child@1`, without its version."""
    segments: list[tuple[int, int]] = []
    position = 0
    parts = selector.split("/")
    while parts:
        part = parts.pop(0)
        length = len(part)
        if part.startswith("@") and parts:
            length += 1 + len(parts.pop(0))
        if part not in ("**", "*"):
            segments.append((position, position + length))
        position += length + 1
    if not segments:
        return None
    start, end = segments[-1]
    length = _npm_name_length(selector[start:end], "@")
    return (start, start + length) if length else None


def _package_json_hits(text: str) -> Iterator[_Hit]:
    dependencies: dict[tuple[str, str], tuple[int, int]] = {}  # (section, key) -> name span
    others: list[tuple[int, int, str]] = []  # name span and group
    for path, is_key, start, end in _json_strings(text):
        value = text[start:end]
        section = path[0] if path else ""
        if is_key and len(path) == 1 and section in _NPM_DEPENDENCY_OBJECTS:
            if _npm_name_length(value, ""):  # the whole key is a package name
                dependencies[(section, value)] = (start, end)
        elif not is_key and len(path) == 2 and section in _NPM_DEPENDENCY_OBJECTS:
            # `"alias": "npm:real@^1"` installs `real`.
            length = _npm_name_length(value[4:], "@") if value.startswith("npm:") else None
            if length:
                dependencies[(section, path[1])] = (start + 4, start + 4 + length)
        elif not is_key and len(path) == 1 and section in _NPM_BUNDLED_ARRAYS:
            if _npm_name_length(value, ""):
                others.append((start, end, "bundled"))
        elif is_key and len(path) == 1 and section in _NPM_OVERRIDE_OBJECTS:
            if target := _npm_override_target(value):
                others.append((start + target[0], start + target[1], "override"))
    for (section, _), (start, end) in dependencies.items():
        yield _Hit(start, end, "npm", "declaration", _NPM_GROUPS[section])
    for start, end, group in others:
        yield _Hit(start, end, "npm", "declaration", group)


# ---------------------------------------------------------------------------------------------
# go.mod

_GO_MOD_DIRECTIVE = re.compile(r"[ \t]*(?P<verb>require|replace)\b[ \t]*(?P<block>\()?")
_GO_MOD_PATH = re.compile(r'[ \t]*"?(?P<path>[^\s"]+)')


def _go_mod_hits(text: str) -> Iterator[_Hit]:
    block_verb = None  # the directive of the `( ... )` block being read
    for offset, line in _lines(text):
        code = line.split("//", 1)[0]
        if block_verb:
            if code.strip().startswith(")"):
                block_verb = None
                continue
            verb, position = block_verb, 0
        elif directive := _GO_MOD_DIRECTIVE.match(code):
            if directive["block"]:
                block_verb = directive["verb"]
                continue
            verb, position = directive["verb"], directive.end()
        else:
            continue
        if verb == "replace":
            # The replacement is what gets built; a local directory names no module.
            arrow = code.find("=>", position)
            if arrow < 0:
                continue
            position = arrow + 2
        module = _GO_MOD_PATH.match(code, position)
        if module and not module["path"].startswith((".", "/")):
            start, end = module.span("path")
            yield _Hit(offset + start, offset + end, "go", "declaration", "main" if verb == "require" else "replace")


# ---------------------------------------------------------------------------------------------
# setup.py (read with `ast`, never executed) and setup.cfg

_SETUP_KEYWORD_GROUPS: Mapping[str, str] = {
    "install_requires": "main", "tests_require": "test", "setup_requires": "build",
}
_STRING_OPENER = re.compile(r"""[rRbBuUfF]{0,2}(?:'''|\"\"\"|'|")""")


def _setup_py_hits(text: str) -> Iterator[_Hit]:
    """Imports as in any Python file, and the requirements a `setup(...)` call declares: string
    literals in `install_requires`, `tests_require`, `setup_requires` and `extras_require`, given
    directly or through names bound at module level. A file that does not parse declares nothing
    (its imports are still found)."""
    yield from _python_hits(text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    bound: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                bound[target.id] = statement.value
    line_starts = _line_starts(text)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_setup_call(node.func)):
            continue
        for keyword in node.keywords:
            if keyword.arg in _SETUP_KEYWORD_GROUPS:
                group = _SETUP_KEYWORD_GROUPS[keyword.arg]
                for literal in _string_literals(keyword.value, bound):
                    yield from _literal_requirement_hits(text, line_starts, literal, group)
            elif keyword.arg == "extras_require":
                extras = _resolved(keyword.value, bound)
                if not isinstance(extras, ast.Dict):
                    continue
                for extra, value in zip(extras.keys, extras.values):
                    if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
                        for literal in _string_literals(value, bound):
                            yield from _literal_requirement_hits(text, line_starts, literal, f"extra:{extra.value}")


def _is_setup_call(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "setup") or (
        isinstance(func, ast.Attribute) and func.attr == "setup")


def _resolved(node: ast.expr, bound: Mapping[str, ast.expr]) -> ast.expr:
    return bound.get(node.id, node) if isinstance(node, ast.Name) else node


def _string_literals(node: ast.expr, bound: Mapping[str, ast.expr], depth: int = 0) -> Iterator[ast.Constant]:
    """The string literals of a list or tuple (or a `+` of them, or one string), names followed
    to what they are bound to."""
    if depth > 8:  # `a = a + b`: a name followed this deep is a loop
        return
    node = _resolved(node, bound)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, (ast.List, ast.Tuple)):
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _string_literals(node.left, bound, depth + 1)
        yield from _string_literals(node.right, bound, depth + 1)


def _literal_requirement_hits(text: str, line_starts: list[int], literal: ast.Constant, group: str) -> Iterator[_Hit]:
    """A string literal holds one requirement per line (setuptools splits a string on lines)."""
    line_start = line_starts[literal.lineno - 1]
    # ast columns count UTF-8 bytes.
    line = text[line_start : line_start + literal.col_offset]
    start = line_start + len(line.encode("utf-8")[: literal.col_offset].decode("utf-8", "ignore"))
    opener = _STRING_OPENER.match(text, start)
    if opener is None:
        return
    position = opener.end()
    for requirement in literal.value.splitlines(keepends=True):
        content = requirement.split("#", 1)[0]
        indent = len(content) - len(content.lstrip())
        if span := _requirement_name_span(content.strip()):
            name = content.strip()[span[0] : span[1]]
            name_start = position + indent + span[0]
            # An escape or an implicit concatenation moves the source away from the value: left out.
            if text[name_start : name_start + len(name)] == name:
                yield _Hit(name_start, name_start + len(name), "pypi", "declaration", group)
        position += len(requirement)


_CFG_SECTION = re.compile(r"\[(?P<name>[^\]\r\n]+)\]")
_CFG_KEY = re.compile(r"(?P<key>[^=:\s][^=:]*?)[ \t]*[=:][ \t]*")


def _setup_cfg_hits(text: str) -> Iterator[_Hit]:
    """`[options]` install_requires, tests_require, setup_requires and `[options.extras_require]`
    values, one requirement a line; a value continues on indented lines, as configparser reads it."""
    group: str | None = None  # the group of the value being read; None outside one
    section = ""
    for offset, line in _lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue  # configparser skips comments and blank lines inside a multi-line value
        if line[:1] in " \t":
            if group is not None:
                yield from _cfg_requirement_hits(offset, line, group)
            continue
        group = None
        if header := _CFG_SECTION.match(line):
            section = header["name"].strip().lower()
            continue
        key = _CFG_KEY.match(line)
        if key is None:
            continue
        name = key["key"].strip()
        if section == "options" and name.lower() in _SETUP_KEYWORD_GROUPS:
            group = _SETUP_KEYWORD_GROUPS[name.lower()]
        elif section == "options.extras_require":
            group = f"extra:{name}"
        if group is not None:
            yield from _cfg_requirement_hits(offset + key.end(), line[key.end() :], group)


def _cfg_requirement_hits(offset: int, value: str, group: str) -> Iterator[_Hit]:
    content = value.split(" #", 1)[0]  # an inline comment; ';' starts a PEP 508 marker here
    if content.lstrip().startswith(("file:", "attr:")):
        return
    indent = len(content) - len(content.lstrip())
    if span := _requirement_name_span(content.lstrip()):
        yield _Hit(offset + indent + span[0], offset + indent + span[1], "pypi", "declaration", group)


# ---------------------------------------------------------------------------------------------
# Dockerfile

_DOCKER_DIRECTIVE = re.compile(r"#\s*(?P<name>\w+)\s*=\s*(?P<value>\S*)\s*\Z")
_DOCKER_WORD = re.compile(r"\S+")
# Operators end a simple command; a redirection (`2>&1`, `> log`) ends what is parsed of it.
_SHELL_OPERATOR = re.compile(r"&&|\|\||\d*[<>]+&?\d*-?|[;&|()]")
_SHELL_TOKEN = re.compile(
    rf"""{_SHELL_OPERATOR.pattern}|(?:[^\s;&|()<>"'\\]++|\\.?|"(?:[^"\\]++|\\.?)*+"?|'[^']*+'?)+"""
)
_SHELL_COMMAND_PREFIXES = frozenset({"sudo", "env", "nohup", "time", "exec", "command"})
_ASSIGNMENT = re.compile(r"\w+=")


class _Word(NamedTuple):
    text: str
    start: int  # offset into the document


@dataclass(frozen=True, slots=True)
class _Installer:
    ecosystem: str
    subcommands: frozenset[str]
    options_with_argument: frozenset[str]
    package_span: Callable[[str], tuple[int, int] | None]  # the name an argument installs
    removals: frozenset[str] = frozenset()  # the subcommands that take packages out again


def _pattern_span(pattern: str) -> Callable[[str], tuple[int, int] | None]:
    """The span of the group `name` (else the whole match) of `pattern` matched at the start."""
    compiled = re.compile(pattern)
    group = "name" if "name" in compiled.groupindex else 0

    def span(argument: str) -> tuple[int, int] | None:
        match = compiled.match(argument)
        return match.span(group) if match else None

    return span


def _pip_package_span(argument: str) -> tuple[int, int] | None:
    span = _requirement_name_span(argument)
    return span if span and span[0] == 0 else None


_APT = _Installer(
    "apt",
    frozenset({"install"}),
    frozenset({"-o", "-t", "-c", "--option", "--target-release", "--config-file"}),
    _pattern_span(r"[a-z0-9][a-z0-9+.-]*+(?=[=/:]|\Z)"),
)
_APK = _Installer(
    "apk",
    frozenset({"add"}),
    frozenset(
        "-t --virtual -X --repository -p --root --repositories-file --keys-dir --arch "
        "--cache-dir".split()
    ),
    _pattern_span(r"[A-Za-z0-9][\w+.-]*+(?=[=<>~@]|\Z)"),
)
_PIP = _Installer(
    "pypi",
    frozenset({"install"}),
    frozenset(
        "-r --requirement -c --constraint -e --editable -i --index-url --extra-index-url -f "
        "--find-links -t --target --prefix --root --src --platform --python-version "
        "--implementation --abi --trusted-host --cache-dir --upgrade-strategy --progress-bar "
        "--only-binary --no-binary -C --config-settings --global-option --log --proxy --retries "
        "--timeout --exists-action --cert --client-cert --report --root-user-action "
        "--python".split()
    ),
    _pip_package_span,
)
_NPM = _Installer(
    "npm",
    frozenset({"install", "i", "add"}),
    frozenset(
        "--prefix --registry --cache --userconfig -w --workspace --tag --omit --include".split()
    ),
    lambda argument: (0, length) if (length := _npm_name_length(argument, "@")) else None,
)
# Conda packages are an ecosystem of their own (as apt's are), matched by their folded name:
# conda-forge's `numpy` is PyPI's. A match spec may name its channel (`conda-forge::numpy`) and
# carry a version or build (`numpy=1.26`, `'numpy>=1'`, `numpy[build=py311*]`).
_CONDA_OPTIONS = frozenset(
    "-c --channel -n --name -p --prefix --file --solver --repodata-fn --subdir --platform "
    "--experimental --strict-channel-priority-level".split()
)
_CONDA_SPEC = r"(?:[\w./:-]+::)?(?P<name>[A-Za-z0-9_][\w.+-]*+)(?=[=<>!~\[ ]|\Z)"
_CONDA = _Installer(
    "conda", frozenset({"install", "create"}), _CONDA_OPTIONS, _pattern_span(_CONDA_SPEC)
)
# micromamba reads an environment file with `-f` (conda's old `--force`), and takes its root.
_MICROMAMBA = _Installer(
    "conda",
    frozenset({"install", "create"}),
    _CONDA_OPTIONS | {"-f", "-r", "--root-prefix"},
    _pattern_span(_CONDA_SPEC),
)
_INSTALLERS: Mapping[str, _Installer] = {
    "apt-get": _APT,
    "apt": _APT,
    "aptitude": _APT,
    "apk": _APK,
    "pip": _PIP,
    "npm": _NPM,
    "pnpm": _NPM,
    "yarn": _NPM,
    "conda": _CONDA,
    "mamba": _CONDA,
    "micromamba": _MICROMAMBA,
}
_PIP_PROGRAM = re.compile(r"pip[\d.]*")
_PYTHON_PROGRAM = re.compile(r"python[\d.]*")


def _unquoted(word: _Word) -> _Word:
    text = word.text
    if text[:1] not in ("'", '"'):
        return word
    closed = len(text) > 1 and text[-1] == text[0]
    return _Word(text[1:-1] if closed else text[1:], word.start + 1)


def _package_words(command: list[_Word], installers: Mapping[str, _Installer] = _INSTALLERS,
                   ) -> tuple[_Installer, bool, list[tuple[_Word, tuple[int, int]]]] | None:
    """The installer a simple command runs, whether it removes (else installs), and each package
    argument with the span of its name in it; None when the command is not an install or removal."""
    words = [_unquoted(word) for word in command]
    i = 0  # skip `sudo -E`, `env`, `DEBIAN_FRONTEND=noninteractive` and the like
    while i < len(words) and (
        words[i].text in _SHELL_COMMAND_PREFIXES
        or words[i].text.startswith("-")
        or _ASSIGNMENT.match(words[i].text)
    ):
        i += 1
    if i >= len(words):
        return None
    program = words[i].text.rsplit("/", 1)[-1]
    following = [word.text for word in words[i + 1 : i + 3]]
    if _PYTHON_PROGRAM.fullmatch(program) and following == ["-m", "pip"]:
        program, i = "pip", i + 2
    elif program == "uv" and following[:1] == ["pip"]:
        program, i = "pip", i + 1
    installer = installers.get("pip" if _PIP_PROGRAM.fullmatch(program) else program)
    if installer is None:
        return None
    removing: bool | None = None
    skip_argument = False
    packages = []
    for word in words[i + 1 :]:
        if skip_argument:
            skip_argument = False
        elif word.text.startswith("-"):
            skip_argument = word.text in installer.options_with_argument
        elif removing is None:
            if word.text in installer.subcommands:
                removing = False
            elif word.text in installer.removals:
                removing = True
            else:
                return None
        elif span := installer.package_span(word.text):
            packages.append((word, span))
    return None if removing is None else (installer, removing, packages)


def _install_hits(command: list[_Word]) -> Iterator[_Hit]:
    found = _package_words(command)
    if found is None or found[1]:
        return
    installer, _, packages = found
    for word, (start, end) in packages:
        yield _Hit(word.start + start, word.start + end, installer.ecosystem, "declaration")


def _run_hits(pieces: list[tuple[int, str]]) -> Iterator[_Hit]:
    words: list[_Word] = []
    for offset, content in pieces:
        for token in _SHELL_TOKEN.finditer(content):
            if token.group().startswith("#"):
                break  # a shell comment runs to the end of the physical line
            words.append(_Word(token.group(), offset + token.start()))
    words = words[1 + next(i for i, word in enumerate(words) if word.text.upper() == "RUN") :]
    while words and words[0].text.startswith("--"):
        words = words[1:]  # --mount=…, --network=…
    if words and words[0].text.startswith("["):
        return  # exec form: a JSON array, not a shell command
    command: list[_Word] = []
    for word in [*words, _Word(";", -1)]:
        if _SHELL_OPERATOR.fullmatch(word.text):
            yield from _install_hits(command)
            command = []
        else:
            command.append(word)


# [registry[:port]/]path/components; `${VAR}` references and other oddities do not match.
_IMAGE_NAME = re.compile(r"\w[\w.-]*(?::\d+)?(?:/\w[\w.-]*)*")


def _image_hit(word: _Word, stages: set[str]) -> _Hit | None:
    length = _image_name_length(word.text)
    name = word.text[:length].lower()
    if not _IMAGE_NAME.fullmatch(name) or name == "scratch" or word.text.lower() in stages:
        return None
    return _Hit(word.start, word.start + length, "container", "declaration")


def _instruction_hits(pieces: list[tuple[int, str]], stages: set[str]) -> Iterator[_Hit]:
    words = [
        _Word(word.group(), offset + word.start())
        for offset, content in pieces
        for word in _DOCKER_WORD.finditer(content)
    ]
    if words and words[0].text.upper() == "ONBUILD":
        words = words[1:]
    if not words:
        return
    instruction = words[0].text.upper()
    if instruction == "FROM":
        arguments = [word for word in words[1:] if not word.text.startswith("--")]  # --platform=…
        if arguments and (hit := _image_hit(arguments[0], stages)):
            yield hit
        if len(arguments) >= 3 and arguments[1].text.lower() == "as":
            stages.add(arguments[2].text.lower())
    elif instruction in ("COPY", "ADD"):
        for word in words[1:]:
            if word.text.lower().startswith("--from="):
                source = _Word(word.text[7:], word.start + 7)
                if not source.text.isdigit() and (hit := _image_hit(source, stages)):
                    yield hit
    elif instruction == "RUN":
        yield from _run_hits(pieces)


def _dockerfile_hits(text: str) -> Iterator[_Hit]:
    escape = "\\"
    reading_directives = True  # parser directives are only honoured before anything else
    stages: set[str] = set()  # `FROM … AS name` stages, which later FROM/COPY may refer to
    pieces: list[tuple[int, str]] = []  # physical lines of the instruction being read
    for offset, line in _lines(text):
        stripped = line.strip()
        if reading_directives:
            directive = _DOCKER_DIRECTIVE.match(stripped)
            if directive:
                if directive["name"].lower() == "escape" and directive["value"] in ("\\", "`"):
                    escape = directive["value"]
                continue
            reading_directives = False
        if not stripped or stripped.startswith("#"):
            continue  # comment and blank lines are dropped, even inside a continued instruction
        content = line.rstrip()
        continues = content.endswith(escape)
        pieces.append((offset, content[:-1] if continues else content))
        if not continues:
            yield from _instruction_hits(pieces, stages)
            pieces = []
    if pieces:
        yield from _instruction_hits(pieces, stages)


# ---------------------------------------------------------------------------------------------
# Shell commands (an agent's tool calls): which packages a command line adds to a project or
# takes out of it. Not Dockerfiles': `go get` and `cargo add` change a project's manifest, and
# the removals matter only here.


class PackageCommand(NamedTuple):
    removes: bool  # `pip uninstall`, `npm remove`, …; else an install or add
    ecosystem: str
    names: tuple[str, ...]  # as written, without versions or extras
    command: str  # the simple command, as written


def _removing(installer: _Installer, removals: str) -> _Installer:
    return dataclasses.replace(installer, removals=frozenset(removals.split()))


_UV = _Installer(
    "pypi", frozenset({"add"}),
    frozenset("--group --optional --extra --index --default-index --python -p --package --script --tag --branch "
              "--rev -r --requirements --bounds -m --marker --constraints -c".split()),
    _pip_package_span, frozenset({"remove"}),
)
_POETRY = _Installer(
    "pypi", frozenset({"add"}),
    frozenset("-G --group -E --extras --source --python --platform --markers".split()),
    _pip_package_span, frozenset({"remove", "rm"}),
)
_CARGO = _Installer(
    "cargo", frozenset({"add"}),
    frozenset("-F --features -p --package --rename --registry --path --git --branch --tag --rev --target "
              "--manifest-path".split()),
    _pattern_span(r"[A-Za-z0-9][\w-]*(?=@|\Z)"), frozenset({"remove", "rm"}),
)
_GO_GET = _Installer("go", frozenset({"get"}), frozenset(), _pattern_span(r"[A-Za-z0-9][\w.~/-]*\.[\w.~/-]*(?=@|\Z)"))
_PROJECT_INSTALLERS: Mapping[str, _Installer] = {
    "pip": _removing(_PIP, "uninstall"),
    "npm": _removing(_NPM, "uninstall remove rm un r unlink"),
    "pnpm": _removing(_NPM, "remove rm uninstall un"),
    "yarn": _removing(_NPM, "remove"),
    "uv": _UV,
    "poetry": _POETRY,
    "cargo": _CARGO,
    "go": _GO_GET,
}
_LINE_CONTINUATION = re.compile(r"\\\r?\n")


def package_commands(script: str) -> list[PackageCommand]:
    """The installs and removals in a shell command line (several commands joined by `&&`, `;`,
    `|` or new lines; environment assignments and `sudo` before them), in order."""
    found = []
    for line in _LINE_CONTINUATION.sub(" ", script).splitlines():
        command: list[_Word] = []
        for token in [*_SHELL_TOKEN.finditer(line), None]:
            if token is not None and token.group().startswith("#"):
                token = None  # a shell comment runs to the end of the line
            if token is None or _SHELL_OPERATOR.fullmatch(token.group()):
                parsed = _package_words(command, _PROJECT_INSTALLERS) if command else None
                if parsed is not None and parsed[2]:
                    installer, removes, packages = parsed
                    found.append(PackageCommand(removes, installer.ecosystem,
                                                tuple(word.text[start:end] for word, (start, end) in packages),
                                                line[command[0].start:command[-1].start + len(command[-1].text)]))
                command = []
                if token is None:
                    break
            else:
                command.append(_Word(token.group(), token.start()))
    return found


# ---------------------------------------------------------------------------------------------
# Prose (Markdown, agent instructions)

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


def _prose_hits(text: str, vocabulary: frozenset[str]) -> Iterator[_Hit]:
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
                yield _Hit(start + span_start, start + span_end, "other", "mention")


# ---------------------------------------------------------------------------------------------

_SCANNERS: Mapping[str, Callable[[str], Iterable[_Hit]]] = {
    "python": _python_hits,
    "javascript": _javascript_hits,
    "go": _go_hits,
    "rust": _rust_hits,
    "requirements": _requirements_hits,
    "pyproject": _pyproject_hits,
    "package_json": _package_json_hits,
    "cargo_toml": _cargo_toml_hits,
    "go_mod": _go_mod_hits,
    "setup_py": _setup_py_hits,
    "setup_cfg": _setup_cfg_hits,
    "dockerfile": _dockerfile_hits,
}


def detect(path: str, text: str, vocabulary: frozenset[str] = frozenset(),
           import_names: ImportNames = NONE) -> list[Mention]:
    """All places in `text` that name a package, tool or image, with exact ranges, sorted by
    (line, start). `vocabulary` holds the folded names (names.fold) that prose is matched
    against, case-insensitively and on whole tokens, in Markdown and instruction files;
    `import_names`, what the workspace says an imported name stands for."""
    kind = document_kind(path)
    if kind is None:
        return []
    if kind in ("markdown", "instructions"):
        hits = _prose_hits(text, vocabulary)
    else:
        hits = _SCANNERS[kind](text)
    line_starts = _line_starts(text)
    ascii_text = text.isascii()
    mentions = []
    for start, end, ecosystem, kind, _group in hits:
        name = text[start:end]
        line = bisect_right(line_starts, start) - 1
        line_start = line_starts[line]
        if ascii_text:
            column, length = start - line_start, end - start
        else:
            column = utf16_column(text[line_start:start], start - line_start)
            length = len(name.encode("utf-16-le", "surrogatepass")) // 2
        key = (kind == "import" and import_names.resolve(name, ecosystem)) or _key(
            name, ecosystem, kind == "mention"
        )
        mentions.append(Mention(name, key, ecosystem, kind, line, column, column + length))
    mentions.sort(key=attrgetter("line", "start", "end"))
    return mentions


@lru_cache(maxsize=8192)
def _key(name: str, ecosystem: str, prose: bool) -> str:
    # Cached across documents: a file names the same few packages over and over, and each
    # re-scan while typing meets the names of the last one again.
    return fold(name) if prose else normalize(name, ecosystem)


# ---------------------------------------------------------------------------------------------
# Manifest declarations, for reading a repository's history (the same scanners as `detect`)

MANIFEST_KINDS = frozenset(
    {"requirements", "pyproject", "package_json", "cargo_toml", "go_mod", "setup_py", "setup_cfg", "dockerfile"}
)


class Declaration(NamedTuple):
    name: str  # as written (for a Cargo key renamed with `package = "…"`, the package it names)
    key: str  # names.normalize(name, ecosystem)
    ecosystem: str
    # Where it is declared: `main`, `dev`, `test`, `build` (build-system requires, setup_requires,
    # build-dependencies), `extra:<name>`, `group:<name>` (dependency groups, Poetry groups),
    # `peer`, `optional`, `bundled`, `override`, `replace` (go.mod), `workspace`,
    # `target:<cfg>:<main|dev|build>` (Cargo); "" for a Dockerfile's installs.
    group: str


@dataclass(frozen=True, slots=True)
class ManifestScan:
    declarations: tuple[Declaration, ...]
    well_formed: bool  # False when the file does not parse as its format (TOML, JSON, Python)


def _parses_toml(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def _parses_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _parses_python(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


_WELL_FORMED: Mapping[str, Callable[[str], bool]] = {
    "pyproject": _parses_toml, "cargo_toml": _parses_toml, "package_json": _parses_json, "setup_py": _parses_python,
}


def declarations(path: str, text: str) -> ManifestScan | None:
    """What a manifest declares (None when `path` is no manifest), from the scanners `detect`
    uses."""
    kind = document_kind(path)
    if kind not in MANIFEST_KINDS:
        return None
    found = tuple(
        Declaration(text[hit.start : hit.end], _key(text[hit.start : hit.end], hit.ecosystem, False), hit.ecosystem,
                    hit.group)
        for hit in _SCANNERS[kind](text)
        if hit.kind == "declaration"
    )
    return ManifestScan(found, _WELL_FORMED.get(kind, lambda _: True)(text))

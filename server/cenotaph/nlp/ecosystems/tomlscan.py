"""A forgiving scan of TOML (pyproject.toml, Cargo.toml) that keeps the offsets tomllib drops:
table headers and keys with their values' strings, read from files that may be mid-edit."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

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
class Span:
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class TomlEntry:
    path: tuple[Span, ...]  # table header keys followed by the (dotted) key
    strings: tuple[Span, ...]  # a string value, or the top-level strings of an array value


class TomlScan:
    """Table headers and keys with their values' strings, in document order. Every key of an
    inline table is an entry of its own, under the path of the key that holds the table."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._tokens = [
            (token.lastgroup, token.start(), token.end())
            for token in _TOML_TOKEN.finditer(text)
            if token.lastgroup != "space"
        ]
        self.entries: list[TomlEntry] = []
        table: tuple[Span, ...] = ()
        i = 0
        while i < len(self._tokens):
            header = self._header(i)
            if header is not None:
                table, i = header
                self.entries.append(TomlEntry(table, ()))
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

    def _span(self, i: int) -> Span:
        kind, start, end = self._tokens[i]
        if kind == "string":
            terminated = end - start >= 2 and self._text[end - 1] == self._text[start]
            start, end = start + 1, end - 1 if terminated else end
        return Span(self._text[start:end], start, end)

    def _key(self, i: int) -> tuple[tuple[Span, ...], int]:
        keys: list[Span] = []
        while i < len(self._tokens) and self._tokens[i][0] in ("bare", "string"):
            keys.append(self._span(i))
            i += 1
            if not self._is_punct(i, "."):
                break
            i += 1
        return tuple(keys), i

    def _header(self, i: int) -> tuple[tuple[Span, ...], int] | None:
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

    def _value(self, i: int, path: tuple[Span, ...]) -> int:
        if i < len(self._tokens) and self._tokens[i][0] == "string":
            self.entries.append(TomlEntry(path, (self._span(i),)))
            return i + 1
        if self._is_punct(i, "["):
            strings, i = self._array(i + 1)
            self.entries.append(TomlEntry(path, strings))
            return i
        self.entries.append(TomlEntry(path, ()))
        if self._is_punct(i, "{"):
            return self._inline_table(i + 1, path)
        while i < len(self._tokens) and not (
            self._is_newline(i) or any(self._is_punct(i, char) for char in ",]}")
        ):
            i += 1  # a number, boolean or date
        return i

    def _array(self, i: int) -> tuple[tuple[Span, ...], int]:
        strings: list[Span] = []
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

    def _inline_table(self, i: int, path: tuple[Span, ...]) -> int:
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


def parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True

"""Documents split the way their authors structured them: at headings first (Markdown ATX and
setext, reStructuredText adornments), then at paragraphs up to a bounded size, with a small
overlap. A fenced code block (or an reST literal block) is one unit that is never cut in half."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

Format = Literal["markdown", "rst", "text"]

TARGET_WORDS = 300
# The last paragraph of a chunk opens the next one when it is this short: a sentence or two of
# context, not a second copy of the text.
OVERLAP_WORDS = 50
MAX_CHARS = 50_000  # a memory's limit: a block longer than this is the one thing ever cut

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RST_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+<>:_.])\1{2,}[ \t]*$")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Chunk:
    heading: tuple[str, ...]  # the path of headings above it, outermost first
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str

    @property
    def heading_path(self) -> str:
        return " › ".join(self.heading)


@dataclass(slots=True)
class _Block:
    start: int  # 0-based line index
    end: int  # exclusive
    words: int


def format_of(path: str) -> Format:
    lowered = path.lower()
    if lowered.endswith((".md", ".markdown", ".mdx")):
        return "markdown"
    if lowered.endswith((".rst", ".rest")):
        return "rst"
    return "text"


def split(text: str, fmt: Format) -> list[Chunk]:
    lines = text.splitlines()
    chunks: list[Chunk] = []
    for heading, start, end in _sections(lines, fmt):
        blocks = list(_blocks(lines, start, end, fmt))
        chunks.extend(_pack(lines, heading, blocks))
    return chunks


def _sections(lines: list[str], fmt: Format) -> Iterator[tuple[tuple[str, ...], int, int]]:
    """(heading path, first body line, end) for each section, the preamble included."""
    path: list[tuple[int, str]] = []  # (level, title)
    rst_levels: list[str] = []
    start = 0
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if fmt == "markdown":
            opened = _FENCE.match(line)
            if fence is not None:
                if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                    fence = None
                i += 1
                continue
            if opened:
                fence = opened.group(1)
                i += 1
                continue
        found = _heading_at(lines, i, fmt, rst_levels)
        if found is None:
            i += 1
            continue
        level, title, used = found
        yield tuple(t for _, t in path), start, i
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        i += used
        start = i
    yield tuple(t for _, t in path), start, len(lines)


def _heading_at(lines: list[str], i: int, fmt: Format, rst_levels: list[str]) -> tuple[int, str, int] | None:
    """(level, title, lines used) when a heading starts at line `i`."""
    line = lines[i]
    following = lines[i + 1] if i + 1 < len(lines) else None
    if fmt == "markdown":
        atx = _ATX.match(line)
        if atx:
            return len(atx.group(1)), atx.group(2).strip(), 1
        if following is not None and line.strip() and not line.startswith((" " * 4, "\t")) \
                and _SETEXT.match(following) and not _is_list_or_quote(line):
            return (1 if following.strip().startswith("=") else 2), line.strip(), 2
        return None
    if fmt == "rst":
        # Overline, title, underline of the same character; or title and underline.
        if _RST_ADORNMENT.match(line) and following and following.strip() and i + 2 < len(lines) \
                and _RST_ADORNMENT.match(lines[i + 2]) and lines[i + 2].strip()[0] == line.strip()[0]:
            style = "over" + line.strip()[0]
            return _rst_level(style, rst_levels), following.strip(), 3
        if line.strip() and not _RST_ADORNMENT.match(line) and following is not None \
                and _RST_ADORNMENT.match(following) and len(following.rstrip()) >= len(line.rstrip()) \
                and not line.startswith((" ", "\t")):
            style = following.strip()[0]
            return _rst_level(style, rst_levels), line.strip(), 2
    return None


def _rst_level(style: str, levels: list[str]) -> int:
    """reST has no fixed heading characters: levels follow the order the styles first appear."""
    if style not in levels:
        levels.append(style)
    return levels.index(style) + 1


def _is_list_or_quote(line: str) -> bool:
    return bool(re.match(r"^ {0,3}(?:[-*+>]|\d+[.)])(?:\s|$)", line))


def _blocks(lines: list[str], start: int, end: int, fmt: Format) -> Iterator[_Block]:
    """Paragraphs and code blocks between blank lines; a fence (or an reST literal block after
    `::`) is one block whatever blank lines it holds."""
    i = start
    while i < end:
        if not lines[i].strip():
            i += 1
            continue
        first = i
        opened = _FENCE.match(lines[i]) if fmt == "markdown" else None
        if opened:
            fence = opened.group(1)
            i += 1
            while i < end:
                closing = _FENCE.match(lines[i])
                i += 1
                if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                    break
        else:
            while i < end and lines[i].strip():
                i += 1
            if fmt == "rst" and lines[i - 1].rstrip().endswith("::"):
                i = _literal_block_end(lines, i, end)
        yield _Block(first, i, sum(len(_WORD.findall(lines[n])) for n in range(first, i)))


def _literal_block_end(lines: list[str], i: int, end: int) -> int:
    """The end of the indented block that follows a paragraph ending in `::`."""
    j = i
    while j < end and not lines[j].strip():
        j += 1
    if j >= end or not lines[j].startswith((" ", "\t")):
        return i
    while j < end and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
        j += 1
    while j > i and not lines[j - 1].strip():
        j -= 1
    return j


def _pack(lines: list[str], heading: tuple[str, ...], blocks: list[_Block]) -> Iterator[Chunk]:
    """Blocks gathered up to TARGET_WORDS; a chunk after the first in a section opens with the last
    block of the one before when that block is short."""
    current: list[_Block] = []
    words = 0
    for block in blocks:
        if current and words + block.words > TARGET_WORDS and words > 0:
            yield _chunk(lines, heading, current)
            carried = current[-1]
            current = [carried] if carried.words <= OVERLAP_WORDS and len(current) > 1 else []
            words = sum(b.words for b in current)
        current.append(block)
        words += block.words
    if current:
        yield _chunk(lines, heading, current)


def _chunk(lines: list[str], heading: tuple[str, ...], blocks: list[_Block]) -> Chunk:
    start, end = blocks[0].start, blocks[-1].end
    text = "\n".join(lines[start:end]).strip("\n")
    return Chunk(heading=heading, start_line=start + 1, end_line=end, text=text[:MAX_CHARS])

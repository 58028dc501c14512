"""Where a Markdown, reStructuredText or plain-text document writes code: the character ranges of
its fenced and indented code blocks, inline code, literal blocks and interpreter prompts. The rest
is prose, whose words are English even when a package shares them (requests, click, black).

Regular expressions and one walk over the lines, no parser: these run on every keystroke and in
the hook, and a document mid-edit (an unclosed fence) still has its code found. Only the cases
that decide "code or prose" are followed, not full CommonMark or docutils.
"""

from __future__ import annotations

import re

from cenotaph.nlp.ecosystems.base import LazyPattern, lines

Span = tuple[int, int]

_FENCE = LazyPattern(r"[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)")
# A Markdown line whose indented continuation is its content, not code: a list item, an
# admonition or tab (MkDocs: `!!! note`, `??? tip`, `=== "Tab"`), a footnote, a definition.
_CONTAINER = LazyPattern(r"[ \t]*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|!!!|\?\?\?|===|\[\^[^\]]+\]:|:[ \t])")
_INLINE_CODE = LazyPattern(r"(?<!`)(`+)(?!`)(?P<code>(?:[^\n]|\n(?![ \t]*(?:\n|\Z)))+?)(?<!`)\1(?!`)")
_INLINE_LITERAL = LazyPattern(r"``(?![\s`])(?P<code>(?:[^\n]|\n(?![ \t]*(?:\n|\Z)))+?)(?<![\s`])``(?!`)")
_RST_DIRECTIVE = LazyPattern(r"[ \t]*\.\.[ \t]+(?:[\w-]+:)?(?P<name>[\w-]+)::")
# Directives whose content is code (docutils', Sphinx's and sphinx.ext.doctest's).
_RST_CODE_DIRECTIVES = frozenset({"code", "code-block", "sourcecode", "parsed-literal", "doctest", "testcode",
                                  "testsetup", "testcleanup", "ipython", "prompt"})
_PROMPT = LazyPattern(r"[ \t]*(?:>>>|\.\.\.|\$)(?:[ \t]|$)")


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.lstrip(" \t").expandtabs(4)) if line[:1] in " \t" else 0


def _fence_end(text: str, line_offsets: list[tuple[int, str]], index: int, fence: str) -> tuple[int, int]:
    """(content end, index of the line after the block) of the fence opened at line `index`; an
    unclosed fence runs to the end of the document, as CommonMark reads it."""
    closing = re.compile(rf"[ \t]*{fence[0]}{{{len(fence)},}}[ \t]*")
    for later in range(index + 1, len(line_offsets)):
        offset, line = line_offsets[later]
        if closing.fullmatch(line):
            return offset, later + 1
    return len(text), len(line_offsets)


def _fences(text: str, line_offsets: list[tuple[int, str]], index: int) -> tuple[Span, int] | None:
    """The content of a fenced block opening at line `index`, and the line after it."""
    found = _FENCE.match(line_offsets[index][1])
    if found is None or (found["fence"][0] == "`" and "`" in found["info"]):  # ```x``` inline, not a fence
        return None
    start = line_offsets[index + 1][0] if index + 1 < len(line_offsets) else len(text)
    end, after = _fence_end(text, line_offsets, index, found["fence"])
    return (start, end), after


def _inline(text: str, pattern: LazyPattern, blocks: list[Span]) -> list[Span]:
    """The inline code `pattern` finds outside `blocks`."""
    found = []
    for match in pattern.finditer(text):
        if not any(start <= match.start() < end for start, end in blocks):
            found.append(match.span("code"))
    return found


def markdown(text: str) -> list[Span]:
    """Fenced and indented code blocks, and inline code spans."""
    line_offsets = list(lines(text))
    blocks: list[Span] = []
    index = 0
    blank_before = True  # an indented code block cannot interrupt a paragraph
    in_container = False  # the last line indented less than a code block opened a list item or admonition
    while index < len(line_offsets):
        offset, line = line_offsets[index]
        if fenced := _fences(text, line_offsets, index):
            blocks.append(fenced[0])
            index, blank_before = fenced[1], True
            continue
        if not line.strip():
            blank_before = True
        elif _indent(line) >= 4 and blank_before and not in_container:
            start = offset
            while index + 1 < len(line_offsets) and (not line_offsets[index + 1][1].strip()
                                                     or _indent(line_offsets[index + 1][1]) >= 4):
                index += 1
            blocks.append((start, line_offsets[index][0] + len(line_offsets[index][1])))
        else:
            if _indent(line) < 4:
                in_container = bool(_CONTAINER.match(line)) or (in_container and not blank_before)
            blank_before = False
        index += 1
    return sorted(blocks + _inline(text, _INLINE_CODE, blocks))


def restructuredtext(text: str) -> list[Span]:
    """Literal blocks (after a paragraph ending `::`), code directives' content, doctest blocks,
    and inline literals."""
    line_offsets = list(lines(text))
    blocks: list[Span] = []
    index = 0
    while index < len(line_offsets):
        offset, line = line_offsets[index]
        directive = _RST_DIRECTIVE.match(line)
        literal = directive is None and line.rstrip().endswith("::") and not line.lstrip().startswith("..")
        if literal or (directive and directive["name"].lower() in _RST_CODE_DIRECTIVES):
            indent = _indent(line)
            last = index
            while last + 1 < len(line_offsets) and (not line_offsets[last + 1][1].strip()
                                                    or _indent(line_offsets[last + 1][1]) > indent):
                last += 1
            if last > index:
                start = line_offsets[index + 1][0]
                blocks.append((start, line_offsets[last][0] + len(line_offsets[last][1])))
            index = last + 1
            continue
        if line.lstrip().startswith(">>> "):  # a doctest block: up to the next blank line
            last = index
            while last + 1 < len(line_offsets) and line_offsets[last + 1][1].strip():
                last += 1
            blocks.append((offset, line_offsets[last][0] + len(line_offsets[last][1])))
            index = last + 1
            continue
        index += 1
    return sorted(blocks + _inline(text, _INLINE_LITERAL, blocks))


def plain(text: str) -> list[Span]:
    """Fenced blocks (plain-text READMEs borrow them) and interpreter or shell prompt lines."""
    line_offsets = list(lines(text))
    blocks: list[Span] = []
    index = 0
    while index < len(line_offsets):
        offset, line = line_offsets[index]
        if fenced := _fences(text, line_offsets, index):
            blocks.append(fenced[0])
            index = fenced[1]
            continue
        if _PROMPT.match(line):
            blocks.append((offset, offset + len(line)))
        index += 1
    return blocks

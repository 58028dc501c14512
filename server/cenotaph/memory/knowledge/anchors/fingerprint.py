"""The anchored text and its context, taken from a file's lines and re-found in them later.
Lines compare with their indentation and trailing spaces stripped: re-indenting a block does not
change what it does. Pure functions over lists of lines; no file or store is read here."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import PurePosixPath

# Lines of context kept on either side of the anchored text: they decide between two places
# holding the same text.
CONTEXT_LINES = 2
# The least similarity (difflib's ratio over the stripped lines) at which changed text is still
# the anchored code followed; below it the anchor is stale, and above it too when its code
# changed (`code_changed`). Measured on real histories: docs/benchmarks.md, "Anchors".
FOLLOW_THRESHOLD = 0.75
# How far the re-found text's length may differ from the taken text's, in lines.
_LENGTH_SLACK = 3
# Windows compared in full after the cheap bound (see refind).
_SHORTLIST = 24


@dataclass(frozen=True, slots=True)
class Taken:
    text: str
    lines_before: str
    lines_after: str


@dataclass(frozen=True, slots=True)
class Found:
    """Where the text lies now (1-based, inclusive) and how like the taken text it is (1.0: equal)."""

    start_line: int
    end_line: int
    similarity: float


def take(lines: list[str], start_line: int, end_line: int) -> Taken:
    """The text of lines `start_line`..`end_line` (1-based, inclusive) with its context."""
    first = start_line - 1
    return Taken(text="\n".join(lines[first:end_line]),
                 lines_before="\n".join(lines[max(0, first - CONTEXT_LINES):first]),
                 lines_after="\n".join(lines[end_line:end_line + CONTEXT_LINES]))


def _norm(lines: list[str]) -> str:
    return "\n".join(line.strip() for line in lines)


def _canon(text: str) -> str:
    """Text without any whitespace: re-wrapping or re-indenting code does not change what it does."""
    return "".join(text.split())


def similarity(then: str, now: str) -> float:
    """How like the anchored text as taken `then` is the text at its place `now` (1.0: equal but
    for whitespace): what FOLLOW_THRESHOLD is measured on."""
    return _ratio(_canon(then), _canon(now))


# Line comments by the file's suffix: a comment changed or added does not change what the code
# does. Other files compare whole (conservative: any change is a change).
_LINE_COMMENT = {suffix: "#" for suffix in (".py", ".pyi", ".sh", ".bash", ".rb", ".pl", ".r", ".toml", ".yaml",
                                            ".yml", ".cfg", ".ini", ".dockerfile")} | \
    {suffix: "//" for suffix in (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".rs", ".go", ".java",
                                 ".kt", ".scala", ".swift", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".dart", ".php")}


def _without_comment(line: str, mark: str) -> str:
    """`line` up to its line comment, if one starts outside a string literal."""
    cut = line.find(mark)
    if cut < 0:
        return line
    if not any(q in line[:cut] for q in "\"'`"):  # no string opens before it: scanning is for when one does
        return line[:cut]
    quote, i = "", 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        elif line.startswith(mark, i):
            return line[:i]
        i += 1
    return line


def _code(text: str, path: str) -> str:
    mark = _LINE_COMMENT.get(PurePosixPath(path).suffix.lower())
    return _canon(text if mark is None else "\n".join(_without_comment(line, mark) for line in text.split("\n")))


def _python_shape(text: str) -> str | None:
    """Python code as what it does: its syntax tree without docstrings and type annotations; None
    when the text is not whole statements (a block cut in half)."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body and \
                isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
    return ast.dump(tree)


def _same_python(then: str, now: str, path: str) -> bool | None:
    """Whether two Python texts do the same (None: not Python, or not whole statements)."""
    if PurePosixPath(path).suffix.lower() not in (".py", ".pyi"):
        return None
    shapes = _python_shape(then), _python_shape(now)
    return None if shapes[0] is None or shapes[1] is None else shapes[0] == shapes[1]


def code_changed(then: str, now: str, path: str) -> bool:
    """Whether the code at an anchor's place differs from the code taken, but for whitespace and
    line comments (and, in Python, docstrings and type annotations): any other change may change
    what it does, so the memory may no longer hold. Measured on real histories: docs/benchmarks.md,
    "Anchors"."""
    if then == now or _code(then, path) == _code(now, path):  # the same text: nothing to parse
        return False
    return _same_python(then, now, path) is not True


def stale(then: str, now: str, path: str, likeness: float) -> bool:
    """Whether the memory anchored to `then` may no longer hold for `now`, found `likeness` like it:
    its code changed, or its text is unlike what was taken — unless it is Python that does the
    same (annotations added can make a short function's text unlike its old self)."""
    if code_changed(then, now, path):
        return True
    return likeness < FOLLOW_THRESHOLD and _same_python(then, now, path) is not True


def _ratio(a: str, b: str) -> float:
    if a == b:
        return 1.0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return matcher.ratio() if matcher.real_quick_ratio() > 0 and matcher.quick_ratio() > 0 else 0.0


def refind(taken: Taken, lines: list[str], near_line: int) -> Found | None:
    """Where the taken text lies in `lines`: at `near_line` if it is still there, else the exact
    copy nearest to it (context first), else the most similar block of about its length. None
    when the file is empty."""
    want = [line.strip() for line in taken.text.split("\n")]
    n = len(want)
    if not lines:
        return None
    if near_line >= 1 and [line.strip() for line in lines[near_line - 1:near_line - 1 + n]] == want:
        return Found(near_line, near_line + n - 1, 1.0)  # still there: the rest of the file is not looked at
    stripped = [line.strip() for line in lines]
    before = _norm(taken.lines_before.split("\n")) if taken.lines_before else ""
    after = _norm(taken.lines_after.split("\n")) if taken.lines_after else ""

    def context(first: int, length: int) -> float:
        around = (_norm(stripped[max(0, first - before.count("\n") - 1):first]) if before else "",
                  _norm(stripped[first + length:first + length + after.count("\n") + 1]) if after else "")
        return (_ratio(around[0], before) + _ratio(around[1], after)) / 2

    exact = [i for i in range(len(stripped) - n + 1) if stripped[i:i + n] == want]
    if exact:
        best = max(exact, key=lambda i: (context(i, n), -abs(i + 1 - near_line)))
        return Found(best + 1, best + n, 1.0)
    # Every window of about the taken length, ranked by the likeness of the window with its
    # context to the taken text with its: the context aligns a changed block where it was.
    nb = before.count("\n") + 1 if before else 0
    na = after.count("\n") + 1 if after else 0
    whole = "\n".join(part for part in (before, "\n".join(want), after) if part)

    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(whole)  # indexed once; each window is the other sequence

    def framed(first: int, length: int, bound: bool = False) -> float:
        matcher.set_seq1("\n".join(stripped[max(0, first - nb):first + length + na]))
        return matcher.quick_ratio() if bound else matcher.ratio()

    # difflib's quick_ratio bounds the ratio from above and costs a count of characters: only the
    # windows with the highest bounds are compared in full.
    starts = sorted(range(max(1, len(stripped) - n + 1)), key=lambda i: -framed(i, n, bound=True))[:_SHORTLIST]
    first = max(starts, key=lambda i: (framed(i, n), -abs(i + 1 - near_line)))
    # The block may have grown or shrunk: the start and length that match best about there, the
    # window itself as well as with its context (the context alone favours a window cut short
    # when a line just past it changed too).
    taken_code = _canon("\n".join(want))

    def own(first: int, length: int) -> float:
        return _ratio(taken_code, _canon("\n".join(stripped[first:first + length])))

    first, length = max(((i, m) for i in range(max(0, first - 2), min(len(stripped), first + 3))
                         for m in range(max(1, n - _LENGTH_SLACK), n + _LENGTH_SLACK + 1)),
                        key=lambda c: (framed(*c) + own(*c), -abs(c[1] - n), -abs(c[0] - first)))
    end = min(first + length, len(lines))
    return Found(first + 1, end, similarity("\n".join(want), "\n".join(stripped[first:end])))


def shift(start_line: int, end_line: int, edit_start: int, edit_end: int, new_lines: int) -> tuple[int, int, bool]:
    """An anchor's lines after an edit, as a bookmark moves: the edit replaced lines `edit_start`..
    `edit_end` (1-based, inclusive; `edit_end = edit_start - 1` for a pure insertion before
    `edit_start`) with `new_lines` lines. Returns (start, end, whether the edit touched the
    anchored text)."""
    removed = edit_end - edit_start + 1
    delta = new_lines - removed
    if edit_end < start_line:  # wholly above: the anchor moves with the lines
        return start_line + delta, end_line + delta, False
    if edit_start > end_line:  # wholly below
        return start_line, end_line, False
    # Overlapping: the anchor keeps its start (or the edit's, if the edit began inside the lines
    # above it and removed them) and grows or shrinks with the edit.
    start = min(start_line, edit_start) if edit_start < start_line else start_line
    end = max(start, end_line + delta)
    return start, end, True

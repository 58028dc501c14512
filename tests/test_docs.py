"""The documentation a newcomer reads: every Markdown table renders as one table, every relative
link leads to a file, the README stays short enough to read in one sitting, and the architecture
page answers where to add things. Line-based checks, standard library only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MAX_README_LINES = 300
WHERE_TO_ADD = ("ecosystem", "MCP tool", "compile target", "CLI verb")

_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with their numbers: a `|` or `[x](y)` in code is code."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            found.append((number, line))
    return found


def cells(row: str) -> list[str]:
    """A table row's cells: split at every `|` not escaped as `\\|` (GFM splits inside code spans too)."""
    parts = _UNESCAPED_PIPE.split(row.strip())
    if parts and parts[0] == "":
        parts = parts[1:]
    if parts and parts[-1].strip() == "":
        parts = parts[:-1]
    return parts


def table_problems(text: str) -> list[str]:
    """Why each block of lines starting with `|` would not render as one table: no separator row
    under its header, a row with another number of cells, or a table cut in two by a blank line."""
    blocks: list[list[tuple[int, str]]] = []
    previous = None
    for number, line in prose_lines(text):
        if line.lstrip().startswith("|"):
            if previous != number - 1:
                blocks.append([])
            blocks[-1].append((number, line))
            previous = number
    problems = []
    last_end = None
    for block in blocks:
        start = block[0][0]
        header = cells(block[0][1])
        separator = cells(block[1][1]) if len(block) > 1 else []
        if not separator or not all(_SEPARATOR_CELL.match(c) for c in separator):
            cut = last_end is not None and start - last_end <= 2
            problems.append(f"line {start}: " + ("a table continues after a blank line" if cut
                                                 else "no header separator row under the table's first row"))
        else:
            for number, row in block[1:]:
                if len(cells(row)) != len(header):
                    problems.append(f"line {number}: {len(cells(row))} cells, the header has {len(header)}")
        last_end = block[-1][0]
    return problems


def link_problems(text: str, base: Path) -> list[str]:
    """Relative links and images (outside code) whose file does not exist, relative to `base`."""
    problems = []
    for number, line in prose_lines(text):
        for target in _LINK.findall(_INLINE_CODE.sub("", line)):
            if _EXTERNAL.match(target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if not (base / path).exists():
                problems.append(f"line {number}: {target} does not exist")
    return problems


def test_the_table_checker_passes_a_table_and_rejects_broken_ones():
    table = "| a | b |\n|---|---|\n| `x \\| y` | 2 |\n| 3 | 4 |\n"
    assert table_problems(table) == []
    assert table_problems("```\n| not | a table\n```\n") == []
    # The README's old command table: a blank line in the middle ends it, the rest is plain text.
    split = "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n| 5 | 6 |\n"
    assert table_problems(split) == ["line 5: a table continues after a blank line"]
    assert table_problems("| a | b |\n| 1 | 2 |\n") == ["line 1: no header separator row under the table's first row"]
    assert table_problems("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n") == ["line 3: 3 cells, the header has 2"]
    # An unescaped pipe inside a code span splits the cell, as GitHub renders it.
    assert table_problems("| a | b |\n|---|---|\n| `x | y` | 2 |\n") == ["line 3: 3 cells, the header has 2"]


def test_the_link_checker_finds_a_missing_file_and_passes_real_ones(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n")
    text = ("[ok](docs/page.md#page) ![img](docs/page.md) [web](https://example.org) [here](#top)\n"
            "`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n")
    assert link_problems(text, tmp_path) == []
    assert link_problems("see [the guide](docs/no-such-guide.md)\n", tmp_path) == [
        "line 1: docs/no-such-guide.md does not exist"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_renders_as_one_table(page):
    assert table_problems(page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(page):
    assert link_problems(page.read_text(encoding="utf-8"), page.parent) == []


def test_the_readme_reads_in_one_sitting_and_says_how_to_test():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_README_LINES
    assert "make test" in text  # CI reads the test command from the README


def test_the_architecture_page_says_where_to_add_things():
    headings = {line.strip() for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("#")}
    for thing in WHERE_TO_ADD:
        assert f"## Where to add a new {thing}" in headings

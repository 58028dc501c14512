"""Agent instruction files (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md): the lessons
in a managed block between `<!-- cenotaph:begin -->` and `<!-- cenotaph:end -->`. Everything
outside the markers is left byte for byte."""

from __future__ import annotations

import re
from collections.abc import Iterable

from cenotaph.memory.errors import Conflict
from cenotaph.memory.policy.authored import BEGIN, END
from cenotaph.memory.policy.compile.drafts import FileDraft
from cenotaph.memory.policy.compile.skills import HEADINGS, rule, title
from cenotaph.memory.policy.lessons import Skill

FILES = {"agents-md": "AGENTS.md", "claude-md": "CLAUDE.md", "copilot": ".github/copilot-instructions.md"}
# The keys of the lessons a block was written from, so that an editor can tell how many changed.
_KEYS = re.compile(r"<!-- cenotaph:lessons ([0-9a-f ]*)-->")


def block(skills: list[Skill]) -> str:
    keys = sorted(l.key for s in skills for l in s.lessons)
    lines = [BEGIN, f"<!-- cenotaph:lessons {' '.join(keys)}{' ' if keys else ''}-->",
             "## Lessons from the project memory", "",
             "Compiled by Cenotaph (`cenotaph compile`): this block is rewritten from the memory; the rest of the "
             "file is yours.", ""]
    if not keys:
        lines += ["No reinforced lessons yet.", ""]
    for skill in skills:
        lines += [f"### {title(skill)}", ""]
        for kind, heading in HEADINGS.items():
            for lesson in (l for l in skill.lessons if l.kind == kind):
                refs = ", ".join(f"#{s.memory_id}" for s in lesson.sources)
                text = rule(lesson) if kind == "dont" else f"{heading}: {rule(lesson)}"
                lines.append(f"- {text}" + (f" (memory {refs})" if refs else ""))
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def _span(text: str, path: str) -> tuple[int, int] | None:
    """Where the managed block is (from the begin marker to the end of the end marker)."""
    start = text.find(BEGIN)
    if start < 0:
        if END in text:
            raise Conflict(f"{path} has {END} without {BEGIN}: fix the markers first", field="file")
        return None
    end = text.find(END, start)
    if end < 0:
        raise Conflict(f"{path} has {BEGIN} without {END}: fix the markers first", field="file")
    return start, end + len(END)


def splice(current: str | None, new_block: str, path: str) -> str:
    if current is None or current == "":
        return new_block + "\n"
    span = _span(current, path)
    if span is None:
        return current + ("" if current.endswith("\n") else "\n") + "\n" + new_block + "\n"
    return current[: span[0]] + new_block + current[span[1]:]


def render(target: str, current: str | None, skills: list[Skill]) -> FileDraft:
    path = FILES[target]
    return FileDraft(path=path, draft=splice(current, block(skills), path))


def changed_since_written(text: str, keys: Iterable[str]) -> tuple[int, tuple[int, int]] | None:
    """How many lessons (by key) were added or dropped since the block in `text` was written, and
    the block's character span; None when the text has no (well-formed) block."""
    try:
        span = _span(text, "the file")
    except Conflict:
        return None
    if span is None:
        return None
    found = _KEYS.search(text, span[0], span[1])
    written = set(found.group(1).split()) if found else set()
    return len(written ^ set(keys)), span

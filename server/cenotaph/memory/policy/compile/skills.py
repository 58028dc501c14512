"""Agent Skills: one `<dir>/<skill-name>/SKILL.md` per topic, with YAML front matter (`name`,
`description`) and the rules with their provenance."""

from __future__ import annotations

import json
from pathlib import Path

from cenotaph.memory.policy.authored import GENERATED
from cenotaph.memory.policy.compile.drafts import FileDraft
from cenotaph.memory.policy.lessons import Lesson, Skill
from cenotaph.project import display_name

DEFAULT_DIR = ".claude/skills"
MAX_DESCRIPTION = 1024
LOAD_NAMES = 8
HEADINGS = {"do": "Do", "watch_out": "Watch out", "dont": "Don't"}


def rule(lesson: Lesson) -> str:
    """A lesson as one imperative line: `Don't: requests — reason` for the graveyard."""
    return f"Don't: {lesson.text}" if lesson.kind == "dont" else lesson.text


def provenance(lesson: Lesson) -> str:
    ids = ", ".join(f"#{s.memory_id}" for s in lesson.sources)
    days = ", ".join(dict.fromkeys(s.date for s in lesson.sources if s.date))
    parts = [f"memor{'ies' if len(lesson.sources) > 1 else 'y'} {ids}" if ids else "", days]
    if lesson.approach is not None and lesson.approach.effort:
        parts.append(f"effort {lesson.approach.effort}/5")
    return "; ".join(p for p in parts if p)


def when_to_load(skill: Skill, project: str) -> str:
    """The occasion an agent loads the skill for, from what its lessons are about."""
    if skill.subject.endswith("dependencies"):
        named = list(dict.fromkeys(l.approach.display_name for l in skill.lessons if l.approach is not None))
        # The first few: the description has 1,024 characters, and what the skill holds comes after.
        abandoned = ", ".join(named[:LOAD_NAMES]) + (", …" if len(named) > LOAD_NAMES else "")
        return (f"Load when adding or choosing a dependency for {project}, or before importing or installing "
                f"{abandoned} again.")
    if skill.subject in ("practices", "pitfalls"):
        return f"Load before changing how {project} does the work these rules are about."
    return f"Load when working with {skill.subject} in {project}, or before choosing how to use it."


def title(skill: Skill) -> str:
    return skill.subject + (f" ({', '.join(skill.terms)})" if skill.terms and skill.subject not in skill.terms else "")


def description(skill: Skill, project: str) -> str:
    counts = {kind: sum(1 for l in skill.lessons if l.kind == kind) for kind in HEADINGS}
    summary = ", ".join(f"{n} {HEADINGS[kind].lower()}" for kind, n in counts.items() if n)
    text = (f"{when_to_load(skill, project)} What the project memory of {project} learned about {title(skill)} "
            f"({summary}): approaches that worked, pitfalls, and abandoned libraries not to use again.")
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


def render_skill(skill: Skill, project: str) -> str:
    """The SKILL.md of one topic; the project named by its display name (an id can be a local path)."""
    shown = display_name(project)
    lines = ["---", f"name: {skill.name}", f"description: {json.dumps(description(skill, shown), ensure_ascii=False)}",
             "---", "", f"# {shown}: {title(skill)}", "",
             f"{GENERATED} (`cenotaph compile --target skill`). Each rule names the memories it comes from; "
             "change the memories, not this file.", ""]
    for kind, heading in HEADINGS.items():
        chosen = [l for l in skill.lessons if l.kind == kind]
        if not chosen:
            continue
        lines += [f"## {heading}", ""]
        lines += [f"- {rule(l)} ({provenance(l)})" for l in chosen]
        lines.append("")
    return "\n".join(lines)


def render(skills: list[Skill], project: str, root: Path, directory: str) -> list[FileDraft]:
    """One SKILL.md per topic; a SKILL.md Cenotaph wrote for a topic that is no longer (renamed as
    its lessons grew, or emptied) goes in the same proposal."""
    base = directory.strip("/") or DEFAULT_DIR
    drafts = [FileDraft(path=f"{base}/{skill.name}/SKILL.md", draft=render_skill(skill, project)) for skill in skills]
    wanted = {d.path for d in drafts}
    for existing in sorted((root / base).glob("*/SKILL.md")):
        relative = f"{base}/{existing.parent.name}/SKILL.md"
        try:
            generated = GENERATED in existing.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            generated = False
        if relative not in wanted and generated:
            drafts.append(FileDraft(path=relative, draft=None))
    return drafts

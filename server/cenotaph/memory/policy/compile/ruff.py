"""Ruff: the graveyard's PyPI entries (and those recorded for any ecosystem) as `flake8-tidy-imports.banned-api` entries (rule TID251),
the reason as the message, in ruff.toml or pyproject.toml, edited with tomlkit so that the rest of
the file keeps its bytes, comments and order."""

from __future__ import annotations

import re
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

from cenotaph.memory.errors import Conflict
from cenotaph.memory.policy.compile.drafts import MESSAGE_MARK, FileDraft, lint_message
from cenotaph.memory.policy.lessons import Lesson
from cenotaph.nlp import ecosystems, names

RULE = "TID251"
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def import_names(lesson: Lesson) -> list[str]:
    """The modules a Python file imports to use the abandoned distribution, as ruff sees them:
    the known import names (`markdown_it` for markdown-it-py, `PIL` for pillow; else the name with
    '_' for '-'), and the recorded aliases that are modules too (the environment's, the person's)."""
    approach = lesson.approach
    assert approach is not None
    known = ecosystems.modules(approach.name, "pypi")
    folded = {names.fold(module) for module in known}
    found = [*known, *(alias.replace("-", "_") for alias in approach.aliases if alias not in folded)]
    return sorted({n for n in found if _MODULE.match(n)})


def config_file(root: Path) -> str:
    """Ruff's own order: `.ruff.toml`, then `ruff.toml`, then `pyproject.toml` (a new `ruff.toml`
    when there is none of them)."""
    for candidate in (".ruff.toml", "ruff.toml", "pyproject.toml"):
        if (root / candidate).is_file():
            return candidate
    return "ruff.toml"


def _table(container, key: str, *, super_table: bool = False) -> Table:
    if key not in container:
        container[key] = tomlkit.table(is_super_table=super_table)
    found = container[key]
    if not isinstance(found, dict):
        raise Conflict(f"`{key}` is not a table", field="file")
    return found


def render(path: str, current: str | None, lessons: list[Lesson]) -> FileDraft:
    try:
        doc = tomlkit.parse(current or "")
    except TOMLKitError as exc:
        raise Conflict(f"{path} is not valid TOML ({exc}): fix it first", field="file") from None
    ruff = _table(_table(doc, "tool", super_table=True), "ruff", super_table=True) if path == "pyproject.toml" \
        else doc
    lint = _table(ruff, "lint", super_table=True)
    banned = _table(_table(lint, "flake8-tidy-imports", super_table=True), "banned-api")
    for module in [m for m, entry in banned.items()
                   if isinstance(entry, dict) and str(entry.get("msg", "")).startswith(MESSAGE_MARK)]:
        del banned[module]
    for lesson in lessons:
        # A record for any ecosystem is Python's too.
        if lesson.approach is None or lesson.approach.ecosystem not in ("pypi", ecosystems.ANY):
            continue
        for module in import_names(lesson):
            if module not in banned:
                entry = tomlkit.inline_table()
                entry["msg"] = lint_message(lesson.approach.display_name, lesson.approach.reason)
                banned[module] = entry
    selected = [str(v) for key in ("select", "extend-select") for v in lint.get(key, [])]
    if not {RULE, "TID", "TID2", "TID25", "ALL"} & set(selected):
        if "extend-select" in lint:
            lint["extend-select"].append(RULE)
        else:
            lint["extend-select"] = [RULE]
    return FileDraft(path=path, draft=tomlkit.dumps(doc))

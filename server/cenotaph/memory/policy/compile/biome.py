"""Biome: the graveyard's npm entries as `linter.rules.style.noRestrictedImports` paths (the
package) and patterns (its deep imports, as for ESLint) in biome.json, the reason as the message."""

from __future__ import annotations

from pathlib import Path

from cenotaph.memory.errors import Conflict
from cenotaph.memory.policy.compile.drafts import MESSAGE_MARK, FileDraft
from cenotaph.memory.policy.compile.eslint import restricted, restricted_patterns
from cenotaph.memory.policy.compile.jsonfile import dumps_like, loads
from cenotaph.memory.policy.lessons import Lesson

CONFIG = "biome.json"


def _object(container: dict, key: str, path: str) -> dict:
    found = container.setdefault(key, {})
    if not isinstance(found, dict):
        raise Conflict(f"{path}: `{key}` is not an object", field="file")
    return found


def _message(value: object) -> str:
    return str(value.get("message", "")) if isinstance(value, dict) else str(value)


def render(root: Path, read, lessons: list[Lesson]) -> list[FileDraft]:
    if not (root / CONFIG).is_file() and (root / "biome.jsonc").is_file():
        raise Conflict("biome.jsonc has comments Cenotaph would lose: rename it biome.json or add the rule by hand",
                       field="file")
    current = read(CONFIG)
    data = loads(CONFIG, current or "{}")
    style = _object(_object(_object(data, "linter", CONFIG), "rules", CONFIG), "style", CONFIG)
    rule = style.get("noRestrictedImports")
    if isinstance(rule, str):
        rule = {"level": rule}
    rule = dict(rule) if isinstance(rule, dict) else {}
    if rule.get("level") in (None, "off"):
        rule["level"] = "error"
    options = _object(rule, "options", CONFIG)
    paths = {k: v for k, v in _object(options, "paths", CONFIG).items() if not _message(v).startswith(MESSAGE_MARK)}
    for entry in restricted(lessons):
        paths.setdefault(entry["name"], entry["message"])
    options["paths"] = paths
    patterns = options.get("patterns")
    kept = [p for p in patterns if not _message(p).startswith(MESSAGE_MARK)] if isinstance(patterns, list) else []
    options.pop("patterns", None)
    if found := kept + restricted_patterns(lessons):
        options["patterns"] = found
    style["noRestrictedImports"] = rule
    return [FileDraft(path=CONFIG, draft=dumps_like(current or "", data))]

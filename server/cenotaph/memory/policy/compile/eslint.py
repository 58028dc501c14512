"""ESLint: the graveyard's npm entries as `no-restricted-imports` paths (the package itself) and
patterns (its deep imports: `lodash/fp`, `@scope/pkg/sub`, which a path never matches) with the
reason as the message. A flat config (`eslint.config.js`, `.mjs`, `.cjs`) imports a generated module
(`cenotaph.eslint.mjs` or `.cjs`); a legacy `.eslintrc.json` is edited as JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cenotaph.memory.errors import Conflict
from cenotaph.memory.policy.authored import ESLINT_HEADER
from cenotaph.memory.policy.compile.drafts import MESSAGE_MARK, FileDraft, lint_message
from cenotaph.memory.policy.compile.jsonfile import dumps_like, loads
from cenotaph.memory.policy.lessons import Lesson

FLAT_CONFIGS = ("eslint.config.js", "eslint.config.mjs", "eslint.config.cjs")
LEGACY_CONFIG = ".eslintrc.json"
RULE = "no-restricted-imports"
_COMMONJS = re.compile(r"\bmodule\.exports\b|\brequire\s*\(")
_EXPORTED_ARRAY = re.compile(r"(export\s+default|module\.exports\s*=)\s*(?:defineConfig\s*\(\s*)?\[")


def restricted(lessons: list[Lesson]) -> list[dict[str, str]]:
    """`{name, message}` for every npm package (and alias) in the graveyard's reinforced lessons."""
    paths: dict[str, str] = {}
    for lesson in lessons:
        approach = lesson.approach
        if approach is None or approach.ecosystem != "npm":
            continue
        for name in (approach.name, *approach.aliases):
            paths.setdefault(name, lint_message(approach.display_name, approach.reason))
    return [{"name": name, "message": message} for name, message in sorted(paths.items())]


def restricted_patterns(lessons: list[Lesson]) -> list[dict[str, object]]:
    """`{group, message}` banning every file under each restricted package: a path option matches
    only the exact specifier, so `import fp from "lodash/fp"` needs the gitignore-style
    `lodash/**` (a slash inside anchors it to the specifier's start; `./lodash/x` stays clear)."""
    return [{"group": [f"{entry['name']}/**"], "message": entry["message"]} for entry in restricted(lessons)]


def _ours(entries: list) -> list:
    """A person's entries, without those Cenotaph wrote (their message starts with its mark)."""
    return [e for e in entries if not (isinstance(e, dict) and str(e.get("message", "")).startswith(MESSAGE_MARK))]


def config_file(root: Path) -> str:
    for candidate in (*FLAT_CONFIGS, LEGACY_CONFIG):
        if (root / candidate).is_file():
            return candidate
    return "eslint.config.mjs"


def module_file(config: str, current: str | None) -> str:
    commonjs = config.endswith(".cjs") or (config.endswith(".js") and bool(_COMMONJS.search(current or "")))
    return "cenotaph.eslint.cjs" if commonjs else "cenotaph.eslint.mjs"


def render_module(path: str, lessons: list[Lesson]) -> FileDraft:
    options = {"paths": restricted(lessons), "patterns": restricted_patterns(lessons)}
    config = {"name": "cenotaph/graveyard", "rules": {RULE: ["error", options]}}
    body = json.dumps(config, ensure_ascii=False, indent=2)
    export = "module.exports = " if path.endswith(".cjs") else "export default "
    return FileDraft(path=path, draft=f"{ESLINT_HEADER}\n{export}{body};\n")


def render_flat_config(path: str, current: str | None, module: str) -> FileDraft:
    """The config with the generated module first in its exported array (the project's own rules,
    after it, win), unless it imports the module already."""
    commonjs = module.endswith(".cjs")
    statement = (f'const cenotaph = require("./{module}");' if commonjs
                 else f'import cenotaph from "./{module}";')
    if current is None:
        export = "module.exports =" if commonjs else "export default"
        return FileDraft(path=path, draft=f"{statement}\n\n{export} [cenotaph];\n")
    if f"./{module}" in current:
        return FileDraft(path=path, draft=current)
    found = _EXPORTED_ARRAY.search(current)
    if found is None:
        raise Conflict(f"{path} does not export an array Cenotaph can find: add `{statement}` and put "
                       "`cenotaph` first in the exported config array", field="file")
    draft = f"{statement}\n{current[:found.end()]}cenotaph, {current[found.end():]}"
    return FileDraft(path=path, draft=draft)


def render_legacy(path: str, current: str, lessons: list[Lesson]) -> FileDraft:
    data = loads(path, current)
    rules = data.setdefault("rules", {})
    level: object = "error"
    options: dict = {}
    existing = rules.get(RULE)
    if isinstance(existing, list) and existing:
        level = existing[0] if existing[0] not in ("off", 0) else "error"
        rest = existing[1:]
        if len(rest) == 1 and isinstance(rest[0], dict):
            options = dict(rest[0])
        else:
            options = {"paths": [r for r in rest if isinstance(r, (str, dict))]}
    kept = _ours(options.get("paths", []))
    taken = {p if isinstance(p, str) else p.get("name") for p in kept}
    options["paths"] = kept + [p for p in restricted(lessons) if p["name"] not in taken]
    # A person's patterns come first and stay. ESLint takes strings or objects, not both: beside
    # ours, a string (the shorthand) becomes a group of one.
    patterns = options.get("patterns", [])
    kept_patterns = _ours(patterns if isinstance(patterns, list) else [])
    ours_patterns = restricted_patterns(lessons)
    if ours_patterns:
        kept_patterns = [{"group": [p]} if isinstance(p, str) else p for p in kept_patterns]
    options.pop("patterns", None)
    if kept_patterns or ours_patterns:
        options["patterns"] = kept_patterns + ours_patterns
    rules[RULE] = [level, options]
    return FileDraft(path=path, draft=dumps_like(current, data))


def render(root: Path, read, lessons: list[Lesson]) -> list[FileDraft]:
    """`read(path)` is the file's current text or None."""
    config = config_file(root)
    current = read(config)
    if config == LEGACY_CONFIG:
        return [render_legacy(config, current or "{}", lessons)]
    module = module_file(config, current)
    return [render_module(module, lessons), render_flat_config(config, current, module)]

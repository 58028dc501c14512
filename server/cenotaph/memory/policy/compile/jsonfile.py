"""JSON configuration files rewritten with the indentation they already have (tabs for a Biome
`biome init` file, two spaces elsewhere), keys in their order, one trailing newline."""

from __future__ import annotations

import json
import re

from cenotaph.memory.errors import Conflict

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


def loads(path: str, text: str) -> dict:
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise Conflict(f"{path} is not plain JSON ({exc.msg} at line {exc.lineno}): fix it first", field="file") \
            from None
    if not isinstance(data, dict):
        raise Conflict(f"{path} does not hold a JSON object", field="file")
    return data


def dumps_like(current: str, data: dict) -> str:
    found = _INDENT.search(current or "")
    indent: str | int = found.group(1) if found else 2
    return json.dumps(data, ensure_ascii=False, indent=indent) + "\n"

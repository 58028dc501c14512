"""lua/cenotaph/settings_schema.lua, generated from shared_schema/settings.schema.json: the server's
settings as the plugin's setup() validates them (each `$ref` resolved, only what validation and
the docs need). `python neovim-plugin/scripts/gen_settings.py` writes it; `--check` fails when it
drifted from the schema (tests/test_settings_docs.py runs the check)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[1]
SCHEMA = PLUGIN.parent / "shared_schema" / "settings.schema.json"
OUTPUT = PLUGIN / "lua" / "cenotaph" / "settings_schema.lua"
KEPT = ("type", "enum", "minimum", "maximum", "uniqueItems", "default")


def _resolve(node: dict, defs: dict) -> dict:
    if "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in node.items() if k != "$ref"}}
    if "enum" in node and "type" not in node:
        node = {**node, "type": "string"}
    return node


def _lua(value, indent: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "{ " + ", ".join(_lua(v, indent) for v in value) + " }"
    inner = indent + "  "
    parts = [f"{inner}{key} = {_lua(v, inner)}," if key.isidentifier() else f"{inner}[{json.dumps(key)}] = {_lua(v, inner)},"
             for key, v in value.items()]
    return "{\n" + "\n".join(parts) + f"\n{indent}}}"


def _node(node: dict, defs: dict) -> dict:
    node = _resolve(node, defs)
    out = {k: node[k] for k in KEPT if k in node and not (k == "default" and node.get("type") == "object")}
    if "properties" in node:
        out["keys"] = list(node["properties"])  # the schema's order, for messages and docs
        out["properties"] = {k: _node(v, defs) for k, v in node["properties"].items()}
    if "items" in node:
        out["items"] = _node(node["items"], defs)
    return out


def generate() -> str:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    root = _node({"type": "object", "properties": schema["properties"]}, schema.get("$defs", {}))
    return ("-- Generated from shared_schema/settings.schema.json by scripts/gen_settings.py: do not edit.\n"
            "-- The server's settings as setup() validates `opts.settings`.\n"
            f"return {_lua(root, '')}\n")


def main() -> int:
    text = generate()
    if "--check" in sys.argv[1:]:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} differs from {SCHEMA}: run python {Path(__file__).relative_to(PLUGIN.parent)}",
                  file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

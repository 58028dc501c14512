"""Every documented setting is a setting, and every setting is documented: the server's settings
(shared_schema/settings.schema.json) against the Neovim plugin's `:help cenotaph-settings`, its
generated option list (lua/cenotaph/settings_schema.lua) and the VS Code extension's README table
(its package.json is generated and checked by vscode-extension/scripts/gen-config.js)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "shared_schema" / "settings.schema.json"
NVIM_HELP = ROOT / "neovim-plugin" / "doc" / "cenotaph.txt"
VSCODE_README = ROOT / "vscode-extension" / "README.md"
VSCODE_CLIENT_ONLY = {"server.command", "trace.server"}  # read by the extension, never sent to the server


def leaves(node: dict, prefix: str = "") -> set[str]:
    """The settings a person sets, dotted (`mine.onOpen`)."""
    if node.get("type") == "object" and "properties" in node:
        return {leaf for key, child in node["properties"].items() for leaf in leaves(child, f"{prefix}{key}.")}
    return {prefix.rstrip(".")}


def schema_settings() -> set[str]:
    return leaves({"type": "object", "properties": json.loads(SCHEMA.read_text(encoding="utf-8"))["properties"]})


def test_the_neovim_option_list_is_generated_from_the_schema():
    check = subprocess.run([sys.executable, str(ROOT / "neovim-plugin" / "scripts" / "gen_settings.py"), "--check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_the_neovim_help_documents_exactly_the_schemas_settings():
    text = NVIM_HELP.read_text(encoding="utf-8")
    start = text.index("*cenotaph-settings*")
    block = text[start:text.index("\n\n", text.index("\n    ", start))]  # the entries end at a blank line
    documented = set(re.findall(r"^    ([A-Za-z.]+) ~ ", block, re.MULTILINE))
    assert "mine.onOpen" in documented  # the setting the help once documented and setup() refused
    assert documented == schema_settings()


def test_the_vscode_readme_documents_exactly_the_schemas_settings():
    rows = re.findall(r"^\| `cenotaph\.([A-Za-z.]+)` \|", VSCODE_README.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(rows) == len(set(rows))
    assert set(rows) - VSCODE_CLIENT_ONLY == schema_settings()
    assert VSCODE_CLIENT_ONLY <= set(rows)

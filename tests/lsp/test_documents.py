"""What each kind of document gets: Python imports, the scopes' severities, prose mentions,
instruction-file recommendations, suppressions, and edits."""

from __future__ import annotations

from lsprotocol import types

from cenotaph.lsp.convert import plain
from tests.conftest import HUMAN
from tests.lsp.conftest import PROJECT, abandoned, project_folder

PYTHON = """\
import os
import numpy as np
import onnxruntime as ort
from yaml import safe_load
try: import left_pad
except ImportError: pass

def f():
    return "import onnxruntime"  # a string, not an import
"""


async def test_python_imports_and_the_severity_of_each_scope(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL crash on Alpine musl libc", project=PROJECT, effort=4)
    memory.abandon(HUMAN, "pyyaml", reason="unsafe load by default", project="")  # everywhere
    memory.abandon(HUMAN, "left-pad", reason="unpublished once", project="other/project")
    session = await serve([folder])
    uri = session.open(folder / "src" / "model.py", PYTHON, "python")
    diagnostics = await session.diagnostics(uri)
    assert [(d.data["name"], d.range.start.line, d.range.start.character, d.range.end.character, d.severity)
            for d in diagnostics] == [
        ("onnxruntime", 2, 7, 18, types.DiagnosticSeverity.Warning),
        ("pyyaml", 3, 5, 9, types.DiagnosticSeverity.Information),  # the import name of PyPI's pyyaml
    ]  # os, numpy and the string stay clear; left-pad (another project's) is off by default
    assert diagnostics[1].message.startswith("pyyaml was abandoned everywhere (2026-03-01)")
    assert diagnostics[1].data["scope"] == "global" and diagnostics[1].data["project"] == ""

    # Typing keeps the ranges right: a line inserted above moves the warning down.
    session.replace(uri, "# header\n" + PYTHON)
    moved = await session.diagnostics(uri, lambda d: d and d[0].range.start.line == 3)
    assert [d.data["name"] for d in moved] == ["onnxruntime", "pyyaml"]

    # Another project's approaches, once the settings ask for them.
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"cenotaph": {"otherProjects": True}}))
    other = await session.diagnostics(uri, lambda d: len(d) == 3)
    (left_pad,) = abandoned(other, "left-pad")
    assert left_pad.severity == types.DiagnosticSeverity.Information and left_pad.data["scope"] == "other_project"
    assert left_pad.message.startswith("left-pad was abandoned in other/project")


async def test_prose_mentions_instruction_recommendations_and_suppressions(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL crash on Alpine musl libc", project=PROJECT, effort=4)
    memory.abandon(HUMAN, "poetry", reason="lock files drifted", project=PROJECT, ecosystem="tool")
    memory.suppress(HUMAN, "poetry", kind="diagnostic", project=PROJECT, reason="docs may mention it")
    # A client that prefers UTF-8 columns (as Neovim does) still gets UTF-16 ones, which all support.
    session = await serve([folder], position_encodings=["utf-8", "utf-32", "utf-16"])
    assert session.initialized.capabilities.position_encoding == types.PositionEncodingKind.Utf16

    notes = session.open(folder / "docs" / "notes.md", "We tried 🧪 `onnxruntime` and `poetry`.\n", "markdown")
    (hint,) = await session.diagnostics(notes)  # poetry: silenced in this project
    assert hint.severity == types.DiagnosticSeverity.Hint and hint.data["kind"] == "mention"
    assert (hint.range.start.character, hint.range.end.character) == (13, 24)  # 🧪 is two UTF-16 units

    agents = session.open(folder / "AGENTS.md",
                          "# Agents\n\nUse onnxruntime for inference.\nAvoid onnxruntime on Alpine.\n", "markdown")
    # Whether a line recommends needs spaCy, which loads in the background after `initialized`.
    found = await session.diagnostics(agents, lambda d: any(x.data["kind"] == "recommendation" for x in d),
                                      timeout=60)
    assert [(d.range.start.line, d.severity, d.data["kind"]) for d in found] == [
        (2, types.DiagnosticSeverity.Warning, "recommendation"),
    ]  # "Avoid onnxruntime" is prose that recommends nothing
    assert found[0].message.startswith("This line recommends onnxruntime, but onnxruntime was abandoned here")


MIDDLEWARE_MD = """\
# CORS

Handles cross-origin requests. #### Simple requests are answered at once; click "Allow".

```python
# only for preflight requests
import requests
response = requests.get("https://example.com")
```

Then run `pip install requests` (or pip install click for the CLI).
"""


async def test_docs_flag_code_blocks_and_install_lines_not_english_words(memory, serve, tmp_path):
    """Issue 38: with `requests` and `click` abandoned, a docs page's prose ("cross-origin requests",
    "click Allow") stays clear; its fence and its install commands are flagged."""
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "requests", reason="blocking calls", project=PROJECT, ecosystem="pypi")
    memory.abandon(HUMAN, "click", reason="typer's now", project=PROJECT, ecosystem="pypi")
    session = await serve([folder])
    uri = session.open(folder / "docs" / "middleware.md", MIDDLEWARE_MD, "markdown")
    found = await session.diagnostics(uri)
    assert [(d.range.start.line, d.range.start.character, d.data["name"], d.severity) for d in found] == [
        (6, 7, "requests", types.DiagnosticSeverity.Hint),  # the fence's import, not its comment
        (7, 11, "requests", types.DiagnosticSeverity.Hint),
        (10, 22, "requests", types.DiagnosticSeverity.Hint),  # inline code
        (10, 48, "click", types.DiagnosticSeverity.Hint),  # an install command in a sentence
    ]
    rst = session.open(folder / "docs" / "index.rst", "Making requests\n\nUse ``requests``::\n\n    import click\n",
                       "restructuredtext")
    assert [(d.range.start.line, d.data["name"]) for d in await session.diagnostics(rst)] == [
        (2, "requests"), (4, "click")]


async def test_abandoning_a_silenced_name_again_offers_to_lift_the_silence(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "requests", reason="blocking calls", project=PROJECT)
    memory.suppress(HUMAN, "requests", kind="diagnostic", project=PROJECT, reason="intended here")
    memory.reinstate_approach(HUMAN, "requests", reason="it is fine now", project=PROJECT)
    session = await serve([folder], message_answers=["Lift the silence"])
    uri = session.open(folder / "requirements.txt", "httpx==0.27\n")
    await session.diagnostics(uri)

    done = plain(await session.execute("cenotaph.abandon", {"name": "requests", "project": PROJECT,
                                                            "reason": "blocking calls"}))
    [asked] = session.client.message_requests
    assert asked.message.startswith("'requests' is still silenced in " + PROJECT)
    assert done["done"] is True and done["message"].endswith("; its silence is lifted")
    session.replace(uri, "httpx==0.27\nrequests==2.32.0\n")
    [flagged] = abandoned(await session.diagnostics(uri, lambda d: bool(d), timeout=30), "requests")
    assert flagged.range.start.line == 1  # httpx stays clear

"""The editor's abandon places a name as the CLI does: from the manifests of the document's
workspace folder, saying which one decided; when two ecosystems fit, the person picks one of them
(window/showMessageRequest, which Neovim shows with vim.ui.select and VS Code as buttons)."""

from __future__ import annotations

import json
from pathlib import Path

from cenotaph.lsp.convert import plain
from tests.lsp.conftest import PROJECT, abandoned, project_folder


def shop(tmp_path: Path, *, cargo: bool) -> Path:
    folder = project_folder(tmp_path, "shop", PROJECT)
    (folder / "package.json").write_text(json.dumps({"name": "shop", "dependencies": {"moment": "^2.30.1"}}))
    (folder / "requirements.txt").write_text("httpx==0.27\n")
    if cargo:
        (folder / "Cargo.toml").write_text('[package]\nname = "shop"\n\n[dependencies]\nserde = "1"\n')
    return folder


async def test_abandon_from_the_editor_takes_the_ecosystem_from_the_workspace(memory, serve, tmp_path):
    folder = shop(tmp_path, cargo=False)
    session = await serve([folder])
    manifest = folder / "package.json"
    uri = session.open(manifest, manifest.read_text(), "json")
    assert await session.diagnostics(uri) == []

    done = plain(await session.execute("cenotaph.abandon", {"name": "moment", "uri": uri,
                                                            "reason": "date-fns is smaller"}))
    assert done["done"] is True
    assert done["message"].endswith("(npm: package.json declares it)")
    assert session.client.message_requests == []  # nothing to ask: one manifest declares it
    [flagged] = abandoned(await session.diagnostics(uri, lambda d: bool(d), timeout=30), "moment")
    assert flagged.range.start.line == 0  # the manifest's line of moment
    [verdict] = memory.check_approaches(["moment"], project=PROJECT)
    assert verdict.approach.ecosystem == "npm"  # not PyPI


async def test_two_fitting_ecosystems_are_offered_as_a_choice(memory, serve, tmp_path):
    folder = shop(tmp_path, cargo=True)  # npm, Cargo and PyPI manifests; none declares left-trim
    session = await serve([folder], message_answers=["cargo"])
    uri = session.open(folder / "requirements.txt", "httpx==0.27\n")
    await session.diagnostics(uri)

    done = plain(await session.execute("cenotaph.abandon", {"name": "left-trim", "uri": uri,
                                                            "reason": "trims the wrong side"}))
    [asked] = session.client.message_requests
    assert asked.message.startswith("Which ecosystem is 'left-trim' in?")
    assert "cargo (Cargo.toml)" in asked.message and "npm (package.json)" in asked.message
    assert [a.title for a in asked.actions] == ["cargo", "npm", "pypi", "Cancel"]
    assert done["done"] is True and done["message"].endswith("(cargo: chosen: cargo)")
    [verdict] = memory.check_approaches(["left_trim"], project=PROJECT)
    assert verdict.approach.ecosystem == "cargo"


async def test_cancelling_the_choice_records_nothing(memory, serve, tmp_path):
    folder = shop(tmp_path, cargo=True)
    session = await serve([folder], message_answers=[None])
    done = plain(await session.execute("cenotaph.abandon", {"name": "left-trim", "project": PROJECT,
                                                            "reason": "trims the wrong side"}))
    assert len(session.client.message_requests) == 1
    assert done["done"] is False
    assert [c.status for c in memory.check_approaches(["left-trim"], project=PROJECT)] == ["clear"]

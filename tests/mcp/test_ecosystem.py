"""An approach the agent abandons is recorded in the ecosystem its workspace declares it in,
else in none in particular (matching in every ecosystem), never PyPI by default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cenotaph.mcp.server import build_server
from cenotaph.memory.models import Actor
from tests.mcp.conftest import PROJECT, call, connect

PERSON = Actor(name="cli", kind="human")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "shop", "dependencies": {"leftpad": "^0.0.1"},
                                                   "devDependencies": {"Is-Odd": "3.0.1"}}))
    (root / "Cargo.toml").write_text('[package]\nname = "shop"\n\n[dependencies]\nserde = "1"\n')
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\ndependencies = ["requests>=2"]\n')
    return root


async def test_abandon_takes_the_ecosystem_from_the_manifest_that_declares_the_name(memory, workspace):
    server = build_server(memory, project=PROJECT, workspace=workspace)
    async with connect(server) as client:
        found = {name: (await call(client, "abandon", name=name, reason="not for us"))["approach"]["ecosystem"]
                 for name in ("leftpad", "is-odd", "serde", "requests", "@acme/ui", "left-trim")}
        explicit = await call(client, "abandon", name="chalk", reason="colours", ecosystem="npm")
    assert found == {"leftpad": "npm", "is-odd": "npm", "serde": "cargo", "requests": "pypi",
                     "@acme/ui": "npm",  # its spelling says so
                     "left-trim": "any"}  # declared nowhere: no ecosystem in particular
    assert explicit["approach"]["ecosystem"] == "npm"


async def test_record_experience_abandons_in_the_declared_ecosystem(memory, workspace):
    server = build_server(memory, project=PROJECT, workspace=workspace)
    async with connect(server) as client:
        result = await call(client, "record_experience", summary="Tried padding helpers", outcome="failed", effort=2,
                            abandoned=[{"name": "leftpad", "reason": "unmaintained"},
                                       {"name": "padstart", "reason": "String.prototype.padStart exists"}])
    assert [(a["approach"]["display_name"], a["approach"]["ecosystem"]) for a in result["abandoned"]] == [
        ("leftpad", "npm"), ("padstart", "any")]


async def test_an_ecosystem_free_record_matches_in_every_ecosystem(memory, workspace):
    server = build_server(memory, project=PROJECT, workspace=workspace)
    async with connect(server) as client:
        await call(client, "abandon", name="left_trim", reason="trims the wrong side")
        checks = {eco: (await call(client, "check_approaches", names=["left-trim"], ecosystem=eco))["results"][0]
                  for eco in ("npm", "pypi", "cargo")}
        other = (await call(client, "check_approaches", names=["right-trim"], ecosystem="npm"))["results"][0]
    assert {eco: c["status"] for eco, c in checks.items()} == dict.fromkeys(checks, "abandoned")
    assert other["status"] == "clear"


async def test_without_a_workspace_the_spelling_decides_as_before(memory):
    server = build_server(memory, project=PROJECT)
    async with connect(server) as client:
        approach = (await call(client, "abandon", name="leftpad", reason="not for us"))["approach"]
    assert approach["ecosystem"] == "pypi"
    assert memory.abandon(PERSON, "moment", reason="date-fns", project=PROJECT).approach.ecosystem == "pypi"

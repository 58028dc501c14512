"""An approach the agent abandons is recorded in the ecosystem its workspace declares it in, else
the one its manifests make possible; two that fit are refused with the choices; with no manifest
to tell, in none in particular (matching in every ecosystem); with no repository at all, PyPI,
and the result says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cenotaph.mcp.server import build_server
from cenotaph.memory.models import Actor
from tests.mcp.conftest import PROJECT, call, call_error, connect

PERSON = Actor(name="cli", kind="human")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "shop", "dependencies": {"leftpad": "^0.0.1", "moment": "^2.30.1"},
                                                   "devDependencies": {"Is-Odd": "3.0.1"}}))
    (root / "Cargo.toml").write_text('[package]\nname = "shop"\n\n[dependencies]\nserde = "1"\n')
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\ndependencies = ["requests>=2"]\n')
    return root


async def test_abandon_takes_the_ecosystem_from_the_manifest_that_declares_the_name(memory, workspace):
    server = build_server(memory, project=PROJECT, workspace=workspace)
    async with connect(server) as client:
        found = {name: await call(client, "abandon", name=name, reason="not for us")
                 for name in ("leftpad", "moment", "is-odd", "serde", "requests", "@acme/ui")}
        explicit = await call(client, "abandon", name="chalk", reason="colours", ecosystem="npm")
        # Declared nowhere, and the repository has three ecosystems' manifests: the agent is asked.
        refused = await call_error(client, "abandon", name="left-trim", reason="trims the wrong side")
        settled = await call(client, "abandon", name="left-trim", reason="trims the wrong side", ecosystem="npm")
    assert {name: r["approach"]["ecosystem"] for name, r in found.items()} == {
        "leftpad": "npm", "moment": "npm", "is-odd": "npm", "serde": "cargo", "requests": "pypi",
        "@acme/ui": "npm"}  # its spelling says so
    assert found["leftpad"]["decided_by"] == found["moment"]["decided_by"] == "package.json declares it"
    assert found["serde"]["decided_by"] == "Cargo.toml declares it"
    assert found["@acme/ui"]["decided_by"] == "its spelling makes it npm's"
    assert explicit["approach"]["ecosystem"] == "npm" and explicit["decided_by"] == "chosen: npm"
    assert refused.startswith("ecosystem: ") and "(cargo, npm, pypi)" in refused
    assert "npm (package.json)" in refused and "cargo (Cargo.toml)" in refused
    assert settled["approach"]["ecosystem"] == "npm"


async def test_record_experience_abandons_in_the_declared_ecosystem(memory, workspace):
    server = build_server(memory, project=PROJECT, workspace=workspace)
    async with connect(server) as client:
        result = await call(client, "record_experience", summary="Tried padding helpers", outcome="failed", effort=2,
                            abandoned=[{"name": "leftpad", "reason": "unmaintained"},
                                       {"name": "serde", "reason": "too much for two fields"}])
        refused = await call_error(client, "record_experience", summary="Tried trimming helpers", outcome="failed",
                                   effort=2, abandoned=[{"name": "padstart", "reason": "padStart exists"}])
    assert [(a["approach"]["display_name"], a["approach"]["ecosystem"]) for a in result["abandoned"]] == [
        ("leftpad", "npm"), ("serde", "cargo")]
    assert refused.startswith("abandoned[0].ecosystem: ")


async def test_an_ecosystem_free_record_matches_in_every_ecosystem(memory, tmp_path):
    bare = tmp_path / "notes"  # a repository without a manifest
    bare.mkdir()
    server = build_server(memory, project=PROJECT, workspace=bare)
    async with connect(server) as client:
        recorded = await call(client, "abandon", name="left_trim", reason="trims the wrong side")
        checks = {eco: (await call(client, "check_approaches", names=["left-trim"], ecosystem=eco))["results"][0]
                  for eco in ("npm", "pypi", "cargo")}
        other = (await call(client, "check_approaches", names=["right-trim"], ecosystem="npm"))["results"][0]
    assert recorded["approach"]["ecosystem"] == "any"
    assert recorded["decided_by"].startswith("no manifest in the repository declares it or tells its ecosystem")
    assert {eco: c["status"] for eco, c in checks.items()} == dict.fromkeys(checks, "abandoned")
    assert other["status"] == "clear"


async def test_without_a_workspace_the_spelling_decides_else_pypi_and_says_so(memory):
    server = build_server(memory, project=PROJECT)
    async with connect(server) as client:
        leftpad = await call(client, "abandon", name="leftpad", reason="not for us")
        scoped = await call(client, "abandon", name="@acme/ui", reason="not for us")
    assert leftpad["approach"]["ecosystem"] == "pypi"
    assert leftpad["decided_by"] == "no repository to read manifests from: pypi, the default"
    assert scoped["approach"]["ecosystem"] == "npm"
    assert memory.abandon(PERSON, "moment", reason="date-fns", project=PROJECT).approach.ecosystem == "pypi"

"""The real `cenotaph mcp` over stdio, driven by the SDK's stdio client."""

from __future__ import annotations

from pathlib import Path

from cenotaph.app import open_store
from cenotaph.store import events
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from tests.conftest import CENOTAPH, cli_store


async def test_cenotaph_mcp_serves_the_tools_over_stdio(tmp_path: Path, cli_env: dict[str, str]):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".cenotaph.toml").write_text('project = "acme/stdio"\n')
    params = StdioServerParameters(command=CENOTAPH, args=["mcp"], env=cli_env, cwd=repo)
    async with Client(params, client_info=Implementation(name="stdio-agent", version="1")) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        abandoned = await client.call_tool("abandon", {"name": "left-pad", "reason": "one line of code"})
        checks = await client.call_tool("check_approaches", {"names": ["left-pad", "is-odd"]})
        recalled = await client.call_tool("recall", {"query": "left-pad"})
        bad = await client.call_tool("recall", {"query": "x", "k": 0})
    assert {"briefing", "remember", "recall", "check_approaches", "change"} <= tools
    assert abandoned.structured_content["approach"]["project"] == "acme/stdio"
    assert [c["status"] for c in checks.structured_content["results"]] == ["abandoned", "clear"]
    assert recalled.structured_content["results"][0]["kind"] == "abandoned"
    assert bad.is_error and "k" in bad.content[0].text
    # The write is in the shared store's event log, which is how open editors learn of it.
    store = open_store(cli_store(cli_env))
    try:
        with store.read() as conn:
            logged = [(e.actor, e.action) for e in events.query(conn, target=None, since_at=None, limit=100)]
    finally:
        store.close()
    assert ("mcp:stdio-agent", "abandon") in logged


async def test_an_agent_previews_a_bulk_decision_over_stdio_and_only_a_person_decides(tmp_path: Path,
                                                                                      cli_env: dict[str, str]):
    import json

    from tests.e2e.test_cli import run
    from tests.gitrepo import GitRepo

    repo = GitRepo(tmp_path / "app")
    (repo.root / ".cenotaph.toml").write_text('project = "acme/app"\n', encoding="utf-8")
    repo.commit("Start", {"requirements.txt": "requests\nujson\n", "requirements-dev.txt": "nose\n"},
                at="2024-01-01T09:00:00+00:00")
    dropped = repo.commit("Drop ujson: it crashes on 3.12", {"requirements.txt": "requests\n"},
                          at="2024-02-02T09:00:00+00:00")
    repo.commit("Tidy", {"requirements.txt": "", "requirements-dev.txt": ""}, at="2024-02-03T09:00:00+00:00")
    run(cli_env, "mine", "git", cwd=repo.root)
    listing = json.loads(run(cli_env, "proposals", "--min-confidence", "0", "--json", cwd=repo.root).stdout)
    before = {p["arguments"]["name"]: p for p in listing["proposals"]}
    assert set(before) == {"requests", "ujson", "nose"}
    params = StdioServerParameters(command=CENOTAPH, args=["mcp"], env=cli_env, cwd=repo.root)
    async with Client(params, client_info=Implementation(name="stdio-agent", version="1")) as client:
        by_commit = await client.call_tool("candidates", {"decision": "reject", "commit": dropped[:7]})
        by_class = await client.call_tool("candidates", {"decision": "reject", "classes": ["dev"]})
        by_ids = await client.call_tool("candidates", {"decision": "accept",
                                                       "ids": [before["requests"]["id"], before["nose"]["id"]]})
        cut = before["ujson"]["arguments"]["confidence"]
        low = await client.call_tool("candidates", {"decision": "reject", "below": cut})
        decided = await client.call_tool("candidates", {"decision": "reject", "classes": ["dev"], "preview": False})
    assert [c["name"] for c in by_commit.structured_content["candidates"]] == ["ujson"]
    assert by_commit.structured_content["count"] == 1 and by_commit.structured_content["preview"]
    assert by_commit.structured_content["command"] == f"cenotaph reject --commit {dropped[:7]} --reason '…'"
    assert [c["name"] for c in by_class.structured_content["candidates"]] == ["nose"]
    assert sorted(c["name"] for c in by_ids.structured_content["candidates"]) == ["nose", "requests"]
    assert {c["name"] for c in low.structured_content["candidates"]} == {
        n for n, p in before.items() if p["arguments"]["confidence"] < cut}
    assert "ujson" not in {c["name"] for c in low.structured_content["candidates"]}
    assert decided.is_error and "only a person" in decided.content[0].text
    # Nothing was touched.
    after = json.loads(run(cli_env, "proposals", "--min-confidence", "0", "--json", cwd=repo.root).stdout)
    assert after["proposals"] == listing["proposals"]

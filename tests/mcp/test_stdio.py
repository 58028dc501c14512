"""The real `cenotaph mcp` over stdio, driven by the SDK's stdio client."""

from __future__ import annotations

from pathlib import Path

from cenotaph.app import open_store
from cenotaph.store import events
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from tests.conftest import CENOTAPH, cli_store, person_of


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
    assert (f"mcp:stdio-agent for {person_of(cli_store(cli_env))}", "abandon") in logged

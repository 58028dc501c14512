"""compile over MCP (issue 17): an agent proposes and reads the diff; it has no way to accept."""

from __future__ import annotations

from pathlib import Path

import pytest

from cenotaph.mcp.server import build_server
from cenotaph.memory.errors import Conflict
from tests.conftest import AGENT, HUMAN, person_of
from tests.mcp.conftest import CLIENT_NAME, PROJECT, call, call_error, connect


async def test_an_agent_compiles_a_proposal_and_cannot_accept_it(memory, db_path, tmp_path: Path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    server = build_server(memory, project=PROJECT, workspace=root)
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=PROJECT, effort=4)
    async with connect(server) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        result = await call(client, "compile", target="ruff")
        assert "target" in await call_error(client, "compile", target="makefile")
    assert not {"accept", "accept_proposal", "reject"} & tools
    [proposed] = result["files"]
    assert proposed["path"] == "ruff.toml" and proposed["base_sha256"] == "absent"
    assert '+requests = {msg = "cenotaph: requests was abandoned: blocking calls stalled the event loop"}' \
        in proposed["diff"]
    assert not (root / "ruff.toml").exists()
    [row] = memory.proposals(PROJECT)
    assert (row.id, row.actor, row.action) == (result["proposal_id"], f"mcp:{CLIENT_NAME} for {person_of(db_path)}", "compile")
    with pytest.raises(Conflict, match="only a person"):
        memory.accept_proposal(AGENT, row.id)
    assert not (root / "ruff.toml").exists()
    memory.accept_proposal(HUMAN, row.id)  # positive control: a person's accept writes it
    assert (root / "ruff.toml").is_file()

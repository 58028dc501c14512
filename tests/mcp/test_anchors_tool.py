"""Anchors over MCP (issue 41): `remember` with `at` anchors a memory to lines of the repository
the server works in; `recall` carries each anchor's state and tells the agent when a memory's code
changed; `change` with `reconfirm` re-anchors it."""

from __future__ import annotations

import pytest
from cenotaph.mcp.server import build_server

from tests.gitrepo import GitRepo
from tests.mcp.conftest import PROJECT, call, call_text, connect
from tests.memory.test_anchors import SOURCE


@pytest.fixture
def repo(tmp_path, memory) -> GitRepo:
    repository = GitRepo(tmp_path / "shop")
    repository.commit("start", {"net.py": SOURCE})
    memory.attach_repositories([(repository.root, PROJECT)])
    return repository


async def test_an_agent_anchors_a_memory_and_recall_tells_when_its_code_changed(memory, repo):
    server = build_server(memory, project=PROJECT, workspace=repo.root)
    async with connect(server) as client:
        stored = await call(client, "remember", content="retry_after reads the Retry-After header as seconds",
                            at={"path": "net.py", "start_line": 4, "end_line": 6})
        kept = await call(client, "remember", content="backoff doubles the wait between retries",
                          at={"path": "net.py", "start_line": 9})
        first = await call(client, "recall", query="Retry-After header as seconds")
        assert first["results"][0]["anchor"] == {"path": "net.py", "start_line": 4, "end_line": 6, "state": "current"}
        (repo.root / "net.py").write_text(SOURCE.replace(
            "    header = response.headers.get('Retry-After')\n    return int(header or 1)\n",
            "    raise NotImplementedError('rate limits are handled by the proxy now')\n"))
        text = await call_text(client, "recall", query="Retry-After header as seconds")
        assert f"[{stored['id']}]" in text and " stale\n" in text and "may no longer hold" in text
        after = await call(client, "recall", query="Retry-After header as seconds")
        anchors = {r["id"]: r["anchor"] for r in after["results"]}
        assert anchors[stored["id"]]["state"] == "stale"
        assert anchors[kept["id"]] == {"path": "net.py", "start_line": 8, "end_line": 8, "state": "moved"}  # control
        again = await call(client, "change", memory_id=stored["id"], action="reconfirm", reason="still true")
        assert again["anchor"]["state"] == "current"
        assert again["then"].startswith("def retry_after")
        refused = await client.call_tool("remember", {"content": "a note", "at": {"path": "net.py", "start_line": 99}})
        assert refused.is_error and "at" in refused.content[0].text

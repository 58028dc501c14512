"""share and unshare over MCP (issue 14): an agent's share is a proposal a person accepts, and
check_approaches tells the agent what the team shared in the repository."""

from __future__ import annotations

import subprocess

from tests.conftest import HUMAN
from tests.mcp.conftest import PROJECT, call, call_error, connect

ONNX = ".cenotaph/graveyard/pypi/onnxruntime.toml"


async def test_an_agents_share_waits_for_a_person_then_the_team_sees_it(memory, server, tmp_path):
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    memory.attach_repositories([(root, PROJECT)])
    async with connect(server) as client:
        await call(client, "abandon", name="onnxruntime", reason="SIGILL on Alpine musl", effort=4)
        proposed = await call(client, "share", target="onnxruntime", reason="the team keeps trying it")
        assert proposed["status"] == "proposed" and proposed["proposal"]["action"] == "share"
        assert proposed["proposal"]["target"] == f"shared:{ONNX}"
        assert not (root / ONNX).exists()
        memory.accept_proposal(HUMAN, proposed["proposal"]["id"])
        assert (root / ONNX).is_file()

        (root / ".cenotaph/graveyard/pypi/torch.toml").write_text(
            'format = 1\necosystem = "pypi"\nname = "torch"\nreason = "CUDA only"\nauthor = "Grace Hopper"\n'
            'shared_at = "2026-03-01T12:00:00Z"\n', encoding="utf-8")
        checked = (await call(client, "check_approaches", names=["torch", "onnxruntime", "httpx"]))["results"]
        torch, onnx, httpx = checked
        assert (torch["status"], torch["source"], torch["shared_by"], torch["shared_path"]) == (
            "abandoned", "repo", "Grace Hopper", ".cenotaph/graveyard/pypi/torch.toml")
        assert (onnx["source"], [a["source"] for a in onnx["also"]]) == ("store", ["repo"])
        assert httpx["status"] == "clear"

        unshare = await call(client, "share", action="unshare", target="torch", reason="CPU wheels exist now")
        assert unshare["status"] == "proposed" and (root / ".cenotaph/graveyard/pypi/torch.toml").exists()
        assert "not shared" in await call_error(client, "share", action="unshare", target="httpx", reason="x")

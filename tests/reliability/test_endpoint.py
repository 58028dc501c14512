"""The local endpoint of the real `cenotaph serve`: no token or a wrong one → 401 (the compare is
constant-time), a foreign Origin or Host → 403, the endpoint file 0600 in a 0700 folder, a stale
file of a crashed server replaced, the token nowhere in the server's log (at DEBUG), and a
non-loopback address without explicit configuration refused at start. Each refusal has its
positive control beside it."""

from __future__ import annotations

import asyncio
import hmac
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx2
from lsprotocol import types

from cenotaph.mcp import http as mcp_http
from cenotaph.mcp.endpoints import store_key
from tests.lsp.conftest import project_folder
from tests.reliability.support import PROJECT, record

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _dead_pid() -> int:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(gone.stdout)


async def test_the_endpoint_lets_in_only_the_token_holder_on_this_machine(serve, cli_env, tmp_path, capfd, db_path):
    cli_env["CENOTAPH_LOG"] = "DEBUG"  # the most the server ever logs
    folder = project_folder(tmp_path, "app", PROJECT)
    endpoints = Path(cli_env["XDG_STATE_HOME"]) / "cenotaph" / "endpoints"
    endpoints.mkdir(parents=True, mode=0o755)
    os.chmod(endpoints, 0o755)
    stale = endpoints / f"{_dead_pid()}.json"  # as a crashed server leaves it
    stale.write_text(json.dumps({"url": "http://127.0.0.1:9/mcp", "token": "s" * 43, "project": PROJECT}))
    os.chmod(stale, 0o644)
    live = endpoints / f"{os.getpid()}.json"  # the control: a live process's file stays
    live.write_text(json.dumps({"url": "http://127.0.0.1:8/mcp", "token": "l" * 43, "project": PROJECT}))

    session = await serve([folder])
    endpoint = await session.endpoint()
    url, token = endpoint["url"], endpoint["token"]
    port = url.split(":")[2].split("/")[0]
    bearer = {"Authorization": f"Bearer {token}"}

    async with httpx2.AsyncClient(timeout=30) as http:
        async def post(**headers: str) -> int:
            return (await http.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers})).status_code

        answers = {
            "no token": await post(),
            "empty token": await post(Authorization="Bearer"),
            "wrong token, same length": await post(Authorization=f"Bearer {'x' * len(token)}"),
            "wrong token, one character off": await post(Authorization=f"Bearer {token[:-1]}{'A' if token[-1] != 'A' else 'B'}"),
            "token prefix": await post(Authorization=f"Bearer {token[:8]}"),
            "not a bearer": await post(Authorization=f"Basic {token}"),
            "foreign origin": await post(Origin="https://evil.example", **bearer),
            "foreign origin, no token": await post(Origin="https://evil.example"),
            "foreign host": await post(Host=f"evil.example:{port}", **bearer),
            "rebinding host, no port": await post(Host="evil.example", **bearer),
            "null origin": await post(Origin="null", **bearer),
            # The controls: the token holder, from this machine's own origins and names.
            "token": await post(**bearer),
            "local origin": await post(Origin="http://localhost:5173", **bearer),
            "localhost host": await post(Host=f"localhost:{port}", **bearer),
        }
        broken = {}
        for name, body in (("not JSON", b"not json"), ("invalid UTF-8", b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}'),
                           ("deeply nested", b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": '
                                             + b"[" * 100_000 + b"]" * 100_000 + b"}"),
                           ("not a request", b"[1, 2, 3]")):
            response = await http.post(url, content=body, headers={**MCP_HEADERS, **bearer})
            broken[name] = response.status_code
            assert "Traceback" not in response.text
        assert all(400 <= status < 500 for status in broken.values()), broken
        answers["token, after broken bodies"] = await post(**bearer)
    assert answers == {
        "no token": 401, "empty token": 401, "wrong token, same length": 401, "wrong token, one character off": 401,
        "token prefix": 401, "not a bearer": 401, "foreign origin": 403, "foreign origin, no token": 403,
        "foreign host": 403, "rebinding host, no port": 403, "null origin": 403,
        "token": 200, "local origin": 200, "localhost host": 200, "token, after broken bodies": 200,
    }

    # The endpoint file: private, and the crashed server's stale file replaced.
    mine = [p for p in endpoints.glob("*.json") if p not in (live,)]
    assert len(mine) == 1 and not stale.exists() and live.exists()
    assert stat.S_IMODE(mine[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(endpoints.stat().st_mode) == 0o700
    assert json.loads(mine[0].read_text()) == {"url": url, "token": token, "project": PROJECT, "store": store_key(db_path)}

    await asyncio.sleep(0.3)  # the server's stderr reaches this process line by line
    logged = capfd.readouterr().err
    assert "MCP over HTTP at" in logged and "removing stale MCP endpoint file" in logged  # the log was captured
    assert token not in logged and "s" * 43 not in logged
    record("local endpoint", requests_refused=11, broken_bodies_refused=4, controls_admitted=4, token_in_log=0)


async def test_the_token_is_compared_in_constant_time(monkeypatch):
    compared = []
    real = hmac.compare_digest

    def spy(a, b):  # the real compare, recorded
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(mcp_http.hmac, "compare_digest", spy)
    verifier = mcp_http._BearerToken("t" * 43)
    assert await verifier.verify_token("t" * 43) is not None  # the control
    assert await verifier.verify_token("t" * 42 + "u") is None
    assert await verifier.verify_token("short") is None
    assert [a for a, _ in compared] == [b"t" * 43, b"t" * 42 + b"u", b"short"]


async def test_a_non_loopback_address_without_explicit_configuration_is_refused_at_start(serve, cli_env, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    config = Path(cli_env["CENOTAPH_HOME"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    endpoints = Path(cli_env["XDG_STATE_HOME"]) / "cenotaph" / "endpoints"
    # (allow_remote without a token, or a token without allow_remote, is refused the same way: tests/mcp/test_http.py)
    config.write_text('[mcp]\nhost = "0.0.0.0"\n')
    session = await serve([folder])
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not any("not started" in m.message for m in session.client.messages):
        assert loop.time() < deadline, session.client.messages
        await asyncio.sleep(0.05)
    warning = next(m for m in session.client.messages if "not started" in m.message)
    assert warning.type == types.MessageType.Warning and "loopback" in warning.message
    assert session.client.endpoints == [] and not list(endpoints.glob("*.json"))
    config.write_text('[mcp]\nhost = "127.0.0.1"\n')  # the control: the same server on loopback starts
    session = await serve([folder])
    assert (await session.endpoint())["url"].startswith("http://127.0.0.1:")

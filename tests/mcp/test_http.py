"""MCP over Streamable HTTP on 127.0.0.1: the token, the Origin/Host checks, the endpoint file."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import httpx2
import jsonschema
import pytest
from cenotaph import identity
from cenotaph.mcp.endpoints import endpoints_dir, read_endpoints, store_key, write_endpoint_file
from cenotaph.mcp.listener import MIN_TOKEN_LENGTH, open_http
from cenotaph.memory.errors import InvalidInput
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from tests.conftest import REPO
from tests.mcp.conftest import PROJECT

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


@pytest.fixture
async def endpoint(memory):
    served = await open_http(memory, project=PROJECT)
    yield served
    await served.stop()


async def _post(url: str, **headers: str) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=10) as http:
        return await http.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers})


def _agent(url: str, token: str, name: str = "http-agent") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), client_info=Implementation(name=name, version="1"))


async def test_good_token_serves_the_tools(endpoint, memory):
    async with _agent(endpoint.url, endpoint.token) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        stored = await client.call_tool("remember", {"content": "Builds are cached in ~/.cache/shop."})
    assert {"briefing", "recall", "check_approaches"} <= names
    assert stored.structured_content["stored"] is True
    assert memory.get(stored.structured_content["id"]).actor == f"mcp:http-agent for {identity.person(memory)}"


async def test_answers_leave_without_waiting_for_the_clients_ack(endpoint):
    """Each connection sends with TCP_NODELAY: otherwise the last piece of every answer on a
    kept-alive connection waits for the client's delayed ACK (40 ms a call on Linux)."""
    async with httpx2.AsyncClient(timeout=10) as http:
        for _ in range(2):  # the second request reuses the connection
            answer = await http.post(endpoint.url, json=INITIALIZE,
                                     headers={**MCP_HEADERS, "Authorization": f"Bearer {endpoint.token}"})
            assert answer.status_code == 200
        connections = list(endpoint._server.server_state.connections)
        sockets = [c.transport.get_extra_info("socket") for c in connections]
        assert len(sockets) == 1  # the control: the client's kept-alive connection, still open
        assert all(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in sockets)


async def test_requests_without_the_right_token_get_401(endpoint):
    missing = await _post(endpoint.url)
    wrong = await _post(endpoint.url, Authorization=f"Bearer {'x' * len(endpoint.token)}")
    not_bearer = await _post(endpoint.url, Authorization=f"Basic {endpoint.token}")
    right = await _post(endpoint.url, Authorization=f"Bearer {endpoint.token}")
    assert [missing.status_code, wrong.status_code, not_bearer.status_code] == [401, 401, 401]
    assert right.status_code == 200


async def test_foreign_origin_and_host_are_refused_before_authentication(endpoint):
    auth = {"Authorization": f"Bearer {endpoint.token}"}
    foreign = await _post(endpoint.url, Origin="https://evil.example", **auth)
    foreign_no_token = await _post(endpoint.url, Origin="https://evil.example")
    rebound = await _post(endpoint.url, Host=f"evil.example:{endpoint.url.split(':')[2].split('/')[0]}", **auth)
    local_origin = await _post(endpoint.url, Origin="http://localhost:5173", **auth)
    assert foreign.status_code == 403 and foreign_no_token.status_code == 403
    assert rebound.status_code == 403
    assert local_origin.status_code == 200


async def test_url_token_and_endpoint_file(endpoint, state_home, memory):
    report = endpoint.report()
    schema = json.loads((REPO / "shared_schema" / "endpoint.schema.json").read_text())
    jsonschema.validate(report, schema)
    assert len(endpoint.token) >= MIN_TOKEN_LENGTH
    path = endpoint.endpoint_file
    assert path == state_home / "cenotaph" / "endpoints" / f"{os.getpid()}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == report
    assert report["store"] == store_key(memory.ctx.store.path)
    assert [r.report() for r in read_endpoints(PROJECT, store=report["store"])] == [report]
    assert [r.pid for r in read_endpoints(PROJECT)] == [os.getpid()]
    assert read_endpoints("another/project") == []
    assert read_endpoints(PROJECT, store=store_key("/elsewhere/cenotaph.db")) == []


async def test_each_start_has_its_own_token_and_stop_removes_the_file(memory):
    first = await open_http(memory, project=PROJECT, endpoint_file=False)
    second = await open_http(memory, project=PROJECT)
    try:
        assert first.token != second.token and first.url != second.url
        assert first.endpoint_file is None
        assert (await _post(first.url, Authorization=f"Bearer {second.token}")).status_code == 401
    finally:
        await first.stop()
        file = second.endpoint_file
        await second.stop()
    assert not file.exists()
    with pytest.raises(httpx2.ConnectError):
        await _post(second.url, Authorization=f"Bearer {second.token}")


@pytest.mark.parametrize("options", [
    {"host": "0.0.0.0"},
    {"host": "192.0.2.10", "allow_remote": True},
    {"host": "0.0.0.0", "token": "t" * 40},
])
async def test_non_loopback_needs_allow_remote_and_a_token(memory, options):
    with pytest.raises(InvalidInput) as refused:
        await open_http(memory, project=PROJECT, **options)
    assert refused.value.field == "host"
    loopback = await open_http(memory, project=PROJECT, host="127.0.0.1", endpoint_file=False)
    await loopback.stop()


def test_stale_endpoint_files_are_recognised_and_replaced(state_home):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead_pid = int(gone.stdout)
    live = write_endpoint_file("http://127.0.0.1:2/mcp", "l" * 43, PROJECT, os.getpid())
    stale = write_endpoint_file("http://127.0.0.1:1/mcp", "s" * 43, PROJECT, dead_pid)  # as a crash leaves it
    assert stale.exists()
    assert [r.pid for r in read_endpoints()] == [os.getpid()]
    assert not stale.exists() and live.exists()
    # The same pid again (a restart after a crash): its file is replaced, not duplicated.
    again = write_endpoint_file("http://127.0.0.1:3/mcp", "n" * 43, PROJECT, os.getpid())
    assert again == live
    assert [r.url for r in read_endpoints()] == ["http://127.0.0.1:3/mcp"]
    assert sorted(p.name for p in endpoints_dir().iterdir()) == [f"{os.getpid()}.json"]


LAZY_PROBE = """
import asyncio, http.client, json, sys
from cenotaph.app import open_memory
from cenotaph.mcp.listener import open_http

def loaded():
    return {name: name in sys.modules for name in ("cenotaph.mcp.http", "uvicorn", "mcp")}

def post(url):
    host, port = url.split("/")[2].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.request("POST", "/mcp", body=json.dumps(INITIALIZE), headers=HEADERS)
    return connection.getresponse().status

async def main():
    endpoint = await open_http(open_memory(sys.argv[1]), project="acme/app", endpoint_file=False)
    before = loaded()
    status = await asyncio.to_thread(post, endpoint.url)  # waits in the queue while the stack loads
    after = loaded()
    await endpoint.stop()
    print(json.dumps({"before": before, "status": status, "after": after}))

INITIALIZE, HEADERS = json.loads(sys.argv[2]), json.loads(sys.argv[3])
asyncio.run(main())
"""


def test_the_mcp_stack_loads_when_the_first_connection_arrives(tmp_path):
    done = subprocess.run([sys.executable, "-c", LAZY_PROBE, str(tmp_path / "c.db"), json.dumps(INITIALIZE),
                           json.dumps(MCP_HEADERS)], cwd=REPO, capture_output=True, text=True, timeout=120, check=True)
    out = json.loads(done.stdout)
    assert out["before"] == {"cenotaph.mcp.http": False, "uvicorn": False, "mcp": False}
    # The first request (without the token) was answered by the real stack, loaded for it.
    assert out["status"] == 401
    assert out["after"] == {"cenotaph.mcp.http": True, "uvicorn": True, "mcp": True}


async def test_a_stack_that_cannot_load_closes_the_endpoint(memory, monkeypatch):
    from cenotaph.mcp import http as mcp_http

    async def broken(endpoint):
        raise RuntimeError("the MCP SDK is broken here")

    working = await open_http(memory, project=PROJECT, endpoint_file=False)  # the control
    assert (await _post(working.url, Authorization=f"Bearer {working.token}")).status_code == 200
    await working.stop()
    monkeypatch.setattr(mcp_http, "start_serving", broken)
    endpoint = await open_http(memory, project=PROJECT)
    file = endpoint.endpoint_file
    assert file.exists()
    # The waiting connection is dropped, the file that sent agents here is gone, the next is refused.
    with pytest.raises((httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.ConnectError)):
        await _post(endpoint.url, Authorization=f"Bearer {endpoint.token}")
    assert not file.exists()
    with pytest.raises(httpx2.ConnectError):
        await _post(endpoint.url, Authorization=f"Bearer {endpoint.token}")
    await endpoint.stop()  # stopping again is harmless

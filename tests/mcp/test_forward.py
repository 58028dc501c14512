"""`cenotaph mcp` next to a running `cenotaph serve` for the same store and project: it forwards
the agent's session to the language server's endpoint instead of loading the models, and takes
the session over when that server goes away. Real processes throughout."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from cenotaph.app import open_store
from cenotaph.mcp.endpoints import read_endpoints, store_key
from cenotaph.mcp.forward import HEARTBEAT_SECONDS
from cenotaph.store import events
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation

from tests.conftest import CENOTAPH, person_of, write_lock_held

PROJECT = "acme/forwarded"
# The models and spaCy alone take ≈ 400 MB; the bridge needs the interpreter and the stdlib.
FORWARDING_RSS_LIMIT_MB = 80


def _lsp(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class LanguageServer:
    """`cenotaph serve` as an editor starts it, kept to the minimum an endpoint needs."""

    def __init__(self, folder: Path, db: Path, env: dict[str, str], log: Path) -> None:
        self._output = log.open("wb")
        self.process = subprocess.Popen([CENOTAPH, "serve", "--db", str(db)], stdin=subprocess.PIPE,
                                        stdout=self._output, stderr=subprocess.STDOUT, env=env, cwd=folder)
        assert self.process.stdin is not None
        self.process.stdin.write(_lsp({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "capabilities": {}, "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}]}}))
        self.process.stdin.write(_lsp({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        self.process.stdin.flush()

    async def endpoint_file(self, timeout: float = 60.0) -> None:
        """Until the server's endpoint file names this store and project (it starts after the models load)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not [e for e in read_endpoints(PROJECT) if e.pid == self.process.pid]:
            assert self.process.poll() is None, "the language server exited"
            assert loop.time() < deadline, "the language server never wrote its endpoint file"
            await asyncio.sleep(0.1)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.kill()
        self._output.close()


@pytest.fixture(autouse=True)
def state_home(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """This process reads the endpoint files where the servers write them."""
    monkeypatch.setenv("XDG_STATE_HOME", cli_env["XDG_STATE_HOME"])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
    return folder


@pytest.fixture
def language_server(folder: Path, db_path: Path, cli_env: dict[str, str], tmp_path: Path) -> Iterator[LanguageServer]:
    server = LanguageServer(folder, db_path, cli_env, tmp_path / "lsp.log")
    yield server
    server.stop()


def _agent(folder: Path, db_path: Path, env: dict[str, str], stderr: Path,
           mode: str = "auto") -> tuple[Client, object]:
    log = stderr.open("w")
    params = StdioServerParameters(command=CENOTAPH, args=["mcp", "--db", str(db_path)],
                                   env={**env, "CENOTAPH_LOG": "INFO"}, cwd=folder)
    return Client(stdio_client(params, errlog=log), client_info=Implementation(name="forwarded-agent", version="1"),
                  mode=mode), log


def _stdio_process() -> int:
    """The `cenotaph mcp` child the SDK client started."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
            cmdline = (status.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(fields.get("PPid", "0")) == os.getpid() and b"mcp" in cmdline and b"serve" not in cmdline:
            found.append(int(status.parent.name))
    assert len(found) == 1, found
    return found[0]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _loads_numpy(pid: int) -> bool:
    """Whether the process has numpy's native code mapped (the embedder's stack brings it)."""
    return "/numpy/" in Path(f"/proc/{pid}/maps").read_text()


def _logged_actions(db_path: Path) -> list[tuple[str, str]]:
    store = open_store(db_path)
    try:
        with store.read() as conn:
            return [(e.actor, e.action) for e in events.query(conn, target=None, since_at=None, limit=100)]
    finally:
        store.close()


async def test_mcp_forwards_to_the_language_server_and_stays_small(language_server, folder, db_path, cli_env,
                                                                   tmp_path):
    await language_server.endpoint_file()
    (endpoint,) = read_endpoints(PROJECT)
    assert endpoint.store == store_key(db_path)  # what the stdio process matches on, with the project
    client, log = _agent(folder, db_path, cli_env, tmp_path / "mcp.err")
    with log:
        async with client:
            tools = {t.name for t in (await client.list_tools()).tools}
            prompts = {p.name for p in (await client.list_prompts()).prompts}
            # A listen stream (a long-lived answer) and calls beside it, over the one relay.
            async with client.listen(resource_subscriptions=["cenotaph://graveyard"]) as sub:
                abandoned = await client.call_tool("abandon", {"name": "left-pad", "reason": "one line of code"})
                with anyio.fail_after(20):
                    event = await anext(aiter(sub))
            graveyard = (await client.read_resource("cenotaph://graveyard")).contents[0].text
            checks = await client.call_tool("check_approaches", {"names": ["left-pad", "is-odd"]})
            rss = _rss_mb(_stdio_process())
            numpy_loaded = _loads_numpy(_stdio_process())
    stderr = (tmp_path / "mcp.err").read_text()
    assert {"briefing", "recall", "check_approaches"} <= tools
    assert prompts == {"session-start", "before-adding-a-dependency", "wrap-up"}
    assert event.uri == "cenotaph://graveyard" and "**left-pad**" in graveyard
    assert not abandoned.is_error, abandoned.content
    assert abandoned.structured_content["approach"]["project"] == PROJECT
    assert [c["status"] for c in checks.structured_content["results"]] == ["abandoned", "clear"]
    assert f"(pid {language_server.process.pid})" in stderr and "forwarding MCP" in stderr
    assert "loading the models" not in stderr
    assert rss <= FORWARDING_RSS_LIMIT_MB, f"the forwarding process holds {rss:.0f} MB"
    assert not numpy_loaded  # 13 MB the relay never uses
    # The language server did the write, with the agent's own name on it.
    assert (f"mcp:forwarded-agent for {person_of(db_path)}", "abandon") in _logged_actions(db_path)


# "auto" speaks the 2026-07-28 wire (no session to replay); "legacy" the initialize handshake,
# which the process replays to the server it starts, as most agents in the field speak it.
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_mcp_serves_itself_when_the_language_server_goes_away(language_server, folder, db_path, cli_env,
                                                                    tmp_path, mode):
    await language_server.endpoint_file()
    client, log = _agent(folder, db_path, cli_env, tmp_path / "mcp.err", mode=mode)
    with log:
        async with client:
            before = await client.call_tool("check_approaches", {"names": ["left-pad"]})
            small = _rss_mb(_stdio_process())
            language_server.kill()
            after = await client.call_tool("abandon", {"name": "left-pad", "reason": "one line of code"})
            checks = await client.call_tool("check_approaches", {"names": ["left-pad"]})
            grown = _rss_mb(_stdio_process())
            numpy_loaded = _loads_numpy(_stdio_process())
    stderr = (tmp_path / "mcp.err").read_text()
    assert before.structured_content["results"][0]["status"] == "clear"
    assert not after.is_error, after.content
    assert checks.structured_content["results"][0]["status"] == "abandoned"
    assert "serving MCP from this process" in stderr
    # Positive control for the RSS check above: serving here does load the models.
    assert small <= FORWARDING_RSS_LIMIT_MB < grown
    assert numpy_loaded  # the control for the forwarding test's numpy check
    # The replayed `initialize` kept the agent's name.
    assert (f"mcp:forwarded-agent for {person_of(db_path)}", "abandon") in _logged_actions(db_path)


async def test_mcp_moves_off_a_language_server_that_accepts_and_never_answers(language_server, folder, db_path,
                                                                              cli_env, tmp_path):
    """A stopped server's port still accepts connections (the kernel queues them) and never
    answers. The bridge's ping goes unanswered: the call it was waiting on gets an error (the
    server may have read it), and the session goes on, served from this process."""
    await language_server.endpoint_file()
    client, log = _agent(folder, db_path, cli_env, tmp_path / "mcp.err", mode="legacy")
    with log:
        async with client:
            before = await client.call_tool("check_approaches", {"names": ["left-pad"]})
            os.kill(language_server.process.pid, signal.SIGSTOP)
            try:
                with anyio.fail_after(90):
                    with pytest.raises(MCPError, match="stopped answering during this call"):
                        await client.call_tool("check_approaches", {"names": ["left-pad"]})
                    after = await client.call_tool("abandon", {"name": "left-pad", "reason": "one line of code"})
                    checks = await client.call_tool("check_approaches", {"names": ["left-pad"]})
            finally:
                os.kill(language_server.process.pid, signal.SIGCONT)
    stderr = (tmp_path / "mcp.err").read_text()
    assert before.structured_content["results"][0]["status"] == "clear"  # the control: forwarded
    assert "forwarding MCP" in stderr and "no answer to a ping" in stderr
    assert "serving MCP from this process" in stderr
    assert not after.is_error, after.content
    assert checks.structured_content["results"][0]["status"] == "abandoned"


async def test_mcp_leaves_a_long_call_alone_while_the_server_answers_its_pings(language_server, folder, db_path,
                                                                               cli_env, tmp_path):
    """The control of the test above: a call that waits longer than the pings' interval (here on
    the write lock, held by another writer) is still the forwarded server's to answer."""
    await language_server.endpoint_file()
    client, log = _agent(folder, db_path, cli_env, tmp_path / "mcp.err", mode="legacy")
    with log:
        async with client:
            async with write_lock_held(db_path, at_most=HEARTBEAT_SECONDS * 2.5):
                started = time.monotonic()
                slow = await client.call_tool("abandon", {"name": "is-odd", "reason": "a modulo"})
                waited = time.monotonic() - started
    stderr = (tmp_path / "mcp.err").read_text()
    assert waited > HEARTBEAT_SECONDS * 2  # it did wait past a ping or two
    assert not slow.is_error, slow.content
    assert "stopped answering" not in stderr and "serving MCP from this process" not in stderr
    assert (f"mcp:forwarded-agent for {person_of(db_path)}", "abandon") in _logged_actions(db_path)

"""Many writers: four processes write and read the same store at once — `cenotaph serve` taking
MCP writes over HTTP, two `cenotaph mcp` servers over stdio, and the command line — and every
acknowledged write is there afterwards, no caller saw an error, the event log holds exactly
the events the writes account for, its chain verifies, and the indexes agree with the rows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from cenotaph.store import suppressions
from tests.conftest import CENOTAPH, HUMAN, REPO, person_of
from tests.lsp.conftest import project_folder
from tests.reliability.support import PROJECT, assert_in_step, record, scale
from tests.reliability.drivers import mcp_perform
from tests.reliability.workload import CYCLE, Ack, Expected, Op, events_for, fold, stream

OPS_PER_WRITER = scale(500, 1_000)
WRITERS = ("http", "stdio-1", "stdio-2", "cli")


def _contradictions(memory, writer: str, count: int) -> list[int]:
    """Open contradictions for a writer to resolve, each pair in a project of its own so that
    no pair is linked to another."""
    found = []
    for k in range(count):
        project = f"{PROJECT}/contradictions/{writer}/{k}"
        memory.remember(HUMAN, f"Always use zstd level {k} for the nightly log archive", project=project)
        second = memory.remember(HUMAN, f"Never use zstd level {k} for the nightly log archive", project=project)
        (warning,) = second.contradictions
        found.append(warning.contradiction_id)
    return found


async def _drive(client: Client, writer: str, contradictions: list[int]) -> tuple[list[Ack], Expected]:
    acks: list[Ack] = []
    expected = Expected()
    ops = stream(writer, OPS_PER_WRITER, contradictions, acks, expected)
    result: dict[str, Any] | None = None
    with contextlib.suppress(StopIteration):
        while True:
            result = await mcp_perform(client, ops.send(result))
    return acks, expected


async def _cli_writer(process: asyncio.subprocess.Process) -> tuple[list[Ack], Expected]:
    acks: list[Ack] = []
    expected = Expected()
    process.stdin.write(b"go\n")
    await process.stdin.drain()
    while line := await process.stdout.readline():
        message = json.loads(line)
        if "error" in message:
            raise AssertionError(f"the command line answered with an error: {message['error']}")
        if "ack" in message:
            op = Op(**message["ack"]["op"])
            result = message["ack"]["result"]
            acks.append(Ack(op, result, events_for(op, result)))
            fold(op, result, expected)
    assert await process.wait() == 0
    return acks, expected


def _agent(name: str, http: httpx2.AsyncClient | None = None, url: str | None = None, **stdio: Any) -> Client:
    info = Implementation(name=name, version="1")
    if http is not None:
        return Client(streamable_http_client(url, http_client=http), client_info=info)
    return Client(StdioServerParameters(**stdio), client_info=info)


async def test_four_processes_write_at_once_and_nothing_is_lost(serve, live_memory, cli_env, db_path, tmp_path):
    memory = live_memory
    resolves = sum(1 for i in range(OPS_PER_WRITER) if CYCLE[i % len(CYCLE)] == "resolve")
    handed = {writer: _contradictions(memory, writer, resolves) for writer in WRITERS}

    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    endpoint = await session.endpoint()
    stdio = {"command": CENOTAPH, "args": ["mcp", "--db", str(db_path), "--project", PROJECT], "env": cli_env}
    cli = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.reliability.cli_worker", str(db_path), PROJECT, "cli", str(OPS_PER_WRITER),
        json.dumps(handed["cli"]), cwd=REPO, env=cli_env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {endpoint['token']}"}, timeout=120))
        clients = {
            "http": await stack.enter_async_context(_agent("writer-http", http, endpoint["url"])),
            "stdio-1": await stack.enter_async_context(_agent("writer-stdio-1", **stdio)),
            "stdio-2": await stack.enter_async_context(_agent("writer-stdio-2", **stdio)),
        }
        assert json.loads(await asyncio.wait_for(cli.stdout.readline(), 120)) == {"ready": True}
        head = memory.change_seq()
        started = time.monotonic()
        outcomes = await asyncio.gather(
            *(_drive(clients[w], f"{w}", handed[w]) for w in ("http", "stdio-1", "stdio-2")), _cli_writer(cli))
        elapsed = time.monotonic() - started
    cli_stderr = (await cli.stderr.read()).decode()
    assert "locked" not in cli_stderr and "Traceback" not in cli_stderr, cli_stderr

    who = person_of(db_path)  # every writer acts for the person whose session runs it
    actors = {"http": f"mcp:writer-http for {who}", "stdio-1": f"mcp:writer-stdio-1 for {who}",
              "stdio-2": f"mcp:writer-stdio-2 for {who}", "cli": f"cli:{who}"}
    writes, reads, events = assert_nothing_lost(memory, dict(zip(WRITERS, outcomes, strict=True)), handed, actors,
                                                head)
    record("many writers", processes=4, writes=writes, reads=reads, events=len(events), errors=0,
           seconds=round(elapsed, 1))


def assert_nothing_lost(memory, outcomes: dict[str, tuple[list[Ack], Expected]], handed: dict[str, list[int]],
                        actors: dict[str, str], head: int, ops: int = OPS_PER_WRITER) -> tuple[int, int, list]:
    """Every acknowledged write of every writer is in the store as it was acknowledged, the log
    holds exactly the events they account for (none lost, none doubled) and the store is in step;
    (writes, reads, the events after `head`)."""
    writes = reads = 0
    for writer, (acks, expected) in outcomes.items():
        assert len(acks) == ops
        writes += sum(1 for a in acks if a.events)
        reads += sum(1 for a in acks if not a.events)
        for memory_id, content in expected.memories.items():
            row = memory.get(memory_id)
            assert row.content == content and row.actor == actors[writer]  # byte for byte, and whose
            assert row.state == expected.states[memory_id]
            assert (row.trust == "disputed") == (memory_id in expected.disputed)
        for name, recall_suppressed in expected.approaches.items():
            approach = memory.graveyard.find(name, PROJECT)
            assert approach.status == "abandoned" and approach.actor == actors[writer]
            assert memory.get(approach.memory_id).content.startswith(f"Abandoned {name}:")
            assert (name in memory.graveyard.recall_suppressed_values(PROJECT)) == recall_suppressed
        with memory.ctx.store.read() as conn:
            silenced = {s.value for s in suppressions.active(conn, kind="diagnostic") if s.project == PROJECT}
        assert expected.suppressions <= silenced
        pending = {p.id: p for p in memory.proposals(None)}
        for proposal_id, contradiction_id in expected.proposals.items():
            assert pending[proposal_id].target == f"contradiction:{contradiction_id}"
            assert pending[proposal_id].actor == actors[writer]
        resolved = {c.id for c in memory.contradictions(None, status="resolved")}
        assert expected.resolved <= resolved
        assert len(expected.proposals) + len(expected.resolved) == len(handed[writer])

    events = [e for e in memory.audit_log(limit=1_000_000) if e.seq > head]
    assert len(events) == sum(a.events for acks, _ in outcomes.values() for a in acks)
    assert {e.actor for e in events} == {actors[w] for w in outcomes}
    assert_in_step(memory)
    return writes, reads, events

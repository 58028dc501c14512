"""The team store under a fault (issue 16): a writer killed with SIGKILL in the middle of its
transaction leaves nothing half-written, and the writers beside it carry on (the server rolls the
dead transaction back and releases its write lock). Four processes writing at once is
test_many_writers.py, which runs on both stores."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time

import psycopg
import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.errors import NotFound
from cenotaph.memory.service import Memory

from tests.conftest import REPO, person_of
from tests.reliability.support import PROJECT, record, scale
from tests.reliability.test_many_writers import (
    _cli_writer,
    _contradictions,
    assert_nothing_lost,
)
from tests.reliability.workload import CYCLE

BESIDE_THE_KILL = scale(60, 200)  # operations of each writer that runs while another is killed


@pytest.fixture
def pg_memory(pg_url, embedder, analyzer):
    memory = Memory(Context(store=open_store(pg_url), embedder=embedder, analyzer=analyzer))
    yield memory
    memory.ctx.store.close()


async def _start_writers(url: str, memory: Memory, writers: tuple[str, ...], ops: int, env: dict[str, str]):
    """One `tests.reliability.cli_worker` process a writer, each handed its own contradictions;
    returns (processes, handed) once every process has loaded its models."""
    resolves = sum(1 for i in range(ops) if CYCLE[i % len(CYCLE)] == "resolve")
    handed = {w: _contradictions(memory, w, resolves) for w in writers}
    processes = {}
    for w in writers:
        processes[w] = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.reliability.cli_worker", url, PROJECT, w, str(ops), json.dumps(handed[w]),
            cwd=REPO, env=env, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
    for process in processes.values():
        assert json.loads(await asyncio.wait_for(process.stdout.readline(), 180)) == {"ready": True}
    return processes, handed


async def _errors_of(processes) -> str:
    return "".join([(await p.stderr.read()).decode() for p in processes.values()])


HOLDER = """
import os, sys, time
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.errors import NotFound
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder

memory = Memory(Context(store=open_store(sys.argv[1]), embedder=Embedder(), analyzer=Analyzer()))
writer = Actor(name="killed-writer", kind="human")
with memory.ctx.store.write():  # one transaction around several domain writes, as restore and import make
    memory.remember(writer, "Half-written note: the cache warms at boot", project=sys.argv[2], force=True)
    memory.abandon(writer, "half-written-lib", reason="never committed", project=sys.argv[2])
    print("holding", flush=True)
    time.sleep(600)
"""


def _in_transaction(url: str) -> int:
    """Server backends of this database inside a transaction that is waiting for its client."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND state = 'idle in transaction'").fetchone()[0]


async def test_a_writer_killed_mid_transaction_leaves_nothing_and_the_others_carry_on(pg_url, pg_memory, tmp_path):
    memory = pg_memory
    cli_env = {k: v for k, v in os.environ.items() if k not in ("CENOTAPH_STORE", "CENOTAPH_MODEL")}
    cli_env.update(CENOTAPH_HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"),
                   XDG_STATE_HOME=str(tmp_path / "state"))
    beside = ("cli-a", "cli-b")
    processes, handed = await _start_writers(pg_url, memory, beside, BESIDE_THE_KILL, cli_env)
    head = memory.change_seq()
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLDER, pg_url, PROJECT, cwd=REPO, env=cli_env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert (await asyncio.wait_for(holder.stdout.readline(), 180)).strip() == b"holding"
    assert _in_transaction(pg_url) == 1  # the kill below lands inside the transaction
    writing = asyncio.gather(*(_cli_writer(processes[w]) for w in beside))
    await asyncio.sleep(0.5)  # the others start, and queue behind the holder's write lock
    os.kill(holder.pid, signal.SIGKILL)
    assert await holder.wait() == -signal.SIGKILL
    started = time.monotonic()
    outcomes = await asyncio.wait_for(writing, 600)
    elapsed = time.monotonic() - started
    stderr = await _errors_of(processes)
    assert "Traceback" not in stderr and "error" not in stderr.lower(), stderr

    # Nothing of the killed transaction: neither its memory, nor its abandon's memory or record.
    with pytest.raises(NotFound):
        memory.graveyard.find("half-written-lib", PROJECT)
    with memory.ctx.store.read() as conn:
        left = conn.execute("SELECT count(*) FROM memories WHERE actor = ?", ("killed-writer",)).fetchone()[0]
        beside_rows = conn.execute("SELECT count(*) FROM memories WHERE actor = ?", (f"cli:{person_of(pg_url)}",)).fetchone()[0]
    assert left == 0 and beside_rows > 0  # the same query finds the other writers' memories
    assert not any(e.actor == "killed-writer" for e in memory.audit_log(limit=1_000_000))
    assert _in_transaction(pg_url) == 0
    # The writers beside it lost nothing either, and the chain verifies.
    writes, _, _ = assert_nothing_lost(memory, dict(zip(beside, outcomes, strict=True)), handed,
                                                dict.fromkeys(beside, f"cli:{person_of(pg_url)}"), head, ops=BESIDE_THE_KILL)
    record("killed writer on PostgreSQL", killed_mid_transaction=1, writes_beside=writes, errors=0,
           seconds=round(elapsed, 1))


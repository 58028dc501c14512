"""Crashes: a process streaming writes is killed with SIGKILL at a random moment — some trials
while it also runs `reindex`, some while it restores a backup — and afterwards the file passes
`PRAGMA integrity_check`, every write acknowledged before the kill is there, nothing is
half-written (an abandon is its memory and its graveyard record, a restore all or nothing), the
full-text rows and vectors agree with the memories (after `repair`, when the kill cut a reindex
short), and the event log's chain verifies. Set CENOTAPH_RELIABILITY_SEED to replay a run."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.perf import build_store
from cenotaph.store import suppressions
from cenotaph.store.connect import open_connection
from tests.conftest import HUMAN, REPO
from tests.reliability.crash_writer import PROJECT
from tests.reliability.support import assert_in_step, open_memory_on, record, scale

TRIALS = scale(20, 40)
MODES = ("writes", "reindex", "restore")
SEED = int(os.environ.get("CENOTAPH_RELIABILITY_SEED") or random.randrange(10**6))
SEEDED_MEMORIES = scale(200, 600)
PARALLEL = 3
BACKUP_MEMORIES = 60


@pytest.fixture(scope="module")
def templates(tmp_path_factory, embedder, analyzer) -> dict[str, Path]:
    """A store to start each trial from, and a backup (made by another store) to restore."""
    folder = tmp_path_factory.mktemp("crash-templates")
    seeded = folder / "seeded.db"
    build_store(seeded, SEEDED_MEMORIES, embedder, analyzer)
    other = open_memory_on(folder / "other.db", embedder, analyzer)
    try:
        ids = [other.remember(HUMAN, f"Backed-up fact {i}: the {i}th mirror syncs at {i % 24:02d}:15 UTC.",
                              project="crash/backup", force=True).id for i in range(BACKUP_MEMORIES)]
        other.forget(HUMAN, ids[0], reason="wrong mirror", confirm=True)
        other.suppress(HUMAN, "left-pad", kind="diagnostic", project="crash/backup", reason="vendored")
        other.backup(HUMAN, str(folder / "backup.db"))
    finally:
        other.ctx.store.close()
    return {"seeded": seeded, "backup": folder / "backup.db"}


class Zygote:
    """The process that forks a writer per trial (see crash_writer)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lock = asyncio.Lock()

    async def fork(self, **spec: Any) -> int:
        async with self.lock:
            self.process.stdin.write((json.dumps(spec) + "\n").encode())
            await self.process.stdin.drain()
            return json.loads(await self.process.stdout.readline())["pid"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _trial(zygote: Zygote, number: int, mode: str, db: Path, backup: Path,
                 rng: random.Random) -> tuple[list[dict[str, Any]], bool]:
    """Fork a writer, kill it at a random moment; (every line it wrote, whether the kill landed
    while the maintenance was running)."""
    out = db.with_suffix(".lines")
    pid = await zygote.fork(db=str(db), mode=mode, seed=SEED * 100 + number, backup=str(backup), out=str(out))
    lines: list[dict[str, Any]] = []

    def read() -> None:
        text = out.read_text() if out.exists() else ""
        complete = text[:text.rfind("\n") + 1]
        lines[:] = [json.loads(line) for line in complete.splitlines()]

    async def until(condition) -> None:
        while True:
            read()
            if condition():
                return
            assert _alive(pid), f"the writer of trial {number} stopped"
            await asyncio.sleep(0.002)

    await asyncio.wait_for(until(lambda: bool(lines)), 60)
    if mode == "writes":
        wanted = rng.randint(1, 60)
        await asyncio.wait_for(until(lambda: sum("ack" in m for m in lines) >= wanted), 120)
        await asyncio.sleep(rng.uniform(0, 0.02))
    else:
        await asyncio.wait_for(until(lambda: {"maintenance": "started"} in lines), 60)
        await asyncio.sleep(rng.uniform(0, 2.5 if mode == "reindex" else 0.5))
    os.kill(pid, signal.SIGKILL)
    while _alive(pid):
        await asyncio.sleep(0.002)
    read()
    return lines, {"maintenance": "done"} not in lines


def _check_after(memory, lines: list[dict[str, Any]], backup_contents: set[str]) -> dict[str, int]:
    """The acknowledged writes are there and nothing is half-written; returns what it counted."""
    contents: dict[int, str] = {}
    states: dict[int, str] = {}
    approaches: dict[str, int] = {}
    silenced: set[str] = set()
    in_flight: dict[str, Any] | None = None
    for message in lines:
        if "intent" in message:
            in_flight = message
            continue
        kind = message.get("ack")
        if kind is None:
            continue
        in_flight = None
        if kind in ("remember", "update"):
            contents[message["id"]] = message["content"]
            states.setdefault(message["id"], "active")
        elif kind == "state":
            states[message["id"]] = message["state"]
        elif kind == "abandon":
            approaches[message["name"]] = message["memory_id"]
            states[message["memory_id"]] = "active"
        elif kind == "forget":
            states[message["id"]] = "deleted"
        elif kind == "suppress":
            silenced.add(message["name"])
    cut_short = in_flight.get("id") if in_flight else None  # it may or may not have landed
    for memory_id, state in states.items():
        if memory_id == cut_short:
            continue
        row = memory.get(memory_id)
        assert row.state == state, (memory_id, row.state, state)
        if state == "deleted":
            assert row.content == ""
        elif memory_id in contents:
            assert row.content == contents[memory_id]
    for name, memory_id in approaches.items():
        approach = memory.graveyard.find(name, PROJECT)
        assert approach.status == "abandoned" and approach.memory_id == memory_id
    with memory.ctx.store.read() as conn:
        active = {s.value for s in suppressions.active(conn, kind="diagnostic")}
    assert silenced <= active
    # An abandon is all or nothing: no story of an abandonment without its graveyard record.
    recorded = {a.memory_id for a in memory.graveyard.in_scope(PROJECT)}
    with memory.ctx.store.read() as conn:
        stories = conn.execute("SELECT memory_id, content FROM memories WHERE version = 1 AND kind = 'experience' "
                               "AND content LIKE 'Abandoned crashlib-%'").fetchall()
    for memory_id, content in stories:
        assert memory_id in recorded, f"memory #{memory_id} has no graveyard record: {content}"
    # A restore is all or nothing.
    restored = any(e.action == "restore" and e.target == "store" for e in memory.audit_log(limit=1_000_000))
    with memory.ctx.store.read() as conn:
        hashes = {r[0] for r in conn.execute("SELECT content_hash FROM memories WHERE project = 'crash/backup'")}
    assert hashes == (backup_contents if restored else set())
    return {"acknowledged": sum("ack" in m for m in lines), "restored": int(restored)}


@pytest.mark.sqlite_only("kills writers of SQLite files made from SQLite templates")
async def test_kill_9_at_random_moments_loses_nothing_acknowledged(templates, embedder, analyzer, cli_env,
                                                                   tmp_path):
    backup = open_connection(templates["backup"], readonly=True)
    backup_contents = {r[0] for r in backup.execute("SELECT content_hash FROM memories")}
    backup.close()
    totals = {"acknowledged": 0, "mid_maintenance": 0, "repaired": 0}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.reliability.crash_writer", cwd=REPO, env=cli_env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    zygote = Zygote(process)
    assert json.loads(await asyncio.wait_for(process.stdout.readline(), 120)) == {"ready": True}
    try:
        await _all_trials(zygote, templates, embedder, analyzer, tmp_path, backup_contents, totals)
    finally:
        process.stdin.close()
        await process.wait()
    record("crashes", trials=TRIALS, kills_survived=TRIALS, acknowledged_writes=totals["acknowledged"],
           kills_during_reindex_or_restore=totals["mid_maintenance"], reindexes_repaired=totals["repaired"],
           seed=SEED)


async def _all_trials(zygote, templates, embedder, analyzer, tmp_path, backup_contents, totals) -> None:
    for first in range(0, TRIALS, PARALLEL):
        numbers = range(first, min(TRIALS, first + PARALLEL))
        dbs = {n: tmp_path / f"trial-{n}.db" for n in numbers}
        for db in dbs.values():
            shutil.copy(templates["seeded"], db)
        # A few trials at a time: each is its own process on its own file.
        outcomes = await asyncio.gather(*(_trial(zygote, n, MODES[n % len(MODES)], dbs[n], templates["backup"],
                                                 random.Random(SEED * 100 + n)) for n in numbers))
        for number, (lines, during) in zip(numbers, outcomes, strict=True):
            mode = MODES[number % len(MODES)]
            memory = open_memory_on(dbs[number], embedder, analyzer)
            try:
                check = memory.check_store()
                assert check.integrity == [], (SEED, number, check.integrity)
                assert check.audit.ok, (SEED, number, check.audit)
                if check.vector_model == "":  # a reindex cut short: repair finishes it
                    assert mode == "reindex" and during, (SEED, number)
                    report = memory.repair(HUMAN)
                    assert report.reindex_finished and report.after.ok, (SEED, number, report)
                    totals["repaired"] += 1
                assert_in_step(memory)
                counted = _check_after(memory, lines, backup_contents)
            finally:
                memory.ctx.store.close()
            totals["acknowledged"] += counted["acknowledged"]
            totals["mid_maintenance"] += during and mode != "writes"

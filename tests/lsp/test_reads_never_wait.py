"""Issue 30: reads never wait on writers. While another process holds the store's write lock
(tests/lock_holder.py, as a long `import` does), the editor's recall, the agent's recall over MCP,
hover and a newly opened file's diagnostics are all answered, round after round; each is checked
to have come while the lock was still held, which proves it did not wait for it, and a write in
the same window waits (the control). No timing thresholds: bench/reads_under_lock.py measures how
fast. What the recalls record (the recall log) is written once the lock is free."""

from __future__ import annotations

import asyncio
import dataclasses

import httpx2
import pytest
from lsprotocol import types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from cenotaph.app import open_store
from cenotaph.memory.service import Memory
from cenotaph.store import recall_log
from cenotaph.store.connect import StoreBusy
from tests.conftest import HUMAN, person_of, write_lock_held
from tests.lsp.conftest import PROJECT, abandoned, project_folder

HOLD_SECONDS = 120  # the other writer's longest hold: far longer than every answer below may take
ROUNDS = 3


def lock_still_held(store) -> bool:
    """True when a write cannot start at once: the other connection still holds the lock."""
    try:
        with store.write(wait=0):
            return False
    except StoreBusy:
        return True


def logged_queries(memory) -> set[tuple[str, str]]:
    with memory.ctx.store.read() as conn:
        return {(row.actor, row.query) for row in recall_log.since(conn, PROJECT, "2000-01-01")}


async def test_recall_hover_and_diagnostics_answer_while_another_process_holds_the_write_lock(
        memory, serve, db_path, tmp_path):
    memory.abandon(HUMAN, "left-pad", reason="one line of code", project=PROJECT)
    memory.remember(HUMAN, "The release job signs artifacts with the team's GPG key.", project=PROJECT)
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    request = session.client.protocol.send_request_async
    uri = session.open(folder / "requirements.txt", "left-pad==1.3\n")
    await session.diagnostics(uri, lambda d: bool(abandoned(d, "left-pad")))
    endpoint = await session.endpoint()
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {endpoint['token']}"}, timeout=60)
    agent = Client(streamable_http_client(endpoint["url"], http_client=http),
                   client_info=Implementation(name="claude", version="1"))
    async with agent:
        # Warm: the model is loaded and a recall's log row written before the lock is taken.
        await request("cenotaph/recall", {"query": "warm up", "project": PROJECT})
        await agent.call_tool("recall", {"query": "warm up"})

        async with write_lock_held(db_path, at_most=HOLD_SECONDS):
            answers = []
            for turn in range(ROUNDS):  # every time, not once
                editor = await request("cenotaph/recall", {"query": "who signs the release artifacts",
                                                           "project": PROJECT})
                agents = await agent.call_tool("recall", {"query": "how are release artifacts signed"})
                hover = await session.hover(uri, 0, 2)
                fresh = session.open(folder / f"constraints-{turn}.txt", "left-pad>=1\n")
                diagnostics = await session.diagnostics(fresh, lambda d: bool(abandoned(d, "left-pad")))
                answers.append((editor, agents, hover, diagnostics))
            held = await asyncio.to_thread(lock_still_held, memory.ctx.store)
            assert held  # every answer above came while the other process held the lock: none waited for it
            # The recalls' log rows wait for the lock, in the server, not in the answers.
            assert ("vscode", "who signs the release artifacts") not in logged_queries(memory)
            # The control, in the same window: an editor's write waits for the lock, and shows it waiting.
            write = asyncio.ensure_future(request("cenotaph/remember", {
                "content": "Release artifacts are signed in CI.", "project": PROJECT}))
            begun = await until(lambda: [r for reports in session.client.progress_reports.values() for r in reports
                                         if isinstance(r, types.WorkDoneProgressBegin)])
            assert "waiting for the store" in begun[0].title and not write.done()
            signed = memory.recall(HUMAN, "signed in CI", project=PROJECT, log=False)
            assert "Release artifacts are signed in CI." not in [r.content for r in signed.results]
            assert await asyncio.to_thread(lock_still_held, memory.ctx.store) and not write.done()
        stored = await asyncio.wait_for(write, 60)

    assert stored.stored and memory.get(stored.id).content == "Release artifacts are signed in CI."
    assert any(isinstance(r, types.WorkDoneProgressEnd) for reports in session.client.progress_reports.values()
               for r in reports)
    assert len(answers) == ROUNDS
    for editor, agents, hover, diagnostics in answers:
        assert "GPG key" in str(editor) and "GPG key" in str(agents.structured_content)
        assert hover is not None and "one line of code" in hover.contents.value
        assert abandoned(diagnostics, "left-pad")
    # Once the lock is free, what the reads recorded reaches the log (polled: written in the background).
    person = person_of(db_path)
    wanted = {(f"vscode:{person}", "who signs the release artifacts"),
              (f"mcp:claude for {person}", "how are release artifacts signed")}
    assert await until(lambda: wanted <= logged_queries(memory))


async def until(condition, timeout: float = 60.0):
    """`condition()` once it is true (polled; the bound only ends a stuck test)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (found := condition()) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return found


def test_a_write_waits_a_bounded_time_and_says_who_holds_the_store(memory, db_path, monkeypatch):
    monkeypatch.setenv("CENOTAPH_BUSY_TIMEOUT", "0.2")
    waiting = Memory(dataclasses.replace(memory.ctx, store=open_store(db_path)))  # opened with the shorter wait
    try:
        # The control: with the lock free, the write goes through.
        waiting.remember(HUMAN, "The nightly build runs at 02:00.", project=PROJECT)

        async def blocked() -> None:
            async with write_lock_held(db_path, at_most=HOLD_SECONDS):
                with pytest.raises(StoreBusy, match=r"^the store is busy: .*process \d+ .*holds it \(waited 0\.2 s"):
                    await asyncio.to_thread(waiting.remember, HUMAN, "The weekly build runs on Sunday.",
                                            project=PROJECT)
                assert await asyncio.to_thread(lock_still_held, memory.ctx.store)

        asyncio.run(blocked())
    finally:
        waiting.close()
    found = memory.recall(HUMAN, "when does the build run", project=PROJECT, log=False)
    contents = [r.content for r in found.results]
    assert "The nightly build runs at 02:00." in contents and "The weekly build runs on Sunday." not in contents


def test_the_recall_log_is_dropped_and_counted_when_the_store_stays_busy(memory, db_path, caplog):
    """Another process holds the write lock past the recorder's waits: the answers come, and what
    they would have recorded is given up when the reader closes, counted in a warning."""
    memory.remember(HUMAN, "The release job signs artifacts with the team's GPG key.", project=PROJECT)
    reader = Memory(dataclasses.replace(memory.ctx, store=open_store(db_path)))
    try:
        # The control: with the lock free, a recall's log row is written.
        assert reader.recall(HUMAN, "who signs the release artifacts", project=PROJECT).results
        assert reader.recaller.recorder.flush(60) and ("test", "who signs the release artifacts") in logged_queries(memory)
        asked = ["what key signs artifacts", "which job signs the release", "is the release signed"]

        async def blocked() -> None:
            async with write_lock_held(db_path, at_most=HOLD_SECONDS):
                for query in asked:
                    found = await asyncio.to_thread(reader.recall, HUMAN, query, project=PROJECT)
                    assert "The release job signs artifacts with the team's GPG key." in [r.content for r in found.results]
                with caplog.at_level("WARNING", logger="cenotaph.memory.core.recorder"):
                    await asyncio.to_thread(reader.recaller.recorder.close, 1.0)
                assert await asyncio.to_thread(lock_still_held, memory.ctx.store)

        asyncio.run(blocked())
        assert reader.recaller.recorder.dropped == len(asked)
        assert [r.getMessage() for r in caplog.records if r.name == "cenotaph.memory.core.recorder"] == [
            "dropped 3 read record(s) (recall log, recalled counters; 3 in all): the store was still busy when it closed"]
        assert not {("test", query) for query in asked} & logged_queries(memory)
    finally:
        reader.close()

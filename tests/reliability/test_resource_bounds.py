"""Resource bounds: on a large store — 100,000 memories, dozens of them 50,000 characters long and
all matching the query, hundreds of abandoned approaches, contradictions, deprioritised memories
and proposals with long reasons — recall, briefing and the ledger answer in bounded size; and the
language server's memory stays flat over 10,000 didChange notifications."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import Implementation

from bench.perf import PROJECT as BENCH_PROJECT
from bench.perf import build_store
from cenotaph.mcp.server import build_server
from cenotaph.memory.context import content_hash
from cenotaph.store import approaches, contradictions, memories, proposals, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.records import MemoryRow
from tests.lsp.conftest import project_folder
from tests.reliability.support import open_memory_on, record, scale

MEMORIES = 100_000
# Embedded through the import verb; the rest are variants of these written through the store
# layer with their real vectors, because embedding 100,000 sentences takes half an hour here. The
# answers' bounds hold whatever the mix (the 60 huge memories share the query's own vector): 500
# are enough for the default run, where each 1,000 more cost ≈ 20 s.
EMBEDDED = scale(500, 10_000)
HUGE = 60  # memories at the 50,000-character limit, all about the query
LISTED = 400  # approaches, contradictions, deprioritised memories, proposals: each
LONG = "because " * 250  # a 2,000-character reason
CHANGES = 10_000
MB = 1024 * 1024


@pytest.fixture(scope="module")
def large_store(tmp_path_factory, embedder, analyzer) -> Path:
    path = tmp_path_factory.mktemp("large") / "large.db"
    build_store(path, EMBEDDED, embedder, analyzer)
    memory = open_memory_on(path, embedder, analyzer)
    ctx = memory.ctx
    now = ctx.now()
    vector = embedder.embed_one("the deploy pipeline stalls")
    # The rest through the store layer in bulk.
    with ctx.store.write() as conn:
        embedded = [(row, vectors.get(conn, row.id))
                    for row in memories.list_rows(conn, Scope(projects=(BENCH_PROJECT,)), limit=EMBEDDED, order="m.id")]
        first = memories.next_memory_id(conn)
        for i in range(MEMORIES - EMBEDDED):
            row, embedding = embedded[i % EMBEDDED]
            content = f"{row.content} (variant {i // EMBEDDED + 1})"
            copy = replace(row, id=0, memory_id=first + i, content=content, content_hash=content_hash(content))
            vectors.insert(conn, memories.insert(conn, copy), BENCH_PROJECT, embedding)
        assert memories.count_current(conn) == MEMORIES
        first = memories.next_memory_id(conn)
        for i in range(HUGE):
            content = f"Oversized note {i} on the deploy pipeline: " + "the deploy pipeline stalls " * 1850
            content = content[:50_000]
            row = MemoryRow(
                id=0, memory_id=first + i, version=1, project=BENCH_PROJECT, kind=("decision", "preference")[i % 2],
                content=content, content_hash=content_hash(content), tags=["huge"], source="human", actor="bench",
                state="active", state_reason=None, reinstate_hints=[], trust="confirmed", trust_reason=None,
                polarity=0, valid_from=now, valid_to=None, recorded_at=now, superseded_at=None, effort=None,
                outcome=None, iterations=None, breakthrough=None, gotchas=[], recall_count=0, last_recalled_at=None)
            vectors.insert(conn, memories.insert(conn, row), BENCH_PROJECT, vector)
        for i in range(LISTED):
            approaches.upsert(conn, project=BENCH_PROJECT, name=f"dead-lib-{i}", display_name=f"dead-lib-{i}",
                              ecosystem="pypi", reason=LONG, effort=3, outcome="abandoned", memory_id=None,
                              actor="bench", at=now)
            memories.set_fields(conn, i + 1, state="deprioritised", state_reason=LONG,
                                reinstate_hints=[f"hint {j} " * 20 for j in range(50)])
            contradictions.add(conn, project=BENCH_PROJECT, memory_a=first + i % HUGE, memory_b=LISTED + i + 1,
                               found_by="heuristic", explanation=LONG, actor="bench", at=now)
            proposals.add(conn, project=BENCH_PROJECT, action="forget", target=f"memory:{i + 1}",
                          arguments={"memory_id": i + 1}, reason=LONG, actor="mcp:agent", at=now)
        ctx.event(conn, actor="bench", action="bulk", target="store", project=BENCH_PROJECT)
    memory.ctx.store.close()
    return path


async def test_recall_and_briefing_answers_are_bounded_on_a_large_store(large_store, embedder, analyzer,
                                                                         in_process_cli):
    memory = open_memory_on(large_store, embedder, analyzer)
    try:
        async with Client(build_server(memory, project=BENCH_PROJECT),
                          client_info=Implementation(name="bounds", version="1")) as client:
            recall = await client.call_tool("recall", {"query": "the deploy pipeline stalls", "k": 50})
            briefing = await client.call_tool("briefing", {})
            listing = await client.call_tool("inspect", {"what": "contradictions", "limit": 50})
    finally:
        memory.ctx.store.close()
    sizes = {name: len(result.content[0].text.encode()) for name, result in
             (("recall", recall), ("briefing", briefing), ("contradictions", listing))}
    assert sum(r["content"].startswith("Oversized") for r in recall.structured_content["results"]) >= 40
    assert sizes["recall"] < 3 * MB  # at most k = 50 memories of at most 50,000 characters
    assert sizes["briefing"] < 256 * 1024 and set(briefing.structured_content["truncated"]) >= {
        "graveyard", "open_contradictions", "pending_proposals"}
    assert sizes["contradictions"] < 6 * MB  # at most 50 pairs, each side at most 50,000 characters
    status, out, _ = in_process_cli(["recall", "the deploy pipeline stalls", "-k", "200", "--db", str(large_store),
                                     "--project", BENCH_PROJECT, "--json"])
    assert status == 0
    sizes["cli recall -k 200"] = len(out.encode())
    assert sizes["cli recall -k 200"] < 12 * MB  # at most 200 memories of at most 50,000 characters
    record("resource bounds", memories=MEMORIES + HUGE, **{f"{k} bytes": v for k, v in sizes.items()})


def _rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


@pytest.mark.sqlite_only("copies a prepared SQLite file into the `serve` fixture's store")
async def test_the_ledger_is_bounded_and_the_language_server_stays_flat_over_10000_changes(
        large_store, serve, tmp_path):
    folder = project_folder(tmp_path, "bench", BENCH_PROJECT)
    db = tmp_path / "cenotaph.db"  # the `serve` fixture's store
    db.write_bytes(large_store.read_bytes())
    session = await serve([folder])
    client = session.client
    ledger = await client.protocol.send_request_async("cenotaph/ledger", {"project": BENCH_PROJECT})
    ledger_bytes = len(ledger.text.encode())
    assert ledger.counts.deprioritised == LISTED and ledger.counts.graveyard == LISTED
    assert ledger_bytes < 512 * 1024 and "more, not listed here" in ledger.text

    pid = client._server.pid
    uri = session.open(folder / "requirements.txt", "numpy==2.1\n")
    await _settled(pid)  # the model and spaCy load in the background: measure after them

    async def change(n: int) -> None:
        session.replace(uri, f"numpy=={n % 7}.{n}\ndead-lib-{n % LISTED}\nrequests>=2.{n}\n# change {n}\n")
        if n % 1000 == 999:
            await session.diagnostics(uri, lambda d: bool(d), timeout=30)  # let the server keep up

    for n in range(1_000):  # warm-up: caches and allocator pools reach their working size
        await change(n)
    baseline = _rss_kb(pid)
    samples = []
    for n in range(1_000, 1_000 + CHANGES):
        await change(n)
        if n % 1000 == 999:
            samples.append(_rss_kb(pid))
    last = f"dead-lib-{(CHANGES + 999) % LISTED}"
    await session.diagnostics(uri, lambda d: len(d) == 1 and d[0].data["name"] == last, timeout=30)
    growth_mb = (max(samples) - baseline) / 1024
    assert growth_mb < 16, (baseline // 1024, [s // 1024 for s in samples])  # 10,000 × 2 KB would be 20 MB
    record("resource bounds", ledger_bytes=ledger_bytes, lsp_did_change=CHANGES,
           lsp_rss_mb=f"{baseline / 1024:.0f}→{samples[-1] / 1024:.0f} (max {max(samples) / 1024:.0f})")


async def _settled(pid: int) -> None:
    """Until both models are in the server's memory and its size holds still for a second."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90
    previous = -1
    while True:
        assert loop.time() < deadline, "the server's models never finished loading"
        maps = Path(f"/proc/{pid}/maps").read_text()
        current = _rss_kb(pid)
        if "onnxruntime" in maps and "spacy" in maps and abs(current - previous) < 1024:
            return
        previous = current
        await asyncio.sleep(1.0)

"""Server time per console page at N memories (issue 40's goal: p95 ≤ 200 ms at 10,000).

Builds the store through the `import` verb (bench/perf.py's corpus), adds a graveyard, silences,
mined candidates and contradictions, then asks each page through Starlette's TestClient in this
process: the time is the server's (routing, the domain's reads, rendering), no network or browser.
The first recall loads the model: one warm-up round per page is not counted. Each page is asked
twice over: at a still log head ("steady"), and each time just after a memory is written ("after a
write"), which is what a page following the store live fetches and what a cache kept per head
misses.

`--synthetic` builds the store with seeded random unit vectors instead of the model (bench/perf.py's
SyntheticEmbedder: 100,000 memories in minutes, not ≈ 30 min); the pages still embed a recall's
query with the model. `--store PATH` keeps the seeded store there, and reuses it when it exists
(bench/console_paint.py serves the same one).

    .venv/bin/python bench/console_perf.py --size 10000 --runs 20 --out bench/results-console.json
    .venv/bin/python bench/console_perf.py --size 100000 --synthetic --store /tmp/console-100k.db
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cenotaph.console.app import Console, build_app, hosts_for
from cenotaph.memory.context import Context
from cenotaph.memory.mining.candidates import Candidate, Evidence
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store
from perf import PROJECT, SyntheticEmbedder, build_store, stats

HUMAN = Actor("bench")  # PROJECT is bench/perf.py's, where build_store puts the memories
PAGES = ("/graveyard", "/proposals", "/memories", "/memories?q=connection pool timeout", "/memories/42",
         "/contradictions", "/events", "/events?actor=bench", "/concepts", "/knowledge")


def seed(memory: Memory) -> None:
    for i in range(30):
        memory.abandon(HUMAN, f"lib-{i}", reason=f"replaced in sprint {i}", project=PROJECT, effort=1 + i % 5)
        memory.suppress(HUMAN, f"tool-{i}", kind="diagnostic", project=PROJECT, reason="legacy")
    evidence = (Evidence(origin="git", role="removed", ref="abc1234", summary="drop", at="2026-01-01T00:00:00Z"),)
    memory.propose_candidates(HUMAN, PROJECT, [Candidate(f"cand-{i}", "pypi", "dropped", 0.8, evidence)
                                               for i in range(50)])
    for i in range(10):
        memory.remember(HUMAN, f"Always run migration step {i} before deploys.", project=PROJECT, force=True)
        memory.remember(HUMAN, f"Never run migration step {i} before deploys.", project=PROJECT, force=True)


def console_store(path: Path, size: int, embedder: Embedder, analyzer: Analyzer, *, synthetic: bool) -> None:
    """The bench's store at `path`: `size` memories, the graveyard, candidates, contradictions and
    the concepts; a store already there is reused as it is."""
    if path.exists():
        return
    building = path.with_name(path.name + ".building")  # a build cut short is never reused
    for leftover in path.parent.glob(building.name + "*"):
        leftover.unlink()
    build_store(building, size, SyntheticEmbedder(size) if synthetic else embedder, analyzer)
    store = Store(building)
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    seed(memory)
    memory.concepts_rebuild(HUMAN)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    building.rename(path)
    for leftover in path.parent.glob(building.name + "*"):  # its graveyard file and lock holder
        leftover.unlink()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--synthetic", action="store_true", help="random unit vectors for the stored memories")
    parser.add_argument("--store", type=Path, help="keep the store here (reused when it exists)")
    parser.add_argument("--out")
    args = parser.parse_args()
    embedder, analyzer = Embedder(), Analyzer()
    with tempfile.TemporaryDirectory() as folder:
        path = args.store or Path(folder) / "cenotaph.db"
        console_store(path, args.size, embedder, analyzer, synthetic=args.synthetic)
        store = Store(path)
        memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
        from starlette.testclient import TestClient

        console = Console(memory=memory, project=PROJECT, person="bench", token="t" * 40, port=8767,
                          hosts=hosts_for("127.0.0.1", 8767))
        client = TestClient(build_app(console), base_url="http://127.0.0.1:8767")
        client.get("/graveyard?token=" + "t" * 40)
        results: dict[str, dict] = {"steady": {}, "after a write": {}}
        writes = 0
        for page in PAGES:
            assert client.get(page).status_code == 200, page  # warm-up (the model, the chain's first check)
            for mode, figures in results.items():
                samples = []
                for _ in range(args.runs):
                    if mode == "after a write":  # what a page polling the head fetches: caches per head miss
                        writes += 1
                        memory.remember(HUMAN, f"Bench write {writes}: the cache was cold", project=PROJECT, force=True)
                    start = time.perf_counter()
                    client.get(page)
                    samples.append((time.perf_counter() - start) * 1000)
                figures[page] = stats(samples)
                print(f"{page:40} {mode:14} median {figures[page]['median_ms']:7.1f} ms  "
                      f"p95 {figures[page]['p95_ms']:7.1f} ms", flush=True)
        store.close()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    report = {"size": args.size, "synthetic": args.synthetic, "runs": args.runs, "commit": commit,
              "load_average": os.getloadavg(), "pages": results}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Speed and scale of the memory core: remember, recall (semantic and exact lane),
check_approaches and the MCP recall round trip (the real `cenotaph mcp` over stdio) at 1,000,
10,000 and 100,000 memories in one project, with the store's size and peak RSS.

Stores are built once per size by the `import` verb (real embeddings, batched; its speed is
recorded beside each store) and cached outside the repository ($XDG_CACHE_HOME/cenotaph-bench);
each figure is a median and p95/p99 over repeated runs. Usage:
python bench/perf.py [--sizes 1000,10000,100000] [--runs N] [--out figures.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cenotaph import paths
from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.operations.importing import ImportItem
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.backup import copy as snapshot  # one consistent snapshot, even while another run migrates the cache
from cenotaph.store.db import Store
import numpy as np

PROJECT = "bench/project"
CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
ACTOR = Actor("bench", "human")
SUBJECTS = ["the deploy script", "our CI pipeline", "the embeddings cache", "the login page", "the billing job",
            "the search index", "the release branch", "the staging database", "the API gateway", "the mobile app",
            "the feature flag service", "the websocket server", "the nightly backup", "the docs site"]
VERBS = ["fails when", "is slow because", "was rewritten after", "needs a restart if", "works only when",
         "broke after", "was moved to a new host since", "logs a warning whenever", "times out when"]
CAUSES = ["the cache is cold", "two writers race", "the token expires", "the disk fills up", "DNS is flaky",
          "a migration is pending", "the model loads lazily", "memory runs short", "the queue backs up",
          "someone pushes to main", "the certificate rotates", "the clock drifts", "a dependency is pinned too low"]
DETAILS = ["on Mondays", "under load", "in production only", "on ARM machines", "since version 2.3", "in CI",
           "for large files", "with Python 3.12", "on Alpine", "behind the proxy", "after the upgrade", ""]
QUERIES = ["why does the deploy script fail", "what breaks the staging database", "is the CI pipeline slow",
           "what happens when the token expires", "problems with the nightly backup on Alpine",
           "should we restart the websocket server", "billing job timeouts under load",
           "search index rebuild after the upgrade", "what is wrong with the login page",
           "how do we handle the certificate rotation"]


def sentence(rng: random.Random, i: int) -> str:
    return f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(CAUSES)} {rng.choice(DETAILS)} (note {i})".replace("  ", " ")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def stats(samples: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(samples), 2), "p95_ms": round(percentile(samples, 0.95), 2),
            "p99_ms": round(percentile(samples, 0.99), 2), "runs": len(samples)}


def timed(fn, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return stats(samples)


class SyntheticEmbedder(Embedder):
    """Seeded random unit vectors in the default model's name and size, without the model: a store
    of the bench's sentences in minutes instead of ≈ 30 at 100,000 (vec0's scans and the SQL cost
    the same on it). Only for building: open the store with a real Embedder so that a query is
    still embedded by the model (its neighbours are then arbitrary, its cost is not)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self._rng = np.random.default_rng(seed)

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def build_store(path: Path, size: int, embedder: Embedder, analyzer: Analyzer) -> float:
    """Fill a store with `size` memories through the `import` verb; returns memories per second."""
    rng = random.Random(size)
    store = Store(path)
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    started = time.perf_counter()

    def progress(done: int, total: int | None) -> None:
        rate = done / max(time.perf_counter() - started, 1e-9)
        sys.stderr.write(f"\rbuilding {size:,}: [{'#' * (30 * done // size):<30}] {done:,}/{size:,} "
                         f"({rate:,.0f}/s, {(size - done) / max(rate, 1e-9) / 60:.1f} min left)")
        sys.stderr.flush()

    items = (ImportItem(sentence(rng, i)) for i in range(size))
    report = memory.import_memories(ACTOR, items, project=PROJECT, total=size, progress=progress)
    sys.stderr.write("\n")
    assert report.imported == size, report
    rate = size / (time.perf_counter() - started)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return rate


def cached_store(size: int, embedder: Embedder, analyzer: Analyzer) -> Path:
    folder = paths.cache_dir().parent / "cenotaph-bench"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"store-{size}.db"
    if not path.exists():
        tmp = folder / f"store-{size}.building.db"
        for leftover in folder.glob(f"store-{size}.building.db*"):
            leftover.unlink()
        rate = build_store(tmp, size, embedder, analyzer)
        tmp.rename(path)
        # How fast the import verb built it, with the load at the time (the build is the import benchmark).
        path.with_suffix(".json").write_text(json.dumps({
            "memories": size, "import_per_second": round(rate, 1), "commit": commit_measured(),
            "load_average": os.getloadavg()}))
    # Apply any newer migration to the cached copy once, not to every run's copy; a migration that
    # moved data leaves free pages, which would inflate the store size reported.
    store = Store(path)
    pages, free = (store.conn.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_count", "freelist_count"))
    if free > pages // 10:
        store.conn.execute("VACUUM")
    store.close()
    return path


def commit_measured() -> str:
    """The commit the figures come from, marked when the working tree differed from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    return f"{head}+dirty" if dirty else head


def bench_size(size: int, runs: int, embedder: Embedder, analyzer: Analyzer, workdir: Path,
               two_threads: Embedder) -> dict:
    source = cached_store(size, embedder, analyzer)
    path = workdir / f"run-{size}.db"
    snapshot(source, path)
    store = Store(path)
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    rng = random.Random(7)
    for i in range(1000):  # a graveyard of 1,000 entries
        memory.graveyard.abandon(ACTOR, f"dead-package-{i}", reason="benchmark entry", project=PROJECT)
    memory.abandon(ACTOR, "onnxruntime", reason="SIGILL on Alpine musl", project=PROJECT, effort=2)
    names = [f"dead-package-{rng.randrange(2000)}" for _ in range(45)] + ["numpy", "yaml", "onnxruntime", "cv2", "x"]

    memory.recall(ACTOR, QUERIES[0], project=PROJECT, log=False)  # warm caches and spaCy
    counter = iter(range(10**9))
    stored: list[bool] = []
    result = {
        "memories": size,
        "store_mb": round(sum(p.stat().st_size for p in workdir.glob(f"run-{size}.db*")) / 2**20, 1),
        "recall": timed(lambda: memory.recall(ACTOR, rng.choice(QUERIES), project=PROJECT, k=10), runs),
        "recall_exact": timed(lambda: memory.recall(ACTOR, "staging_database.py", project=PROJECT, k=10), runs),
        "check_approaches_50": timed(lambda: memory.check_approaches(names, project=PROJECT), runs * 5),
        # As agents call it: the near-duplicate check (a KNN query) included, so some are refused.
        "remember": timed(lambda: stored.append(memory.remember(
            ACTOR, f"Benchmark sentence {next(counter)} about {rng.choice(SUBJECTS)} and {rng.choice(CAUSES)}",
            project=PROJECT).stored), runs),
    }
    result["remember_stored_share"] = round(sum(stored) / len(stored), 2)
    # The same calls with `model_threads = 2`, in the same run (config.py keeps 1 by default).
    wider = Memory(Context(store=store, embedder=two_threads, analyzer=analyzer))
    result["remember_model_threads_2"] = timed(lambda: wider.remember(
        ACTOR, f"Benchmark sentence {next(counter)} about {rng.choice(SUBJECTS)} and {rng.choice(CAUSES)}",
        project=PROJECT), runs)
    store.close()
    result["mcp_stdio_recall"], result["mcp_server_peak_rss_mb"] = asyncio.run(mcp_round_trip(path, workdir, runs))
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    path.unlink()
    return result


def _children_rss_peak_mb() -> float:
    """The largest peak RSS among this process's child processes (the MCP server)."""
    peak = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if int(fields.get("PPid", "0").strip()) == os.getpid() and "VmHWM" in fields:
            peak = max(peak, int(fields["VmHWM"].split()[0]))
    return round(peak / 1024, 1)


async def mcp_round_trip(db: Path, workdir: Path, runs: int) -> tuple[dict[str, float], float]:
    """recall through the real `cenotaph mcp` server over stdio, by the MCP SDK's client: the
    round trip an agent sees (JSON-RPC, validation, the domain call, the typed result)."""
    from mcp import Client, StdioServerParameters
    from mcp.types import Implementation

    folder = workdir / "repo"
    folder.mkdir(exist_ok=True)
    (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = str(workdir / "state")  # endpoint files and logs stay out of the user's
    params = StdioServerParameters(command=CENOTAPH, args=["mcp", "--db", str(db)], env=env, cwd=folder)
    rng = random.Random(5)
    samples = []
    async with Client(params, client_info=Implementation(name="bench", version="1")) as client:
        for _ in range(3):  # the model and spaCy load on first use
            await client.call_tool("recall", {"query": QUERIES[0], "k": 10})
        for _ in range(runs):
            start = time.perf_counter()
            answer = await client.call_tool("recall", {"query": rng.choice(QUERIES), "k": 10})
            samples.append((time.perf_counter() - start) * 1000)
            assert not answer.is_error, answer.content
        rss = _children_rss_peak_mb()
    return stats(samples), rss


def write_report(path: Path, report: dict, *, merge: bool) -> None:
    """Write `report`; with `merge`, keep the sizes of the file already there that this run did not
    measure (a size measured in a separate run keeps its own commit and load figures)."""
    if merge and path.exists():
        measured = {entry["memories"] for entry in report["sizes"]}
        earlier = json.loads(path.read_text())
        kept = [dict(entry, commit=entry.get("commit", earlier.get("commit")))
                for entry in earlier.get("sizes", []) if entry["memories"] not in measured]
        report = dict(report, sizes=sorted(kept + [dict(e, commit=report["commit"]) for e in report["sizes"]],
                                           key=lambda e: e["memories"]))
    path.write_text(json.dumps(report, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--merge", action="store_true", help="keep the other sizes already in --out")
    args = parser.parse_args()
    import tempfile

    embedder, analyzer, two_threads = Embedder(), Analyzer(), Embedder(threads=2)
    embedder.embed_one("warm up")
    two_threads.embed_one("warm up")
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-bench-"))
    commit = commit_measured()
    report = {"commit": commit, "cores": os.cpu_count(), "python": sys.version.split()[0], "sizes": []}
    for size in (int(s) for s in args.sizes.split(",")):
        figures = bench_size(size, args.runs, embedder, analyzer, workdir, two_threads)
        report["sizes"].append(figures)
        print(json.dumps(figures), flush=True)
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    versions = Store(workdir / "versions.db")
    report["sqlite"], report["sqlite_vec"] = versions.versions()
    versions.close()
    report["model"] = embedder.model_name
    report["import_per_second"] = {size: json.loads(cached_store(size, embedder, analyzer).with_suffix(".json")
                                                    .read_text()) for size in (e["memories"] for e in report["sizes"])}
    print(json.dumps({"commit": commit, "peak_rss_mb": report["peak_rss_mb"]}))
    if args.out:
        write_report(args.out, report, merge=args.merge)
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

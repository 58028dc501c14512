"""Speed and scale of the memory core: remember, recall and check_approaches at 1,000, 10,000
and 100,000 memories in one project, with the store's size and the process's peak RSS.

Stores are built once per size with real embeddings (batched) and cached outside the
repository ($XDG_CACHE_HOME/cenotaph-bench); each figure is a median and p95/p99 over
repeated runs in this process. Usage: python bench/perf.py [--sizes 1000,10000,100000] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cenotaph import paths
from cenotaph.memory.context import Context, content_hash
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store import memories, vectors
from cenotaph.store.db import Store
from cenotaph.store.records import MemoryRow

PROJECT = "bench/project"
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


def timed(fn, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(samples), 2), "p95_ms": round(percentile(samples, 0.95), 2),
            "p99_ms": round(percentile(samples, 0.99), 2), "runs": runs}


def build_store(path: Path, size: int, embedder: Embedder, analyzer: Analyzer) -> None:
    """Fill a store with `size` memories through the store layer in batches (the same rows,
    lemmas and vectors `remember` writes, without its per-row duplicate check)."""
    rng = random.Random(size)
    store = Store(path)
    ctx = Context(store=store, embedder=embedder, analyzer=analyzer)
    ctx.ensure_vectors()
    batch = 256
    now = ctx.now()
    for start in range(0, size, batch):
        texts = [sentence(rng, i) for i in range(start, min(size, start + batch))]
        embedded = embedder.embed(texts)
        with store.write() as conn:
            next_id = memories.next_memory_id(conn)
            for offset, (text, vector) in enumerate(zip(texts, embedded, strict=True)):
                analysis = analyzer.analyze(text)
                row = MemoryRow(
                    id=0, memory_id=next_id + offset, version=1, project=PROJECT, kind="note", content=text,
                    content_hash=content_hash(text), tags=[], source="human", actor="bench", state="active",
                    state_reason=None, reinstate_hints=[], trust="confirmed", trust_reason=None,
                    polarity=analysis.polarity, valid_from=now, valid_to=None, recorded_at=now, superseded_at=None,
                    effort=None, outcome=None, iterations=None, breakthrough=None, gotchas=[], recall_count=0,
                    last_recalled_at=None, lemmas=analysis.lemmas,
                )
                row_id = memories.insert(conn, row)
                vectors.insert(conn, row_id, PROJECT, vector)
        done = min(size, start + batch)
        sys.stderr.write(f"\rbuilding {size:,}: [{'#' * (30 * done // size):<30}] {done:,}/{size:,}")
        sys.stderr.flush()
    sys.stderr.write("\n")
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()


def cached_store(size: int, embedder: Embedder, analyzer: Analyzer) -> Path:
    folder = paths.cache_dir().parent / "cenotaph-bench"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"store-{size}.db"
    if not path.exists():
        tmp = folder / f"store-{size}.building.db"
        for leftover in folder.glob(f"store-{size}.building.db*"):
            leftover.unlink()
        build_store(tmp, size, embedder, analyzer)
        tmp.rename(path)
    return path


def bench_size(size: int, runs: int, embedder: Embedder, analyzer: Analyzer, workdir: Path) -> dict:
    source = cached_store(size, embedder, analyzer)
    path = workdir / f"run-{size}.db"
    shutil.copy(source, path)
    store = Store(path)
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    rng = random.Random(7)
    for i in range(1000):  # a graveyard of 1,000 entries
        memory.graveyard.abandon(ACTOR, f"dead-package-{i}", reason="benchmark entry", project=PROJECT)
    memory.abandon(ACTOR, "onnxruntime", reason="SIGILL on Alpine musl", project=PROJECT, effort=2)
    names = [f"dead-package-{rng.randrange(2000)}" for _ in range(45)] + ["numpy", "yaml", "onnxruntime", "cv2", "x"]

    memory.recall(ACTOR, QUERIES[0], project=PROJECT, log=False)  # warm caches and spaCy
    counter = iter(range(10**9))
    result = {
        "memories": size,
        "store_mb": round(sum(p.stat().st_size for p in workdir.glob(f"run-{size}.db*")) / 2**20, 1),
        "recall": timed(lambda: memory.recall(ACTOR, rng.choice(QUERIES), project=PROJECT, k=10), runs),
        "recall_exact": timed(lambda: memory.recall(ACTOR, "staging_database.py", project=PROJECT, k=10), runs),
        "check_approaches_50": timed(lambda: memory.check_approaches(names, project=PROJECT), runs * 5),
        "remember": timed(lambda: memory.remember(
            ACTOR, f"Benchmark sentence {next(counter)} about {rng.choice(SUBJECTS)} and {rng.choice(CAUSES)}",
            project=PROJECT, force=True), runs),
    }
    store.close()
    path.unlink()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    import tempfile

    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-bench-"))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    report = {"commit": commit, "sizes": []}
    for size in (int(s) for s in args.sizes.split(",")):
        figures = bench_size(size, args.runs, embedder, analyzer, workdir)
        report["sizes"].append(figures)
        print(json.dumps(figures), flush=True)
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps({"commit": commit, "peak_rss_mb": report["peak_rss_mb"]}))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

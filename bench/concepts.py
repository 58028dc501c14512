"""Concepts at scale (issue 19): `concepts rebuild` of a 10,000-memory store (target ≤ 60 s);
what extraction adds to `remember` (target ≤ 2 ms on the median), measured with and without it in
the same run, alternating call by call; recall at 10,000 with alias expansion on (target: the
recall target of issue 2, ≤ 25 ms), against the same recall with expansion off; and the listing
of the top 20 concepts (`cenotaph concepts`, the ledger's section).

The store is a snapshot of bench/perf.py's cached one (read-only: the cache is never migrated
from here), or built privately when there is none. Usage:
python bench/concepts.py [--size 10000] [--runs 200] [--rebuilds 3] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cenotaph import paths  # noqa: E402
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.core import concepts  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp import analysis  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store.backup import copy as snapshot  # noqa: E402
from cenotaph.store.db import Store  # noqa: E402
from perf import ACTOR, CAUSES, PROJECT, QUERIES, SUBJECTS, build_store, commit_measured, stats  # noqa: E402

# Verdicts a person might give on the bench's vocabulary, and queries that name their aliases.
MERGES = [("db", "database"), ("ci", "ci pipeline"), ("gw", "api gateway"), ("cert", "certificate")]
ALIAS_QUERIES = ["what breaks the staging db", "why is ci slow", "gw timeouts under load",
                 "cert rotation on Mondays", "db migration pending in production"]


def store_copy(size: int, workdir: Path, embedder: Embedder, analyzer: Analyzer) -> Path:
    target = workdir / f"concepts-{size}.db"
    cached = paths.cache_dir().parent / "cenotaph-bench" / f"store-{size}.db"
    if cached.exists():
        snapshot(cached, target, readonly_source=True)
    else:
        build_store(target, size, embedder, analyzer)
    return target


def timed_seconds(fn, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return {"median_s": round(samples[len(samples) // 2], 2), "max_s": round(samples[-1], 2), "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rebuilds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-bench-concepts-"))
    store = Store(store_copy(args.size, workdir, embedder, analyzer))
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    rng = random.Random(11)
    report: dict = {"commit": commit_measured(), "memories": args.size, "load_average_start": os.getloadavg()}

    report["rebuild"] = timed_seconds(lambda: memory.concepts_rebuild(ACTOR), args.rebuilds)
    built = memory.concepts_rebuild(ACTOR)
    report["rebuild_derived"] = {"memories": built.memories, "links": built.links, "pairs": built.pairs}
    for alias, canonical in MERGES:
        memory.concept_verdict(ACTOR, "merge", alias, canonical, project=PROJECT)

    # remember with and without extraction, alternating, so that both see the same load.
    counter = iter(range(10**9))
    extract, attach = analysis._concepts, concepts.attach
    with_samples: list[float] = []
    without_samples: list[float] = []

    def remember_once() -> None:
        memory.remember(ACTOR, f"Concept bench sentence {next(counter)} about {rng.choice(SUBJECTS)} and "
                               f"{rng.choice(CAUSES)}", project=PROJECT, force=True)

    for i in range(2 * args.runs):
        on = i % 2 == 0
        analysis._concepts, concepts.attach = (extract, attach) if on else (lambda *_: (), lambda *_: None)
        start = time.perf_counter()
        remember_once()
        (with_samples if on else without_samples).append((time.perf_counter() - start) * 1000)
    analysis._concepts, concepts.attach = extract, attach
    report["remember_with_extraction"] = stats(with_samples)
    report["remember_without_extraction"] = stats(without_samples)

    # recall with expansion on (verdicts present) and off, alternating, on the bench's queries and
    # on queries that name an alias (expansion draws the concept's memories).
    expansions = concepts.expansions
    memory.recall(ACTOR, QUERIES[0], project=PROJECT, log=False)
    for name, queries in (("recall", QUERIES), ("recall_alias_queries", ALIAS_QUERIES)):
        on_samples: list[float] = []
        off_samples: list[float] = []
        for i in range(2 * args.runs):
            on = i % 2 == 0
            concepts.expansions = expansions if on else (lambda *_: {})
            query = queries[(i // 2) % len(queries)]
            memory.recaller._last_query = None  # each call embeds its query: the pair's second would not
            start = time.perf_counter()
            memory.recall(ACTOR, query, project=PROJECT, k=10)
            (on_samples if on else off_samples).append((time.perf_counter() - start) * 1000)
        concepts.expansions = expansions
        report[f"{name}_expansion_on"] = stats(on_samples)
        report[f"{name}_expansion_off"] = stats(off_samples)
    # `cenotaph concepts` and the ledger's section: the top concepts with aliases and neighbours.
    listing: list[float] = []
    for _ in range(max(5, args.runs // 10)):
        start = time.perf_counter()
        memory.concepts(PROJECT, 20)
        listing.append((time.perf_counter() - start) * 1000)
    report["listing_top_20"] = stats(listing)
    report["expanded_example"] = [r.components.concepts for r in memory.recall(
        ACTOR, ALIAS_QUERIES[0], project=PROJECT, k=10, log=False).results if r.components][:3]
    report["load_average_end"] = os.getloadavg()
    store.close()
    shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

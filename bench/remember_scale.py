"""`remember` and `recall` on a large store, this tree against another commit's server, alternated.

The store is built once by `bench/console_perf.py --synthetic --size 100000 --store PATH` (the
bench's sentences with seeded random unit vectors: minutes instead of ≈ 30 min with the model; the
query is still embedded by the real model, so its cost is real and its neighbours arbitrary). Each
run gets a fresh copy of it and a process of its own, which opens the store, warms up with one recall,
then times:

- `remember` as bench/perf.py calls it (the bench's sentences, the near-duplicate check included,
  so some are refused: the share stored is reported);
- `recall` (k = 10) of the bench's queries;
- the first KNN of a fresh connection (the copy of the signs read from the chunks, on this tree).

The store must be at a schema both commits know (a newer one opens an older store and migrates
its copy). Usage (another commit's tree from `git worktree add /tmp/base <commit>`):
       python bench/remember_scale.py --store STORE.db --against /tmp/base/server
       [--rounds 2] [--calls 40] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER = HERE.parent / "server"

CHILD = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[2])
from perf import ACTOR, PROJECT, QUERIES, SUBJECTS, CAUSES, stats
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store import vectors

calls = int(sys.argv[3])
embedder = Embedder()
embedder.embed_one("warm")
store = open_store(sys.argv[1])
with store.read() as conn:  # the first search of a fresh connection
    started = time.perf_counter()
    vectors.knn(conn, PROJECT, embedder.embed_one(QUERIES[0]), 10)
    first_knn = (time.perf_counter() - started) * 1000
memory = Memory(Context(store=store, embedder=embedder, analyzer=Analyzer()))
rng = random.Random(7)
memory.recall(ACTOR, QUERIES[0], project=PROJECT, log=False)
counter = iter(range(10**9))
stored, remember, recall = [], [], []
for _ in range(calls):
    text = f"Benchmark sentence {next(counter)} about {rng.choice(SUBJECTS)} and {rng.choice(CAUSES)}"
    started = time.perf_counter()
    stored.append(memory.remember(ACTOR, text, project=PROJECT).stored)
    remember.append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    memory.recall(ACTOR, rng.choice(QUERIES), project=PROJECT, k=10)
    recall.append((time.perf_counter() - started) * 1000)
print(json.dumps({"remember": stats(remember), "recall": stats(recall), "first_knn_ms": round(first_knn, 2),
                  "stored_share": round(sum(stored) / len(stored), 2)}))
"""


def run(server: Path, store: Path, calls: int, workdir: Path) -> dict:
    copy = workdir / "run.db"
    for leftover in workdir.glob("run.db*"):
        leftover.unlink()
    shutil.copyfile(store, copy)
    env = {**os.environ, "PYTHONPATH": str(server)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(copy), str(HERE), str(calls)], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:  # e.g. a store migrated past what the other commit knows
        raise SystemExit(f"{server}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--against", type=Path, required=True, help="another commit's server/ folder")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results: list[dict] = []
    with tempfile.TemporaryDirectory(dir=args.store.parent) as workdir:
        for round_ in range(1, args.rounds + 1):
            for side, server in (("against", args.against), ("this tree", SERVER)):
                load = os.getloadavg()[0]
                figures = run(server, args.store, args.calls, Path(workdir))
                results.append({"round": round_, "side": side, "load": round(load, 2), **figures})
                print(f"round {round_} {side:9} load {load:4.1f}  remember {figures['remember']['median_ms']:6.2f} / "
                      f"{figures['remember']['p95_ms']:6.2f} ms (stored {figures['stored_share']:.2f})  recall "
                      f"{figures['recall']['median_ms']:6.2f} / {figures['recall']['p95_ms']:6.2f} ms  first KNN "
                      f"{figures['first_knn_ms']:6.2f} ms", flush=True)
    for side in ("against", "this tree"):
        mine = [r for r in results if r["side"] == side]
        print(f"{side}: remember median of medians {statistics.median(r['remember']['median_ms'] for r in mine):.2f} ms, "
              f"recall {statistics.median(r['recall']['median_ms'] for r in mine):.2f} ms")
    if args.out:
        args.out.write_text(json.dumps({"store": str(args.store), "measured": time.strftime("%Y-%m-%d %H:%M"),
                                        "runs": results}, indent=1))


if __name__ == "__main__":
    main()

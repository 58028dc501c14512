"""Peak memory of `ingest` (issue 43: ≤ 500 MB) against the embedder's attention budget.

ONNX Runtime's arena keeps the buffers of the largest batch it ran, so an ingest's peak follows
the largest batch the embedder forms: at most ATTENTION_BUDGET tokens² (texts × the longest's
length squared). Each round ingests the same generated docs folder (bench/ingest.py's documents,
≈ 5 KB each, plus long pages whose sections reach the model's 256 tokens) into a fresh store, once
per budget in alternating order, each in a process of its own; the child reports its peak RSS,
wall and CPU time, and its vectors, which must agree between budgets. `--docs DIR` ingests a real
docs folder instead (a repository's `docs/`, as bench/docs_qa.py checks them out).
Usage: python bench/ingest_memory.py [--files 1000 | --docs DIR] [--rounds 2] [--budgets 262144,65536] [--out F]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import document  # noqa: E402
from perf import commit_measured  # noqa: E402

CHILD = """
import json, resource, sys, time
from pathlib import Path
import numpy as np
import cenotaph.nlp.embedder as embedder
embedder.ATTENTION_BUDGET = int(sys.argv[1])
from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.store import vectors
from cenotaph.store.db import Store
root, store_path, out = Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
store = Store(store_path)
memory = Memory(Context(store=store, embedder=embedder.Embedder(), analyzer=Analyzer()))
started, cpu = time.perf_counter(), time.process_time()
report = memory.ingest(Actor("bench", "human"), [str(root / "docs")], project="bench/docs", root=root)
wall, cpu = time.perf_counter() - started, time.process_time() - cpu
rows = store.conn.execute(f"SELECT m.content, v.embedding FROM memories m JOIN {vectors.TABLE} v ON v.row_id = m.id "
                          "ORDER BY m.content").fetchall()
np.save(out, np.array([np.frombuffer(v, dtype=np.float32) for _, v in rows]))
store.close()
print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "wall_s": wall,
                  "cpu_s": cpu, "chunks": report.chunks_added}))
"""


def long_page(rng: random.Random, n: int) -> str:
    """A reference page whose sections are long enough to fill the model's 256 tokens."""
    parts = [f"# Reference {n}\n"]
    for s in range(6):
        parts.append(f"## Option group {s}\n")
        parts.append(" ".join(f"The option {rng.randrange(10**5)} sets how the store answers when "
                              f"{rng.choice(['a write waits', 'a reader lags', 'the disk is full'])}."
                              for _ in range(30)) + "\n")
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--docs", type=Path, help="a real docs folder instead of the generated one")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--budgets", default=f"{64 * 64 * 64},{16 * 64 * 64}")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    rng = random.Random(43)
    runs: dict[int, list[dict]] = {b: [] for b in budgets}
    vectors: dict[int, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        if args.docs:
            shutil.copytree(args.docs, root / "docs")
        else:
            (root / "docs").mkdir(parents=True)
            for n in range(args.files):
                text = long_page(rng, n) if n % 10 == 0 else document(rng, n)
                (root / "docs" / f"page-{n:04}.md").write_text(text, encoding="utf-8")
        for round_ in range(args.rounds):
            for budget in budgets if round_ % 2 == 0 else reversed(budgets):
                store, out = Path(tmp) / f"s-{budget}-{round_}.db", Path(tmp) / f"v-{budget}.npy"
                done = subprocess.run([sys.executable, "-c", CHILD, str(budget), str(root), str(store), str(out)],
                                      capture_output=True, text=True, check=True)
                figures = json.loads(done.stdout.splitlines()[-1])
                runs[budget].append(figures)
                vectors[budget] = np.load(out)
                print(budget, figures, file=sys.stderr)
    first = vectors[budgets[0]]
    result = {
        "commit": commit_measured(), "folder": str(args.docs) if args.docs else f"{args.files} generated files",
        "largest_vector_difference": max(float(np.abs(v - first).max()) for v in vectors.values()),
        "budgets": {str(b): {"peak_rss_mb": [round(r["peak_rss_mb"]) for r in rs],
                             "wall_s_median": round(statistics.median(r["wall_s"] for r in rs), 1),
                             "cpu_s_median": round(statistics.median(r["cpu_s"] for r in rs), 1),
                             "chunks": rs[0]["chunks"]} for b, rs in runs.items()},
    }
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

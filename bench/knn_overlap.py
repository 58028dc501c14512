"""What the binary vector index costs and gives up: for queries over a cached bench store, the
exact cosine KNN of sqlite-vec's float scan against Cenotaph's binary search with cosine
rescoring (store/vectors.py), timed in the same run, and the overlap of their top-k lists.

Queries: the ten bench queries and 240 new sentences drawn like the store's own (not in it).
Usage: python bench/knn_overlap.py [--size 100000] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import PROJECT, QUERIES, cached_store, commit_measured, percentile, sentence, snapshot  # noqa: E402

from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store import vectors  # noqa: E402
from cenotaph.store.db import Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    embedder = Embedder()
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-knn-"))
    path = workdir / "store.db"
    snapshot(cached_store(args.size, embedder, Analyzer()), path)
    store = Store(path)
    conn = store.conn
    dim = vectors.dimension(conn)
    # The float scan as shipped before the binary index: a vec0 float table, cosine.
    conn.execute(f"CREATE VIRTUAL TABLE exact USING vec0 (row_id INTEGER PRIMARY KEY, project TEXT PARTITION KEY, "
                 f"embedding float[{dim}] distance_metric=cosine)")
    conn.execute(f"INSERT INTO exact SELECT row_id, project, embedding FROM {vectors.TABLE}")
    rng = random.Random(12345)
    queries = embedder.embed(QUERIES + [sentence(rng, 10**7 + i) for i in range(240)])
    report = {"commit": commit_measured(), "memories": args.size, "queries": len(queries), "lists": {}}
    for k in (10, 60):  # 10: what a caller asks for; 60: recall's candidate pool per lane
        exact_ms, binary_ms, overlap = [], [], []
        for query in queries:
            start = time.perf_counter()
            exact = conn.execute("SELECT row_id FROM exact WHERE embedding MATCH ? AND k = ? AND project = ?",
                                 (query.tobytes(), k, PROJECT)).fetchall()
            exact_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            found = vectors.knn(conn, PROJECT, query, k)
            binary_ms.append((time.perf_counter() - start) * 1000)
            overlap.append(len({r[0] for r in exact} & {r for r, _ in found}) / k)
        report["lists"][k] = {
            "exact_median_ms": round(statistics.median(exact_ms), 2), "exact_p95_ms": round(percentile(exact_ms, 0.95), 2),
            "binary_median_ms": round(statistics.median(binary_ms), 2),
            "binary_p95_ms": round(percentile(binary_ms, 0.95), 2),
            "overlap_mean": round(float(np.mean(overlap)), 3), "overlap_min": round(min(overlap), 2),
            "queries_with_full_overlap": round(sum(o == 1 for o in overlap) / len(overlap), 3)}
        print(f"top-{k}: {report['lists'][k]}", flush=True)
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    store.close()
    shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

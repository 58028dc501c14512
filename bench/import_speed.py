"""Speed of the `import` verb: N generated memories into a fresh store in one project, through
Memory.import_memories (batched embedding, one transaction per batch), with the share of time in
embedding, text analysis and the rest (SQL, events) from a profile of the same run.

Usage: python bench/import_speed.py [--memories 10000] [--out figures.json]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.operations.importing import ImportItem  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store.db import Store  # noqa: E402
from perf import ACTOR, PROJECT, commit_measured, sentence  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    analyzer.analyze("warm up")
    with tempfile.TemporaryDirectory(prefix="cenotaph-import-") as folder:
        store = Store(Path(folder) / "store.db")
        memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
        rng = random.Random(args.memories)
        items = (ImportItem(sentence(rng, i)) for i in range(args.memories))
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.enable()
        report = memory.import_memories(ACTOR, items, project=PROJECT, total=args.memories)
        profile.disable()
        seconds = time.perf_counter() - start
        store.close()
    assert report.imported == args.memories
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]

    def cumulative(name: str) -> float:
        return sum(v[3] for (path, _, function), v in stats.items() if function == name and "cenotaph" in path)

    embed, analyse = cumulative("embed"), cumulative("analyze")
    figures = {"commit": commit_measured(), "memories": args.memories, "seconds": round(seconds, 1),
               "memories_per_second": round(args.memories / seconds, 1),
               "share_embedding": round(embed / seconds, 3), "share_analysis": round(analyse / seconds, 3),
               "share_rest": round(1 - (embed + analyse) / seconds, 3),
               "load_average": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(figures))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()

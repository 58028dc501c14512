"""Documents at scale (issue 18): ingesting 1,000 Markdown files (≈ 5 MB) cold, re-ingesting them
unchanged, and recall at 10,000 memories of which 5,000 are document chunks.

The files are generated (headings, paragraphs, lists, code fences) from a fixed seed. The 10,000
store is the 5,000-note store built like bench/perf.py's (the `import` verb) plus the generated
documents' chunks. Each figure is a median and p95 over repeated runs.
Usage: python bench/ingest.py [--files 1000] [--runs N] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
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
from perf import ACTOR, QUERIES, commit_measured, sentence, stats  # noqa: E402

PROJECT = "bench/docs"
TOPICS = ["Storage", "Migrations", "Deploy", "Editors", "Agents", "Security", "Backups", "Search", "Billing",
          "Observability", "Releases", "Onboarding"]


def document(rng: random.Random, n: int) -> str:
    """A design document of ≈ 5 KB: a title, sections with paragraphs, a list and sometimes code."""
    parts = [f"# Design note {n}: {rng.choice(TOPICS)}\n"]
    for section in rng.sample(TOPICS, 4):
        parts.append(f"## {section}\n")
        for _ in range(rng.randint(2, 3)):
            parts.append(" ".join(sentence(rng, rng.randrange(10**6)) + "." for _ in range(rng.randint(4, 7))) + "\n")
        if rng.random() < 0.5:
            parts.append("\n".join(f"- {sentence(rng, rng.randrange(10**6))}" for _ in range(3)) + "\n")
        if rng.random() < 0.3:
            parts.append("```sh\ncenotaph ingest docs/\ncenotaph recall \"how are migrations applied\"\n```\n")
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--notes", type=int, default=5000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(18)
    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    analyzer.analyze("warm up")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        docs = root / "docs"
        docs.mkdir(parents=True)
        for n in range(args.files):
            (docs / f"note-{n:04}.md").write_text(document(rng, n), encoding="utf-8")
        size_mb = sum(p.stat().st_size for p in docs.iterdir()) / 1e6
        store = Store(Path(tmp) / "cenotaph.db")
        memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
        started, cpu = time.perf_counter(), time.process_time()
        cold = memory.ingest(ACTOR, [str(docs)], project=PROJECT, root=root)
        cold_seconds, cold_cpu = time.perf_counter() - started, time.process_time() - cpu
        rerun = []
        for _ in range(args.runs):
            started = time.perf_counter()
            report = memory.ingest(ACTOR, [str(docs)], project=PROJECT, root=root)
            rerun.append((time.perf_counter() - started) * 1000)
            assert report.chunks_added == report.chunks_updated == 0
        memory.import_memories(ACTOR, (ImportItem(sentence(rng, i)) for i in range(args.notes)), project=PROJECT)
        total = cold.chunks_added + args.notes
        recall = []
        for _ in range(args.runs):
            for query in QUERIES:
                started = time.perf_counter()
                memory.recall(ACTOR, query, project=PROJECT, k=10)
                recall.append((time.perf_counter() - started) * 1000)
        store.close()
    figures = {
        "commit": commit_measured(), "files": args.files, "megabytes": round(size_mb, 2), "chunks": cold.chunks_added,
        # CPU time beside wall time: on a shared machine it is what the ingest itself cost.
        "ingest_cold_seconds": round(cold_seconds, 2), "ingest_cold_cpu_seconds": round(cold_cpu, 2),
        "reingest_unchanged_ms": stats(rerun),
        "recall_ms": {"memories": total, "document_chunks": cold.chunks_added, **stats(recall)},
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

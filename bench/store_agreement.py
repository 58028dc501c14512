"""One answer on either store (issue 30): the LoCoMo development questions asked of the same
memories on SQLite and on PostgreSQL, and how often the two ranked lists agree.

The conversations are stored in a SQLite file (bench/locomo.py's ingestion: one project per
conversation, one memory per turn), then copied into a fresh PostgreSQL database by
`migrate-store`, so both hold the same rows, ids and vectors. Every question with resolvable
evidence is asked of both, in the shipped lane and in the BM25 lane alone; per question: the
top-10 lists identical (same memories, same order), the top-1 identical, and, where the top-1
differs, whether it is a tie (the two first scores equal to 6 decimals on either store).

The PostgreSQL server is the one at --url, else bench/pg_perf.py's own (scripts/pg.sh).
Usage: python bench/store_agreement.py [--conversations N] [--url postgresql://…] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import ACTOR, default_data, evidence_ids, ingest, known_turns, project_of  # noqa: E402
from perf import commit_measured  # noqa: E402
from pg_perf import drop_database, local_server, new_database  # noqa: E402

from cenotaph.app import open_store  # noqa: E402
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402

LANES = {"shipped": None, "bm25": "bm25"}
K = 10


def ranked(memory: Memory, question: str, project: str, lane: str | None) -> list[tuple[int, float]]:
    response = memory.recall(ACTOR, question, project=project, k=K, lane=lane, log=False)
    return [(r.id, r.score) for r in response.results if r.result_type == "memory"]


def compare(stores: dict[str, Memory], samples: list[dict]) -> dict:
    figures: dict[str, dict] = {}
    for name, lane in LANES.items():
        questions = same_top_k = same_top_1 = tied_top_1 = 0
        differing: list[dict] = []
        for sample in samples:
            known = known_turns(sample)
            for qa in sample["qa"]:
                if not evidence_ids(qa, known):
                    continue
                questions += 1
                lists = {store: ranked(memory, qa["question"], project_of(sample), lane)
                         for store, memory in stores.items()}
                on_sqlite, on_postgres = lists["sqlite"], lists["postgres"]
                same_top_k += [i for i, _ in on_sqlite] == [i for i, _ in on_postgres]
                if on_sqlite[:1] and on_postgres[:1] and on_sqlite[0][0] == on_postgres[0][0]:
                    same_top_1 += 1
                    continue
                tie = any(len(found) > 1 and round(found[0][1], 6) == round(found[1][1], 6)
                          for found in (on_sqlite, on_postgres))
                tied_top_1 += tie
                if len(differing) < 10:
                    differing.append({"question": qa["question"], "sqlite": on_sqlite[:3], "postgres": on_postgres[:3],
                                      "tie": tie})
        figures[name] = {
            "questions": questions, "top10_identical": round(same_top_k / questions, 4),
            "top1_identical": round(same_top_1 / questions, 4),
            "top1_differing": questions - same_top_1, "top1_differing_ties": tied_top_1, "examples": differing,
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    parser.add_argument("--url", help="a PostgreSQL server (URL without a database) whose user may create databases")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())
    if args.conversations:
        samples = samples[:args.conversations]
    embedder, analyzer = Embedder(), Analyzer()
    server = args.url or local_server()
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-agreement-"))
    url = new_database(server, "agreement")
    try:
        sqlite = Memory(Context(store=open_store(workdir / "locomo.db"), embedder=embedder, analyzer=analyzer))
        ingest(sqlite, samples)
        target = open_store(url)
        sqlite.migrate_store(target)
        target.close()
        stores = {"sqlite": sqlite, "postgres": Memory(Context(store=open_store(url), embedder=embedder,
                                                               analyzer=analyzer))}
        started = time.time()
        report = {"commit": commit_measured(), "conversations": len(samples),
                  "load": round(os.getloadavg()[0], 1), "figures": compare(stores, samples),
                  "seconds": round(time.time() - started)}
        for memory in stores.values():
            memory.ctx.store.close()
    finally:
        drop_database(url)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

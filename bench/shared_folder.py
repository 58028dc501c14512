"""Cost of the repository's shared folder (`.cenotaph/`, memory/team/folder.py) on the paths that run
often: the state check every live-refresh round and every graveyard lookup make (a stat of the
folder's files, nothing read when nothing changed), `check_approaches` and recall with the folder attached
against the same store without it, reading the whole folder and a pull that changes one file, and
the first recall, which embeds the shared memories (once per content, in this process).

Usage: python bench/shared_folder.py [--approaches 200] [--memories 50] [--runs 200] [--out figures.json]
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
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.memory.team.folder import (  # noqa: E402,E501
    SharedApproach,
    SharedNote,
    approach_path,
    load,
    memory_path,
    render_approach,
    render_note,
    write,
)
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store.db import Store  # noqa: E402
from perf import ACTOR, PROJECT, QUERIES, commit_measured, sentence, stats  # noqa: E402

SHARED_AT = "2026-03-01T12:00:00.000000Z"


def timed(call, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return stats(samples)


def fill(root: Path, approaches: int, notes: int, rng: random.Random) -> list[str]:
    names = [f"package-{i}" for i in range(approaches)]
    for name in names:
        path = approach_path("pypi", name)
        write(root, path, render_approach(SharedApproach(path=path, ecosystem="pypi", name=name, display_name=name,
                                                         reason=sentence(rng, 0), author="Ada",
                                                         shared_at=SHARED_AT)))
    for i in range(notes):
        content = sentence(rng, i)
        path = memory_path(content)
        write(root, path, render_note(SharedNote(path=path, kind="decision", content=content, author="Ada",
                                                 shared_at=SHARED_AT)))
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--approaches", type=int, default=200)
    parser.add_argument("--memories", type=int, default=50)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    analyzer.analyze("warm up")
    report: dict = {"commit": commit_measured(), "approaches": args.approaches, "memories": args.memories}
    with tempfile.TemporaryDirectory(prefix="cenotaph-shared-") as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        rng = random.Random(14)
        names = fill(root, args.approaches, args.memories, rng)
        store = Store(Path(folder) / "cenotaph.db")
        memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
        for i in range(100):
            memory.remember(ACTOR, sentence(rng, 1000 + i), project=PROJECT, force=True)
        lookup = [names[0], "requests", "numpy", names[-1]]
        queries = iter(QUERIES * args.runs)  # a new query each time: each recall embeds its query

        def recall() -> None:
            memory.recall(ACTOR, next(queries), project=PROJECT, log=False)

        for query in QUERIES:  # warm the store's pages and the analyzer
            memory.recall(ACTOR, query, project=PROJECT, log=False)
        report["recall_without_folder"] = timed(recall, max(10, args.runs // 10))
        report["check_without_folder"] = timed(lambda: memory.check_approaches(lookup, project=PROJECT), args.runs)
        memory.attach_repositories([(root, PROJECT)])
        report["refresh_unchanged"] = timed(memory.shared.refresh, args.runs)
        report["check_with_folder"] = timed(lambda: memory.check_approaches(lookup, project=PROJECT), args.runs)
        report["read_whole_folder"] = timed(lambda: load(root, PROJECT), max(10, args.runs // 10))
        edited = root / approach_path("pypi", names[0])

        def pull_one_change() -> None:
            # A pull that changes one file: its size moves, the other files are not read again.
            edited.write_text(edited.read_text() + "\n")
            assert memory.shared.refresh()

        report["refresh_one_file_changed"] = timed(pull_one_change, max(10, args.runs // 10))
        start = time.perf_counter()
        recall()
        report["first_recall_embedding_shared_ms"] = round((time.perf_counter() - start) * 1000, 2)
        report["recall_with_folder"] = timed(recall, max(10, args.runs // 10))
        store.close()
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

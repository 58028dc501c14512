"""Speed of anchors in the editor and in recall (issue 41).

(a) Following: 10 open Python files of a git repository, 100 anchored memories each (1,000 in the
open files). Lines are inserted and deleted above anchors (one line typed in, then removed, at a
random blank line between functions of a random open file); each `textDocument/didChange` goes
through the real language server in this process (`lsp/server.py`'s `build`, the message
structured and dispatched by pygls as it arrives from stdio: the document's text updated, then
Cenotaph's handler). Per change: the whole dispatch, and the part spent in `anchors.edited`.
Also timed: `didOpen` of a file with 100 anchors (the anchors read and checked, the diagnostics
published) and the write-back after typing stops (`Memory.follow_edits` over a file's anchors).

(b) Recall: k = 10 over the same store (every memory anchored), with the anchors of the results
re-checked against the working tree (`Memory.recall`) and without (a `Recaller` without
`annotate`), alternated query by query.

    .venv/bin/python bench/anchors_speed.py [--changes 400] [--recalls 200] [--out figures.json]

Before and after: run it again with `PYTHONPATH=<an older commit's server/>`, alternated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cenotaph.lsp.features import anchors
from cenotaph.lsp.server import build
from cenotaph.memory.context import Context
from cenotaph.memory.core.recall import Recaller
from cenotaph.memory.knowledge.anchors.follow import Place
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store
from perf import ACTOR, PROJECT, QUERIES, commit_measured, percentile, sentence

FILES = 10
FUNCTIONS = 100  # per file, each anchored
BODY = 7  # lines of a function after its `def`


def stats(samples: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(samples), 4), "p95_ms": round(percentile(samples, 0.95), 4),
            "runs": len(samples)}


def source(file: int) -> str:
    """FUNCTIONS functions of 1 + BODY lines, a blank line after each."""
    lines = ["import math", ""]
    for f in range(FUNCTIONS):
        lines.append(f"def f{file}_{f}(x, y={f}):")
        lines += [f"    v{k} = math.sqrt(x * {k + f} + y)  # step {k}" for k in range(BODY - 1)]
        lines += [f"    return v0 + {file * FUNCTIONS + f}", ""]
    return "\n".join(lines) + "\n"


def def_line(f: int) -> int:
    """The 1-based line of function `f`'s `def` in an unedited file."""
    return 3 + f * (BODY + 2)


def repository(root: Path) -> list[Path]:
    root.mkdir()
    (root / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    files = []
    for i in range(FILES):
        path = root / f"module_{i}.py"
        path.write_text(source(i), encoding="utf-8")
        files.append(path)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@x"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    return files


def anchor_all(memory: Memory, files: list[Path]) -> int:
    rng = random.Random(41)
    stored = 0
    for i, path in enumerate(files):
        for f in range(FUNCTIONS):
            n = i * FUNCTIONS + f
            result = memory.remember(ACTOR, f"f{i}_{f}: {sentence(rng, n)}", project=PROJECT, force=True,
                                     at=Place(str(path), def_line(f), def_line(f) + BODY))
            stored += result.stored
    return stored


def held(document) -> list:
    """An open document's anchors, and each one's lines as held: the bench also runs on the
    server before `OpenAnchors.items` (`PYTHONPATH=<its server/>`), which held store rows."""
    items = getattr(document, "items", None)
    if items is None:
        return [(r, (r.start_line, r.end_line)) for r in document.rows]
    return [(i, (i.anchor.start_line, i.anchor.end_line)) for i in items]


def dispatch(ls, method: str, params: dict) -> float:
    """One notification as the server's stdio reader hands it over; milliseconds."""
    start = time.perf_counter()
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": method, "params": params}))
    return (time.perf_counter() - start) * 1000


async def following(memory: Memory, root: Path, files: list[Path], changes: int) -> dict:
    ls = build(memory, project=PROJECT)
    ls.protocol.set_writer(_Discard())
    ls.protocol._workspace = Workspace(root.as_uri(), types.TextDocumentSyncKind.Incremental,
                                       [types.WorkspaceFolder(uri=root.as_uri(), name="app")])
    ls.refresh_folders()
    open_ms, opened_ms = [], []
    opened = anchors.opened

    def timed_opened(*args):  # the anchors' share of a didOpen: read and checked
        start = time.perf_counter()
        opened(*args)
        opened_ms.append((time.perf_counter() - start) * 1000)

    anchors.opened = timed_opened
    for path in files:
        open_ms.append(dispatch(ls, "textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text(encoding="utf-8")}}))
    anchors.opened = opened
    assert sum(len(held(d)) for d in ls.anchored.values()) == FILES * FUNCTIONS, "every anchor is in an open file"

    spent: list[float] = []
    edited = anchors.edited

    def timed_edited(*args):  # the handler's share of each dispatch
        start = time.perf_counter()
        edited(*args)
        spent.append((time.perf_counter() - start) * 1000)

    anchors.edited = timed_edited
    rng = random.Random(7)
    versions = dict.fromkeys(files, 1)
    change_ms = []
    try:
        for i in range(changes):
            path = rng.choice(files)
            line = def_line(rng.randrange(1, FUNCTIONS)) - 2  # 0-based: the blank line above a function
            versions[path] += 1
            insert = {"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                      "text": f"# typed {i}\n"}
            remove = {"range": {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}},
                      "text": ""}
            for change in (insert, remove):
                versions[path] += 1
                change_ms.append(dispatch(ls, "textDocument/didChange", {
                    "textDocument": {"uri": path.as_uri(), "version": versions[path]}, "contentChanges": [change]}))
            await asyncio.sleep(0)  # the loop runs between changes, as between keystrokes
    finally:
        anchors.edited = edited
    for path in files:  # the edits undone: every anchor back where it was
        document = ls.anchored[path.as_uri()]
        assert all(document.places[a.memory_id] == lines for a, lines in held(document))
    # The write-back after typing stops: one file's anchors judged against its text, off the loop.
    document, text = ls.anchored[files[0].as_uri()], files[0].read_text(encoding="utf-8").splitlines()
    write_back_ms = []
    for _ in range(20):
        start = time.perf_counter()
        memory.follow_edits([a for a, _ in held(document)], text, dict(document.places))
        write_back_ms.append((time.perf_counter() - start) * 1000)
    for path in files:
        dispatch(ls, "textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
    return {"anchors_in_open_files": FILES * FUNCTIONS, "didChange_dispatch": stats(change_ms),
            "of_which_anchors_edited": stats(spent), "didOpen_100_anchors": stats(open_ms),
            "of_which_anchors_opened": stats(opened_ms),
            "write_back_100_anchors": stats(write_back_ms)}


def recall(memory: Memory, runs: int) -> dict:
    plain = Recaller(memory.ctx, memory.graveyard)  # the same recall, its anchors not re-checked
    checked_ms, plain_ms, annotate_ms = [], [], []
    for q in QUERIES:  # warm: model, spaCy, caches
        memory.recall(ACTOR, q, project=PROJECT, k=10, log=False)
        plain.recall(ACTOR, q, project=PROJECT, k=10, log=False)
    annotate = memory.recaller.annotate

    def timed_annotate(results):  # the re-check itself, inside the recall it is part of
        start = time.perf_counter()
        annotated = annotate(results)
        annotate_ms.append((time.perf_counter() - start) * 1000)
        return annotated

    memory.recaller.annotate = timed_annotate
    anchored = 0
    for i in range(runs):
        query = QUERIES[i % len(QUERIES)]
        order = ((memory.recall, checked_ms), (plain.recall, plain_ms))
        for call, samples in order if i % 2 == 0 else reversed(order):
            start = time.perf_counter()
            response = call(ACTOR, query, project=PROJECT, k=10, log=False)
            samples.append((time.perf_counter() - start) * 1000)
            if samples is checked_ms:
                anchored += sum(r.anchor is not None for r in response.results)
    return {"k": 10, "anchored_results_per_recall": round(anchored / runs, 1), "with_anchors_checked": stats(checked_ms),
            "without": stats(plain_ms), "of_which_annotate": stats(annotate_ms),
            "added_median_ms": round(statistics.median(checked_ms) - statistics.median(plain_ms), 3),
            "added_p95_ms": round(percentile(checked_ms, 0.95) - percentile(plain_ms, 0.95), 3)}


class _Discard:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--changes", type=int, default=400, help="lines typed and removed (two didChange each)")
    parser.add_argument("--recalls", type=int, default=200, help="recalls of each kind, alternated")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "app"
        files = repository(root)
        store = Store(Path(tmp) / "store.db")
        memory = Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer()))
        memory.attach_repositories([(root, PROJECT)])
        assert anchor_all(memory, files) == FILES * FUNCTIONS
        report = {"commit": commit_measured(), "load_before": [round(x, 2) for x in os.getloadavg()],
                  "following": asyncio.run(following(memory, root, files, args.changes)),
                  "recall": recall(memory, args.recalls),
                  "load_after": [round(x, 2) for x in os.getloadavg()]}
        store.close()
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

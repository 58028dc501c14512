"""The team store on PostgreSQL beside the SQLite file, in the same run on the same machine:
remember and recall (semantic and exact lane) over the same memories, the samples alternating
between the two stores so that both see the same load; how long `migrate-store` took to copy the
SQLite store there; and two editors on one PostgreSQL database (two `cenotaph serve` processes,
each with its own home) seeing an abandon written by another client (write committed → diagnostics
republished in the open document).

The SQLite stores are bench/perf.py's (built once by the import verb, cached); each is copied into
a fresh PostgreSQL database by `migrate-store`, so both hold the same rows and vectors. The server is
the one at --url, else a local one started by scripts/pg.sh (as `make pg-up`) on its own port.
Usage: python bench/pg_perf.py [--sizes 10000,100000] [--runs N] [--url postgresql://…] [--out figures.json]
       [--sqlite-store PATH --sizes N]  (a store built elsewhere, of N memories)
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
import uuid
from pathlib import Path

import psycopg
from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import ACTOR, CAUSES, PROJECT, QUERIES, SUBJECTS, cached_store, commit_measured, snapshot, stats  # noqa: E402

from cenotaph.app import open_store  # noqa: E402
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store.postgres.connection import PgCursor  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
BENCH_PORT = "55437"


def local_server() -> str:
    """A PostgreSQL of the benchmark's own (scripts/pg.sh); its URL without a database."""
    env = dict(os.environ, VENV=str(Path(sys.executable).parents[1]), PGDEV_PORT=BENCH_PORT,
               PGDEV_DIR=f"/tmp/cenotaph-pgbench-{os.getuid()}", PGDEV_PASSWORD="cenotaph-bench")
    started = subprocess.run(["bash", str(REPO / "scripts" / "pg.sh"), "start"], env=env, capture_output=True,
                             text=True, check=True)
    return started.stdout.strip().removeprefix("CENOTAPH_STORE=").rsplit("/", 1)[0]


def new_database(server: str, label: str) -> str:
    name = f"bench_{label}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"{server}/{name}"


def drop_database(url: str) -> None:
    server, name = url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def side_by_side(calls: dict[str, callable], runs: int) -> dict[str, dict[str, float]]:
    """Each call `runs` times, alternating between them sample by sample."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(runs):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: stats(values) for name, values in samples.items()}


def statements_per_recall(memory: Memory, queries: list[str]) -> dict[str, float]:
    """Round trips to the server per recall (each statement is one; psycopg counts none itself)."""
    counts, execute = [], PgCursor.execute

    def counted(self, *args, **kwargs):
        counted.n += 1
        return execute(self, *args, **kwargs)

    PgCursor.execute = counted
    try:
        for query in queries:
            counted.n = 0
            memory.recall(ACTOR, query, project=PROJECT, k=10, log=False)
            counts.append(counted.n)
    finally:
        PgCursor.execute = execute
    return {"median": statistics.median(counts), "max": max(counts)}


def bench_size(size: int, runs: int, server: str, embedder: Embedder, analyzer: Analyzer, workdir: Path,
               source: Path | None = None) -> dict:
    path = workdir / f"run-{size}.db"
    snapshot(source or cached_store(size, embedder, analyzer), path)
    url = new_database(server, str(size))
    memories = {"sqlite": Memory(Context(store=open_store(path), embedder=embedder, analyzer=analyzer))}
    target = open_store(url)
    started = time.perf_counter()
    copied = memories["sqlite"].migrate_store(target)
    migrate_s = time.perf_counter() - started
    target.close()
    memories["postgres"] = Memory(Context(store=open_store(url), embedder=embedder, analyzer=analyzer))
    for memory in memories.values():
        memory.recall(ACTOR, QUERIES[0], project=PROJECT, log=False)  # warm caches and spaCy
    rng = random.Random(7)
    counter = iter(range(10**9))

    def recall(memory):
        return lambda: memory.recall(ACTOR, rng.choice(QUERIES), project=PROJECT, k=10)

    def exact(memory):
        return lambda: memory.recall(ACTOR, "staging_database.py", project=PROJECT, k=10)

    def remember(memory):
        return lambda: memory.remember(ACTOR, f"Benchmark sentence {next(counter)} about {rng.choice(SUBJECTS)} "
                                              f"and {rng.choice(CAUSES)}", project=PROJECT)

    figures: dict = {"memories": size, "migrate_store_seconds": round(migrate_s, 1),
                     "migrate_store_rows": sum(t.inserted for t in copied.tables)}
    for label, make in (("recall", recall), ("recall_exact", exact), ("remember", remember)):
        measured = side_by_side({store: make(memory) for store, memory in memories.items()}, runs)
        figures[label] = measured
        figures[label]["postgres_over_sqlite"] = round(measured["postgres"]["median_ms"]
                                                       / measured["sqlite"]["median_ms"], 2)
    figures["postgres_statements_per_recall"] = statements_per_recall(
        memories["postgres"], [*QUERIES, "staging_database.py"])
    for memory in memories.values():
        memory.ctx.store.close()
    drop_database(url)
    path.unlink()
    figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return figures


async def two_editors(server: str, embedder: Embedder, analyzer: Analyzer, workdir: Path, runs: int) -> dict:
    """Two `cenotaph serve` processes (two homes: two machines' editors) on one database, each with
    a requirements.txt open; another client abandons one of its names at a time; the time from
    that write's commit to each editor's republished diagnostics."""
    url = new_database(server, "editors")
    writer = Memory(Context(store=open_store(url), embedder=embedder, analyzer=analyzer))
    writer.abandon(ACTOR, "warm-up-package", reason="the first write creates the schema's vectors", project=PROJECT)
    text = "".join(f"fresh-{i}\n" for i in range(runs))
    editors = []
    for name in ("ada", "grace"):
        folder = workdir / name / "app"
        folder.mkdir(parents=True)
        (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
        (folder / "requirements.txt").write_text(text)
        env = dict(os.environ, CENOTAPH_HOME=str(workdir / name / "home"), XDG_STATE_HOME=str(workdir / name / "state"))
        client = LanguageClient("bench", "1")
        published: list[tuple[float, int]] = []
        client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(
            lambda params, published=published: published.append((time.perf_counter(), len(params.diagnostics))))
        await client.start_io(CENOTAPH, "serve", "--db", url, env=env)
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), process_id=os.getpid(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="app")]))
        client.initialized(types.InitializedParams())
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=(folder / "requirements.txt").as_uri(), language_id="pip-requirements", version=1, text=text)))
        editors.append((name, client, published))

    async def until(published: list, count: int, deadline: float) -> float | None:
        while time.perf_counter() < deadline:
            if published and published[-1][1] == count:
                return published[-1][0]
            await asyncio.sleep(0.001)
        return None

    for _, _, published in editors:
        assert await until(published, 0, time.perf_counter() + 60) is not None, "no first diagnostics"
    await asyncio.sleep(10)  # the models finish loading: steady state
    samples: dict[str, list[float]] = {name: [] for name, _, _ in editors}
    missed = 0
    for i in range(runs):
        start = time.perf_counter()
        writer.graveyard.abandon(ACTOR, f"fresh-{i}", reason="benchmark write", project=PROJECT)
        for name, _, published in editors:
            seen = await until(published, i + 1, start + 5)
            if seen is None:
                missed += 1
            else:
                samples[name].append((seen - start) * 1000)
    for _, client, _ in editors:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    writer.ctx.store.close()
    drop_database(url)
    every = [s for values in samples.values() for s in values]
    return {"abandon_to_other_editor": stats(every), **{f"editor_{n}": stats(v) for n, v in samples.items()},
            "within_1s_share": round(sum(1 for s in every if s <= 1000) / max(len(every), 1), 3),
            "missed_within_5s": missed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--editor-runs", type=int, default=40, help="0: leave the two editors out")
    parser.add_argument("--url", help="a PostgreSQL server (URL without a database) whose user may create databases")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--sqlite-store", type=Path, help="measure this SQLite store (one size: its own) instead of "
                        "bench/perf.py's, e.g. the synthetic 100,000 of `bench/console_perf.py --synthetic --store`")
    args = parser.parse_args()
    server = args.url or local_server()
    embedder, analyzer = Embedder(), Analyzer()
    embedder.embed_one("warm up")
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-pgbench-"))
    report = {"commit": commit_measured(), "cores": os.cpu_count(), "model": embedder.model_name, "sizes": []}
    with psycopg.connect(f"{server}/postgres") as conn:
        report["postgres"] = conn.execute("SHOW server_version").fetchone()[0]
        report["pgvector"] = conn.execute("SELECT default_version FROM pg_available_extensions "
                                          "WHERE name = 'vector'").fetchone()[0]
    for size in (int(s) for s in args.sizes.split(",")):
        figures = bench_size(size, args.runs, server, embedder, analyzer, workdir, args.sqlite_store)
        report["sizes"].append(figures)
        print(json.dumps(figures), flush=True)
    if args.editor_runs:
        report["two_editors"] = asyncio.run(two_editors(server, embedder, analyzer, workdir, args.editor_runs))
        print(json.dumps(report["two_editors"]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

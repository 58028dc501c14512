"""didOpen → publishDiagnostics over a real repository's files, each opened once: the tail
(p95) a person meets when opening files one after another, not one file opened again and again.

Files of every scanned kind are taken from trees on this machine (by default the benchmark's
own virtual environment's site-packages, npm's own node_modules when present, and this
repository) and copied into a workspace folder; the graveyard holds one in ten of the names they
import or declare, so that some files get diagnostics. The real `cenotaph serve` process is
driven over stdio: the first opens right after `initialized` (while the model and spaCy load),
then every file once the server has settled. Two servers run side by side, stdin read on the
event loop (as `cenotaph serve` does) and through pygls's thread pool (as it did), each file
opened on both in turn, so that the machine's load falls on both alike. With --gc-stats the same opens are also run in
this process, with the model and spaCy loaded, timing every garbage collection that falls inside
an open.

Usage: python bench/lsp_open_files.py [--files 600] [--roots DIR,DIR] [--rounds 2] [--out figures.json]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shutil
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import ACTOR, PROJECT, commit_measured, percentile  # noqa: E402  (bench/ is not a package)

from cenotaph.nlp.detect import detect  # noqa: E402
from cenotaph.nlp.ecosystems import document_kind  # noqa: E402

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
REPO = Path(__file__).resolve().parent.parent
MAX_BYTES = 300_000
COLD_OPENS = 30
GRAVEYARD_SHARE = 10  # one name in ten


def default_roots() -> list[Path]:
    roots = [Path(sysconfig.get_paths()["purelib"]), REPO]
    npm = Path("/usr/lib/node_modules/npm")
    return [npm, *roots] if npm.is_dir() else roots


def collect(roots: list[Path], count: int, rng: random.Random) -> list[tuple[Path, Path]]:
    """(source, path relative to the workspace) of up to `count` files, mixed across roots and
    kinds: each kind gets its share, the rest goes to Python and JavaScript."""
    by_kind: dict[str, list[tuple[Path, Path]]] = {}
    for index, root in enumerate(roots):
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = sorted(d for d in subdirectories if d not in (".git", "__pycache__", ".venv"))
            for name in sorted(files):
                source = Path(directory) / name
                kind = document_kind(str(source))
                if kind is None or source.is_symlink():
                    continue
                try:
                    size = source.stat().st_size
                except OSError:
                    continue
                if 0 < size <= MAX_BYTES:
                    by_kind.setdefault(kind, []).append((source, Path(f"tree{index}") / source.relative_to(root)))
    chosen: list[tuple[Path, Path]] = []
    share = max(1, count // (2 * len(by_kind)))
    main_kinds = [kind for kind in ("python", "javascript") if kind in by_kind]
    for kind, files in by_kind.items():  # every other kind up to its share
        if kind not in main_kinds:
            chosen += rng.sample(files, min(len(files), share))
    for i, kind in enumerate(main_kinds):  # the rest, code, split evenly
        take = (count - len(chosen)) // (len(main_kinds) - i)
        chosen += rng.sample(by_kind[kind], min(len(by_kind[kind]), take))
    rng.shuffle(chosen)
    return chosen


def prepare(workdir: Path, files: list[tuple[Path, Path]]) -> tuple[Path, list[tuple[Path, str]]]:
    folder = workdir / "app"
    folder.mkdir()
    (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
    opened = []
    for source, relative in files:
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        opened.append((target, text))
    return folder, opened


def graveyard_names(opened: list[tuple[Path, str]], rng: random.Random) -> list[tuple[str, str]]:
    """(name, ecosystem): one in ten of the distinct names the files import or declare."""
    found = sorted({(m.key, m.ecosystem) for path, text in opened for m in detect(str(path), text)
                    if m.ecosystem != "other" and len(m.key) <= 300})
    return rng.sample(found, max(1, len(found) // GRAVEYARD_SHARE))


def build_store(db: Path, names: list[tuple[str, str]]) -> None:
    from cenotaph.memory.context import Context
    from cenotaph.memory.service import Memory
    from cenotaph.nlp.analysis import Analyzer
    from cenotaph.nlp.embedder import Embedder
    from cenotaph.store.db import Store

    store = Store(db)
    memory = Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer()))
    for name, ecosystem in names:
        memory.graveyard.abandon(ACTOR, name, reason="benchmark entry", project=PROJECT, ecosystem=ecosystem)
    store.close()


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"median_ms": round(ordered[len(ordered) // 2], 2), "p95_ms": round(percentile(samples, 0.95), 2),
            "max_ms": round(ordered[-1], 2), "runs": len(samples)}


# The server as it read stdin before (pygls's reader, through its thread pool), for the figures
# before and after in one run.
THREADED_READER = (
    "import sys; from cenotaph.lsp import stdio; "
    "stdio.serve = lambda server, stdin, stdout: server.start_io(stdin, stdout); "
    "from cenotaph.cli import main; sys.argv[0] = 'cenotaph'; sys.exit(main())"
)
READERS = {"loop": [CENOTAPH], "threaded": [sys.executable, "-c", THREADED_READER]}


class Served:
    """One `cenotaph serve` process and the client that drives it."""

    def __init__(self, reader: str) -> None:
        self.reader = reader
        self.client = LanguageClient("bench", "1")
        self.published: dict[str, float] = {}
        self.arrived = asyncio.Event()  # waited on, not polled: a polling client takes a core from the server

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, time.perf_counter())
            self.arrived.set()

    async def start(self, db: Path, folder: Path) -> None:
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = str(db.parent / "cache")
        await self.client.start_io(*READERS[self.reader], "serve", "--db", str(db), env=env)
        await self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), process_id=os.getpid(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="app")]))
        self.client.initialized(types.InitializedParams())

    async def open(self, path: Path, text: str) -> float:
        """didOpen → publishDiagnostics in ms; the document is closed again."""
        uri = path.as_uri()
        self.arrived.clear()
        start = time.perf_counter()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="x", version=1, text=text)))
        while uri not in self.published:
            await self.arrived.wait()
            self.arrived.clear()
        elapsed = (self.published.pop(uri) - start) * 1000
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        return elapsed

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.client._server.pid}/stat").read_text().rsplit(")", 1)[1].split()  # type: ignore[union-attr]
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def client_side(db: Path, folder: Path, opened: list[tuple[Path, str]], readers: list[str]) -> dict:
    """Every reader's server at once, each file opened on each in turn (the order alternating),
    so that the machine's load at that moment falls on all of them alike. The servers start one
    after the other, in the order given: a later one's first opens meet the earlier one loading."""
    servers = [Served(reader) for reader in readers]
    samples: dict[str, dict[str, list[tuple[float, Path]]]] = {r: {"first": [], "steady": []} for r in readers}
    cpu: dict[str, float] = {}
    for served in servers:  # one after the other: each server's first opens meet its own start
        await served.start(db, folder)
        for path, text in opened[:COLD_OPENS]:
            samples[served.reader]["first"].append((await served.open(path, text), path))
    await asyncio.sleep(20)  # the model and spaCy have loaded: steady state
    before = {served.reader: served.cpu_seconds() for served in servers}
    for i, (path, text) in enumerate(opened[COLD_OPENS:]):
        for served in servers if i % 2 == 0 else servers[::-1]:
            samples[served.reader]["steady"].append((await served.open(path, text), path))
    for served in servers:
        cpu[served.reader] = served.cpu_seconds() - before[served.reader]
        await served.stop()
    report = {}
    for reader, runs in samples.items():
        steady = runs["steady"]
        slowest = sorted(steady, key=lambda sample: sample[0], reverse=True)[:5]
        report[reader] = {
            "first_opens": summary([ms for ms, _ in runs["first"]]), "steady": summary([ms for ms, _ in steady]),
            "server_cpu_ms_per_open": round(cpu[reader] * 1000 / len(steady), 2),
            "slowest": [(round(ms, 1), str(path.relative_to(folder)), len(path.read_bytes())) for ms, path in slowest]}
    return report


def in_process(db: Path, folder: Path, opened: list[tuple[Path, str]]) -> dict:
    """The same opens through the feature code in this process, the model and spaCy loaded as
    in the server, with each garbage collection's pause timed."""
    from pygls.workspace import Workspace

    from cenotaph.lsp.features import diagnostics
    from cenotaph.lsp.server import build
    from cenotaph.memory.context import Context
    from cenotaph.memory.service import Memory
    from cenotaph.nlp.analysis import Analyzer
    from cenotaph.nlp.embedder import Embedder
    from cenotaph.store.db import Store

    class Discard:
        def write(self, data: bytes) -> None:
            pass

        def close(self) -> None:
            pass

    store = Store(db)
    memory = Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer()))
    ls = build(memory)
    ls.protocol.set_writer(Discard())
    ls.protocol._workspace = Workspace(folder.as_uri(), types.TextDocumentSyncKind.Incremental,
                                       [types.WorkspaceFolder(uri=folder.as_uri(), name="app")])
    ls.refresh_folders()
    memory.recall(ACTOR, "warm the model", project=PROJECT)  # the embedding model loaded, as in a server
    memory.ctx.analyzer.analyze("Use spaCy now.")
    pauses: list[float] = []
    started: list[float] = []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append((time.perf_counter() - started.pop()) * 1000)

    gc.callbacks.append(on_gc)
    samples, gc_in_open = [], []
    try:
        for path, text in opened:
            uri = path.as_uri()
            before = len(pauses)
            start = time.perf_counter()
            ls.workspace.put_text_document(types.TextDocumentItem(uri=uri, language_id="x", version=1, text=text))
            diagnostics.publish(ls, uri)
            samples.append((time.perf_counter() - start) * 1000)
            gc_in_open.append(sum(pauses[before:]))
            ls.workspace.remove_text_document(uri)
            diagnostics.forget(ls, uri)
    finally:
        gc.callbacks.remove(on_gc)
    store.close()
    tail = sorted(range(len(samples)), key=samples.__getitem__)[int(len(samples) * 0.95):]
    return {"opens": summary(samples), "gc_pauses": summary(pauses) if pauses else None,
            "tail_opens_with_gc_ms": [round(gc_in_open[i], 1) for i in tail],
            "tail_opens_ms": [round(samples[i], 1) for i in tail],
            "objects_tracked": len(gc.get_objects()), "gc_frozen": gc.get_freeze_count()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--roots", help="comma-separated trees to take files from")
    parser.add_argument("--gc-stats", action="store_true", help="also open the files in this process, timing GC")
    parser.add_argument("--readers", default="threaded,loop",
                        help="how the server reads stdin: loop (cenotaph's), threaded (pygls's, before)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(7)
    roots = [Path(r) for r in args.roots.split(",")] if args.roots else default_roots()
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-open-files-"))
    try:
        folder, opened = prepare(workdir, collect(roots, args.files, rng))
        names = graveyard_names(opened, rng)
        db = workdir / "store.db"
        build_store(db, names)
        report = {"commit": commit_measured(), "files": len(opened), "graveyard": len(names),
                  "kinds": dict(Counter(document_kind(str(path)) for path, _ in opened)), "client_side": {}}
        for round_ in range(args.rounds):
            readers = args.readers.split(",")
            figures = asyncio.run(client_side(db, folder, opened, readers if round_ % 2 == 0 else readers[::-1]))
            report["client_side"][f"round_{round_ + 1}"] = figures
            for reader, those in figures.items():
                print(f"round {round_ + 1} {reader}: first opens {those['first_opens']}; steady {those['steady']}; "
                      f"server CPU per open {those['server_cpu_ms_per_open']} ms", flush=True)
        if args.gc_stats:
            report["in_process"] = in_process(db, folder, opened)
        report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()

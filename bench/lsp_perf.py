"""Speed of the language server, with 1,000 graveyard entries over stores of 1,000, 10,000 and
100,000 memories.

Server-side (in this process, the real feature code; the protocol writer discards the bytes):
didOpen → publishDiagnostics for a 2,000-line Python file and a 2,000-line requirements.txt
(a fresh document version each run, so detection always runs), the part of it spent in
detection, and hover. Client-observed (the real `cenotaph serve` process over stdio): `initialize`
answered after process start, didOpen → publishDiagnostics, recall from the editor (the
`cenotaph/recall` request both editor clients send) beside what they did before (a `cenotaph
recall --json` process each time), a write by another process → diagnostics republished, recall
over the MCP endpoint the server serves (Streamable HTTP), and the server's CPU use while idle.

The stores are bench/perf.py's (built once by the import verb, cached). Usage:
python bench/lsp_perf.py [--sizes 1000,10000,100000] [--runs N] [--out figures.json]
python bench/lsp_perf.py --startup-only --runs N [--against ../main/.venv/bin/cenotaph]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import (  # noqa: E402  (bench/ is not a package)
    ACTOR, PROJECT, QUERIES, cached_store, commit_measured, percentile, snapshot, write_report,
)

from cenotaph.lsp.features import diagnostics  # noqa: E402
from cenotaph.lsp.server import build  # noqa: E402
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.detect import detect  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from cenotaph.store.db import Store  # noqa: E402

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
# The floor `initialize` is measured against: a pygls server with no feature, started the same way.
BARE_SERVER = "from pygls.lsp.server import LanguageServer\nLanguageServer('bare', '1').start_io()\n"
GRAVEYARD = 1000
LINES = 2000


def stats(samples: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(samples), 2), "p95_ms": round(percentile(samples, 0.95), 2),
            "runs": len(samples)}


def python_file(rng: random.Random) -> str:
    """2,000 lines: 200 imports (50 of abandoned packages), the rest code, strings and comments."""
    lines = []
    for i in range(LINES):
        if i % 10 == 0:
            name = f"dead_package_{rng.randrange(GRAVEYARD)}" if i % 40 == 0 else f"live_package_{i}"
            lines.append(f"import {name} as m{i}" if i % 20 else f"from {name}.sub import thing_{i}")
        elif i % 10 == 5:
            lines.append(f"    # a comment about package {i}: import nothing here")
        else:
            lines.append(f"    value_{i} = compute('string {i}', other=\"{i}\", flag=True)")
    return "\n".join(lines) + "\n"


def requirements_file(rng: random.Random) -> str:
    """2,000 requirement lines, one in ten naming an abandoned package."""
    return "".join(f"dead-package-{rng.randrange(GRAVEYARD)}=={i}.0  # pinned\n" if i % 10 == 0 else
                   f"live-package-{i}>=1.{i}\n" for i in range(LINES))


class _Discard:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def server_side(memory: Memory, folder: Path, texts: dict[str, str], runs: int) -> dict:
    ls = build(memory)
    ls.protocol.set_writer(_Discard())
    ls.protocol.client_capabilities = types.ClientCapabilities()  # as `initialize` leaves them (the lenses ask)
    ls.protocol._workspace = Workspace(folder.as_uri(), types.TextDocumentSyncKind.Incremental,
                                       [types.WorkspaceFolder(uri=folder.as_uri(), name="app")])
    ls.refresh_folders()
    hover = ls.protocol.fm.features[types.TEXT_DOCUMENT_HOVER]
    figures: dict = {}
    for name, text in texts.items():
        uri = (folder / name).as_uri()
        open_samples, detect_samples = [], []
        for version in range(runs):
            start = time.perf_counter()
            ls.workspace.put_text_document(types.TextDocumentItem(uri=uri, language_id="x", version=version,
                                                                  text=text))
            diagnostics.publish(ls, uri)
            open_samples.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            detect(str(folder / name), text)
            detect_samples.append((time.perf_counter() - start) * 1000)
        flagged = ls.published[uri]
        hover_samples = []
        for i in range(runs * 5):
            at = flagged[i % len(flagged)].range.start
            params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri),
                                       position=types.Position(line=at.line, character=at.character + 1))
            start = time.perf_counter()
            assert hover(params) is not None
            hover_samples.append((time.perf_counter() - start) * 1000)
        figures[name] = {"diagnostics": len(flagged), "didOpen_to_publish": stats(open_samples),
                         "of_which_detection": stats(detect_samples), "hover": stats(hover_samples)}
    return figures


def server_env(workdir: Path) -> dict[str, str]:
    """The servers' environment: the model link in a cache of their own, not the user's; and
    bytecode written and read in a folder of its own (whatever PYTHONDONTWRITEBYTECODE says), as an
    installed server runs, without writing into any checkout."""
    env = dict(os.environ, XDG_CACHE_HOME=str(workdir / "cache"), PYTHONPYCACHEPREFIX=str(workdir / "bytecode"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


async def client_side(db: Path, folder: Path, text: str, writer: Memory, runs: int) -> dict:
    env = server_env(db.parent)
    await bare_initialize(env)  # writes the bytecode of both servers: not counted
    await initialize_after_start([CENOTAPH, "serve", "--db", str(db)], env, folder)
    initialize_ms, bare_ms = [], []
    for attempt in range(runs):
        bare_ms.append(await bare_initialize(env))  # alternated: both under the same load
        client = LanguageClient("bench", "1")
        published: dict[str, list[tuple[float, int]]] = {}

        endpoint: dict[str, str] = {}

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            published.setdefault(params.uri, []).append((time.perf_counter(), len(params.diagnostics)))

        @client.feature("cenotaph/mcpEndpoint")
        def on_endpoint(params) -> None:  # where the server serves MCP over Streamable HTTP
            endpoint.update(url=params.url, token=params.token)

        start = time.perf_counter()
        await client.start_io(CENOTAPH, "serve", "--db", str(db), env=env)
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), process_id=os.getpid(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="app")]))
        initialize_ms.append((time.perf_counter() - start) * 1000)
        client.initialized(types.InitializedParams())
        if attempt < runs - 1:
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()
    pid = client._server.pid  # type: ignore[union-attr]

    async def until_published(uri: str, count: int, condition=lambda n: True) -> float:
        while len(published.get(uri, ())) < count or not condition(published[uri][-1][1]):
            await asyncio.sleep(0.001)
        return published[uri][-1][0]

    await asyncio.sleep(15)  # let the model and spaCy finish loading: steady state
    open_ms = []
    for i in range(runs * 4):
        uri = (folder / f"copy{i}" / "model.py").as_uri()
        start = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        open_ms.append((await until_published(uri, 1) - start) * 1000)
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    editor_recall, in_process_recall = await editor_recall_request(client, folder, writer, runs * 8)
    cli_recall = cli_recall_process(db, env, max(3, runs // 2))
    mcp_http = await mcp_http_recall(endpoint, runs * 4) if endpoint else None

    # Another process writes; the open document follows.
    watched = (folder / "requirements.txt").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=watched, language_id="pip-requirements", version=1,
                                             text="".join(f"fresh-{i}\n" for i in range(runs)))))
    await until_published(watched, 1)
    refresh_ms = []
    for i in range(runs):
        count = len(published[watched])
        start = time.perf_counter()
        writer.graveyard.abandon(ACTOR, f"fresh-{i}", reason="benchmark write", project=PROJECT)
        refresh_ms.append((await until_published(watched, count + 1, lambda n, i=i: n == i + 1) - start) * 1000)

    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_seconds() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before, start = cpu_seconds(), time.perf_counter()
    await asyncio.sleep(10)
    idle_cpu = (cpu_seconds() - before) / (time.perf_counter() - start) * 100
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"initialize_after_start": stats(initialize_ms), "bare_pygls_initialize_after_start": stats(bare_ms),
            "initialize_ratio_of_medians": round(statistics.median(initialize_ms) / statistics.median(bare_ms), 2),
            "didOpen_to_publish_2000_lines": stats(open_ms),
            "write_elsewhere_to_republish_one_open_document": stats(refresh_ms), "idle_cpu_percent": round(idle_cpu, 2),
            "editor_recall_request": editor_recall, "same_recall_in_process": in_process_recall,
            "cli_recall_process": cli_recall, "mcp_http_recall": mcp_http}


async def bare_initialize(env: dict[str, str]) -> float:
    """`initialize` answered after the start of a pygls server that has no feature."""
    return await initialize_after_start([sys.executable, "-c", BARE_SERVER], env)


async def initialize_after_start(argv: list[str], env: dict[str, str], folder: Path | None = None) -> float:
    client = LanguageClient("bench", "1")
    start = time.perf_counter()
    await client.start_io(*argv, env=env)
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), process_id=os.getpid(),
        workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="app")] if folder else None))
    elapsed = (time.perf_counter() - start) * 1000
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return elapsed


def startup_only(runs: int, against: list[Path]) -> dict:
    """`initialize` answered after process start alone: a bare pygls server, this checkout's
    `cenotaph serve` and each other checkout's (`--against`, e.g. main's .venv/bin/cenotaph), one
    after the other in each round, so that every one of them runs under the same load."""
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-lsp-start-"))
    folder = workdir / "app"
    folder.mkdir()
    (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
    db = workdir / "store.db"
    Store(db).close()  # migrated once, as an editor finds it
    env = server_env(workdir)
    servers = {"bare pygls": [sys.executable, "-c", BARE_SERVER], "this checkout": [CENOTAPH, "serve", "--db", str(db)]}
    servers.update({str(path): [str(path), "serve", "--db", str(db)] for path in against})
    samples: dict[str, list[float]] = {label: [] for label in servers}

    async def rounds() -> None:
        for _ in range(runs + 1):  # the first round writes the bytecode, and is not counted
            for label, argv in servers.items():
                samples[label].append(await initialize_after_start(argv, env, None if label == "bare pygls" else folder))
        for values in samples.values():
            del values[0]

    asyncio.run(rounds())
    shutil.rmtree(workdir, ignore_errors=True)
    bare = statistics.median(samples["bare pygls"])
    return {label: dict(stats(values), ratio_of_medians=round(statistics.median(values) / bare, 2))
            for label, values in samples.items()}


async def editor_recall_request(client: LanguageClient, folder: Path, memory: Memory,
                                runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """`cenotaph/recall` as the editor clients send it (the document's URI decides the project),
    request sent to answer read, through the real server process over stdio; and, alternating
    with it under the same load, the same domain call in this process: what the request adds."""
    uri = (folder / "model.py").as_uri()
    await client.protocol.send_request_async("cenotaph/recall", {"query": QUERIES[0], "k": 10, "uri": uri})
    request_ms, in_process_ms = [], []
    for i in range(runs):
        query = QUERIES[i % len(QUERIES)]
        start = time.perf_counter()
        answer = await client.protocol.send_request_async("cenotaph/recall", {"query": query, "k": 10, "uri": uri})
        request_ms.append((time.perf_counter() - start) * 1000)
        assert answer.project == PROJECT and answer.results, answer
        start = time.perf_counter()
        memory.recall(ACTOR, query, project=PROJECT, k=10)
        in_process_ms.append((time.perf_counter() - start) * 1000)
    return stats(request_ms), stats(in_process_ms)


def cli_recall_process(db: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    """What the editors did before `cenotaph/recall`: a `cenotaph recall --json` process per recall."""
    samples = []
    for i in range(runs):
        start = time.perf_counter()
        subprocess.run([CENOTAPH, "recall", "--json", "--db", str(db), "--project", PROJECT, "-k", "10", "--",
                        QUERIES[i % len(QUERIES)]], env=env, check=True, capture_output=True)
        samples.append((time.perf_counter() - start) * 1000)
    return stats(samples)


async def mcp_http_recall(endpoint: dict[str, str], runs: int) -> dict[str, float]:
    """recall through the MCP endpoint the language server serves (Streamable HTTP on loopback),
    by the MCP SDK's client: what an agent beside the editor sees."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import Implementation

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {endpoint['token']}"}, timeout=60)
    samples = []
    async with Client(streamable_http_client(endpoint["url"], http_client=http),
                      client_info=Implementation(name="bench", version="1")) as client:
        await client.call_tool("recall", {"query": "why does the deploy script fail", "k": 10})
        for i in range(runs):
            start = time.perf_counter()
            answer = await client.call_tool("recall", {"query": QUERIES[i % len(QUERIES)], "k": 10})
            samples.append((time.perf_counter() - start) * 1000)
            assert not answer.is_error, answer.content
    return stats(samples)


def measure_size(size: int, runs: int, embedder: Embedder, analyzer: Analyzer, *, client: bool = True) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-lsp-bench-"))
    db = workdir / "store.db"
    snapshot(cached_store(size, embedder, analyzer), db)
    folder = workdir / "app"
    folder.mkdir()
    (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
    store = Store(db)
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    for i in range(GRAVEYARD):
        memory.graveyard.abandon(ACTOR, f"dead-package-{i}", reason=f"benchmark entry {i}", project=PROJECT)
    rng = random.Random(11)
    texts = {"model.py": python_file(rng), "requirements.txt": requirements_file(rng)}
    report = {"graveyard": GRAVEYARD, "memories": size, "lines": LINES,
              "server_side": server_side(memory, folder, texts, runs)}
    if client:
        report["client_side"] = asyncio.run(client_side(db, folder, texts["model.py"], memory, max(5, runs // 4)))
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    store.close()
    shutil.rmtree(workdir, ignore_errors=True)
    return report


def print_table(report: dict) -> None:
    rows = []
    for name, figures in report["server_side"].items():
        for what in ("didOpen_to_publish", "of_which_detection", "hover"):
            rows.append((f"server-side {what} ({name}, {figures['diagnostics']} diagnostics)", figures[what]))
    for what in () if "client_side" not in report else ("initialize_after_start", "bare_pygls_initialize_after_start", "didOpen_to_publish_2000_lines", "editor_recall_request",
                 "same_recall_in_process", "cli_recall_process", "write_elsewhere_to_republish_one_open_document", "mcp_http_recall"):
        if report["client_side"].get(what):
            rows.append((f"client-observed {what}", report["client_side"][what]))
    width = max(len(label) for label, _ in rows)
    print(f"{report['memories']:,} memories (load average {report['load_average'][0]})")
    print(f"{'measure':<{width}}  {'median ms':>10}  {'p95 ms':>8}  {'runs':>5}")
    for label, figures in rows:
        print(f"{label:<{width}}  {figures['median_ms']:>10.2f}  {figures['p95_ms']:>8.2f}  {figures['runs']:>5}")
    if "client_side" not in report:
        return
    print(f"{'initialize: cenotaph serve ÷ bare pygls server':<{width}}  "
          f"{report['client_side']['initialize_ratio_of_medians']:>10.2f}")
    print(f"{'idle CPU of the server process (%)':<{width}}  {report['client_side']['idle_cpu_percent']:>10.2f}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="memories in the project, comma-separated")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--merge", action="store_true", help="keep the other sizes already in --out")
    parser.add_argument("--server-side-only", action="store_true",
                        help="only the in-process figures (didOpen, detection, hover); run with another checkout's "
                             "Python to measure its server with this script")
    parser.add_argument("--startup-only", action="store_true",
                        help="only `initialize` after process start, beside a bare pygls server (--runs rounds)")
    parser.add_argument("--against", type=Path, action="append", default=[],
                        help="with --startup-only: another checkout's cenotaph executable, alternated with this one")
    args = parser.parse_args()
    if args.startup_only:
        figures = startup_only(args.runs, args.against)
        print(f"{'server':<40}  {'median ms':>10}  {'p95 ms':>8}  {'÷ bare':>6}  (load average {os.getloadavg()[0]:.2f})")
        for label, row in figures.items():
            print(f"{label:<40}  {row['median_ms']:>10.2f}  {row['p95_ms']:>8.2f}  {row['ratio_of_medians']:>6.2f}")
        return
    embedder, analyzer = Embedder(), Analyzer()
    report = {"commit": commit_measured(), "sizes": []}
    for size in (int(s) for s in args.sizes.split(",")):
        report["sizes"].append(measure_size(size, args.runs, embedder, analyzer, client=not args.server_side_only))
        print_table(report["sizes"][-1])
    if args.out:
        write_report(args.out, report, merge=args.merge)


if __name__ == "__main__":
    main()

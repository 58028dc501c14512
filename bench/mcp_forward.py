"""`cenotaph mcp` forwarding to a running language server versus serving the session itself.

For each run a fresh `cenotaph mcp` process is started the way an agent starts it (stdio,
newline-delimited JSON-RPC, driven by hand here so that the client adds nothing), and the bench
records the time from process start to the answer of the first tool call (`briefing`, as the
server's instructions ask), that call's own latency, a `recall` after it (the first call that
needs the embedding model), and the process's resident memory (VmRSS) and peak (VmHWM) then.
First with a real `cenotaph serve` running for the same store and project (forwarding), then
with no language server (serving itself). For comparison it also records what a relay built on
the mcp SDK would hold before relaying anything: the RSS of a process that imports the SDK's
Streamable HTTP client and stdio server transport.

Usage: python bench/mcp_forward.py [--runs N] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import commit_measured, percentile  # noqa: E402  (bench/ is not a package)

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
PROJECT = "bench/forward"
SDK_RELAY_IMPORTS = "import mcp.client.streamable_http, mcp.server.stdio, httpx"


def _status(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


def _lsp(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def start_language_server(folder: Path, db: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    process = subprocess.Popen([CENOTAPH, "serve", "--db", str(db)], stdin=subprocess.PIPE, stdout=log.open("wb"),
                               stderr=subprocess.STDOUT, env=env, cwd=folder)
    assert process.stdin is not None
    process.stdin.write(_lsp({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "capabilities": {}, "rootUri": folder.as_uri(),
        "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}]}}))
    process.stdin.write(_lsp({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    process.stdin.flush()
    endpoint = Path(env["XDG_STATE_HOME"]) / "cenotaph" / "endpoints" / f"{process.pid}.json"
    deadline = time.monotonic() + 120
    while not endpoint.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the language server wrote no endpoint file (see {log})")
        time.sleep(0.05)
    return process


def one_session(folder: Path, db: Path, env: dict[str, str]) -> dict[str, float]:
    """One agent session: initialize, then the first tool call; the process's memory after it."""
    started = time.perf_counter()
    process = subprocess.Popen([CENOTAPH, "mcp", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env, cwd=folder)
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict) -> None:
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()

    def answer(request_id: int) -> dict:
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("cenotaph mcp closed its output")
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return message

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(request_id: int, tool: str, arguments: dict) -> float:
        asked = time.perf_counter()
        send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
              "params": {"name": tool, "arguments": arguments}})
        reply = answer(request_id)
        if "error" in reply or reply["result"].get("isError"):
            raise RuntimeError(f"{tool} failed: {reply}")
        return time.perf_counter() - asked

    first = call(2, "briefing", {})
    first_done = time.perf_counter()
    recall = call(3, "recall", {"query": "which HTTP client did we settle on"})
    figures = {"first_call_after_start_ms": (first_done - started) * 1000, "first_call_ms": first * 1000,
               "recall_ms": recall * 1000,
               "rss_mb": _status(process.pid, "VmRSS"), "peak_rss_mb": _status(process.pid, "VmHWM")}
    process.stdin.close()
    process.wait(timeout=300)  # exiting is not measured; a loaded machine makes it slow
    return figures


def summarise(samples: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    return {key: {"median": round(statistics.median(s[key] for s in samples), 1),
                  "p95": round(percentile([s[key] for s in samples], 0.95), 1), "runs": len(samples)}
            for key in samples[0]}


def sdk_relay_floor() -> float:
    """RSS of a process that has imported what an SDK-based relay would need, and nothing more."""
    code = f"{SDK_RELAY_IMPORTS}\nfor l in open('/proc/self/status'):\n    l.startswith('VmRSS') and print(l.split()[1])"
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cenotaph-bench-forward-") as tmp:
        root = Path(tmp)
        folder = root / "repo"
        folder.mkdir()
        (folder / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n')
        db = root / "cenotaph.db"
        env = {**os.environ, "CENOTAPH_HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state")}
        env.pop("CENOTAPH_LOG", None)
        server = start_language_server(folder, db, env, root / "lsp.log")
        try:
            one_session(folder, db, env)  # warm the page cache and the server's first-call paths
            forwarding = [one_session(folder, db, env) for _ in range(args.runs)]
            server_rss = _status(server.pid, "VmRSS")
        finally:
            server.kill()
            server.wait()
        one_session(folder, db, env)
        serving = [one_session(folder, db, env) for _ in range(args.runs)]
    report = {"commit": commit_measured(), "date": time.strftime("%Y-%m-%d"), "runs": args.runs,
              "forwarding": summarise(forwarding), "serving_itself": summarise(serving),
              "language_server_rss_mb": round(server_rss, 1), "sdk_relay_floor_rss_mb": round(sdk_relay_floor(), 1)}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

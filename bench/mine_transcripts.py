"""Speed of `mine transcripts`: MB/s streamed and RSS (start, peak) over repeated runs, on a few
hundred MB of generated Claude Code and Codex transcript lines (tool calls with big outputs,
assistant prose, a person's messages; a few installs, rejections and removals among them).

    .venv/bin/python bench/mine_transcripts.py --mb 300 --runs 5

Each run mines from scratch (the cursors are reset), so every byte is read; a rerun with the
cursors kept reads nothing, and that is reported too. Throughput is given per wall-clock second
and per CPU-second of this process (the latter is what an idle core does on a shared machine)."""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store

WORDS = ("the", "function", "returns", "a", "list", "of", "values", "when", "config", "is", "missing", "we", "should",
         "check", "tests", "pass", "module", "import", "error", "fixed", "file", "path", "cache", "server", "client")


def prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def claude_session(path: Path, repo: Path, target: int, rng: random.Random) -> None:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        while f.tell() < target:
            n += 1
            base = {"uuid": f"u{n}", "sessionId": path.stem, "timestamp": "2026-03-02T10:00:00.000Z", "cwd": str(repo),
                    "userType": "external", "version": "2.0.0", "gitBranch": "main"}
            kind = rng.random()
            if kind < 0.35:  # a tool output: the bulk of a real transcript
                f.write(json.dumps({**base, "type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"t{n - 1}", "content": prose(rng, rng.randint(200, 3000)),
                     "is_error": False}]}}) + "\n")
            elif kind < 0.7:
                f.write(json.dumps({**base, "type": "assistant", "message": {"role": "assistant", "content": [
                    {"type": "text", "text": prose(rng, rng.randint(20, 300))}]}}) + "\n")
            elif kind < 0.9:
                command = rng.choice(("pytest -q", "ls -la", "git status", "cat README.md", "pip install httpx",
                                      "npm i -D left-pad", "pip uninstall -y httpx"))
                f.write(json.dumps({**base, "type": "assistant", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": command}}]}}) + "\n")
            else:
                f.write(json.dumps({**base, "type": "user", "message": {"role": "user", "content": rng.choice((
                    "please fix the failing test", "don't use requests here, we use httpx", "remove the file",
                    prose(rng, 30)))}}) + "\n")


def codex_session(path: Path, repo: Path, target: int, rng: random.Random) -> None:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"timestamp": "2026-03-05T09:00:00Z", "type": "session_meta",
                            "payload": {"id": path.stem, "cwd": str(repo)}}) + "\n")
        while f.tell() < target:
            n += 1
            if rng.random() < 0.5:
                line = {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{n - 1}",
                                                             "output": prose(rng, rng.randint(200, 3000))}}
            else:
                line = {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": f"c{n}",
                                                             "arguments": json.dumps({"command": ["bash", "-lc", rng.choice(
                                                                 ("pytest", "ls", "uv add typer", "rg foo"))]})}}
            f.write(json.dumps({"timestamp": "2026-03-05T09:00:01Z", **line}) + "\n")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=300, help="transcript megabytes to generate")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo = root / "work" / "app"
        repo.mkdir(parents=True)
        (repo / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["requests", "httpx"]\n')
        claude = root / "claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
        claude.mkdir(parents=True)
        codex = root / "codex" / "sessions" / "2026" / "03" / "05"
        codex.mkdir(parents=True)
        rng = random.Random(7)
        per_file = 50 << 20
        total = args.mb << 20
        for i in range(max(1, total // per_file)):
            if i % 3 == 2:
                codex_session(codex / f"rollout-2026-03-05T09-00-0{i}-{i}.jsonl", repo, per_file, rng)
            else:
                claude_session(claude / f"s{i}.jsonl", repo, per_file, rng)
        store = Store(root / "c.db")
        memory = Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer()))
        actor = Actor(name="bench", kind="human")
        start_rss = current_rss_mb()
        speeds, cpu_speeds, peaks = [], [], []
        report = None
        for _ in range(args.runs):
            store.conn.execute("DELETE FROM mining_cursors")
            store.conn.execute("DELETE FROM proposals")
            began, cpu = time.perf_counter(), time.process_time()
            report = memory.mine_transcripts(actor, "p", repo, claude_dir=root / "claude", codex_dir=root / "codex")
            elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
            speeds.append(report.bytes / elapsed / 1e6)
            # Per CPU-second: what one idle core does, whatever else the machine runs.
            cpu_speeds.append(report.bytes / cpu / 1e6)
            peaks.append(current_rss_mb())
        began = time.perf_counter()
        rerun = memory.mine_transcripts(actor, "p", repo, claude_dir=root / "claude", codex_dir=root / "codex")
        rerun_s = time.perf_counter() - began
        assert report is not None
        speeds.sort()
        print(json.dumps({
            "commit": commit + ("+dirty" if dirty else ""), "files": report.files, "bytes": report.bytes,
            "lines": report.lines, "candidates": sorted(c.name for c in report.candidates),
            "mb_per_s_median": round(statistics.median(speeds), 1),
            "mb_per_s_p95_slowest": round(speeds[max(0, int(len(speeds) * 0.05) - 1)] if len(speeds) > 1 else speeds[0], 1),
            "mb_per_s_all": [round(s, 1) for s in speeds],
            "mb_per_cpu_s_median": round(statistics.median(cpu_speeds), 1),
            "mb_per_cpu_s_all": sorted(round(s, 1) for s in cpu_speeds),
            "rss_mb_start": round(start_rss, 1), "rss_mb_after_each_run": [round(p, 1) for p in peaks],
            "rss_mb_peak": round(peak_rss_mb(), 1),
            "rerun_seconds": round(rerun_s, 3), "rerun_bytes": rerun.bytes,
            "load_average": [round(x, 2) for x in __import__("os").getloadavg()],
        }, indent=2))
        store.close()


if __name__ == "__main__":
    sys.exit(main())

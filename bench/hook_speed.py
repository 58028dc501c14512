"""Claude Code's PreToolUse through `cenotaph hook claude-code`, over the whole labelled set of
agent tool calls (tests/data/hook_calls, shared with tests/e2e/test_hook_calls.py):

* the decisions against the labels: every install or edit of an abandoned library blocked, no
  other call blocked (confusion counts, and each call that disagrees);
* with `--baseline SRC` (another commit's `server/` folder, e.g. `git archive main server | tar -x -C /tmp/main`),
  that code's hook on the same calls, alternated with this one's: its decisions and times;
* a decision's time beside a bare Python start that reads the same JSON
  (`python -c "import json,sys; json.load(sys.stdin)"`), the two alternated on each input so
  that both see the same load; the goal is a median of at most 3 times the bare start's (issue 42);
* with `--three N`, instead of the whole set: three inputs (Bash `pip install requests`, denied; a
  Write that adds requests to requirements-dev.txt, denied; Bash `pip list`, passed), the bare
  start, this hook and `--baseline`'s alternated N times each, all three launched the same way
  (this interpreter running the `cenotaph` script), with wall and CPU times (the child's user +
  system) as medians and p95; `--busy K` runs K busy Python loops meanwhile (the "under load"
  figure on a machine that is otherwise idle).

A real git repository and a SQLite store seeded in this process (the embedding model loads once
here, never in the hook); both commands run from compiled bytecode, as an installed tool does. Usage:
python bench/hook_speed.py [--runs N | --three N [--busy K]] [--baseline SRC] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]
from perf import commit_measured, percentile  # noqa: E402  (bench/ is not a package)

from cenotaph.app import open_store  # noqa: E402
from cenotaph.memory.context import Context  # noqa: E402
from cenotaph.memory.service import Memory  # noqa: E402
from cenotaph.nlp.analysis import Analyzer  # noqa: E402
from cenotaph.nlp.embedder import Embedder  # noqa: E402
from tests import hook_calls  # noqa: E402
from tests.gitrepo import GitRepo  # noqa: E402

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
BARE = [sys.executable, "-c", "import json,sys; json.load(sys.stdin)"]


def stats(samples: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(samples), 1), "p95_ms": round(percentile(samples, 0.95), 1),
            "runs": len(samples)}


def timed(command: list[str], stdin: str, env: dict[str, str], cwd: Path) -> tuple[float, str]:
    elapsed, _, stdout = timed_cpu(command, stdin, env, cwd)
    return elapsed, stdout


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed_cpu(command: list[str], stdin: str, env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU milliseconds of one run, and its stdout. The CPU is the waited-for children's
    usage before and after: the runs are waited for one at a time, and `--busy`'s loops only at the end."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed: {done.stderr}")
    return elapsed, (_children_cpu() - cpu) * 1000, done.stdout


# --three's inputs: (label, tool, input as a function of the repository's root, denied?).
THREE = (
    ("Bash pip install requests (denied)", "Bash", lambda root: {"command": "pip install requests"}, True),
    ("Write requirements-dev.txt + requests (denied)", "Write",
     lambda root: {"file_path": str(root / "requirements-dev.txt"),
                   "content": (root / "requirements-dev.txt").read_text(encoding="utf-8") + "requests==2.31.0\n"}, True),
    ("Bash pip list (passed)", "Bash", lambda root: {"command": "pip list"}, False),
)


def three(runs: int, busy: int, root: Path, env: dict[str, str], baseline_env: dict[str, str] | None) -> dict:
    """The three inputs, each alternated `runs` times between the bare start, this hook and the
    baseline's (the order rotating, so that none always follows another)."""
    commands = {"bare": (BARE, env), "hook": ([sys.executable, CENOTAPH, "hook", "claude-code"], env)}
    if baseline_env is not None:
        commands["baseline"] = ([sys.executable, CENOTAPH, "hook", "claude-code"], baseline_env)
    inputs = [(label, json.dumps({"session_id": "bench", "transcript_path": "/dev/null", "cwd": str(root),
                                  "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": make(root)}),
               denied) for label, tool, make, denied in THREE]
    for command, command_env in commands.values():  # bytecode written, and the decisions checked
        for label, stdin, denied in inputs:
            stdout = timed(command, stdin, command_env, root)[1]
            if command is not BARE and (hook_calls.denied(stdout) is not None) != denied:
                raise SystemExit(f"{label}: not {'denied' if denied else 'passed'} ({command_env.get('PYTHONPATH')})")
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    load_before = os.getloadavg()
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        for run in range(runs):
            for label, stdin, _ in inputs:
                names = list(commands)
                names = names[run % len(names):] + names[:run % len(names)]
                for name in names:
                    command, command_env = commands[name]
                    samples.setdefault((label, name), []).append(timed_cpu(command, stdin, command_env, root)[:2])
    finally:
        load_after = os.getloadavg()
        for loop in loops:
            loop.kill()
            loop.wait()
    report: dict = {"runs": runs, "busy_loops": busy, "load_before": [round(x, 2) for x in load_before],
                    "load_after": [round(x, 2) for x in load_after], "inputs": {}}
    for label, _, _ in inputs:
        figures = {}
        for name in commands:
            wall = [w for w, _ in samples[(label, name)]]
            cpu = [c for _, c in samples[(label, name)]]
            figures[name] = {"wall": stats(wall), "cpu": stats(cpu)}
        for name in commands:
            if name != "bare":
                figures[name]["ratio_wall"] = round(figures[name]["wall"]["median_ms"] / figures["bare"]["wall"]["median_ms"], 2)
                figures[name]["ratio_cpu"] = round(figures[name]["cpu"]["median_ms"] / figures["bare"]["cpu"]["median_ms"], 2)
        report["inputs"][label] = figures
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="passes over the whole set (default 1)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--baseline", type=Path, help="another commit's server/ folder to time beside this one")
    parser.add_argument("--three", type=int, metavar="N", help="the three inputs alone, alternated N times each")
    parser.add_argument("--busy", type=int, default=0, metavar="K", help="with --three: K busy loops meanwhile")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cenotaph-hook-") as tmp:
        work = Path(tmp)
        repo = GitRepo(work / "acme")
        repo.commit("Start", hook_calls.repository_files())
        env = {**os.environ, "CENOTAPH_HOME": str(work / "home"), "XDG_CACHE_HOME": str(work / "cache"),
               "XDG_STATE_HOME": str(work / "state")}
        env.pop("CENOTAPH_STORE", None)
        # An installed tool runs from bytecode compiled at install (pip, uv and pipx do): both
        # commands get a cache of their own, filled by one run of each (a denial) before any is timed.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        os.environ.update(env)  # the store seeded here is the one the hook opens
        store = open_store(None)
        try:
            hook_calls.seed(Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer())))
        finally:
            store.close()
        baseline_env = {**env, "PYTHONPATH": str(args.baseline)} if args.baseline else env
        if args.three:
            report = {"commit": commit_measured(),
                      **three(args.three, args.busy, repo.root, env, baseline_env if args.baseline else None)}
            emit(report, args.out)
            return
        calls = hook_calls.calls()
        denial = next(call for call in calls if call["block"])  # the path that reads the store
        base_command = [sys.executable, "-m", "cenotaph.cli", "hook"]
        for warm in (BARE, [CENOTAPH, "hook", "claude-code"], *([[*base_command, "claude-code"]] if args.baseline else [])):
            timed(warm, hook_calls.hook_input(denial, repo.root), baseline_env if warm[0] == sys.executable else env,
                  repo.root)
        bare: list[float] = []
        hook: dict[str, list[float]] = {"all": [], "denied": [], "passed": []}
        baseline: list[float] = []
        outcomes, baseline_outcomes = [], []
        for run in range(args.runs):
            for call in calls:
                stdin = hook_calls.hook_input(call, repo.root)
                bare.append(timed(BARE, stdin, env, repo.root)[0])
                elapsed, stdout = timed([CENOTAPH, "hook", hook_calls.agent(call)], stdin, env, repo.root)
                reason = hook_calls.denied(stdout)
                hook["all"].append(elapsed)
                # A denial read the store; most passes never open it (they install and add nothing).
                hook["passed" if reason is None else "denied"].append(elapsed)
                if run == 0:
                    outcomes.append((call, reason))
                if args.baseline:
                    elapsed, stdout = timed([*base_command, hook_calls.agent(call)], stdin, baseline_env, repo.root)
                    baseline.append(elapsed)
                    if run == 0:
                        baseline_outcomes.append((call, hook_calls.denied(stdout)))
    counts, wrong = hook_calls.confusion(outcomes)
    report = {
        "commit": commit_measured(), "load": [round(x, 2) for x in os.getloadavg()], "calls": len(calls),
        "labelled_block": sum(c["block"] for c in calls), "confusion": dict(sorted(counts.items())), "wrong": wrong,
        "bare_python": stats(bare), "hook": {kind: stats(samples) for kind, samples in hook.items() if samples},
        "ratio_of_medians": round(statistics.median(hook["all"]) / statistics.median(bare), 1),
    }
    if args.baseline:
        report["baseline"] = {"confusion": dict(sorted(hook_calls.confusion(baseline_outcomes)[0].items())),
                              "hook": stats(baseline)}
    emit(report, args.out)


def emit(report: dict, out: Path | None) -> None:
    text = json.dumps(report, indent=2)
    print(text)
    if out:
        out.write_text(text)


if __name__ == "__main__":
    main()

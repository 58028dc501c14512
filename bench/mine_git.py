"""Speed of `cenotaph mine git` (issue 13): a repository of 10,000 commits of which 1,000 touch
manifests (requirements files, pyproject.toml, package.json, Cargo.toml, go.mod in a few
subprojects; dependencies added, bumped and dropped), built with `git fast-import` in a second.

Cold: the real `cenotaph mine git` on a fresh store (every commit read). Rerun: the same command
again with nothing new (the cursor says so). Each figure is a median and p95 over repeated runs.
`--repository CLONE` times a real history instead (e.g. a clone of vitejs/vite), nothing built.
Usage: python bench/mine_git.py [--commits 10000] [--manifest-commits 1000] [--runs 5] [--repository CLONE]
       [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
AUTHORS = [("Jane Doe", "jane@example.com"), ("Bob Roe", "bob@example.com"), ("Ann Poe", "ann@example.com")]
SUBPROJECTS = ["", "services/api/", "services/web/", "crates/core/", "tools/cli/"]


def _pool(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


class Manifests:
    """The dependencies of each manifest, changed a little by each manifest-touching commit."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.python = {sub: {name: 1 for name in rng.sample(_pool("pylib-", 400), 25)} for sub in SUBPROJECTS[:3]}
        self.npm = {"services/web/": {name: 1 for name in rng.sample(_pool("@scope/js-", 400), 30)}}
        self.cargo = {"crates/core/": {name: 1 for name in rng.sample(_pool("crate_", 300), 15)}}
        self.go = {"tools/cli/": {name: 1 for name in rng.sample(_pool("github.com/org/mod", 300), 15)}}

    def change(self) -> dict[str, str]:
        """One manifest, changed (a bump, an addition or a removal)."""
        while True:
            kind = self.rng.choice(["python", "python", "npm", "cargo", "go"])
            sub = self.rng.choice(list(getattr(self, kind)))
            before = self.render(kind, sub)
            self._change(kind, sub)
            after = self.render(kind, sub)
            if after != before:
                return after

    def _change(self, kind: str, sub: str) -> None:
        deps = getattr(self, kind)[sub]
        action = self.rng.random()
        if action < 0.4:
            deps[self.rng.choice(list(deps))] += 1  # a version bump
        elif action < 0.7 or len(deps) < 5:
            pool = {"python": _pool("pylib-", 400), "npm": _pool("@scope/js-", 400), "cargo": _pool("crate_", 300),
                    "go": _pool("github.com/org/mod", 300)}[kind]
            deps.setdefault(self.rng.choice(pool), 1)
        else:
            del deps[self.rng.choice(list(deps))]

    def render(self, kind: str, sub: str) -> dict[str, str]:
        deps = getattr(self, kind)[sub]
        if kind == "python":
            return {f"{sub}requirements.txt": "".join(f"{n}=={v}.0\n" for n, v in sorted(deps.items()))}
        if kind == "npm":
            body = ", ".join(f'"{n}": "^{v}.0.0"' for n, v in sorted(deps.items()))
            return {f"{sub}package.json": f'{{\n  "name": "web",\n  "dependencies": {{{body}}}\n}}\n'}
        if kind == "cargo":
            body = "".join(f'{n} = "{v}.0"\n' for n, v in sorted(deps.items()))
            return {f"{sub}Cargo.toml": f'[package]\nname = "core"\n\n[dependencies]\n{body}'}
        body = "".join(f"\t{n} v{v}.0.0\n" for n, v in sorted(deps.items()))
        return {f"{sub}go.mod": f"module example.com/cli\n\ngo 1.22\n\nrequire (\n{body})\n"}

    def everything(self) -> dict[str, str]:
        files: dict[str, str] = {}
        for kind in ("python", "npm", "cargo", "go"):
            for sub in getattr(self, kind):
                files.update(self.render(kind, sub))
        return files


def build(root: Path, commits: int, manifest_commits: int, seed: int = 13) -> None:
    """A fast-import stream: each commit changes a source file; `manifest_commits` of them (spread
    evenly, the first included) also change a manifest."""
    rng = random.Random(seed)
    manifests = Manifests(rng)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    every = commits / manifest_commits
    touching = {int(i * every) for i in range(manifest_commits)}
    out: list[bytes] = []

    def data(text: str) -> None:
        raw = text.encode()
        out.append(b"data %d\n" % len(raw) + raw + b"\n")

    start = 1_600_000_000
    for i in range(commits):
        name, email = AUTHORS[i % len(AUTHORS)]
        when = start + i * 3_600
        files = {f"src/module_{i % 50}.py": f"VALUE = {i}\n"}
        if i == 0:
            files.update(manifests.everything())
            subject = "Initial import"
        elif i in touching:
            files.update(manifests.change())
            subject = rng.choice(["Update dependencies", "Drop an unused dependency", "Bump versions",
                                  "Refactor the client", "Replace the HTTP layer"])
        else:
            subject = f"Work on module {i % 50}"
        out.append(b"commit refs/heads/main\n")
        out.append(f"author {name} <{email}> {when} +0000\ncommitter {name} <{email}> {when} +0000\n".encode())
        data(f"{subject}\n")
        for path, text in files.items():
            out.append(f"M 100644 inline {path}\n".encode())
            data(text)
        out.append(b"\n")
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(out), check=True)
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "main"], check=True)


def timed(env: dict[str, str], repo: Path) -> tuple[float, float, dict]:
    """Wall-clock seconds, CPU seconds (the command and its git processes) and the JSON report."""
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([CENOTAPH, "mine", "git", str(repo), "--json", "--project", "bench/mine"], env=env,
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - began
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--manifest-commits", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repository", help="a clone to mine instead of the built repository")
    parser.add_argument("--out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cenotaph-mine-bench-") as scratch:
        root = Path(scratch)
        began = time.perf_counter()
        repo = Path(args.repository) if args.repository else root / "repo"
        if not args.repository:
            build(repo, args.commits, args.manifest_commits)
        built = time.perf_counter() - began
        cold, cold_cpu, rerun, rerun_cpu, last = [], [], [], [], {}
        for run in range(args.runs):
            env = {**os.environ, "CENOTAPH_HOME": str(root / f"home-{run}")}
            seconds, cpu, last = timed(env, repo)
            cold.append(seconds)
            cold_cpu.append(cpu)
            seconds, cpu, again = timed(env, repo)
            assert again["history"]["commits_read"] == 0
            rerun.append(seconds)
            rerun_cpu.append(cpu)
        history = last["history"]
        figures = {
            "repository": args.repository, "commits": None if args.repository else args.commits,
            "manifest_commits": None if args.repository else args.manifest_commits,
            "build_seconds": round(built, 2),
            "commits_read": history["commits_read"], "manifests_parsed": history["manifests_parsed"],
            "candidates": len(history["candidates"]), "proposed": len(last["proposals"]["proposed"]),
            "cold_median": round(statistics.median(cold), 2), "cold_p95": round(p95(cold), 2),
            "rerun_median": round(statistics.median(rerun), 2), "rerun_p95": round(p95(rerun), 2),
            "cold_cpu_median": round(statistics.median(cold_cpu), 2),
            "rerun_cpu_median": round(statistics.median(rerun_cpu), 2),
            "load_average": os.getloadavg()[0],
            "runs": args.runs,
        }
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

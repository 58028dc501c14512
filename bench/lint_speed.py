"""`cenotaph lint` over a 2,000-file repository: the wall time of the real process, run the way CI
runs it (text, `--format sarif`, and `--base REV` for a pull request's view); the goal is 5 s.

A real git repository built in a temporary folder: Python, JavaScript and TypeScript sources
that import libraries (some of them abandoned), the manifests of five ecosystems
(requirements.txt, pyproject.toml, package.json, Cargo.toml, go.mod), and a .gitignore that
leaves out a node_modules-like folder of many files. A SQLite store seeded in this process with
20 abandoned approaches (the embedding model loads here, never in lint). Each command runs from
compiled bytecode, as an installed tool does. Usage: python bench/lint_speed.py [--runs N] [--files N] [--out figures.json]
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
from tests.conftest import HUMAN  # noqa: E402
from tests.gitrepo import GitRepo  # noqa: E402

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))
PROJECT = "github.com/acme/monorepo"
GRAVEYARD = [  # name, ecosystem, reason
    ("requests", "pypi", "blocking calls stalled the event loop"),
    ("lxml", "pypi", "wheels missing on the build image"),
    ("pandas", "pypi", "too heavy for the lambda bundle"),
    ("flask", "pypi", "moved to an async framework"),
    ("celery", "pypi", "replaced by a simple queue table"),
    ("simplejson", "pypi", "the standard library's json is enough"),
    ("nose", "pypi", "unmaintained test runner"),
    ("mock", "pypi", "unittest.mock is in the standard library"),
    ("moment", "npm", "too heavy for the bundle"),
    ("request", "npm", "deprecated upstream"),
    ("lodash", "npm", "native array methods cover it"),
    ("jquery", "npm", "no DOM manipulation outside the framework"),
    ("left-pad", "npm", "one line of code"),
    ("node-fetch", "npm", "fetch is built into Node 18"),
    ("underscore", "npm", "same as lodash"),
    ("failure", "cargo", "deprecated in favour of thiserror"),
    ("lazy_static", "cargo", "std's OnceLock does it"),
    ("chrono-tz", "cargo", "pulls a huge table into every build"),
    ("github.com/pkg/errors", "go", "errors.Join and %w do it"),
    ("github.com/sirupsen/logrus", "go", "log/slog is in the standard library"),
]
PY_IMPORTS = ["os", "json", "httpx", "requests", "pydantic", "lxml", "attrs", "pandas", "numpy", "flask"]
JS_IMPORTS = ["react", "moment", "axios", "lodash", "zod", "dayjs", "left-pad", "express", "node-fetch", "vue"]


def python_source(i: int) -> str:
    chosen = [PY_IMPORTS[(i + k) % len(PY_IMPORTS)] for k in range(3)]
    body = "".join(f"import {name}\n" for name in chosen) + f"from pkg.mod{i % 50} import helper_{i}\n\n"
    body += "".join(f"def function_{i}_{n}(value):\n    # call requests-like code here\n    return value + {n}\n\n"
                    for n in range(12))
    return body


def js_source(i: int, typescript: bool) -> str:
    chosen = [JS_IMPORTS[(i + k) % len(JS_IMPORTS)] for k in range(3)]
    body = "".join(f"import x{n} from '{name}';\n" for n, name in enumerate(chosen))
    body += f"const local = require('./mod{i % 40}');\n\n"
    kind = ": number" if typescript else ""
    body += "".join(f"export function f{i}_{n}(value{kind}){kind} {{\n  return value + {n};\n}}\n\n" for n in range(12))
    return body


def manifests(package: str) -> dict[str, str]:
    return {
        f"{package}/requirements.txt": "httpx==0.27\nrequests>=2.31\npydantic\nlxml; python_version>'3.8'\n",
        f"{package}/pyproject.toml": ('[project]\nname = "svc"\ndependencies = ["attrs", "pandas>=2", "flask"]\n\n'
                                      '[project.optional-dependencies]\ntest = ["pytest", "nose", "mock"]\n'),
        f"{package}/package.json": json.dumps({"name": package, "dependencies": {"react": "^18", "moment": "^2",
                                                                                 "lodash": "^4"},
                                               "devDependencies": {"left-pad": "1.3.0", "jest": "^29"}}, indent=2),
        f"{package}/Cargo.toml": ('[package]\nname = "svc"\nversion = "0.1.0"\n\n[dependencies]\n'
                                  'serde = "1"\nfailure = "0.1"\nlazy_static = "1"\n'),
        f"{package}/go.mod": ("module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n"
                              "\tgithub.com/sirupsen/logrus v1.9.0\n\tgolang.org/x/sync v0.7.0\n)\n"),
    }


def repository_files(count: int) -> dict[str, str]:
    """`count` tracked files: manifests in each of 10 packages, the rest sources (40 % Python,
    30 % JavaScript, 30 % TypeScript)."""
    files: dict[str, str] = {".gitignore": "node_modules/\n*.log\n"}
    for p in range(10):
        files.update(manifests(f"packages/p{p}"))
    i = 0
    while len(files) < count:
        package = f"packages/p{i % 10}"
        kind = i % 10
        if kind < 4:
            files[f"{package}/src/mod{i}.py"] = python_source(i)
        elif kind < 7:
            files[f"{package}/web/mod{i}.js"] = js_source(i, False)
        else:
            files[f"{package}/web/mod{i}.ts"] = js_source(i, True)
        i += 1
    return files


def ignored_files(root: Path, count: int) -> None:
    """A node_modules-like folder git ignores: lint must not read it."""
    for i in range(count):
        path = root / "node_modules" / f"dep{i % 100}" / f"index{i}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("const moment = require('moment');\n", encoding="utf-8")


def stats(samples: list[float]) -> dict[str, float]:
    return {"median_s": round(statistics.median(samples), 3), "p95_s": round(percentile(samples, 0.95), 3),
            "runs": len(samples)}


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall time, and the CPU time of the process and its children (git): on a machine loaded by
    other work the CPU time says more about lint than the wall time does."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: findings, as expected here
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    return elapsed, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--server", type=Path, help="another checkout's server/ for the lint process (a before)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cenotaph-lint-") as tmp:
        work = Path(tmp)
        repo = GitRepo(work / "monorepo")
        files = repository_files(args.files)
        base = repo.commit("Start", files)
        # A pull request's worth of change since `base`: 100 sources edited, 5 added.
        edited = {path: text + "\nimport requests\n" for path, text in list(files.items())[60:160]
                  if path.endswith(".py")}
        edited.update({path: "import moment from 'moment';\n" + text for path, text in list(files.items())[60:160]
                       if path.endswith((".js", ".ts"))})
        edited.update({f"packages/p0/src/new{n}.py": python_source(n) for n in range(5)})
        repo.commit("Change", edited)
        ignored_files(repo.root, 3000)
        env = {**os.environ, "CENOTAPH_HOME": str(work / "home"), "XDG_CACHE_HOME": str(work / "cache"),
               "XDG_STATE_HOME": str(work / "state")}
        env.pop("CENOTAPH_STORE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        if args.server:
            env["PYTHONPATH"] = str(args.server.resolve())
        os.environ.update(env)  # the store seeded here is the one lint opens
        store = open_store(None)
        try:
            memory = Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer()))
            for name, ecosystem, reason in GRAVEYARD:
                memory.abandon(HUMAN, name, ecosystem=ecosystem, project=PROJECT, reason=reason, effort=3)
        finally:
            store.close()
        commands = {
            "text": [CENOTAPH, "lint", "--project", PROJECT],
            "sarif": [CENOTAPH, "lint", "--project", PROJECT, "--format", "sarif"],
            "base": [CENOTAPH, "lint", "--project", PROJECT, "--base", base],
        }
        samples: dict[str, list[float]] = {kind: [] for kind in commands}
        cpu: dict[str, list[float]] = {kind: [] for kind in commands}
        outputs: dict[str, str] = {}
        for command in commands.values():  # warm: the bytecode cache filled before any is timed
            timed(command, env, repo.root)
        for _ in range(args.runs):
            for kind, command in commands.items():  # alternated, so that each sees the same load
                elapsed, used, output = timed(command, env, repo.root)
                samples[kind].append(elapsed)
                cpu[kind].append(used)
                outputs[kind] = output
    summary = outputs["text"].strip().splitlines()[-1]
    sarif = json.loads(outputs["sarif"])
    report = {
        "commit": commit_measured(), "load": [round(x, 2) for x in os.getloadavg()], "files": len(files),
        "ignored_files": 3000, "abandoned": len(GRAVEYARD), "text_summary": summary,
        "sarif_results": len(sarif["runs"][0]["results"]), "base_summary": outputs["base"].strip().splitlines()[-1],
        "server": str(args.server or "this checkout"),
        "wall": {kind: stats(values) for kind, values in samples.items()},
        "cpu": {kind: stats(values) for kind, values in cpu.items()},
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()

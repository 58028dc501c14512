"""A `cenotaph remember` process from start to exit (both models loaded: the cost every test of
the command line pays per command, and a user per command), on a SQLite store in a scratch home.
With `--against SERVER_DIR` (another checkout's `server/`), its command runs alternately with this
one's, so that both see the same load. Usage:
python bench/cli_start.py [--runs N] [--against DIR] [--out figures.json]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from perf import commit_measured, percentile  # noqa: E402  (bench/ is not a package)

CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))


def timed(server: Path, home: Path, n: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(server), "CENOTAPH_HOME": str(home / "home"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state")}
    env.pop("CENOTAPH_STORE", None)
    started = time.perf_counter()
    done = subprocess.run([CENOTAPH, "remember", f"Deploy number {n} goes out on a Tuesday.", "--force",
                           "--project", "bench/start"], check=False, env=env, capture_output=True, text=True,
                          timeout=120)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"remember failed: {done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout's server/ folder, run alternately")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    servers = {"this": ROOT / "server"} | ({"against": args.against.resolve()} if args.against else {})
    samples: dict[str, list[float]] = {name: [] for name in servers}
    with tempfile.TemporaryDirectory(prefix="cenotaph-start-") as tmp:
        for name, server in servers.items():  # the store and the model's cache folder made, untimed
            timed(server, Path(tmp) / name, -1)
        for n in range(args.runs):
            for name, server in servers.items():
                samples[name].append(timed(server, Path(tmp) / name, n))
    report = {name: {"median_s": round(statistics.median(s), 2), "p95_s": round(percentile(s, 0.95), 2),
                     "runs": len(s)} for name, s in samples.items()}
    report |= {"commit": commit_measured(), "load_average": os.getloadavg()}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

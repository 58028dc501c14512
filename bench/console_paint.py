"""First paint of each console page in a browser (issue 40's goal: ≤ 1 s in Chromium).

Serves bench/console_perf.py's store (built there, or here through the same function) with the
real `cenotaph console --no-browser` process, logs in with its token once in Debian's headless
Chromium (/usr/bin/chromium, launched as tests/console/test_browser.py launches it, through
Playwright's Python package), then opens each page in a new tab, round after round, and reads the
browser's own clocks from navigation start: first-contentful-paint (`performance` paint entries),
the first byte of the answer and the load event (navigation timing). The time is the whole
path: the server's answer, the loopback network, parsing, the stylesheet and script, painting.

    .venv/bin/python bench/console_paint.py --size 10000 --synthetic --store /tmp/console-10k.db --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from console_perf import PAGES, console_store
from perf import CENOTAPH, PROJECT, stats

CHROMIUM = "/usr/bin/chromium"
# Resolves once the first contentful paint is recorded (it may come after the load event).
TIMINGS = """() => new Promise(resolve => {
  const navigation = performance.getEntriesByType('navigation')[0];
  new PerformanceObserver((list, observer) => {
    const paint = list.getEntries().find(e => e.name === 'first-contentful-paint');
    if (!paint) return;
    observer.disconnect();
    resolve({fcp: paint.startTime, ttfb: navigation.responseStart, load: navigation.loadEventEnd});
  }).observe({type: 'paint', buffered: true});
})"""


def serve(store: Path, home: Path) -> tuple[subprocess.Popen, str]:
    """The real console on a free port; returns the process and its login address."""
    env = {**os.environ, "CENOTAPH_HOME": str(home / "home"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_CACHE_HOME": str(home / "cache")}
    env.pop("CENOTAPH_STORE", None)
    process = subprocess.Popen([CENOTAPH, "--db", str(store), "--project", PROJECT, "console", "--no-browser",
                                "--port", "0"], env=env, stdout=subprocess.PIPE, text=True, cwd=home)
    line = ""
    while "?token=" not in line:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            raise SystemExit(f"the console did not start (exit {process.returncode})")
    return process, line.strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--synthetic", action="store_true", help="random unit vectors for the stored memories")
    parser.add_argument("--store", type=Path, help="bench/console_perf.py's store (built when missing)")
    parser.add_argument("--out")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        store = args.store or home / "cenotaph.db"
        console_store(store, args.size, Embedder(), Analyzer(), synthetic=args.synthetic)
        process, login = serve(store, home)
        origin = login.split("/?token=")[0]
        samples: dict[str, dict[str, list[float]]] = {page: {"fcp": [], "ttfb": [], "load": []} for page in PAGES}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, headless=True,
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--disable-dev-shm-usage"])
                context = browser.new_context()
                first = context.new_page()
                first.goto(login)  # the token becomes the session cookie
                for page in PAGES:  # warm-up: the model's first recall, the chain's first check
                    first.goto(origin + page)
                first.close()
                for _ in range(args.runs):
                    for page in PAGES:
                        tab = context.new_page()
                        assert tab.goto(origin + page, wait_until="load").status == 200, page
                        for name, value in tab.evaluate(TIMINGS).items():
                            samples[page][name].append(value)
                        tab.close()
                version = browser.version
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    results = {page: {name: stats(values) for name, values in clocks.items()} for page, clocks in samples.items()}
    for page, clocks in results.items():
        print(f"{page:40} " + "  ".join(f"{name} {c['median_ms']:6.1f} / {c['p95_ms']:6.1f} ms"
                                        for name, c in clocks.items()), flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    report = {"size": args.size, "synthetic": args.synthetic, "runs": args.runs, "commit": commit, "chromium": version,
              "load_average": os.getloadavg(), "pages": results}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

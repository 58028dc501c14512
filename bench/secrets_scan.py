"""What screening for secrets costs a write and how well it sorts: the scan's time on typical
memories (median and p95 over repeated runs), the import cost of detect-secrets (paid once, on the
first write), and the two rates — fake secrets refused, look-alikes accepted — on the test corpus
the rules were tuned on and on a held-out one that they were not.

The real-text corpus (tests/memory/secrets_real_text.py: documentation excerpts, notes with code,
commit messages, secret shapes and prose secrets, each judged by reading it) is scored on its
tuning and its held-out lists: ordinary texts passed, secrets found, and the documentation's
example keys flagged (either verdict is acceptable for those; `ingest` redacts them in place).
Every miss is listed by its source.

Usage: python bench/secrets_scan.py [--runs 2000] [--out figures.json]
To time the screen of another commit on the same inputs, put its server/ first on the path:
PYTHONPATH=/tmp/base/server python bench/secrets_scan.py (the corpus always comes from this tree).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "server"), str(ROOT), str(Path(__file__).resolve().parent)]
if os.environ.get("PYTHONPATH"):  # another commit's screen, timed on this tree's inputs
    sys.path[:0] = os.environ["PYTHONPATH"].split(os.pathsep)
from perf import commit_measured, sentence, stats  # noqa: E402

from cenotaph.memory import secrets  # noqa: E402
from tests.memory import secrets_real_text as real  # noqa: E402
from tests.memory.secrets_corpus import (  # noqa: E402
    HELD_OUT_LOOK_ALIKES,
    HELD_OUT_SECRETS,
    LOOK_ALIKES,
    SECRETS,
)

CODE_MEMORY = ("The retry wrapper lives in server/app/net.py: `def fetch(url, timeout=30)` retries 503s three "
               "times with backoff; fixed in commit 3f2a9c1b7e4d5a6f8b9c0d1e2f3a4b5c6d7e8f90, see PR #412.\n")


def _import_cost() -> float:
    """Seconds for a fresh interpreter to load the detectors (median of three)."""
    code = ("import sys, time; sys.path.insert(0, 'server'); from cenotaph.memory import secrets; "
            "t = time.perf_counter(); secrets.preload(); print(time.perf_counter() - t)")
    runs = [float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout) for _ in range(3)]
    return statistics.median(runs)


def _time(texts: list[str], runs: int) -> dict[str, float]:
    samples = []
    for i in range(runs):
        text = texts[i % len(texts)]
        start = time.perf_counter()
        secrets.scan(text)
        samples.append((time.perf_counter() - start) * 1000)
    return stats(samples)


def _real_text() -> dict[str, object]:
    """The real-text corpus, each list scored and each miss named."""
    figures: dict[str, object] = {}
    for split, ordinary, found in (("tuning", real.ORDINARY, real.SECRET),
                                   ("held_out", real.HELD_OUT_ORDINARY, real.HELD_OUT_SECRET)):
        refused = [source for source, text in ordinary if secrets.scan(text)]
        missed = [source for source, text, _ in found if not secrets.scan(text)]
        figures[split] = {"ordinary_passed": f"{len(ordinary) - len(refused)}/{len(ordinary)}",
                          "secrets_found": f"{len(found) - len(missed)}/{len(found)}",
                          "ordinary_refused": refused, "secrets_missed": missed}
    flagged = sum(bool(secrets.scan(text)) for _, text in real.EXAMPLE_KEY)
    figures["example_keys_flagged"] = f"{flagged}/{len(real.EXAMPLE_KEY)}"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rng = random.Random(7)
    secrets.preload()
    typical = [sentence(rng, i) for i in range(200)]
    figures = {
        "commit": commit_measured(),
        "import_s": round(_import_cost(), 3),
        "typical_sentence": _time(typical, args.runs),
        "typical_chars": round(statistics.mean(len(t) for t in typical)),
        # The real-text corpus's ordinary texts: documentation excerpts, notes with code, commit messages.
        "real_ordinary": _time([text for _, text in real.ORDINARY], args.runs),
        "real_ordinary_chars": round(statistics.mean(len(text) for _, text in real.ORDINARY)),
        "code_memory_1k": _time([CODE_MEMORY * 4], args.runs // 4),
        "code_memory_10k": _time([CODE_MEMORY * 40], args.runs // 20),
        "secrets_refused": sum(bool(secrets.scan(text)) for _, text, _ in SECRETS),
        "secrets": len(SECRETS),
        "look_alikes_accepted": sum(not secrets.scan(text) for _, text in LOOK_ALIKES),
        "look_alikes": len(LOOK_ALIKES),
        "held_out_secrets_refused": sum(bool(secrets.scan(text)) for _, text, _ in HELD_OUT_SECRETS),
        "held_out_secrets": len(HELD_OUT_SECRETS),
        "held_out_look_alikes_accepted": sum(not secrets.scan(text) for _, text in HELD_OUT_LOOK_ALIKES),
        "held_out_look_alikes": len(HELD_OUT_LOOK_ALIKES),
        "held_out_missed": [what for what, text, _ in HELD_OUT_SECRETS if not secrets.scan(text)],
    }
    figures["real_text"] = _real_text()
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

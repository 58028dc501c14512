"""Score `cenotaph mine git` against histories judged by hand (bench/mining_keys/<name>.json).

Each key was written by reading the repository's history (commit messages, diffs), never by the
miner's rule: every proposal the miner made at the judged HEAD is marked deliberate (a drop a
maintainer would sign), not deliberate, or unclear (null, counted as wrong), with the replacement
the history shows; `missed` lists the deliberate drops found by reading that the miner did not
propose. The miner runs on a clone checked out at the judged HEAD; a proposal of a name in `missed`
(the miner learned to find it) is judged by that entry: deliberate, with its replacement. A
proposal the key does not know at all is listed as unjudged, not guessed. A history with too
many proposals to judge by hand (vite) is judged on a seeded sample stated in its key's `sample`:
the proposals whose sha1(fold(name)) begins with one of its hex `digits`; the others are counted as
outside the sample and left out of every figure, and its `missed` lists only names in the sample.

Figures: precision over all proposals and over the default `proposals` view (confidence >= 0.5),
recall of deliberate drops, and replacement accuracy where one is proposed; the names passed over
(with why in the miner's report), and the wall time of one cold mining run (the cursor is not used).

Usage: python bench/mining_score.py NAME=CLONE [NAME=CLONE …]   (e.g. flask=/tmp/flask)
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

from cenotaph.cli.commands.mining import DEFAULT_MIN_CONFIDENCE
from cenotaph.memory.mining.git import mine
from cenotaph.memory.mining.history import Repository
from cenotaph.nlp.names import fold

KEYS = Path(__file__).with_name("mining_keys")


def in_sample(key: dict, name: str) -> bool:
    sample = key.get("sample")
    return sample is None or hashlib.sha1(fold(name).encode()).hexdigest()[0] in sample["digits"]


def score(name: str, clone: str) -> dict:
    key = json.loads((KEYS / f"{name}.json").read_text(encoding="utf-8"))
    head = subprocess.run(["git", "-C", clone, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    if head != key["head"]:
        raise SystemExit(f"{name}: the clone is at {head}, the key judged {key['head']}")
    started = time.perf_counter()
    history = mine(Repository(clone), None).history
    seconds = time.perf_counter() - started
    outside = [c for c in history.candidates if not in_sample(key, c.name)]
    candidates = [c for c in history.candidates if in_sample(key, c.name)]
    judged, unjudged = [], []
    missed = {entry["key"]: entry for entry in key["missed"]}
    for candidate in candidates:
        name = f"{candidate.ecosystem}/{candidate.key}"
        verdict = key["proposals"].get(name)
        if verdict is None and name in missed:
            verdict = {"deliberate": True, "replacement": missed[name].get("replacement")}
        (unjudged if verdict is None else judged).append((candidate, verdict))
    still_missed = sorted(set(missed) - {f"{c.ecosystem}/{c.key}" for c in candidates})
    right = [c for c, v in judged if v["deliberate"] is True]
    shown = [(c, v) for c, v in judged if c.confidence >= DEFAULT_MIN_CONFIDENCE]
    replaced = [(c, v) for c, v in judged if c.replacement]
    replaced_right = [c for c, v in replaced if v.get("replacement") and fold(v["replacement"]) == fold(c.replacement)]
    deliberate = len(right) + len(still_missed)
    return {
        "repository": key["repository"], "head": head[:12], "proposals": len(candidates),
        "outside_sample": len(outside),
        "commits_read": history.commits_read, "mining_seconds": round(seconds, 1),
        "passed_over": sorted(history.passed_over),
        "unjudged": [f"{c.ecosystem}/{c.key}" for c, _ in unjudged],
        "right": len(right),
        "precision": round(len(right) / len(judged), 3) if judged else None,
        "shown_by_default": len(shown),
        "precision_shown": round(sum(v["deliberate"] is True for _, v in shown) / len(shown), 3) if shown else None,
        "deliberate_drops": deliberate, "missed": still_missed,
        "recall": round(len(right) / deliberate, 3) if deliberate else None,
        "replacements_proposed": len(replaced), "replacements_right": len(replaced_right),
        "replacement_accuracy": round(len(replaced_right) / len(replaced), 3) if replaced else None,
        "wrong": sorted(f"{c.ecosystem}/{c.key}" for c, v in judged if v["deliberate"] is not True),
    }


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit(__doc__)
    results = [score(*pair.split("=", 1)) for pair in argv]
    total = {
        "proposals": sum(r["proposals"] for r in results), "right": sum(r["right"] for r in results),
        "deliberate_drops": sum(r["deliberate_drops"] for r in results),
        "shown": sum(r["shown_by_default"] for r in results),
        "replacements_proposed": sum(r["replacements_proposed"] for r in results),
        "replacements_right": sum(r["replacements_right"] for r in results),
    }
    judged = total["proposals"] - sum(len(r["unjudged"]) for r in results)
    total["precision"] = round(total["right"] / judged, 3) if judged else None
    total["recall"] = round(total["right"] / total["deliberate_drops"], 3) if total["deliberate_drops"] else None
    print(json.dumps({"repositories": results, "total": total}, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])

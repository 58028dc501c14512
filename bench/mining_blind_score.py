"""Score `cenotaph mine git` against the blind judged corpus (bench/mining_blind/<name>.json).

The labels were written and committed (the freeze) before the miner was run on any of these
repositories: every name a manifest ever declared and HEAD no longer does, labelled `decision`,
`noise` (with a category) or `debatable` from the history. SPLIT.json cuts the corpus in halves
balanced by ecosystem (A and B, then C and D, each judged later by another): tune on some, report the others
untouched, then rotate.

Figures, per split and overall:
- precision of the default view (confidence >= DEFAULT_MIN_CONFIDENCE) and of every candidate:
  decisions among the judged proposals; `debatable` counts as wrong (as `mining_score.py` counts an
  unclear verdict), and is also reported on its own;
- recall of decisions, in the default view and over every candidate;
- replacements right, where a judged proposal names one (folded names must match the label's);
- unjudged proposals: names the labels do not know, listed and never guessed.

Usage: python bench/mining_blind_score.py [NAME=CLONE …]   (default: every repository in SPLIT.json
at /tmp/blind/<name>; each clone must be checked out at the head its labels judged)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cenotaph.nlp.names import fold

LABELS = Path(__file__).with_name("mining_blind")


@dataclass(frozen=True)
class Proposal:
    """What the scorer needs of one candidate the miner made."""

    key: str  # "<ecosystem>/<name>"
    confidence: float
    replacement: str | None


def folded(key: str) -> str:
    ecosystem, _, name = key.partition("/")
    return f"{ecosystem}/{fold(name)}"


def label_key(key: str, verdicts: dict[str, dict]) -> str | None:
    """The folded label a proposal is judged by. The judge's enumerator keyed every environment.yml
    entry conda/, its `pip:` list included, so a pypi/ name with no label of its own falls back to
    the conda/ label of the same name."""
    key = folded(key)
    if key in verdicts:
        return key
    ecosystem, _, name = key.partition("/")
    return f"conda/{name}" if ecosystem == "pypi" and f"conda/{name}" in verdicts else None


def count(labels: dict[str, dict], proposals: list[Proposal], min_confidence: float) -> dict:
    """The raw tallies for one repository; the ratios are taken over sums of these."""
    verdicts = {folded(key): verdict for key, verdict in labels.items()}
    decisions = {key for key, verdict in verdicts.items() if verdict["label"] == "decision"}
    keyed = [(p, label_key(p.key, verdicts)) for p in proposals]
    judged = [(p, verdicts[key]) for p, key in keyed if key]
    shown = [(p, v) for p, v in judged if p.confidence >= min_confidence]
    replaced = [(p, v) for p, v in judged if p.replacement]
    found = {label_key(p.key, verdicts) for p, v in judged if v["label"] == "decision"}
    found_shown = {label_key(p.key, verdicts) for p, v in shown if v["label"] == "decision"}
    return {
        "proposals": len(proposals),
        "judged": len(judged),
        "right": sum(v["label"] == "decision" for _, v in judged),
        "debatable": sum(v["label"] == "debatable" for _, v in judged),
        "shown": len(shown),
        "shown_right": sum(v["label"] == "decision" for _, v in shown),
        "shown_debatable": sum(v["label"] == "debatable" for _, v in shown),
        "decisions": len(decisions),
        "decisions_found": len(found),
        "decisions_found_shown": len(found_shown),
        "replacements_proposed": len(replaced),
        "replacements_right": sum(bool(v.get("replacement")) and fold(v["replacement"]) == fold(p.replacement)
                                  for p, v in replaced),
        "unjudged": sorted(p.key for p, key in keyed if key is None),
        "wrong_shown": sorted(f"{p.key} ({v['label']}{', ' + v['category'] if v.get('category') else ''})"
                              for p, v in shown if v["label"] != "decision"),
        "missed": sorted(key for key in decisions if key not in found),
        "missed_shown": sorted(key for key in decisions if key not in found_shown),
    }


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def figures(tallies: list[dict]) -> dict:
    """Sum the tallies and take the ratios the issue asks for."""
    total = {field: sum(t[field] for t in tallies) for field in (
        "proposals", "judged", "right", "debatable", "shown", "shown_right", "shown_debatable", "decisions",
        "decisions_found", "decisions_found_shown", "replacements_proposed", "replacements_right")}
    total["unjudged"] = sum(len(t["unjudged"]) for t in tallies)
    total["precision_default"] = ratio(total["shown_right"], total["shown"])
    total["precision_all"] = ratio(total["right"], total["judged"])
    total["recall_default"] = ratio(total["decisions_found_shown"], total["decisions"])
    total["recall_all"] = ratio(total["decisions_found"], total["decisions"])
    total["replacements_right_ratio"] = ratio(total["replacements_right"], total["replacements_proposed"])
    return total


def mine_proposals(clone: str) -> tuple[list[Proposal], float]:
    from cenotaph.memory.mining.git import mine
    from cenotaph.memory.mining.history import Repository

    started = time.perf_counter()
    history = mine(Repository(clone), None).history
    seconds = time.perf_counter() - started
    return [Proposal(f"{c.ecosystem}/{c.key}", c.confidence, c.replacement) for c in history.candidates], seconds


def score(name: str, clone: str, min_confidence: float) -> dict:
    labels = json.loads((LABELS / f"{name}.json").read_text(encoding="utf-8"))
    head = subprocess.run(["git", "-C", clone, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    if head != labels["head"]:
        raise SystemExit(f"{name}: the clone is at {head}, the labels judged {labels['head']}")
    proposals, seconds = mine_proposals(clone)
    tally = count(labels["labels"], proposals, min_confidence)
    return {"name": name, "repository": labels["repository"], "head": head[:12],
            "mining_seconds": round(seconds, 1), **tally}


def main(argv: list[str]) -> None:
    from cenotaph.cli.commands.mining import DEFAULT_MIN_CONFIDENCE

    split = json.loads((LABELS / "SPLIT.json").read_text(encoding="utf-8"))
    halves = [half for half, names in split.items() if isinstance(names, list)]
    clones = dict(pair.split("=", 1) for pair in argv) or {
        name: f"/tmp/blind/{name}" for half in halves for name in split[half]}
    results = [score(name, clone, DEFAULT_MIN_CONFIDENCE) for name, clone in clones.items()]
    report = {"min_confidence": DEFAULT_MIN_CONFIDENCE, "repositories": results}
    for half in halves:
        if chosen := [r for r in results if r["name"] in split[half]]:
            report[f"split_{half}"] = figures(chosen)
    report["overall"] = figures(results)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])

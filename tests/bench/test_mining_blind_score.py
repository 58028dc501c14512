"""The blind mining scorer counts right on a tiny hand-made key, and the frozen corpus is well formed."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
_spec = importlib.util.spec_from_file_location("mining_blind_score", BENCH / "mining_blind_score.py")
scorer = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = scorer  # dataclasses look their module up while the class is built
_spec.loader.exec_module(scorer)
Proposal = scorer.Proposal

LABELS = {
    "npm/left-pad": {"label": "decision", "replacement": "string.padStart"},
    "npm/Old_Thing": {"label": "decision", "replacement": None},
    "npm/never-proposed": {"label": "decision", "replacement": "x"},
    "npm/is-array": {"label": "noise", "category": "backport retired"},
    "npm/maybe": {"label": "debatable"},
    "conda/numpy": {"label": "decision", "replacement": None},
}


def test_counts_on_a_hand_made_key():
    proposals = [
        Proposal("npm/left-pad", 0.95, "String.padStart"),  # decision, shown, replacement right (folded)
        Proposal("npm/old-thing", 0.40, "wrong-one"),        # decision by folded name, hidden, replacement wrong
        Proposal("npm/is-array", 0.80, None),                # noise, shown
        Proposal("npm/maybe", 0.60, None),                   # debatable, shown: counted wrong
        Proposal("npm/unknown", 0.99, None),                 # unjudged, in no figure but the list
        Proposal("pypi/numpy", 0.70, None),                  # an environment.yml pip entry: the conda label
    ]
    tally = scorer.count(LABELS, proposals, 0.5)
    assert tally["proposals"] == 6
    assert tally["judged"] == 5
    assert tally["unjudged"] == ["npm/unknown"]
    assert (tally["right"], tally["debatable"]) == (3, 1)
    assert (tally["shown"], tally["shown_right"], tally["shown_debatable"]) == (4, 2, 1)
    assert (tally["decisions"], tally["decisions_found"], tally["decisions_found_shown"]) == (4, 3, 2)
    assert (tally["replacements_proposed"], tally["replacements_right"]) == (2, 1)
    assert tally["missed"] == ["npm/never-proposed"]
    assert tally["missed_shown"] == ["npm/never-proposed", "npm/old-thing"]
    assert tally["wrong_shown"] == ["npm/is-array (noise, backport retired)", "npm/maybe (debatable)"]

    total = scorer.figures([tally, scorer.count({"npm/a": {"label": "decision"}}, [Proposal("npm/a", 0.9, None)], 0.5)])
    assert total["precision_default"] == round(3 / 5, 3)
    assert total["precision_all"] == round(4 / 6, 3)
    assert total["recall_default"] == round(3 / 5, 3)
    assert total["recall_all"] == round(4 / 5, 3)
    assert total["replacements_right_ratio"] == 0.5
    assert total["unjudged"] == 1


def test_the_frozen_corpus_is_well_formed():
    corpus = BENCH / "mining_blind"
    split = json.loads((corpus / "SPLIT.json").read_text(encoding="utf-8"))
    names = sorted(p.stem for p in corpus.glob("*.json") if p.stem != "SPLIT")
    assert len(names) >= 16
    halves = [members for members in split.values() if isinstance(members, list)]
    assert len(halves) >= 4 and sorted(name for members in halves for name in members) == names
    assert len({len(members) for members in halves}) == 1
    categories = {"moved-to-another-package", "transitive/temporary pin", "example/docs/bench/test-input",
                  "build-stage system package", "own workspace package", "experiment removed soon",
                  "backport retired", "whole feature deleted", "rename of the same package", "other"}
    for name in names:
        doc = json.loads((corpus / f"{name}.json").read_text(encoding="utf-8"))
        assert re.fullmatch(r"[0-9a-f]{40}", doc["head"]), name
        assert doc["judged_by"] and doc["judged_at"] and doc["method"], name
        # A repository may have dropped nothing by choice (C's records): its noise is still judged.
        assert doc["labels"], name
        for key, verdict in doc["labels"].items():
            assert re.fullmatch(r"[a-z]+/\S.*", key), (name, key)  # C labels "pypi/-e -", a Pipfile entry
            assert verdict["label"] in ("decision", "noise", "debatable"), (name, key)
            assert verdict["evidence"], (name, key)
            if verdict["label"] == "noise":
                assert verdict["category"] in categories, (name, key)


def test_the_fit_knows_every_kind_of_evidence_the_miner_weighs_and_recovers_a_clear_signal():
    from cenotaph.memory.mining.evidence import WEIGHTS

    spec = importlib.util.spec_from_file_location("mining_blind_fit", BENCH / "mining_blind_fit.py")
    fit = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fit
    spec.loader.exec_module(fit)
    assert set(fit.PRIOR) == set(WEIGHTS)
    # Named drops are decisions 9 times in 10, silent ones 1 in 10: the fit moves `named` up from its
    # prior and the intercept down, whatever the pull.
    rows = [fit.Row("r", f"npm/n{i}", ("named",) if i < 20 else (), (i % 10 != 0) == (i < 20), None, None)
            for i in range(40)]
    intercept, weights = fit.fit(rows, 1.0)
    assert weights["named"] > fit.PRIOR["named"] and intercept < fit.PRIOR_INTERCEPT
    named, silent = fit.predict([rows[0], rows[-1]], (intercept, weights))
    assert named > 0.8 and silent < 0.2

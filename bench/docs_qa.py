"""Answers from ingested documentation (issue 43): questions over eight real projects' docs folders.

bench/docs_questions/<project>.jsonl holds, after a header line (repository, pinned commit, docs
folder), one question a line: the answering file, its section (heading line to the line before the
next heading of its level or above), the line holding the fact and the fact, a short string that
must appear in the #1 result; and five unanswerable questions. The questions were written from the
docs before any query ran (bench/docs_questions/authoring/ has the tools that printed the sections
read and built the files).

Each docs folder is taken from the project's git history at the pinned commit and ingested into a
fresh store of its own (kept in --cache, keyed on the chunking code, so a rerun only ranks).
Figures, per question, over `recall` as shipped (k = 5):
- hit@1 / hit@5: a result among the first 1 / 5 lies in the answering section (same file, lines
  overlapping the section);
- fact@1: the fact is in the #1 result's text (whitespace folded);
- unanswerable: the response lists any result at all (a "confident list"); the goal is that
  nothing answers.

`--cv` rotates a k-fold split by project (four folds of two projects): the rules studied are chosen
together on the other six projects and scored on the two held out, as bench/locomo.py does per
conversation.

`--against RULES` also scores, in the same run, the split with those studied rules held at their
first value (a new rule off) and the others chosen as before: the ranking the new rules are
measured against.

Usage: python bench/docs_qa.py [--projects a,b] [--cache DIR] [--cv [--study RULES] [--against RULES]]
                              [--misses] [--out figures.json]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from cenotaph.memory.context import Context
from cenotaph.memory.core.recall import Rules
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "docs_questions"
ACTOR = Actor("docs-qa", "human")
K = 5
FOLDS = [["attrs", "tox"], ["pytest", "nox"], ["cli", "pip"], ["poetry", "mkdocs-material"]]
# The rules studied across folds, their values chosen together on the training projects: the
# relevance floor (recall.Rules.floor, the least cosine or share of the query's words a result
# needs); the cosine a document chunk needs when a query word is in no stored text (−1: no such
# rule); a changelog chunk's factor; the weight of the query's words in a chunk's headings; the
# share of the query's words a chunk needs below cosine 0.7 (0: no such rule); how far the best document
# cosine must stand above the 10th best for a chunk below cosine 0.7 to answer (0: no such rule); and,
# off or on, only with --study: whether a chunk holding every identifier the question types holds
# enough of its words, whether a stop word typed as a --flag is a query word, whether a
# syntax-shaped query without a byte-exact match goes to the semantic lane.
STUDY: dict[str, list[object]] = {"floor": [0.3, 0.4, 0.5, 0.6], "unknown_word_cosine": [-1.0, 0.65, 0.7],
                                  "changelog_factor": [1.0, 0.8], "heading_weight": [0.0, 0.05, 0.1, 0.15, 0.2],
                                  "document_share": [0.0, 0.5, 0.6, 0.67],
                                  "document_standout": [0.0, 0.04]}
SWITCHES: dict[str, list[object]] = {"identifier_evidence": [False, True], "flag_words": [False, True],
                                     "exact_or_semantic": [False, True]}
# What ingesting depends on: a store built before any of these changed is built again.
INGEST_CODE = [HERE.parent / "server" / "cenotaph" / p for p in
               ("nlp/chunks.py", "memory/knowledge/documents.py", "nlp/embedder.py")]


def load(name: str) -> tuple[dict, list[dict]]:
    lines = (QUESTIONS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]


def sources(header: dict, cache: Path) -> Path:
    """The project's docs folder at the pinned commit, under a root of its own."""
    repo, commit = header["repository"], header["commit"]
    root = cache / "sources" / f"{repo.replace('/', '+')}@{commit[:12]}"
    if (root / header["docs"]).is_dir():
        return root
    mirror = Path("/work/.mirror") / repo.replace("/", "+") / "repo"
    git_dir = mirror if mirror.is_dir() else cache / "git" / repo.replace("/", "+")
    if not git_dir.is_dir():
        subprocess.run(["git", "clone", "--bare", "--filter=blob:none", f"https://github.com/{repo}", str(git_dir)],
                       check=True)
    root.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", commit, header["docs"]], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    # Symbolic links to files outside the docs folder (a changelog at the root) lead nowhere here.
    for link in [p for p in root.rglob("*") if p.is_symlink() and not p.exists()]:
        link.unlink()
    return root


@functools.cache
def code_key() -> str:
    """Read once per run: a file edited while the bench runs does not relabel a store built before."""
    digest = hashlib.sha256()
    for path in INGEST_CODE:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def store_for(name: str, header: dict, cache: Path, embedder: Embedder, analyzer: Analyzer) -> tuple[Memory, dict]:
    path = cache / "stores" / f"{name}-{header['commit'][:12]}-{code_key()}.db"
    meta = path.with_suffix(".json")
    fresh = not path.exists()
    if fresh:
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in path.parent.glob(f"{name}-*"):
            stale.unlink()
    memory = Memory(Context(store=Store(path), embedder=embedder, analyzer=analyzer))
    if fresh:
        root = sources(header, cache)
        started = time.perf_counter()
        report = memory.ingest(ACTOR, [str(root / header["docs"])], project=name, root=root)
        figures = {"files": report.files, "chunks": report.chunks_added,
                   "ingest_seconds": round(time.perf_counter() - started, 1)}
        meta.write_text(json.dumps(figures), encoding="utf-8")
        print(f"{name}: {figures}", file=sys.stderr, flush=True)
    return memory, json.loads(meta.read_text(encoding="utf-8"))


def _folded(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _inside(result: object, question: dict) -> bool:
    """Whether a result lies in the question's answering section."""
    where = result.location  # type: ignore[attr-defined]
    start, end = question["section"]
    return where is not None and where.path == question["file"] and where.start_line <= end and where.end_line >= start


def score(memory: Memory, name: str, questions: list[dict], variants: list[Rules]) -> dict[Rules, list[dict]]:
    """Each question under every variant in turn: the recaller embeds a query once for them all."""
    rows: dict[Rules, list[dict]] = {rules: [] for rules in variants}
    for q in questions:
        for rules in variants:
            memory.recaller.rules = rules
            rows[rules].append(_row(memory, name, q))
    return rows


def _row(memory: Memory, name: str, q: dict) -> dict:
    response = memory.recall(ACTOR, q["question"], project=name, k=K, log=False)
    results = [r for r in response.results if r.result_type == "memory"]
    row = {"project": name, "question": q["question"], "returned": len(results),
           "top": [f"{r.location.path}:{r.location.start_line}-{r.location.end_line}" if r.location else f"#{r.id}"
                   for r in results], "scores": [r.score for r in results]}
    if q.get("unanswerable"):
        row["unanswerable"] = True
        row["confident"] = bool(results)
    else:
        row["hit@1"] = bool(results) and _inside(results[0], q)
        row["hit@5"] = any(_inside(r, q) for r in results[:5])
        row["fact@1"] = bool(results) and _folded(q["fact"]) in _folded(results[0].content)
    return row


def summarize(rows: list[dict]) -> dict:
    answerable = [r for r in rows if not r.get("unanswerable")]
    unanswerable = [r for r in rows if r.get("unanswerable")]
    n = len(answerable) or 1
    return {"questions": len(answerable),
            "hit@1": round(sum(r["hit@1"] for r in answerable) / n, 3),
            "fact@1": round(sum(r["fact@1"] for r in answerable) / n, 3),
            "hit@5": round(sum(r["hit@5"] for r in answerable) / n, 3),
            "unanswerable_confident": f"{sum(r['confident'] for r in unanswerable)}/{len(unanswerable)}",
            "unanswerable_full_list": f"{sum(r['returned'] >= K for r in unanswerable)}/{len(unanswerable)}"}


def objective(rows: list[dict]) -> float:
    """What a rule is chosen for on the training folds: answers first, silence on the unanswerable
    (a confident list on an unanswerable question weighs as much as a lost answer at rank 1)."""
    answerable = [r for r in rows if not r.get("unanswerable")]
    unanswerable = [r for r in rows if r.get("unanswerable")]
    return (sum(r["hit@1"] + r["fact@1"] + r["hit@5"] for r in answerable) / max(len(answerable), 1)
            - sum(r["confident"] for r in unanswerable) / max(len(unanswerable), 1))


def grid(base: Rules, study: dict[str, list[object]]) -> list[Rules]:
    """Every combination of the studied rules' values, in STUDY's order."""
    return [replace(base, **dict(zip(study, values, strict=True))) for values in itertools.product(*study.values())]


def cross_validate(rank: dict[tuple[str, Rules], list[dict]], projects: list[str], base: Rules,
                   study: dict[str, list[object]]) -> dict:
    """The studied rules' values chosen together on the training projects (the first combination
    wins a tie), scored on the held-out ones."""
    folds = [[p for p in fold if p in projects] for fold in FOLDS]
    folds = [f for f in folds if f]
    chosen: dict[str, dict[str, object]] = {}
    held_out: list[dict] = []
    combinations = grid(base, study)
    for fold in folds:
        train = [p for p in projects if p not in fold]
        rules = max(combinations, key=lambda c: (objective([r for p in train for r in rank[(p, c)]]),
                                                 -combinations.index(c)))
        chosen["+".join(fold)] = {name: getattr(rules, name) for name in study}
        held_out += [r for p in fold for r in rank[(p, rules)]]
    return {"chosen": chosen, "held_out": summarize(held_out)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", help="comma-separated (default: every file in bench/docs_questions)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "cenotaph-docs-qa")
    parser.add_argument("--cv", action="store_true", help="also the k-fold split by project, the studied rules chosen together")
    parser.add_argument("--study", help="with --cv: only these rules, comma-separated (default: all; the others "
                                            "keep recall's values)")
    parser.add_argument("--against", help="with --cv: studied rules held at their first value in a second split")
    parser.add_argument("--misses", action="store_true", help="print the questions missed at rank 1")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    names = args.projects.split(",") if args.projects else sorted(p.stem for p in QUESTIONS.glob("*.jsonl"))
    embedder, analyzer = Embedder(), Analyzer()
    base = Rules()
    study = STUDY
    if args.study:
        known = STUDY | SWITCHES
        if unknown := set(args.study.split(",")) - set(known):
            parser.error(f"--study: no rule named {', '.join(sorted(unknown))}; known: {', '.join(known)}")
        study = {name: known[name] for name in args.study.split(",")}
    variants = [base]
    if args.cv:
        variants += grid(base, study)
    rank: dict[tuple[str, Rules], list[dict]] = {}
    ingests = {}
    for name in names:
        header, questions = load(name)
        memory, ingests[name] = store_for(name, header, args.cache, embedder, analyzer)
        for rules, rows in score(memory, name, questions, list(dict.fromkeys(variants))).items():
            rank[(name, rules)] = rows
        memory.close()
    shipped = [r for name in names for r in rank[(name, base)]]
    figures: dict = {"k": K, "shipped": summarize(shipped),
                     "per_project": {name: summarize(rank[(name, base)]) for name in names}, "ingest": ingests}
    if args.cv:
        figures["cv"] = cross_validate(rank, names, base, study)
        if args.against:
            held = {name: study[name][0] for name in args.against.split(",")}
            figures["cv"]["against"] = {"held": held, **cross_validate(
                rank, names, replace(base, **held), {n: v for n, v in study.items() if n not in held})}
        figures["cv"]["whole_split"] = {f"{name}={v}": summarize([r for p in names for r in rank[(p, replace(base, **{name: v}))]])
                                        for name, values in study.items() for v in values}
    if args.misses:
        for r in shipped:
            if not r.get("unanswerable") and not r["hit@1"] or r.get("confident"):
                print(f"MISS {r['project']}: {r['question']} → {r['top'][:3]} {r['scores'][:3]}", file=sys.stderr)
    print(json.dumps(figures, indent=2))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""A hand-written mutation pass over the guarantees DESIGN.md and the README make (issue 30): each
mutant changes one line of the product the way a plausible slip would (a boundary moved, a check
dropped, a verdict inverted); the tests that guard that guarantee must then fail.

Each mutant is applied to a copy of server/ (the checkout is never touched) and runs only the
tests relevant to it, on SQLite alone (each guarantee here is the same on both stores), stopping
at the first failure. A mutant is KILLED when those tests fail, SURVIVES when they pass; a mutant
whose text is not found exactly once in its file is an ERROR (the code moved: update the mutant).
First the selected tests run once unmutated: a test that already fails would kill everything.

Usage: python bench/mutants.py [--only NAME,...] [--skip-baseline] [--out result.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "server/cenotaph"


@dataclass(frozen=True)
class Mutant:
    name: str
    guarantee: str
    path: str  # under server/cenotaph/
    old: str
    new: str
    tests: tuple[str, ...]  # pytest arguments: files, node ids, -k expressions


def _k(path: str, expression: str) -> tuple[str, ...]:
    return (path, "-k", expression)


MUTANTS = (
    # Graveyard verdicts: the nearest scope wins; other projects only when asked; reinstated is clear.
    Mutant("verdict-scope-order", "graveyard verdicts", "memory/graveyard/verdicts.py",
           'scope_rank = 0 if a.project == project else 1 if a.project == "" else 2',
           'scope_rank = 0 if a.project == "" else 1 if a.project == project else 2',
           _k("tests/memory/test_remember_recall.py", "prefers_project_over_global")),
    Mutant("verdict-other-projects-always", "graveyard verdicts", "memory/graveyard/verdicts.py",
           'for a in found if include_other or a.project in (project, "")', "for a in found",
           _k("tests/memory/test_remember_recall.py", "prefers_project_over_global or other_projects")),
    Mutant("verdict-reinstated-still-warns", "graveyard verdicts", "memory/core/recall.py",
           'if verdict.status != "abandoned" or a is None:', "if a is None:",
           _k("tests/memory/test_remember_recall.py", "reinstated or graveyard_warning")),
    # Suppression: automatic from effort 4; scoped to the project or everywhere.
    Mutant("suppress-effort-above-4", "suppression", "memory/graveyard/approaches.py",
           "recall_suppressed = effort is not None and effort >= 4",
           "recall_suppressed = effort is not None and effort > 4",
           _k("tests/memory/test_suppressions.py", "effort")),
    Mutant("suppress-recall-project-only", "suppression", "memory/graveyard/approaches.py",
           'rows in self.index().recall_suppressions.items() if any(s.project in ("", project) for s in rows)',
           'rows in self.index().recall_suppressions.items() if any(s.project == project for s in rows)',
           _k("tests/memory/test_suppressions.py", "scope_project_or_global or recall_suppression")),
    Mutant("suppress-diagnostic-any-project", "suppression", "memory/graveyard/verdicts.py",
           's.project in ("", project) for k in {best.name, key}', "True for k in {best.name, key}",
           _k("tests/memory/test_suppressions.py", "diagnostic_suppression")),
    # Dedup: cosine >= 0.92, same kind, live, same side; force skips it.
    Mutant("dedup-threshold", "dedup", "memory/core/remember.py",
           "DUPLICATE_SIMILARITY = 0.92", "DUPLICATE_SIMILARITY = 0.995",
           _k("tests/memory/test_remember_recall.py", "near_duplicate")),
    Mutant("dedup-ignores-force", "dedup", "memory/core/remember.py",
           "if not force and use_vectors:", "if use_vectors:",
           _k("tests/memory/test_remember_recall.py", "near_duplicate")),
    Mutant("dedup-opposite-sides", "dedup", "memory/core/remember.py",
           "and twin.polarity * analysis.polarity >= 0)", ")",
           _k("tests/memory/test_remember_recall.py", "opposite_polarity")),
    # Contradictions: found at cosine >= 0.7 with opposite polarity; resolve refutes the loser;
    # a dismissal is never flagged again.
    Mutant("contradiction-threshold", "contradictions", "memory/core/remember.py",
           "CONTRADICTION_SIMILARITY = 0.70", "CONTRADICTION_SIMILARITY = 0.97",
           _k("tests/memory/test_contradictions.py", "detected_on_write")),
    Mutant("contradiction-loser-disputed", "contradictions", "memory/core/contradictions.py",
           'set_trust(ctx, tx, current, "refuted", reason=note, actor=actor.name)',
           'set_trust(ctx, tx, current, "disputed", reason=note, actor=actor.name)',
           _k("tests/memory/test_contradictions.py", "resolve_keep_one or neither")),
    Mutant("contradiction-dismissal-forgotten", "contradictions", "memory/core/remember.py",
           "or contradictions.is_dismissed(conn, row.content_hash, other.content_hash)\n", "\n",
           _k("tests/memory/test_contradictions.py", "dismiss")),
    # Audit chain: every hashed column counts; a broken link is named.
    Mutant("audit-actor-unhashed", "audit chain", "store/events.py",
           "payload = json.dumps([prev_hash, at, actor, action,", "payload = json.dumps([prev_hash, at, action,",
           _k("tests/memory/test_audit.py", "hashed_column")),
    Mutant("audit-project-unhashed", "audit chain", "store/events.py",
           "action, target, project, before, after, reason], ensure_ascii=False)",
           "action, target, before, after, reason], ensure_ascii=False)",
           _k("tests/memory/test_audit.py", "hashed_column")),
    Mutant("audit-link-unchecked", "audit chain", "memory/core/audit.py",
           "if row.prev_hash != expected_prev:", "if False:",
           _k("tests/memory/test_audit.py", "rehashed or hashed_column")),
    # Forget: the content is gone, a tombstone stays.
    Mutant("forget-keeps-content", "forget", "memory/core/pruning.py",
           "memories.erase_content(tx, row.memory_id)", "pass",
           _k("tests/memory/test_forget_gone.py", "no_byte or nothing_forgotten")),
    # Restore: a forgotten memory never comes back, by lineage or by content hash.
    Mutant("restore-no-hash-check", "restore", "memory/operations/backup.py",
           'if ours and ours[-1].state == "deleted" or any(v.content_hash in forgotten for v in theirs):',
           'if ours and ours[-1].state == "deleted":',
           _k("tests/memory/test_backup.py", "forgotten")),
    Mutant("restore-no-lineage-check", "restore", "memory/operations/backup.py",
           'if ours and ours[-1].state == "deleted" or any(v.content_hash in forgotten for v in theirs):',
           "if any(v.content_hash in forgotten for v in theirs[1:]):",
           _k("tests/memory/test_backup.py", "forgotten")),
    Mutant("restore-ignores-backup-tombstones", "restore", "memory/operations/backup.py",
           "if memory_id in backup_tombstones:", "if False:",
           _k("tests/memory/test_backup.py", "carries_the_tombstone")),
    # Secrets: never stored; a person may redact, an agent never.
    Mutant("secrets-unscanned", "secrets", "memory/secrets.py",
           "    findings = scan(text)\n    if not findings:", "    findings = []\n    if not findings:",
           _k("tests/memory/test_secrets.py", "remember_refuses")),
    Mutant("secrets-agent-redacts", "secrets", "memory/secrets.py",
           'if actor.kind == "human" and actor.redact_secrets:', "if actor.redact_secrets:",
           _k("tests/memory/test_secrets.py", "redacted_an_agent_never")),
    # Mining: a rejected candidate is not proposed again; one in the graveyard neither.
    Mutant("mining-dismissal-ignored", "mining", "memory/mining/candidates.py",
           "elif (candidate.ecosystem, key) in dismissed:", "elif False:",
           _k("tests/memory/test_candidates.py", "rejecting_dismisses")),
    Mutant("mining-graveyard-ignored", "mining", "memory/mining/candidates.py",
           "if verdict.approach is not None:\n                report.in_graveyard.append(key)",
           "if False:\n                report.in_graveyard.append(key)",
           _k("tests/memory/test_candidates.py", "already_judged")),
    # Compile gate: nothing is written over a file that moved; graveyard lessons from effort 3.
    Mutant("compile-gate-open", "compile gate", "memory/policy/compile/__init__.py",
           "if sha256_of(_inside(root, change.path, \"path\")) != change.base_sha256:", "if False:",
           _k("tests/memory/test_compile.py", "file_moved")),
    Mutant("compile-effort-above-3", "compile gate", "memory/policy/lessons.py",
           "(approach.effort or 0) >= REINFORCING_EFFORT", "(approach.effort or 0) > REINFORCING_EFFORT",
           _k("tests/memory/test_compile.py", "effort_three")),
    # Diagnostics: a silenced name is not flagged; a prose mention is only a hint.
    Mutant("diagnostics-silence-ignored", "diagnostics", "lsp/features/diagnostics.py",
           "and verdict.approach is not None and not verdict.diagnostic_suppressed}",
           "and verdict.approach is not None}",
           _k("tests/lsp/test_requirements.py", "silence")),
    Mutant("diagnostics-mention-as-instruction", "diagnostics", "lsp/features/diagnostics.py",
           'level = severity.instruction if kind == "recommendation" else severity.mention',
           "level = severity.instruction",
           _k("tests/lsp/test_documents.py", "prose_mentions")),
    # Agent proposals: an agent's destructive verbs wait for a person, who alone decides.
    Mutant("proposals-agent-acts", "agent proposals", "memory/proposals.py",
           'return actor.kind == "agent" and verb not in settings.agent_allowed', "return False",
           _k("tests/memory/test_proposals.py", "agent_forget")),
    Mutant("proposals-agent-decides", "agent proposals", "memory/proposals.py",
           'if actor.kind != "human":', "if False:",
           _k("tests/memory/test_proposals.py", "never_decides")),
)


def run_tests(source: Path, tests: tuple[str, ...], timeout: int) -> tuple[int, float, str]:
    env = dict(os.environ, PYTHONPATH=str(source / "server"), CENOTAPH_TEST_STORES="sqlite")
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
        code, tail = done.returncode, done.stdout.strip().splitlines()[-1:]
    except subprocess.TimeoutExpired:
        code, tail = -1, ["timed out"]
    return code, time.perf_counter() - started, " ".join(tail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="these mutants (names, comma-separated)")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test run")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="cenotaph-mutants-"))
    source = workdir / "tree"
    shutil.copytree(REPO / "server", source / "server", ignore=shutil.ignore_patterns("__pycache__"))
    results = []
    try:
        if not args.skip_baseline:
            for tests in dict.fromkeys(m.tests for m in chosen):
                code, seconds, tail = run_tests(source, tests, args.timeout)
                if code != 0:
                    sys.exit(f"the unmutated tests fail ({' '.join(tests)}): {tail}")
                print(f"baseline {' '.join(tests)}: passed in {seconds:.0f} s", file=sys.stderr, flush=True)
        for mutant in chosen:
            target = source / "server" / "cenotaph" / mutant.path
            original = target.read_text(encoding="utf-8")
            if original.count(mutant.old) != 1:
                results.append({"name": mutant.name, "guarantee": mutant.guarantee, "verdict": "error",
                                "detail": f"the text occurs {original.count(mutant.old)} times in {mutant.path}"})
                continue
            target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
            try:
                code, seconds, tail = run_tests(source, mutant.tests, args.timeout)
            finally:
                target.write_text(original, encoding="utf-8")
            verdict = "error" if code in (4, 5) else "killed" if code != 0 else "survived"
            results.append({"name": mutant.name, "guarantee": mutant.guarantee, "verdict": verdict,
                            "seconds": round(seconds), "tests": " ".join(mutant.tests), "detail": tail})
            print(f"{mutant.name}: {verdict} in {seconds:.0f} s ({tail})", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    killed = sum(r["verdict"] == "killed" for r in results)
    report = {"mutants": len(results), "killed": killed, "kill_rate": round(killed / len(results), 3) if results else 0,
              "results": results}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

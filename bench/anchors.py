"""How anchors follow code through real histories (issue 41), and the threshold between followed
and stale.

For each repository: its first-parent history, a start commit and the commit N later. Anchors are
placed at the start on every function and method of the Python files (their first decorator, or
their `def`, to their last line), then checked at the end with the domain's own check (`memory/knowledge/anchors/follow.py`: git's
rename detection, then the fingerprint) in a clone checked out there. The truth comes from the
code at the end, read with `ast`: the function of the same qualified name in the file the path
moved to; `same` when its syntax tree (docstrings and annotations left out) is the start's,
`changed` when not, `gone` when no such function is left.

    .venv/bin/python bench/anchors.py /work/.mirror/jd+tenacity/repo [--commits 200]

It prints, per repository and overall: how many anchors moved and were followed to the exact
lines; the similarity of every anchor whose code changed or stayed; and, per candidate threshold,
stale recall (changed or gone flagged stale/lost) and false stale (same flagged stale)."""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cenotaph.memory.knowledge.anchors import fingerprint
from cenotaph.memory.knowledge.anchors.follow import Anchors
from cenotaph.store.records import AnchorRow

# An anchor on a function starts at its first decorator, as selecting the function in an editor
# does (the decorators are part of what the function does; `--at-def` starts at the `def`).
FROM_DECORATORS = True
THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def _shape(node: ast.AST) -> str:
    """A function's syntax without its docstring and annotations: what it does."""
    node = ast.parse(ast.unparse(node)).body[0]
    for sub in ast.walk(node):
        body = getattr(sub, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            sub.body = body[1:] or [ast.Pass()]
        if isinstance(sub, ast.arg):
            sub.annotation = None
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sub.returns = None
    return ast.dump(node)


def functions(source: str) -> dict[str, tuple[int, int, str]]:
    """Qualified name -> (first line, last line, shape) of each function and method."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, tuple[int, int, str]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef) and name not in found:
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list if FROM_DECORATORS])
                    found[name] = (first, child.end_lineno or child.lineno, _shape(child))
                visit(child, name + ".")

    visit(tree, "")
    return found


@dataclass
class Outcome:
    truth: str  # same, changed, gone
    moved: bool  # the function's lines or file differ at the end
    exact: bool  # the check found the function's lines at the end
    similarity: float
    state: str
    where: str = ""  # path:name, for --misses


def run(mirror: Path, commits: int) -> list[Outcome]:
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
        history = git(clone, "rev-list", "--first-parent", "--reverse", "HEAD").split()
        end = history[-1]
        start = history[max(0, len(history) - 1 - commits)]
        git(clone, "checkout", "-q", end)
        paths = [p for p in git(clone, "ls-tree", "-r", "--name-only", start).split() if p.endswith(".py")]
        renames = {}
        for line in git(clone, "diff", "-M", "--name-status", start, end).splitlines():
            parts = line.split("\t")
            if parts[0].startswith("R"):
                renames[parts[1]] = parts[2]
        outcomes = []
        checker = Anchors(None, lambda _project: clone)  # type: ignore[arg-type]  # check reads no store
        for path in paths:
            before = git(clone, "show", f"{start}:{path}")
            lines = before.splitlines()
            after_path = renames.get(path, path)
            after_file = clone / after_path
            after = functions(after_file.read_text(errors="replace")) if after_file.is_file() else {}
            for name, (first, last, shape) in functions(before).items():
                taken = fingerprint.take(lines, first, last)
                row = AnchorRow(0, "p", path, first, last, taken.text, taken.lines_before, taken.lines_after,
                                start, "current", "", "")
                checked = checker.check(row)
                a = checked.anchor
                if name not in after:
                    truth, moved, exact = "gone", True, False
                else:
                    new_first, new_last, new_shape = after[name]
                    truth = "same" if new_shape == shape else "changed"
                    moved = (after_path, new_first, new_last) != (path, first, last)
                    exact = (a.path, a.start_line, a.end_line) == (after_path, new_first, new_last)
                similarity = fingerprint.similarity(taken.text, checked.now) if checked.now else 0.0
                outcomes.append(Outcome(truth, moved, exact, similarity, a.state, f"{path}:{name} {first}-{last} -> "
                                        f"{a.path}:{a.start_line}-{a.end_line}"
                                        + (f" (the function now {after[name][0]}-{after[name][1]})" if name in after else "")))
        return outcomes


def report(name: str, outcomes: list[Outcome]) -> None:
    same = [o for o in outcomes if o.truth == "same"]
    changed = [o for o in outcomes if o.truth != "same"]
    moved_same = [o for o in same if o.moved]
    print(f"{name}: {len(outcomes)} anchors; same {len(same)} (moved {len(moved_same)}), "
          f"changed {sum(o.truth == 'changed' for o in outcomes)}, gone {sum(o.truth == 'gone' for o in outcomes)}")
    if moved_same:
        print(f"  moved and unchanged, followed to the exact lines: {sum(o.exact for o in moved_same)}/{len(moved_same)}"
              f" = {sum(o.exact for o in moved_same) / len(moved_same):.1%}")
    stale = sum(o.state in ("stale", "lost") for o in changed)
    false = sum(o.state in ("stale", "lost") for o in same)
    print(f"  as checked (fingerprint.stale: the code changed beyond whitespace and comments, or its text is below "
          f"{fingerprint.FOLLOW_THRESHOLD} like the taken text and it is not Python doing the same; a lost file counts): "
          f"stale recall {stale}/{len(changed)} = {stale / max(1, len(changed)):.1%}, "
          f"false stale {false}/{len(same)} = {false / max(1, len(same)):.1%}")
    for t in THRESHOLDS:
        flagged = sum(o.similarity < t for o in changed)
        false = sum(o.similarity < t for o in same)
        print(f"  threshold {t:.2f}: stale recall {flagged}/{len(changed)} = {flagged / max(1, len(changed)):.1%}, "
              f"false stale {false}/{len(same)} = {false / max(1, len(same)):.1%}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mirrors", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--misses", action="store_true", help="list the changed functions not flagged, and the false stale")
    parser.add_argument("--at-def", action="store_true", help="anchors from the `def` line, not the first decorator")
    args = parser.parse_args()
    global FROM_DECORATORS
    FROM_DECORATORS = not args.at_def
    everything = []
    for mirror in args.mirrors:
        began = time.perf_counter()
        outcomes = run(mirror, args.commits)
        report(f"{mirror.parent.name} ({time.perf_counter() - began:.0f} s)", outcomes)
        everything += outcomes
        if args.misses:
            for o in outcomes:
                if (o.truth != "same") != (o.state in ("stale", "lost")):
                    print(f"  {'missed' if o.truth != 'same' else 'false stale'}: {o.where} [{o.state}, {o.similarity:.2f}]")
    report("all", everything)
    return 0


if __name__ == "__main__":
    sys.exit(main())

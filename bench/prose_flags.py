"""Issue 38, point 7: what the editor flags in real projects' docs once each project's own
dependencies are abandoned. Every .md, .rst and .txt file under each repository's docs/ is
scanned as the language server scans it (`detect`, then the store's verdicts), and each flag is
sorted by where it stands: in a code block, inline code, an install command line, an import
line, or prose. "Before" is the rule of BASE (every whole-word mention in Markdown, applied to
every file here, although .rst and .txt were not scanned then), loaded from git.

The dependencies are what the repository's root manifests (pyproject.toml, setup.py, setup.cfg,
requirements*.txt and requirements/) declare, read by `cenotaph.nlp.detect.declarations`, and
abandoned in a scratch SQLite store as a person would (`Memory.abandon`, ecosystem pypi).

Where a Markdown flag stands is judged by markdown-it-py (CommonMark, independent of the scanner
measured): a flag counts as code when markdown-it puts its line in a fence or indented block, or
the name in an inline code span of that line, or when the line is an install or import line.
For .rst and .txt, by the scanner's own regions (docutils does not know Sphinx's directives).

Measured (docs/benchmarks.md): aio-libs/aiohttp 495e778, Kludex/uvicorn d26c85c,
python-attrs/attrs c1dc5dc, hynek/structlog 025edaf, encode/django-rest-framework 751a19f,
pallets/werkzeug 1b00618 (none in /work/shared/HELDOUT.md).

Then the time to scan each file, BASE's rule and this one alternated on the same files.

Usage: python bench/prose_flags.py REPO [REPO…] [--base COMMIT] [--show N] [--runs N] [--out figures.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from perf import commit_measured, stats  # noqa: E402  (bench/ is not a package)

from cenotaph.app import open_memory  # noqa: E402
from cenotaph.memory.models import Actor  # noqa: E402
from cenotaph.nlp import ecosystems  # noqa: E402
from cenotaph.nlp.detect import declarations, detect  # noqa: E402
from cenotaph.nlp.ecosystems import markup, prose  # noqa: E402
from cenotaph.nlp.ecosystems.base import Context, line_starts  # noqa: E402
from cenotaph.nlp.names import fold  # noqa: E402

PERSON = Actor(name="bench", kind="human")
PROJECT = "bench/prose"
SUFFIXES = (".md", ".rst", ".txt")
MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg", "Pipfile")


def dependencies(repo: Path) -> set[str]:
    paths = [repo / name for name in MANIFESTS] + sorted(repo.glob("requirements*.txt")) \
        + sorted(repo.glob("requirements/*.txt")) + sorted(repo.glob("requirements/*.in"))
    names = set()
    for path in paths:
        if path.is_file() and (found := declarations(path.name if path.parent == repo else f"requirements/{path.name}",
                                                     path.read_text(errors="replace"))):
            names.update(d.name for d in found.declarations if d.ecosystem == "pypi")
    return names


def old_scanner(base: str):
    source = subprocess.run(["git", "show", f"{base}:server/cenotaph/nlp/ecosystems/prose.py"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader("prose_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, "prose_before.py", "exec"), module.__dict__)  # noqa: S102 - the project's own code at BASE
    return module._prose_hits


def markdown_code(text: str) -> tuple[set[int], dict[int, list[str]]]:
    """Lines in code blocks, and the inline code of each line, as markdown-it-py reads them."""
    from markdown_it import MarkdownIt

    block_lines: set[int] = set()
    inline: dict[int, list[str]] = {}
    for token in MarkdownIt("commonmark").parse(text):
        if token.type in ("fence", "code_block") and token.map:
            block_lines.update(range(token.map[0], token.map[1]))
        elif token.type == "inline" and token.map:
            codes = [child.content for child in token.children or () if child.type == "code_inline"]
            for line in range(token.map[0], token.map[1]):
                inline.setdefault(line, []).extend(codes)
    return block_lines, inline


def where(path: str, text: str, starts: list[int], start: int, end: int, name: str, context: Context,
          markdown: tuple[set[int], dict[int, list[str]]] | None) -> str:
    line = max(i for i, s in enumerate(starts) if s <= start) if len(starts) < 64 else _line(starts, start)
    line_text = text[starts[line]:(starts[line + 1] if line + 1 < len(starts) else len(text))]
    if any(s <= start < e for s, e in prose._install_hits(line_text, context) for s, e in [(s + starts[line], e + starts[line])]):
        return "install"
    if any(s + starts[line] <= start < e + starts[line] for s, e in prose._import_hits(line_text, context.vocabulary)):
        return "import"
    if markdown is not None:
        blocks, inline = markdown
        if line in blocks:
            return "block"
        return "inline" if any(name in code for code in inline.get(line, ())) else "prose"
    kind = ecosystems.document_kind(path)
    regions = markup.restructuredtext(text) if kind == "restructuredtext" else markup.plain(text)
    for s, e in regions:
        if s <= start < e:
            return "inline" if "\n" not in text[s:e] and e - s < 200 and text[s - 1:s] == "`" else "block"
    return "prose"


def _line(starts: list[int], offset: int) -> int:
    from bisect import bisect_right

    return bisect_right(starts, offset) - 1


def measure(repo: Path, base: str, show: int) -> dict:
    names = dependencies(repo)
    with tempfile.TemporaryDirectory() as scratch:
        memory = open_memory(Path(scratch) / "store.db")
        for name in sorted(names):
            memory.abandon(PERSON, name, reason="benchmark: every dependency abandoned", project=PROJECT,
                           ecosystem="pypi")
        vocabulary = memory.graveyard.vocabulary()
        context = Context(vocabulary, ecosystems.system_installers())
        before_scan = old_scanner(base)
        files = sorted(p for p in (repo / "docs").rglob("*") if p.suffix in SUFFIXES and p.is_file())
        counts: Counter[str] = Counter()
        before_prose = before_total = 0
        shown = []
        for path in files:
            text = path.read_text(errors="replace")
            relative = str(path.relative_to(repo))
            mentions = detect(relative, text, vocabulary)
            checked = memory.check_approaches(sorted({m.key for m in mentions}), project=PROJECT, ecosystem="other",
                                              detected=True)
            abandoned = {v.name for v in checked if v.status == "abandoned"} if mentions else set()
            starts = line_starts(text)
            markdown = markdown_code(text) if path.suffix == ".md" else None
            after_offsets = set()
            for mention in mentions:
                if mention.key not in abandoned and mention.name not in abandoned:
                    continue
                start = starts[mention.line] + mention.start  # the docs are ASCII or close to it: bench only
                after_offsets.add(start)
                place = where(relative, text, starts, start, start + len(mention.name), mention.name, context, markdown)
                counts[place] += 1
                if place == "prose" and len(shown) < show:
                    shown.append(f"{relative}:{mention.line + 1}: {text[starts[mention.line]:].splitlines()[0][:120]}")
            for hit in before_scan(text, Context(vocabulary)):
                before_total += 1
                before_prose += hit.start not in after_offsets
        memory.close() if hasattr(memory, "close") else None
    return {"repo": repo.name, "dependencies": len(names), "files": len(files), "flags_before": before_total,
            "prose_before": before_prose, "prose_after": counts["prose"], **{k: counts[k] for k in
            ("block", "inline", "install", "import")}, "code_after": sum(counts[k] for k in
            ("block", "inline", "install", "import")), "examples": shown}


def timings(repos: list[Path], base: str, runs: int) -> dict[str, dict[str, float]]:
    """Per-file scan time of BASE's rule and of this one, alternated on the same files (every
    project's docs, its own dependencies as the vocabulary), in ms: median and p95 over files × runs."""
    before_scan = old_scanner(base)
    samples: dict[str, list[float]] = {"before": [], "after": []}
    for repo in repos:
        vocabulary = frozenset(fold(name) for name in dependencies(repo))
        context = Context(vocabulary, ecosystems.system_installers())
        for path in sorted(p for p in (repo / "docs").rglob("*") if p.suffix in SUFFIXES and p.is_file()):
            text = path.read_text(errors="replace")
            scan = ecosystems.document_for(path.name).scan
            for _ in range(runs):
                for label, run in (("before", lambda: list(before_scan(text, Context(vocabulary)))),
                                   ("after", lambda: list(scan(text, context)))):
                    started = time.perf_counter()
                    run()
                    samples[label].append((time.perf_counter() - started) * 1000)
    return {label: stats(values) | {"files_x_runs": len(values)} for label, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--base", default="7d7f713", help="the commit whose rule is 'before'")
    parser.add_argument("--show", type=int, default=10, help="prose flags to print per project")
    parser.add_argument("--runs", type=int, default=5, help="timed scans of each file, per rule")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = [measure(repo, args.base, args.show) for repo in args.repos]
    print(f"commit {commit_measured()}, before = {args.base}")
    print("| project | deps | files | flags before | prose before | prose after | code after (block/inline/install/import) |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['repo']} | {row['dependencies']} | {row['files']} | {row['flags_before']} | {row['prose_before']} | "
              f"{row['prose_after']} | {row['code_after']} ({row['block']}/{row['inline']}/{row['install']}/{row['import']}) |")
    for row in rows:
        for example in row["examples"]:
            print("  prose:", example)
    speed = timings(args.repos, args.base, args.runs)
    print(f"scan time per file, ms (load average {os.getloadavg()[0]:.1f}):", json.dumps(speed))
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, "speed": speed}, indent=1))


if __name__ == "__main__":
    main()

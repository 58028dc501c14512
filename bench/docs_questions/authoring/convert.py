"""Authoring aid: q/<project>.txt (file|section line|question|fact) → bench/docs_questions/<project>.jsonl."""
import json, re, sys
from pathlib import Path
ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)[ #]*$")
ADORN = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
PROJECTS = {
    "attrs": ("python-attrs/attrs", "docs", "attrs/docs"),
    "pytest": ("pytest-dev/pytest", "doc/en", "pytest/doc/en"),
    "cli": ("httpie/cli", "docs", "cli/docs"),
    "poetry": ("python-poetry/poetry", "docs", "poetry/docs"),
    "pip": ("pypa/pip", "docs", "pip/docs"),
    "tox": ("tox-dev/tox", "docs", "tox/docs"),
    "nox": ("wntrblm/nox", "docs", "nox/docs"),
    "mkdocs-material": ("squidfunk/mkdocs-material", "docs", "mkdocs-material/docs"),
}
def outline(path):
    lines = path.read_text(errors="replace").splitlines()
    heads, fence, styles = [], False, []
    for i, l in enumerate(lines):
        if path.suffix == ".md":
            if re.match(r"^ {0,3}(```|~~~)", l): fence = not fence
            m = ATX.match(l)
            if not fence and m: heads.append((i + 1, len(m.group(1)), m.group(2).strip()))
        else:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if l.strip() and not ADORN.match(l) and ADORN.match(nxt) and not l.startswith(" ") and len(nxt.rstrip()) >= len(l.rstrip()):
                over = i > 0 and ADORN.match(lines[i - 1]) and lines[i - 1].strip()[0] == nxt.strip()[0]
                style = ("o" if over else "") + nxt.strip()[0]
                if style not in styles: styles.append(style)
                heads.append((i + 1, styles.index(style) + 1, l.strip()))
    return lines, heads
def heading_path(heads, line):
    path = []
    for n, level, title in heads:
        if n > line: break
        path = [p for p in path if p[0] < level] + [(level, title)]
    return [t for _, t in path]
root = Path("/tmp/docsqa"); out = Path(sys.argv[1])
unans = {}
for l in (root / "q/unanswerable.txt").read_text().splitlines():
    p, q = l.split("|", 1); unans.setdefault(p, []).append(q)
for name, (repo, docs, local) in PROJECTS.items():
    mirror = Path(f"/work/.mirror/{repo.replace('/', '+')}/repo")
    import subprocess
    commit = subprocess.run(["git", "--git-dir", str(mirror), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    rows = [{"repository": repo, "commit": commit, "docs": docs,
             "note": "Questions written from the docs (random sections read first) before any query ran; "
                     "section is the answering section (its heading line to the line before the next heading of its level or above), lines the line holding the fact, heading the path of headings above it."}]
    for l in (root / f"q/{name}.txt").read_text().splitlines():
        f, start, q, fact = l.split("|", 3)
        lines, heads = outline(root / local / f)
        start = int(start)
        hit = next(i + 1 for i in range(start - 1, len(lines)) if fact in lines[i])
        level = next((lv for n, lv, _ in heads if n == start), 0)
        end = next((n - 1 for n, lv, _ in heads if n > start and lv <= level), len(lines)) if level else len(lines)
        rows.append({"question": q, "file": f"{docs}/{f}", "heading": heading_path(heads, hit), "section": [start, end],
                     "lines": [hit, hit], "fact": fact})
    rows += [{"question": q, "unanswerable": True} for q in unans[name]]
    (out / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(name, len(rows) - 1 - len(unans[name]), len(unans[name]))

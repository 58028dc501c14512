"""`cenotaph lint`: the abandoned imports and declarations in a repository's manifests and source,
for CI and pre-commit. In a git repository the files are those git knows or would add (so
.gitignore holds); with a base revision, only what each file adds since then (a pull request's
view); with the staged change, only what a commit would add (pre-commit's view). A file git sees
as moved is compared with its old self."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.graveyard.enforce import Enforcer, Finding, file_names
from cenotaph.nlp import ecosystems
from cenotaph.nlp.ecosystems.base import lines as lines_of

MAX_FILE_BYTES = 2_000_000  # past this a file is generated or vendored, not written


@dataclass(slots=True)
class LintReport:
    root: str  # paths in findings are relative to it, with '/'
    files: int = 0  # files read
    findings: list[Finding] = field(default_factory=list)
    fingerprints: list[str] = field(default_factory=list)  # one per finding, in order (see `fingerprints`)
    abandoned: int = 0  # approaches in the graveyard the files were checked against: 0 flags nothing


def _git(root: Path, *arguments: str) -> bytes:
    done = subprocess.run(["git", "-C", str(root), *arguments], capture_output=True, check=False)
    if done.returncode != 0:
        problem = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InvalidInput(f"git {arguments[0]}: {problem[-1] if problem else 'failed'}", field="base")
    return done.stdout


def git_root(start: Path) -> Path | None:
    done = subprocess.run(["git", "-C", str(start), "rev-parse", "--show-toplevel"], capture_output=True,
                          text=True, check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def _checked(relative: str) -> bool:
    """A file a detector reads as a manifest or source (prose is the editors' and recall's)."""
    document = ecosystems.document_for(relative)
    return document is not None and not document.prose


def _walk(root: Path, targets: list[Path]) -> Iterator[str]:
    """Outside git: every file under the targets, hidden folders left out."""
    for target in targets:
        if target.is_file():
            yield target.resolve().relative_to(root).as_posix()
            continue
        for folder, subfolders, files in os.walk(target):
            subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "node_modules"]
            for name in files:
                yield (Path(folder) / name).resolve().relative_to(root).as_posix()


def candidate_files(root: Path, targets: list[Path], in_git: bool) -> list[str]:
    """The files under the targets, relative to `root`: in git, those tracked, staged or not
    ignored; else every file under them."""
    if not in_git:
        return sorted(p for p in dict.fromkeys(_walk(root, targets)) if _checked(p))
    specs = [os.path.relpath(t.resolve(), root) for t in targets]
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--", *specs)
    return sorted(p for p in _paths(listed) if p and _checked(p))


def _paths(output: bytes) -> list[str]:
    return output.decode("utf-8", "surrogateescape").split("\0")


def changed_files(root: Path, *, base: str | None) -> dict[str, str | None]:
    """The files added or changed since `base` (None: the staged change, against HEAD), each with
    the path it had before (None when new). Git's rename detection follows a moved file, so that
    what it held under its old name is not new; the whole repository is diffed, because the
    targets (pre-commit's file names) may hold a rename's new path and not its old one."""
    arguments = ["diff", "-z", "--name-status", "--find-renames", "--diff-filter=ACMRT", "--no-ext-diff"]
    output = _git(root, *arguments, base) if base is not None else _git(root, *arguments, "--cached")
    changed: dict[str, str | None] = {}
    fields = _paths(output)
    at = 0
    while at < len(fields) and fields[at]:
        status = fields[at]
        if status[0] in "RC":  # a rename or copy: its score, then the old path and the new one
            changed[fields[at + 2]] = fields[at + 1]
            at += 3
        else:
            changed[fields[at + 1]] = fields[at + 1] if status[0] in "MT" else None
            at += 2
    if base is not None:  # the working tree's files git would add are new too
        untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--full-name")
        changed.update((p, None) for p in _paths(untracked) if p)
    return changed


def _blobs(root: Path, objects: dict[str, str]) -> dict[str, str]:
    """The text of each git object named (`REV:path`, `:path` for the index), by key, read by one
    `git cat-file --batch` rather than a process a file; an object that is missing or no file
    (a submodule's commit, a tree) is left out. A name with a line break cannot go through the
    batch: it is left out too."""
    asked = {key: name for key, name in objects.items() if "\n" not in name}
    if not asked:
        return {}
    request = "".join(f"{name}\n" for name in asked.values()).encode("utf-8", "surrogateescape")
    out = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], input=request, capture_output=True,
                         check=False).stdout
    texts, at = {}, 0
    for key in asked:
        end = out.index(b"\n", at)
        header = out[at:end]
        at = end + 1
        if header.endswith((b" missing", b" ambiguous")):
            continue  # the object name echoed back, spaces and all
        _sha, kind, size = header.split()
        if kind == b"blob":
            texts[key] = out[at:at + int(size)].decode("utf-8", "replace")
        at += int(size) + 1  # the content, then a line break
    return texts


def lint(enforcer: Enforcer, start: Path, targets: Iterable[Path], *, base: str | None = None,
         staged: bool = False) -> LintReport:
    """The findings in the files under `targets` (default: `start`), each at its exact range;
    with `base`, only what each file adds since that revision; with `staged`, only what the
    staged change adds (the files as the index holds them, against HEAD)."""
    if staged and base is not None:
        raise InvalidInput("--staged and --base are two views: give one", field="staged")
    root = git_root(start)
    in_git = root is not None
    if root is None:
        if base is not None or staged:
            raise InvalidInput(f"{'--base' if base is not None else '--staged'} needs a git repository",
                               field="base" if base is not None else "staged")
        root = start.resolve()
    paths = [t if t.is_absolute() else start / t for t in targets] or [start]
    for path in paths:
        if not path.exists() and not staged:  # a staged file may be gone from the working tree
            raise InvalidInput(f"{path} does not exist", field="path")
    if base is not None:
        _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    report = LintReport(root=str(root), abandoned=enforcer.size())
    files = candidate_files(root, paths, in_git)
    before: dict[str, str] = {}
    texts: dict[str, str] = {}
    if base is not None or staged:
        changed = changed_files(root, base=base)
        files = [p for p in files if p in changed]
        old = "HEAD" if staged else base
        before = _blobs(root, {p: f"{old}:{changed[p]}" for p in files if changed[p] is not None})
        if staged:
            texts = _blobs(root, {p: f":{p}" for p in files})
    named = []
    lines: dict[tuple[str, int], str] = {}
    for relative in files:
        if staged:
            if (text := texts.get(relative)) is None or len(text) > MAX_FILE_BYTES:
                continue
        else:
            file = root / relative
            try:
                if file.stat().st_size > MAX_FILE_BYTES:
                    continue
                text = file.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue  # deleted in the working tree, or unreadable: nothing there to flag
        report.files += 1
        found = file_names(relative, text, None if base is None and not staged else before.get(relative, ""))
        if found:
            split = [content for _offset, content in lines_of(text)]  # as the detectors count lines
            lines.update(((relative, n.line), split[n.line] if n.line < len(split) else "") for n in found)
        named += found
    report.findings = enforcer.judge(named)
    report.fingerprints = fingerprints(report.findings, lines)
    return report


def fingerprints(findings: list[Finding], lines: Mapping[tuple[str, int], str]) -> list[str]:
    """One fingerprint per finding, for code scanning to follow a result across runs: the rule,
    the name, the path and the text of its line (whitespace collapsed), so that lines added
    above it do not change it, and the occurrence of that same text in the file, so that two
    results in one file never share one."""
    seen: Counter[str] = Counter()
    result = []
    for f in findings:
        n, a = f.named, f.approach
        line = " ".join(lines.get((n.path, n.line), "").split())
        identity = f"{a.ecosystem}\0{a.name}\0{n.name}\0{n.path}\0{line}"
        result.append(hashlib.sha256(f"{identity}\0{seen[identity]}".encode("utf-8", "surrogateescape")).hexdigest())
        seen[identity] += 1
    return result

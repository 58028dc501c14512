"""`cenotaph lint`: the abandoned imports and declarations in a repository's manifests and source,
for CI and pre-commit. In a git repository the files are those git knows or would add (so
.gitignore holds); with a base revision, only what each file adds since then (a pull request's
view)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.graveyard.enforce import Enforcer, Finding, file_names
from cenotaph.nlp import ecosystems

MAX_FILE_BYTES = 2_000_000  # past this a file is generated or vendored, not written


@dataclass(slots=True)
class LintReport:
    root: str  # paths in findings are relative to it, with '/'
    files: int = 0  # files read
    findings: list[Finding] = field(default_factory=list)


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


def candidate_files(root: Path, targets: list[Path], in_git: bool, base: str | None) -> list[str]:
    """The files to read, relative to `root`: in git, those tracked or not ignored under the
    targets (with a base revision, only those changed since); else every file under them."""
    if not in_git:
        return sorted(p for p in dict.fromkeys(_walk(root, targets)) if _checked(p))
    specs = [os.path.relpath(t.resolve(), root) for t in targets]
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--", *specs)
    files = {p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p and _checked(p)}
    if base is not None:
        changed = _git(root, "diff", "-z", "--name-only", "--no-renames", base, "--", *specs)
        untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", *specs)
        files &= {p for p in (changed + b"\0" + untracked).decode("utf-8", "surrogateescape").split("\0") if p}
    return sorted(files)


def _at_base(root: Path, base: str, paths: list[str]) -> dict[str, str]:
    """Each file's text at `base` ("" when new since), read by one `git cat-file --batch` rather
    than a process a file. A name with a line break cannot go through the batch: it is not asked
    for, and counts as new."""
    asked = [p for p in paths if "\n" not in p]
    if not asked:
        return {}
    request = "".join(f"{base}:{p}\n" for p in asked).encode("utf-8", "surrogateescape")
    out = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], input=request, capture_output=True,
                         check=False).stdout
    texts, at = {}, 0
    for path in asked:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            texts[path] = out[at:at + size].decode("utf-8", "replace")
            at += size + 1  # the content, then a line break
        elif len(header) == 3:
            at += int(header[2]) + 1  # not a file at the base (a submodule's commit, a tree): new
    return texts


def lint(enforcer: Enforcer, start: Path, targets: Iterable[Path], *, base: str | None = None) -> LintReport:
    """The findings in the files under `targets` (default: `start`), each at its exact range."""
    root = git_root(start)
    in_git = root is not None
    if root is None:
        if base is not None:
            raise InvalidInput("--base needs a git repository", field="base")
        root = start.resolve()
    paths = [t if t.is_absolute() else start / t for t in targets] or [start]
    for path in paths:
        if not path.exists():
            raise InvalidInput(f"{path} does not exist", field="path")
    if base is not None:
        _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    report = LintReport(root=str(root))
    named = []
    files = candidate_files(root, paths, in_git, base)
    before = {} if base is None else _at_base(root, base, files)
    for relative in files:
        file = root / relative
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # deleted in the working tree, or unreadable: nothing there to flag
        report.files += 1
        named += file_names(relative, text, None if base is None else before.get(relative, ""))
    report.findings = enforcer.judge(named)
    return report

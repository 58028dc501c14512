"""A repository's history as the `git` command line tells it: the commits that touch given paths,
with the blobs each changed file had before and after, and the files at a commit. I/O only;
what the history means is `mine_git`'s business."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from cenotaph.memory.errors import InvalidInput, Unavailable

_NO_BLOB = "0" * 40
_RECORD = "\x1e"
_FIELD = "\x1f"
# sha, parents, author, author date (strict ISO 8601), raw message; the raw diff follows.
_FORMAT = f"{_RECORD}%H{_FIELD}%P{_FIELD}%an{_FIELD}%aI{_FIELD}%B{_FIELD}"
_RECORD_START = re.compile(f"{_RECORD}(?=[0-9a-f]{{40}}{_FIELD})")


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    old_blob: str | None  # None: the file was added
    new_blob: str | None  # None: the file was deleted


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    at: str  # ISO 8601, the author's date
    message: str
    changes: tuple[Change, ...]

    @property
    def subject(self) -> str:
        return self.message.strip().split("\n", 1)[0].strip()


class Diff(NamedTuple):
    """What a commit did to one file's lines."""

    removed: str
    added: str


class Repository:
    """One repository, read through `git -C <root>`; every call is one git process."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        start = Path(path)
        try:
            if not start.exists():
                raise InvalidInput(f"{start} does not exist", field="path")
            directory = start if start.is_dir() else start.parent
        except (OSError, ValueError) as exc:  # a name too long, a NUL
            raise InvalidInput(f"cannot read {start}: {exc}", field="path") from None
        try:
            found = subprocess.run(["git", "-C", str(directory), "rev-parse", "--show-toplevel"],
                                   capture_output=True, text=True, check=False)
        except FileNotFoundError:
            raise Unavailable("git is not installed (or not on PATH); mining the history needs it",
                              field="git") from None
        if found.returncode != 0:
            raise InvalidInput(f"{start} is not inside a git repository", field="path")
        self.root = found.stdout.strip()

    def _git(self, *args: str, input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run(["git", "-C", self.root, "-c", "core.quotepath=off", *args], input=input,
                              capture_output=True, check=False)
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InvalidInput(f"git {args[0]} failed: {message[-1] if message else done.returncode}", field="path")
        return done

    def head(self) -> str | None:
        """The sha HEAD points at; None in a repository without commits."""
        done = self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        if done.returncode != 0:
            return None
        return done.stdout.decode().strip() or None

    def is_shallow(self) -> bool:
        return self._git("rev-parse", "--is-shallow-repository").stdout.decode().strip() == "true"

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self._git("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0

    def commits(self, revisions: Sequence[str], pathspecs: Sequence[str], *, first_parent: bool = True,
                since: str | None = None, max_count: int | None = None) -> list[Commit]:
        """The commits among `revisions` that change a path matching `pathspecs`, newest first,
        each with its changes to those paths (a merge: against its first parent)."""
        args = ["log", "--raw", "--no-abbrev", "--no-renames", "-z", f"--format={_FORMAT}"]
        args += ["--first-parent", "--diff-merges=first-parent"] if first_parent else ["--no-merges"]
        if since:
            args.append(f"--since={since}")
        if max_count is not None:
            args.append(f"--max-count={max_count}")
        output = self._git(*args, *revisions, "--", *pathspecs).stdout.decode("utf-8", "replace")
        return [_commit(record) for record in _RECORD_START.split(output)[1:]]

    def files(self, revision: str) -> dict[str, str]:
        """Path -> blob sha of every file at `revision`."""
        output = self._git("ls-tree", "-r", "-z", "--full-tree", revision).stdout.decode("utf-8", "replace")
        found = {}
        for entry in output.split("\0"):
            meta, _, path = entry.partition("\t")
            parts = meta.split(" ")
            if len(parts) == 3 and parts[1] == "blob":
                found[path] = parts[2]
        return found

    def departures(self, older: str, newer: str) -> dict[str, str | None]:
        """Each path of `older`'s files that `newer` no longer has there: where it moved (a
        rename git detects), or None when it was deleted."""
        fields = self._git("diff-tree", "-r", "-z", "-M", "--name-status", "--diff-filter=DR", older,
                           newer).stdout.decode("utf-8", "replace").split("\0")
        found: dict[str, str | None] = {}
        i = 0
        while i + 1 < len(fields):
            status, old = fields[i], fields[i + 1]
            if status.startswith("R") and i + 2 < len(fields):
                found[old] = fields[i + 2]
                i += 3
            else:
                found[old] = None
                i += 2
        return found

    def changed_lines(self, older: str, newer: str, pathspecs: Sequence[str] = ()) -> dict[str, Diff]:
        """Path -> the lines `newer` removed from it and added to it since `older` (a new file: all
        of its lines added; a deleted one is left out), for the paths matching `pathspecs` (all when none)."""
        output = self._git("diff", "-U0", "--no-color", "--no-renames", "--no-ext-diff", "--diff-filter=AM", older,
                           newer, "--", *pathspecs).stdout.decode("utf-8", "replace")
        changed: dict[str, tuple[list[str], list[str]]] = {}
        old_path = None
        lines: tuple[list[str], list[str]] | None = None
        for line in output.splitlines():
            if line.startswith("--- "):
                old_path = line[6:] if line.startswith("--- a/") else None
            elif line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else old_path
                lines = changed.setdefault(path, ([], [])) if path else None
            elif lines is not None and line[:1] in "+-" and line[:1]:
                lines[line[0] == "+"].append(line[1:])
        return {path: Diff("\n".join(removed), "\n".join(added)) for path, (removed, added) in changed.items()}

    def grep(self, revision: str, words: Iterable[str]) -> set[str]:
        """The paths of the files at `revision` that hold one of `words`, as a whole word."""
        patterns = [argument for word in words for argument in ("-e", word)]
        output = self._git("grep", "-l", "-z", "-F", "-w", *patterns, revision, "--",
                           check=False).stdout.decode("utf-8", "replace")
        return {entry.removeprefix(f"{revision}:") for entry in output.split("\0") if entry}

    def blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        """The contents of many blobs from one `git cat-file --batch` process."""
        wanted = list(dict.fromkeys(shas))
        if not wanted:
            return {}
        output = self._git("cat-file", "--batch", input="".join(f"{sha}\n" for sha in wanted).encode()).stdout
        contents: dict[str, bytes] = {}
        position = 0
        for sha in wanted:
            header_end = output.index(b"\n", position)
            header = output[position:header_end].split()
            position = header_end + 1
            if len(header) == 3:
                size = int(header[2])
                contents[sha] = output[position : position + size]
                position += size + 1  # the content is followed by a line break
        return contents


def _commit(record: str) -> Commit:
    # A message may hold the separators themselves: the fields around it are split from both ends.
    sha, parents, author, at, rest = record.split(_FIELD, 4)
    message, raw = rest.rsplit(_FIELD, 1)
    fields = raw.lstrip("\0\n").split("\0")
    changes = []
    for i in range(0, len(fields) - 1, 2):
        meta, path = fields[i], fields[i + 1]
        if not meta.startswith(":"):
            break
        parts = meta[1:].split(" ")
        old, new = parts[2], parts[3]
        changes.append(Change(path, None if old == _NO_BLOB else old, None if new == _NO_BLOB else new))
    return Commit(sha, tuple(parents.split()), author, at, message, tuple(changes))

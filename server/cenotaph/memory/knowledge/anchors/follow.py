"""Anchors followed and checked: taken from a file when a memory is remembered, re-found in the
working tree when a memory is recalled or listed (through git's rename detection when the file
moved, then the fingerprint, exactly or fuzzily), re-confirmed to the code as it is now, or
retired with their memory."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.core import lifecycle
from cenotaph.memory.errors import CenotaphError, InvalidInput, NotFound
from cenotaph.memory.knowledge.anchors.fingerprint import Taken, refind, similarity, stale, take
from cenotaph.memory.mining.history import Repository
from cenotaph.memory.models import Actor, Anchor, AnchoredMemory, RecallResult
from cenotaph.store import anchors as store_anchors
from cenotaph.store import memories
from cenotaph.store.records import AnchorRow, MemoryRow

_AT = re.compile(r"^(?P<path>.+):(?P<start>\d+)(?:-(?P<end>\d+))?$")
MAX_ANCHOR_LINES = 2000
CAUTIONS = {
    "stale": "the code this memory is anchored to has changed since it was written: it may no longer hold",
    "lost": "the file this memory is anchored to is gone: it may no longer hold",
}


@dataclass(frozen=True, slots=True)
class Place:
    """Lines of a file as a caller names them: `path` absolute, or relative to the repository root."""

    path: str
    start_line: int
    end_line: int
    # The file's lines as an editor holds them (unsaved edits); None: as on disk.
    lines: tuple[str, ...] | None = None


def parse_at(value: str, field: str = "at") -> Place:
    """`PATH:LINE` or `PATH:LINE-LINE` (1-based, inclusive)."""
    match = _AT.match(validate.text(value, field))
    if not match:
        raise InvalidInput(f"{field}: expected PATH:LINE or PATH:LINE-LINE, got {value!r}", field=field)
    start = int(match["start"])
    return Place(match["path"], start, int(match["end"] or start))


def _lines(file: Path) -> list[str]:
    return file.read_text(encoding="utf-8", errors="replace").splitlines()


def _revision(root: Path) -> str | None:
    try:
        return Repository(root).head()
    except CenotaphError:  # not a git repository, or no git: the anchor has no commit
        return None


def _in_use(rows: list[AnchorRow], shown: dict[int, MemoryRow | None]) -> list[AnchorRow]:
    """The anchors of memories still in use: a retired (archived) memory's anchor is not shown."""
    return [r for r in rows if (m := shown[r.memory_id]) is not None and m.state in ("active", "deprioritised")]


@dataclass(slots=True)
class Check:
    """An anchor as a check found it: where and in what state, and the text at that place now."""

    anchor: Anchor
    now: str


class Anchors:
    """The verbs on anchors. `roots(project)` is the working tree a project's anchors are checked
    against (the repository the edge runs in), or None when this process has none."""

    def __init__(self, ctx: Context, roots: Callable[[str], Path | None]) -> None:
        self.ctx = ctx
        self.roots = roots

    def _root(self, project: str) -> Path:
        root = self.roots(project)
        if root is None:
            raise InvalidInput(f"at: no repository of project {project!r} is open here to anchor to", field="at")
        return root

    def taken(self, project: str, place: Place, memory_id: int) -> AnchorRow:
        """The anchor of `place` as the file is now, for `memory_id` (not yet written)."""
        root = self._root(project).resolve()
        file = (root / place.path).resolve()
        if not file.is_relative_to(root):
            raise InvalidInput(f"at: {place.path} is outside the repository {root}", field="at")
        if not file.is_file():
            raise InvalidInput(f"at: {place.path} is no file in {root}", field="at")
        lines = list(place.lines) if place.lines is not None else _lines(file)
        if not 1 <= place.start_line <= place.end_line <= len(lines):
            raise InvalidInput(f"at: lines {place.start_line}-{place.end_line} are not in {place.path} "
                               f"({len(lines)} lines)", field="at")
        if place.end_line - place.start_line >= MAX_ANCHOR_LINES:
            raise InvalidInput(f"at: at most {MAX_ANCHOR_LINES} lines", field="at")
        fingerprint = take(lines, place.start_line, place.end_line)
        now = self.ctx.now()
        return AnchorRow(memory_id=memory_id, project=project, path=file.relative_to(root).as_posix(),
                         start_line=place.start_line, end_line=place.end_line, text=fingerprint.text,
                         lines_before=fingerprint.lines_before, lines_after=fingerprint.lines_after,
                         revision=_revision(root), state="current", taken_at=now, checked_at=now)

    def attach(self, actor: Actor, row: AnchorRow) -> None:
        with self.ctx.store.write() as tx:
            store_anchors.put(tx, row)
            self.ctx.event(tx, actor=actor.name, action="anchor", target=f"memory:{row.memory_id}",
                           project=row.project, after={"path": row.path, "start_line": row.start_line,
                                                       "end_line": row.end_line, "revision": row.revision})

    def check(self, row: AnchorRow) -> Check:
        """Where the anchored text is in the working tree now: the stored state when this process
        has no working tree of the project."""
        return self.checks([row])[0]

    def checks(self, rows: list[AnchorRow], held: dict[Path, list[str]] | None = None) -> list[Check]:
        """`check` of each row, reading each file (and each commit's renames) once: a file's
        anchors are checked together when it opens or is listed. `held`: files' lines as an
        editor holds them (unsaved edits), by absolute path, used instead of the disk's."""
        files: dict[Path, list[str]] = dict(held or {})
        renames: dict[str, dict[str, str]] = {}

        def departures(root: Path, revision: str) -> dict[str, str]:
            if revision not in renames:
                try:  # renamed since the commit it was taken at
                    renames[revision] = Repository(root).departures(revision, "HEAD")
                except CenotaphError:
                    renames[revision] = {}
            return renames[revision]

        checked = []
        for row in rows:
            root = self.roots(row.project)
            if root is None:
                checked.append(Check(Anchor(row.path, row.start_line, row.end_line, row.state,
                                            CAUTIONS.get(row.state, "")), ""))
                continue
            path = row.path
            if not (root / path).is_file() and row.revision:
                path = departures(root, row.revision).get(path) or path
            file = root / path
            if file not in files and file.is_file():
                files[file] = _lines(file)
            checked.append(self._judge(row, path, files.get(file)))
        return checked

    @staticmethod
    def _judge(row: AnchorRow, path: str, lines: list[str] | None) -> Check:
        """An anchor against its file's lines now (None: the file is gone)."""
        if lines is None:
            return Check(Anchor(path, row.start_line, row.end_line, "lost", CAUTIONS["lost"]), "")
        found = refind(Taken(row.text, row.lines_before, row.lines_after), lines, row.start_line)
        if found is None:
            return Check(Anchor(path, row.start_line, row.end_line, "stale", CAUTIONS["stale"]), "")
        now = "\n".join(lines[found.start_line - 1:found.end_line])
        if stale(row.text, now, path, found.similarity):
            return Check(Anchor(path, found.start_line, found.end_line, "stale", CAUTIONS["stale"]), now)
        same = (path, found.start_line, found.end_line) == (row.path, row.start_line, row.end_line)
        return Check(Anchor(path, found.start_line, found.end_line, "current" if same else "moved"), now)

    def annotate(self, results: list[RecallResult]) -> list[RecallResult]:
        """Recall's results with their anchors re-checked; a memory whose anchor is stale or lost
        ranks below the others (graveyard warnings stay first)."""
        ids = [r.id for r in results if r.result_type == "memory"]
        with self.ctx.store.read() as conn:
            rows = store_anchors.of(conn, ids)
        if not rows:
            return results
        anchored = [r for r in results if r.result_type == "memory" and r.id in rows]
        for r, checked in zip(anchored, self.checks([rows[r.id] for r in anchored]), strict=True):
            r.anchor = checked.anchor
        doubtful = [r for r in results if r.anchor is not None and r.anchor.state in CAUTIONS]
        return [r for r in results if r not in doubtful] + doubtful

    def in_file(self, project: str, file: Path, lines: list[str] | None = None) -> list[AnchoredMemory]:
        """The anchored memories still in use in `file` (absolute) of `project`'s working tree,
        each checked against the file as it is now (or its `lines` as an editor holds them);
        where a check followed one, the store follows."""
        root = self.roots(project)
        if root is None or not file.is_relative_to(root):
            return []
        with self.ctx.store.read() as conn:
            rows = store_anchors.in_project(conn, [project], file.relative_to(root).as_posix())
            shown = {r.memory_id: memories.current(conn, r.memory_id) for r in rows}
        return self._checked(_in_use(rows, shown), shown, None if lines is None else {file: lines})

    def follow_edits(self, items: list[AnchoredMemory], lines: list[str],
                     places: dict[int, tuple[int, int]]) -> list[Anchor]:
        """An open document's anchors (`in_file`'s) where its edits moved them (`places`: memory
        id → lines, as an editor moved them while the person typed), each current or moved while
        its text is like the taken text, else stale; the store follows."""
        found, changed = [], []
        for item in items:
            was = item.anchor
            start, end = places.get(item.memory_id, (was.start_line, was.end_line))
            end = min(end, len(lines))
            now = "\n".join(lines[start - 1:end]) if 1 <= start <= end else ""
            if stale(item.then, now, was.path, similarity(item.then, now)):
                a = Anchor(was.path, start, max(start, end), "stale", CAUTIONS["stale"])
            else:
                a = Anchor(was.path, start, end, "current" if (start, end) == (was.start_line, was.end_line) else "moved")
            found.append(a)
            if (a.start_line, a.end_line, a.state) != (was.start_line, was.end_line, was.state):
                changed.append((item.memory_id, a))
        self._follow(changed)
        return found

    def _follow(self, followed: list[tuple[int, Anchor]]) -> None:
        """The store follows where checks found anchors (their fingerprints stay as taken)."""
        if not followed:
            return
        with self.ctx.store.write() as tx:
            for memory_id, a in followed:
                store_anchors.follow(tx, memory_id, path=a.path, start_line=a.start_line, end_line=a.end_line,
                                     state=a.state, at=self.ctx.now())

    def _live(self, conn: Any, memory_id: int) -> tuple[MemoryRow, AnchorRow]:
        row = lifecycle.live(conn, memory_id)
        anchor = store_anchors.of(conn, [memory_id]).get(memory_id)
        if anchor is None:
            raise NotFound(f"memory_id: memory #{memory_id} has no anchor", field="memory_id")
        return row, anchor

    def _checked(self, rows: list[AnchorRow], shown: dict[int, MemoryRow | None],
                 held: dict[Path, list[str]] | None = None) -> list[AnchoredMemory]:
        """The memories of `rows`, their anchors checked now; where a check followed an anchor,
        the store follows too."""
        listed, followed = [], []
        for row, checked in zip(rows, self.checks(rows, held), strict=True):
            a = checked.anchor
            if (a.path, a.start_line, a.end_line, a.state) != (row.path, row.start_line, row.end_line, row.state):
                followed.append((row.memory_id, a))
            memory = shown[row.memory_id]
            listed.append(AnchoredMemory(memory_id=row.memory_id, content=memory.content if memory else "", anchor=a,
                                         revision=row.revision, taken_at=row.taken_at, then=row.text,
                                         now=checked.now))
        self._follow(followed)
        return listed

    def listing(self, project: str, *, stale_only: bool = False) -> list[AnchoredMemory]:
        """The anchored memories of `project` that are still in use, each checked now."""
        project = validate.project(project)
        with self.ctx.store.read() as conn:
            rows = store_anchors.in_project(conn, [project])
            shown = {r.memory_id: memories.current(conn, r.memory_id) for r in rows}
        listed = self._checked(_in_use(rows, shown), shown)
        return [item for item in listed if not stale_only or item.anchor.state in CAUTIONS]

    def one(self, memory_id: int) -> AnchoredMemory:
        """One anchored memory, checked now (what an editor shows of it): its anchor alone is read."""
        memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
        with self.ctx.store.read() as conn:
            memory, row = self._live(conn, memory_id)
        return self._checked([row], {memory_id: memory})[0]

    def reconfirm(self, actor: Actor, memory_id: int, at: Place | None = None) -> AnchoredMemory:
        """Re-anchor a memory to the code as it is now: where its check finds it (or `at`)."""
        memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
        with self.ctx.store.read() as conn:
            memory, row = self._live(conn, memory_id)
        if at is None:
            a = self.check(row).anchor
            if a.state == "lost":
                raise InvalidInput(f"at: {row.path} is gone; say where the code is now", field="at")
            at = Place(a.path, a.start_line, a.end_line)
        fresh = self.taken(row.project, at, memory_id)
        self.attach(actor, fresh)
        return AnchoredMemory(memory_id=memory_id, content=memory.content,
                              anchor=Anchor(fresh.path, fresh.start_line, fresh.end_line, "current"),
                              revision=fresh.revision, taken_at=fresh.taken_at, then=fresh.text, now=fresh.text)

    def retire(self, actor: Actor, memory_id: int, *, reason: str) -> MemoryRow:
        """Archive a memory whose code has changed: out of recall, kept in history."""
        memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
        with self.ctx.store.read() as conn:
            self._live(conn, memory_id)
        return lifecycle.move(self.ctx, actor, memory_id, "archived", reason=reason)


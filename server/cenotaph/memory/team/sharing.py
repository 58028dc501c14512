"""Share and unshare: write an entry of the store into its repository's `.cenotaph/` folder, or
remove one (memory/team/folder.py has the formats). Writing into the repository is a person's act: an
agent's share or unshare becomes a proposal (memory/service.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput, NotFound
from cenotaph.memory.models import Actor, ApproachCheck, ShareResult, story_text
from cenotaph.memory.team.folder import (
    FOLDER,
    MEMORIES,
    FolderState,
    SharedApproach,
    SharedFolders,
    SharedNote,
    approach_path,
    existing,
    git_author,
    holds,
    memory_path,
    remove,
    render_approach,
    render_note,
    source_of,
    write,
)
from cenotaph.store import approaches, memories
from cenotaph.store.records import ApproachRow


class Graveyard(Protocol):
    """What sharing asks of the graveyard (memory/graveyard/approaches.py), which itself reads
    the folder: handed in, so that the team folder does not import the graveyard back."""

    ctx: Context

    def find(self, name: str, project: str) -> ApproachRow: ...

    def in_scope(self, project: str, *, status: str | None = "abandoned") -> list[ApproachRow]: ...

    def check(self, names_to_check: Iterable[str], project: str, *, include_other_projects: bool = True,
              ecosystem: str | None = None) -> list[ApproachCheck]: ...


@dataclass(frozen=True, slots=True)
class SharePlan:
    """What a share would write: the file, its bytes and the kind of entry."""

    state: FolderState
    kind: str  # approach | memory
    path: str
    text: str


def folder_for(shared: SharedFolders, project: str) -> FolderState:
    state = shared.for_project(project)
    if state is None:
        raise Conflict(f"{project or 'the global scope'} is not a repository this Cenotaph reads: share from "
                       "inside the repository (its `.cenotaph/` folder is written at the repository root)",
                       field="project")
    return state


def _memory_id(target: str) -> int | None:
    return int(target) if target.strip().isdigit() else None


def _target(target: str | int) -> str:
    return validate.text(str(target), "target", max_length=1000).strip()


def _author(state: FolderState, actor: Actor) -> str:
    return git_author(state.root) or actor.name


def _approach_entry(ctx: Context, state: FolderState, actor: Actor, approach, path: str) -> SharedApproach:
    record = None
    if approach.memory_id is not None:
        with ctx.store.read() as conn:
            record = memories.current(conn, approach.memory_id)
    before = existing(state.root, path)
    kept = before if isinstance(before, SharedApproach) else None
    return SharedApproach(
        path=path, ecosystem=approach.ecosystem, name=approach.name, display_name=approach.display_name,
        reason=approach.reason, effort=approach.effort, aliases=tuple(sorted(approach.aliases)),
        breakthrough=record.breakthrough if record else None, gotchas=tuple(record.gotchas) if record else (),
        author=kept.author if kept else _author(state, actor), shared_at=kept.shared_at if kept else ctx.now(),
        valid_from=approach.created_at, trust="confirmed",
    )


def plan(ctx: Context, graveyard: Graveyard, shared: SharedFolders, actor: Actor, target: str | int, *,
         project: str) -> SharePlan:
    """What sharing `target` (a memory id, or the name of an abandoned approach) would write: never
    a secret, even one stored before writes were screened (memory/secrets.py)."""
    share = _plan(ctx, graveyard, shared, actor, target, project=project)
    # The file's name as well as its text: a name made from the content (a slug) or from an
    # approach's name is committed to git like the text is.
    secrets.check(f"{share.path}\n{share.text}", "target",
                  advice="forget or update the memory first; a shared file is public to the whole team and stays in "
                         "git's history")
    return share


def _plan(ctx: Context, graveyard: Graveyard, shared: SharedFolders, actor: Actor, target: str | int, *,
          project: str) -> SharePlan:
    target = _target(target)
    state = folder_for(shared, validate.project(project))
    memory_id = _memory_id(target)
    if memory_id is None:
        approach = graveyard.find(target, state.project)
        if approach.status != "abandoned":
            raise Conflict(f"{approach.display_name!r} was reinstated: there is no dead end to share", field="target")
        path = approach_path(approach.ecosystem, approach.name)
        return SharePlan(state, "approach", path, render_approach(_approach_entry(ctx, state, actor, approach, path)))
    with ctx.store.read() as conn:
        row = memories.current(conn, validate.integer(memory_id, "target", low=1, high=2**62))
        linked = [a for a in approaches.all_rows(conn, status="abandoned") if a.memory_id == memory_id]
    if row is None:
        raise NotFound(f"no memory #{memory_id}", field="target")
    # The memory `abandon` wrote to tell an approach's story is shared as that approach (an
    # experience that abandoned approaches on the way is a memory of its own).
    story = next((a for a in linked if row.content == story_text(a.display_name, a.reason)), None)
    if story is not None:
        path = approach_path(story.ecosystem, story.name)
        return SharePlan(state, "approach", path, render_approach(_approach_entry(ctx, state, actor, story, path)))
    if row.state == "deleted" or not row.content:
        raise Conflict(f"memory #{memory_id} was forgotten", field="target")
    if row.trust == "refuted":
        raise Conflict(f"memory #{memory_id} is refuted: a team should not inherit it", field="target")
    path = memory_path(row.content)
    before = existing(state.root, path)
    kept = before if isinstance(before, SharedNote) else None
    note = SharedNote(path=path, kind=row.kind, content=row.content, tags=tuple(row.tags),
                      author=kept.author if kept else _author(state, actor),
                      shared_at=kept.shared_at if kept else ctx.now(), trust=row.trust,
                      valid_from=row.valid_from, valid_to=row.valid_to)
    return SharePlan(state, "memory", path, render_note(note))


def apply(ctx: Context, shared: SharedFolders, actor: Actor, share: SharePlan) -> ShareResult:
    changed = not holds(share.state.root, share.path, share.text)
    if changed:
        # The event before the file: a store that refuses this person a share (a PostgreSQL role
        # that is not a reviewer) refuses it before anything is written.
        with ctx.store.write() as tx:
            ctx.event(tx, actor=actor.name, action="share", target=f"shared:{share.path}", project=share.state.project,
                      after={"kind": share.kind, "path": share.path, "repository": str(share.state.root)})
            try:
                write(share.state.root, share.path, share.text)
            except OSError as exc:  # a read-only checkout, a file where a folder goes, a name too long for the disk
                raise Conflict(f"{share.path} cannot be written in {share.state.root}: {exc.strerror or exc}",
                               field="target") from None
    shared.refresh()
    return ShareResult(action="share", kind=share.kind, path=share.path, repository=str(share.state.root),
                       changed=changed)


def shared_path(graveyard: Graveyard, shared: SharedFolders, target: str | int, *, project: str) -> tuple[FolderState, str]:
    """The file that holds the shared entry `target`: a memory id (the file of its content), an
    approach name, or the file's own path or name."""
    target = _target(target)
    state = folder_for(shared, validate.project(project))
    shared.refresh()
    state = shared.for_project(state.project) or state
    entries = [*state.approaches, *state.notes]
    paths = {e.path for e in entries} | {p.path for p in state.problems}
    memory_id = _memory_id(target)
    if memory_id is not None:
        with graveyard.ctx.store.read() as conn:
            row = memories.current(conn, memory_id)
        if row is None:
            raise NotFound(f"no memory #{memory_id}", field="target")
        digest = hashlib.sha256(row.content.encode("utf-8", "surrogatepass")).hexdigest()
        for note in state.notes:
            if hashlib.sha256(note.content.encode("utf-8", "surrogatepass")).hexdigest() == digest:
                return state, note.path
        story = [a for a in graveyard.in_scope(state.project) if source_of(a) == "store" and a.memory_id == memory_id
                 and row.content == story_text(a.display_name, a.reason)]
        if story:
            target = story[0].name
        else:
            raise NotFound(f"memory #{memory_id} is not shared in {state.root}", field="target")
    # A file, named as git shows it, from the shared folder, or by its name alone.
    relative = target.replace("\\", "/").removeprefix("./")
    for candidate in (relative, f"{FOLDER}/{relative}", f"{FOLDER}/{MEMORIES}/{relative}",
                      f"{FOLDER}/{MEMORIES}/{relative}.md"):
        if candidate in paths:
            return state, candidate
    verdict = graveyard.check([target], state.project, include_other_projects=False)[0]
    for approach in (verdict.approach, *verdict.also):
        if approach is not None and source_of(approach) == "repo":
            return state, approach.path  # type: ignore[attr-defined]
    raise NotFound(f"{target!r} is not shared in {state.root / FOLDER}", field="target")


def unshare(ctx: Context, shared: SharedFolders, actor: Actor, state: FolderState, path: str) -> ShareResult:
    if not (state.root / path).resolve().is_relative_to((state.root / FOLDER).resolve()):
        raise InvalidInput(f"{path!r} is outside the shared folder", field="target")
    changed = (state.root / path).is_file()
    if changed:
        with ctx.store.write() as tx:  # the event first, as in apply()
            ctx.event(tx, actor=actor.name, action="unshare", target=f"shared:{path}", project=state.project,
                      after={"path": path, "repository": str(state.root)})
            changed = remove(state.root, path)
    shared.refresh()
    kind = "approach" if path.endswith(".toml") else "memory"
    return ShareResult(action="unshare", kind=kind, path=path, repository=str(state.root), changed=changed)

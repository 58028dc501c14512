"""Mining a repository's history for dependencies it abandoned: every name a manifest declared at
some commit and no manifest declares at HEAD, with the commits that added and removed it, judged
by the manifests themselves (not by commit messages). Candidates only: they become proposals a
person accepts or rejects (`candidates.propose`).

The walk follows the first parent, so the state it tracks is the mainline's; a merge that brings
a removal is traced to the commit on the merged branch that made it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.graveyard.approaches import Graveyard
from cenotaph.memory.mining import build as builds
from cenotaph.memory.mining import candidates
from cenotaph.memory.mining.candidates import Evidence, ProposeReport
from cenotaph.memory.mining.evidence import CHANGELOG_BYTES, Changelogs, Ground, changelog_paths
from cenotaph.memory.mining.history import Repository
from cenotaph.memory.mining.judge import candidate_for, dropped_by_name, passed_over, still_used, went_with, with_ground
from cenotaph.memory.mining.walk import (
    EMPTY,
    SOURCE,
    CommitRef,
    GitMining,
    Key,
    Walk,
    excluded,
    is_manifest,
    manifests_only,
    merged_branch,
    pathspecs,
)
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems
from cenotaph.store import mining as cursors
from cenotaph.store import proposals as proposal_rows

__all__ = ["GitMining", "GitMiningReport", "is_manifest", "mine", "pathspecs", "run"]


@dataclass(slots=True)
class GitMiningReport:
    """A mining run: what the history showed, and what became a proposal (or why not)."""

    project: str
    history: GitMining
    proposals: ProposeReport
    # Names with a pending proposal that HEAD declares again: left for a person to reject.
    back_at_head: list[str] = field(default_factory=list)


class _Mined(NamedTuple):
    history: GitMining
    declared_at_head: set[Key]
    cursor: str | None  # what to store for the next run (None: leave the old one)


def cursor_value(head: str, added: Mapping[Key, Evidence]) -> str:
    """The cursor: the HEAD read, and how each name still declared there was added (so a later run
    that sees its removal can tell how long it lived)."""
    return json.dumps({"head": head, "added": {f"{e}\t{k}": _evidence_json(v) for (e, k), v in added.items()}},
                      sort_keys=True)


def _evidence_json(evidence: Evidence) -> dict[str, str | None]:
    return {"ref": evidence.ref, "summary": evidence.summary, "at": evidence.at, "author": evidence.author,
            "path": evidence.path}


def _read_cursor(value: str | None) -> tuple[str | None, dict[Key, Evidence]]:
    if not value:
        return None, {}
    try:
        data = json.loads(value)
        added = {}
        for joined, e in data.get("added", {}).items():
            ecosystem, _, key = joined.partition("\t")
            added[(ecosystem, key)] = Evidence(origin=SOURCE, role="added", ref=e["ref"], summary=e["summary"],
                                               at=e["at"], author=e.get("author"), path=e.get("path"))
        return data.get("head"), added
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, {}  # a cursor this version cannot read: read everything again


def run(ctx: Context, graveyard: Graveyard, actor: Actor, project: str, path: str, *, since: str | None = None,
        max_commits: int | None = None) -> GitMiningReport:
    """Mine the repository at `path` for `project`; its candidates become proposals, and the
    cursor moves, in one transaction."""
    project = validate.project(project)
    path = validate.text(path, "path", max_length=4096)
    since = validate.optional_text(since, "since", max_length=100)
    if max_commits is not None and max_commits < 1:
        raise InvalidInput("must be at least 1", field="max_commits")
    repo = Repository(path)
    with ctx.store.read() as conn:
        cursor = cursors.cursor(conn, project, SOURCE, repo.root)
    mined = mine(repo, cursor, since=since, max_commits=max_commits)
    with ctx.store.write() as tx:
        proposed = candidates.propose(ctx, graveyard, actor, project, mined.history.candidates)
        if mined.cursor is not None:
            cursors.set_cursor(tx, project, SOURCE, repo.root, mined.cursor, ctx.now())
        pending = proposal_rows.pending_targets(tx, candidates.ACTION, project)
    back = sorted(key for ecosystem, key in mined.declared_at_head
                  if candidates.target(ecosystem, key) in pending)
    return GitMiningReport(project, mined.history, proposed, back)


def mine(repo: Repository, cursor: str | None, *, since: str | None = None,
         max_commits: int | None = None) -> _Mined:
    """Read the history (only what is new since `cursor`, unless it no longer leads to HEAD) and
    find the candidates: names declared at some commit read and declared nowhere at HEAD."""
    head = repo.head()
    mining = GitMining(repository=repo.root, head=head)
    if head is None:
        return _Mined(mining, set(), None)
    last_head, remembered = _read_cursor(cursor)
    limited = since is not None or max_commits is not None
    mining.complete = not limited
    if last_head == head and not limited:
        mining.incremental = True
        return _Mined(mining, set(), None)
    mining.shallow = repo.is_shallow()
    base = last_head if last_head and repo.is_ancestor(last_head, head) else None
    mining.incremental = base is not None
    revisions = [f"{base}..{head}"] if base else [head]
    files_at_head = repo.files(head)
    head_files = {path: blob for path, blob in files_at_head.items() if is_manifest(path)}
    build = builds.read(repo, files_at_head, head_files)
    mining.outside_build = build.outside
    head_files = {path: blob for path, blob in head_files.items() if path not in build.outside}
    commits = repo.commits(revisions, pathspecs(), since=since, max_count=max_commits)
    commits = [manifests_only(commit, build.outside) for commit in reversed(commits)]
    mining.commits_read = len(commits)
    if commits:
        mining.oldest_seen = CommitRef(commits[0].sha, commits[0].at)
    declared_at_head: set[Key] = set()
    indirect_at_head: set[Key] = set()
    walk = Walk(repo, mining, remembered if base else {}, declared_at_head)
    walk.start(head_files, commits)
    walk.load((c.path, c.new_blob) for commit in commits for c in commit.changes if c.new_blob)
    for index, commit in enumerate(commits):
        walk.apply(index, commit, merged_branch(walk, commit) if len(commit.parents) > 1 else None)
    walk.load(head_files.items())
    for path, blob in head_files.items():
        parsed = walk.declared(path, blob) or walk.files.get(path, EMPTY)
        declared_at_head.update(parsed.names)
        indirect_at_head.update(parsed.indirect)
    # A module required `// indirect` at HEAD is in the lock file for a dependency's sake.
    locked = _locked(repo, files_at_head) - indirect_at_head
    dropped = [key for key, episodes in walk.episodes.items()
               if key not in declared_at_head and episodes and episodes[-1].removed is not None]
    # The names of the repository's own packages, at HEAD and those a commit that dropped a name
    # renamed them from (a project renamed: its old name is no dependency it gave up).
    sources = {walk.episodes[key][-1].source for key in dropped} - {None}
    walk.own = build.own | builds.former_own(repo, ((c.path, c.old_blob, c.new_blob) for commit in sources
                                                     for c in commit.changes if c.old_blob and c.new_blob))
    walk.installed_at_head = build.installed
    walk.changelogs = _changelogs(repo, files_at_head)
    walk.removed_text(dropped)
    for key in dropped:
        candidate = candidate_for(walk, key, walk.episodes[key])
        last = walk.episodes[key][-1]
        if key in locked:
            by_name = dropped_by_name(last, candidate, walk)
            if not by_name:
                mining.locked_at_head.append(candidate.name)
                if still_used(last):
                    continue
            if by_name or "use_dropped" in candidate.features:
                # The commit named it, or took its use out of the code (on the judged corpus 11 of 17
                # such silent drops were decisions, 2 of 14 of the others): the lock resolves it for
                # another package.
                candidate = replace(candidate, reason=f"{candidate.reason}; a lock file at HEAD still resolves it, "
                                                      "for another package")
            else:
                # Otherwise evidence against, not a verdict: the judged corpus shows a lock resolving a
                # direct dependency given up (log for tracing) about as often as one still in use.
                candidate = with_ground(candidate, Ground("locked", "dropped without a word of it, and a lock file "
                                                                    "at HEAD still resolves it"))
        if why := passed_over(walk, key, candidate, last):
            mining.passed_over[candidate.name] = why
            continue
        for ground in went_with(walk, candidate, last):
            candidate = with_ground(candidate, ground)
        mining.candidates.append(candidate)
    mining.locked_at_head.sort()
    if limited:
        return _Mined(mining, declared_at_head, None)
    still = {key: e.added for key, episodes in walk.episodes.items() if key in declared_at_head
             for e in episodes[-1:] if e.removed is None and e.added is not None}
    return _Mined(mining, declared_at_head, cursor_value(head, still))


def _changelogs(repo: Repository, files: Mapping[str, str]) -> Changelogs:
    """The changelogs at HEAD (CHANGELOG, HISTORY, NEWS, release notes), outside the excluded trees."""
    paths = [path for path in changelog_paths(files) if not excluded(path)]
    contents = repo.blobs(files[path] for path in paths)
    texts, size = [], 0
    for path in paths:
        text = contents.get(files[path], b"")[:CHANGELOG_BYTES - size]
        size += len(text)
        texts.append(text.decode("utf-8", "replace"))
    return Changelogs(texts)


def _locked(repo: Repository, files: Mapping[str, str]) -> set[Key]:
    """What the lock files at HEAD resolve (outside the excluded trees): names still in use, even
    when no manifest asks for them by name any more."""
    readers = ecosystems.lock_readers()
    locks = {path: blob for path, blob in files.items()
             if path.rsplit("/", 1)[-1].lower() in readers
             and not excluded(path)}
    contents = repo.blobs(locks.values())
    found: set[Key] = set()
    for path, blob in locks.items():
        ecosystem, reader = readers[path.rsplit("/", 1)[-1].lower()]
        text = contents.get(blob, b"").decode("utf-8", "replace")
        found.update((ecosystem, ecosystems.normalize(name, ecosystem)) for name in reader(text))
    return found



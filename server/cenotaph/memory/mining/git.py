"""Mining a repository's history for dependencies it abandoned: every name a manifest declared at
some commit and no manifest declares at HEAD, with the commits that added and removed it, judged
by the manifests themselves (not by commit messages). Candidates only: they become proposals a
person accepts or rejects (`candidates.propose`).

The walk follows the first parent, so the state it tracks is the mainline's; a merge that brings
a removal is traced to the commit on the merged branch that made it."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import NamedTuple

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.graveyard.approaches import Graveyard
from cenotaph.memory.mining import candidates
from cenotaph.memory.mining.candidates import Candidate, Evidence, ProposeReport
from cenotaph.memory.mining.history import Change, Commit, Repository
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems
from cenotaph.nlp.detect import declarations
from cenotaph.store import mining as cursors
from cenotaph.store import proposals as proposal_rows

SOURCE = "git"

# The trees that hold other people's manifests: test fixtures and vendored code.
EXCLUDED_TREES = ("node_modules/", "vendor/", "third_party/", "testdata/", "tests/data/", "test/data/")


@cache
def pathspecs() -> tuple[str, ...]:
    """Every manifest's file patterns (matched case-insensitively, at any depth), outside the
    excluded trees."""
    return (
        *(f":(glob,icase)**/{pattern}" for document in ecosystems.documents() if document.manifest
          for pattern in document.patterns),
        *(f":(exclude,glob)**/{tree}**" for tree in EXCLUDED_TREES),
    )

_SIGNAL_WORDS = re.compile(
    r"\b(?:drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|revert(?:s|ed)?|broken|break(?:s|ing)?|"
    r"slow(?:er)?|deprecat(?:e|ed|ion)|vulnerab(?:le|ility)|cve-\d+|migrat(?:e|ed|ion)|switch(?:ed)?|"
    r"get rid|ditch(?:ed)?|abandon(?:ed)?|instead)\b",
    re.IGNORECASE,
)
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")
_DEV_WORDS = re.compile(
    r"(?<![a-z])(?:dev|develop|tests?|testing|lint|docs?|typing|types|check|format|style|bench|ci)(?![a-z])",
    re.IGNORECASE,
)

Key = tuple[str, str]  # (ecosystem, normalized name)
_kind = lru_cache(maxsize=8192)(ecosystems.document_kind)  # a history names the same few paths thousands of times


@dataclass(frozen=True, slots=True)
class CommitRef:
    sha: str
    at: str


@dataclass(slots=True)
class _Parsed:
    names: dict[Key, str]  # key -> the name as written
    groups: dict[Key, frozenset[str]]


_EMPTY = _Parsed({}, {})


@dataclass(slots=True)
class _Episode:
    """One stretch during which a name was declared somewhere."""

    name: str
    added: Evidence | None  # None: declared before the commits read
    groups: set[str] = field(default_factory=set)
    paths: set[str] = field(default_factory=set)
    removed: Evidence | None = None
    removed_in: int | None = None  # index of the removing commit in the walk
    manifest_deleted: bool = False
    message: str = ""  # the removing commit's whole message


@dataclass(slots=True)
class GitMining:
    """What one read of the history found, before anything is proposed."""

    repository: str
    head: str | None
    commits_read: int = 0
    manifests_parsed: int = 0
    parse_failures: int = 0
    failed: list[str] = field(default_factory=list)  # "<sha>:<path>" of the first few that did not parse
    shallow: bool = False
    oldest_seen: CommitRef | None = None
    incremental: bool = False  # only the commits after the last run were read
    complete: bool = True  # the walk reached the last run or the first commit (no --since, --max-commits)
    candidates: list[Candidate] = field(default_factory=list)


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


def is_manifest(path: str) -> bool:
    padded = "/" + path.lower()
    return _kind(path) in ecosystems.manifest_kinds() and not any(f"/{tree}" in padded for tree in EXCLUDED_TREES)


class _Walk:
    def __init__(self, repo: Repository, mining: GitMining, remembered: dict[Key, Evidence],
                 declared_at_head: set[Key]) -> None:
        self.repo = repo
        self.mining = mining
        self.declared_at_head = declared_at_head
        self.remembered = remembered
        # (kind, blob sha) -> what it declares (None: did not parse); one blob (an empty file) may be
        # several kinds of manifest.
        self.parsed: dict[tuple[str | None, str], _Parsed | None] = {}
        self.files: dict[str, _Parsed] = {}  # path -> what it declares now
        self.where: dict[Key, set[str]] = defaultdict(set)  # key -> paths declaring it now
        self.episodes: dict[Key, list[_Episode]] = defaultdict(list)
        self.added_by_commit: list[list[tuple[Key, str, str]]] = []  # per commit: (key, name, path) newly declared
        self.commits: list[Commit] = []

    # -- blobs ---------------------------------------------------------------------------------

    def load(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Parse the (path, blob) pairs not parsed yet, reading their blobs in one git process."""
        todo: dict[tuple[str | None, str], str] = {}
        for path, blob in pairs:
            todo.setdefault((_kind(path), blob), path)
        todo = {key: path for key, path in todo.items() if key not in self.parsed}
        contents = self.repo.blobs(blob for _, blob in todo)
        for (kind, blob), path in todo.items():
            if blob in contents:
                self.parsed[(kind, blob)] = _parse(path, contents[blob].decode("utf-8", "replace"))
                self.mining.manifests_parsed += 1

    def declared(self, path: str, blob: str | None, commit: Commit | None = None) -> _Parsed | None:
        if blob is None:
            return _EMPTY
        parsed = self.parsed.get((_kind(path), blob), _EMPTY)
        if parsed is None and commit is not None:
            self.mining.parse_failures += 1
            if len(self.mining.failed) < 10:
                self.mining.failed.append(f"{commit.sha[:12]}:{path}")
        return parsed

    # -- the walk ------------------------------------------------------------------------------

    def start(self, head_files: Mapping[str, str], commits: list[Commit]) -> None:
        """The state before the first commit read: each changed file as its first change found it,
        every other manifest as it is at HEAD (no commit read changed it)."""
        before: dict[str, str | None] = {}
        for commit in commits:
            for change in commit.changes:
                before.setdefault(change.path, change.old_blob)
        for path, blob in head_files.items():
            before.setdefault(path, blob)
        self.load((path, blob) for path, blob in before.items() if blob)
        for path, blob in before.items():
            parsed = self.declared(path, blob) or _EMPTY
            self.files[path] = parsed
            for key, name in parsed.names.items():
                self.where[key].add(path)
                self.episodes[key].append(_Episode(name, self.remembered.get(key), set(parsed.groups[key]), {path}))

    def apply(self, index: int, commit: Commit, attribute: Mapping[Key, Commit]) -> None:
        """Step over one commit: the names it made declared somewhere, and those it left declared
        nowhere (a move between files or groups, a version bump or a respelling is neither)."""
        boundary = not commit.parents and self.mining.shallow  # what it "adds" was there before it
        before: dict[Key, bool] = {}  # each name a file gained or lost: declared anywhere before
        lost: dict[Key, list[Change]] = defaultdict(list)
        for change in commit.changes:
            parsed = self.declared(change.path, change.new_blob, commit)
            if parsed is None:
                continue  # it does not parse here: it still declares what it did
            old = self.files.get(change.path, _EMPTY)
            for key in old.names.keys() ^ parsed.names.keys():
                before.setdefault(key, bool(self.where[key]))
            for key in old.names.keys() - parsed.names.keys():
                self.where[key].discard(change.path)
                lost[key].append(change)
            for key in parsed.names.keys() - old.names.keys():
                self.where[key].add(change.path)
            self.files[change.path] = parsed
            for key, groups in parsed.groups.items():
                if self.episodes[key] and self.episodes[key][-1].removed is None:
                    self.episodes[key][-1].groups.update(groups)
                    self.episodes[key][-1].paths.add(change.path)
        added: list[tuple[Key, str, str]] = []
        for key, was_declared in before.items():
            paths = self.where[key]
            if not was_declared and paths:
                path = min(paths)
                name = self.files[path].names[key]
                evidence = None if boundary else _evidence(attribute.get(key, commit), "added", path)
                groups = {group for p in paths for group in self.files[p].groups[key]}
                self.episodes[key].append(_Episode(name, evidence, groups, set(paths)))
                added.append((key, name, path))
            elif was_declared and not paths:
                episode = self.episodes[key][-1]
                source = attribute.get(key, commit)
                episode.removed = _evidence(source, "removed", lost[key][0].path)
                episode.removed_in = index
                episode.manifest_deleted = all(change.new_blob is None for change in lost[key])
                episode.message = source.message
        self.added_by_commit.append(added)
        self.commits.append(commit)


def _parse(path: str, text: str) -> _Parsed | None:
    scan = declarations(path, text)
    if scan is None:
        return _EMPTY
    if not scan.well_formed:
        return None
    names: dict[Key, str] = {}
    groups: dict[Key, set[str]] = defaultdict(set)
    for declaration in scan.declarations:
        key = (declaration.ecosystem, declaration.key)
        names.setdefault(key, declaration.name)
        groups[key].add(declaration.group or "main")
    return _Parsed(names, {key: frozenset(value) for key, value in groups.items()})


def _evidence(commit: Commit, role: str, path: str | None) -> Evidence:
    return Evidence(origin=SOURCE, role=role, ref=commit.sha, summary=commit.subject, at=commit.at,
                    author=commit.author, path=path)


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
    commits = repo.commits(revisions, pathspecs(), since=since, max_count=max_commits)
    commits = [_manifests_only(commit) for commit in reversed(commits)]
    mining.commits_read = len(commits)
    if commits:
        mining.oldest_seen = CommitRef(commits[0].sha, commits[0].at)
    head_files = {path: blob for path, blob in repo.files(head).items() if is_manifest(path)}
    declared_at_head: set[Key] = set()
    walk = _Walk(repo, mining, remembered if base else {}, declared_at_head)
    walk.start(head_files, commits)
    walk.load((c.path, c.new_blob) for commit in commits for c in commit.changes if c.new_blob)
    for index, commit in enumerate(commits):
        attribute = _merged_branch_sources(walk, commit) if len(commit.parents) > 1 else {}
        walk.apply(index, commit, attribute)
    walk.load(head_files.items())
    for path, blob in head_files.items():
        parsed = walk.declared(path, blob) or walk.files.get(path, _EMPTY)
        declared_at_head.update(parsed.names)
    mining.candidates = [_candidate(walk, key, episodes) for key, episodes in walk.episodes.items()
                         if key not in declared_at_head and episodes and episodes[-1].removed is not None]
    if limited:
        return _Mined(mining, declared_at_head, None)
    still = {key: e.added for key, episodes in walk.episodes.items() if key in declared_at_head
             for e in episodes[-1:] if e.removed is None and e.added is not None}
    return _Mined(mining, declared_at_head, cursor_value(head, still))


def _manifests_only(commit: Commit) -> Commit:
    changes = tuple(change for change in commit.changes if is_manifest(change.path))
    return Commit(commit.sha, commit.parents, commit.author, commit.at, commit.message, changes)


def _merged_branch_sources(walk: _Walk, merge: Commit) -> dict[Key, Commit]:
    """For a merge, the commit on the merged branches that added or removed each name (the
    latest one that did), so that the evidence is that commit, not the merge."""
    branch = walk.repo.commits([f"^{merge.parents[0]}", *merge.parents[1:]], pathspecs(), first_parent=False)
    branch = [_manifests_only(commit) for commit in branch]
    walk.load((c.path, b) for commit in branch for c in commit.changes for b in (c.old_blob, c.new_blob) if b)
    sources: dict[Key, Commit] = {}
    for commit in branch:  # newest first: the first one found is the latest
        for change in commit.changes:
            old = walk.declared(change.path, change.old_blob) or _EMPTY
            new = walk.declared(change.path, change.new_blob) or _EMPTY
            for key in old.names.keys() ^ new.names.keys():
                sources.setdefault(key, commit)
    return sources


def _candidate(walk: _Walk, key: Key, episodes: list[_Episode]) -> Candidate:
    ecosystem, normalized = key
    last = episodes[-1]
    assert last.removed is not None and last.removed_in is not None
    removing = walk.commits[last.removed_in]
    replacement = _replacement(walk, key, last)
    reverted = _REVERTS.findall(last.message)
    is_revert = last.added is not None and any(last.added.ref.startswith(sha) for sha in reverted)
    lived = _days_between(last.added.at, last.removed.at) if last.added else None
    classes = _classes(key, last)
    signals = bool(_SIGNAL_WORDS.search(last.message))
    confidence = 0.4 + 0.25 * is_revert + 0.15 * (replacement is not None) + 0.15 * signals
    confidence += 0.1 * (lived is not None and lived < 30)
    confidence -= 0.2 * ("build" in classes) + 0.15 * ("subproject" in classes)
    confidence -= 0.1 * bool({"dev", "types", "backport"} & set(classes))
    removed = last.removed
    reason = f'removed in {removed.ref[:7]} "{removed.summary}" ({removed.at[:10]}, {removed.author})'
    if removing.sha != removed.ref:
        reason += f", merged in {removing.sha[:7]}"
    if is_revert:
        reason += "; a revert of its addition"
    if replacement:
        reason += f"; replaced by {replacement}"
    if lived is not None:
        reason += f"; lived {lived} day{'s' if lived != 1 else ''}"
    if "subproject" in classes:
        reason += f"; its manifest {removed.path} was deleted"
    evidence = [e for episode in episodes[-3:] for e in (episode.added, episode.removed) if e is not None]
    return Candidate(name=last.name, ecosystem=ecosystem, reason=reason, confidence=min(0.95, max(0.05, confidence)),
                     evidence=tuple(evidence), classes=classes, replacement=replacement, lived_days=lived,
                     revert=is_revert)


def _replacement(walk: _Walk, key: Key, episode: _Episode) -> str | None:
    """A name of the same ecosystem newly declared by the removing commit or one within a day of
    it: one the message names first, then one in the same manifest, then one still at HEAD."""
    assert episode.removed_in is not None
    removing = walk.commits[episode.removed_in]
    when = _instant(removing.at)
    message = removing.message.lower()
    options = []
    for index in range(max(0, episode.removed_in - 20), min(len(walk.commits), episode.removed_in + 21)):
        distance = abs(index - episode.removed_in)
        if distance and abs(_instant(walk.commits[index].at) - when) > timedelta(days=1):
            continue
        for added_key, name, path in walk.added_by_commit[index]:
            if added_key[0] != key[0] or added_key == key:
                continue
            named = re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", message) is not None
            score = (named, index == episode.removed_in, path in episode.paths,
                     added_key in walk.declared_at_head, -distance)
            options.append((score, name))
    return max(options)[1] if options else None


def _classes(key: Key, episode: _Episode) -> tuple[str, ...]:
    ecosystem, name = key
    classes = []
    bases = {group.rsplit(":", 1)[-1] if group.startswith("target:") else group for group in episode.groups}
    dev_files = bool(episode.paths) and all(map(_named_for_development, episode.paths))
    if bases and (all(map(_is_dev_group, bases)) or (dev_files and bases == {"main"})):
        classes.append("dev")
    if bases == {"build"}:
        classes.append("build")
    if ecosystems.is_type_stubs(name):
        classes.append("types")
    if ecosystems.get(ecosystem).is_backport(name):
        classes.append("backport")
    if episode.manifest_deleted:
        classes.append("subproject")
    return tuple(classes)


def _named_for_development(path: str) -> bool:
    """A manifest whose name gives its declarations' group says it is for tooling (requirements-dev.txt)."""
    kind = _kind(path)
    return kind is not None and ecosystems.document(kind).group_in_name and \
        _DEV_WORDS.search(path.rsplit("/", 1)[-1]) is not None


def _is_dev_group(group: str) -> bool:
    """devDependencies, dev-dependencies, tests_require, or an extra or group named for tooling."""
    kind, _, label = group.partition(":")
    return group in ("dev", "test") or (kind in ("extra", "group") and _DEV_WORDS.search(label) is not None)


def _instant(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _days_between(start: str, end: str) -> int:
    return max(0, (_instant(end) - _instant(start)).days)



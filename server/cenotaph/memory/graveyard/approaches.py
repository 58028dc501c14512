"""The graveyard: approaches abandoned in a project or everywhere, keyed on normalized names,
and the fast lookup every editor keystroke and agent suggestion goes through."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context, content_hash
from cenotaph.memory.errors import Ambiguous, Conflict, InvalidInput, NotFound
from cenotaph.memory.graveyard.verdicts import GraveyardIndex, build_index, check, shared_approaches
from cenotaph.memory.models import AbandonResult, Actor, ApproachCheck, reinstated_text
from cenotaph.memory.team.folder import SharedFolders, is_shared_id, source_of
from cenotaph.nlp import ecosystems, names
from cenotaph.nlp.detect import Declaration
from cenotaph.nlp.workspace import Manifest, Manifests
from cenotaph.store import approaches, events, memories, suppressions
from cenotaph.store.graveyard_file import TARGETS as GRAVEYARD_TARGETS  # event targets that change the index
from cenotaph.store.records import ApproachRow, MemoryRow

RECALL_SUPPRESSING_EFFORT = 4  # DESIGN: an approach abandoned at effort 4–5 leaves recall


# What starts a version specifier in any ecosystem's name (`@v1`, `==2`, `>=1`, `~=1`, `!=3`).
_VERSION_MARK = re.compile(r"[@=<>~!]")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where an abandoned name is recorded, and why there."""

    ecosystem: str
    name: str  # what the key is made of: as a manifest declares it (a Go package's module, a deep import's package)
    decided_by: str  # in words, for the person: which manifest decided, or that none did


def _declares(declaration: Declaration, name: str, resolved: str | None) -> bool:
    """Whether a manifest's declaration is the package `name` stands for: the same key, the same
    folded name, the distribution of an import name (`resolved`: as the repository's environment
    says; else the known table), or the package a deeper name is in."""
    ecosystem = declaration.ecosystem
    return declaration.key == resolved or declaration.key in ecosystems.lookup_keys(name, ecosystem) or \
        names.fold(declaration.name) == names.fold(name) or declaration.key in ecosystems.enclosing(name, ecosystem)


def _listed(paths: Iterable[str]) -> str:
    return ", ".join(sorted(set(paths)))


def place(name: str, workspace: Path | None, manifests: Manifests) -> Placement:
    """The ecosystem `name` is abandoned in, as the repository at `workspace` tells: the manifests
    that declare it; else its spelling (an npm scope, a Go module path); else the ecosystems of
    the repository's own manifests (pyproject.toml, package.json, Cargo.toml, go.mod…; a
    Dockerfile's when there is none of those) whose registries take the name. Two or more
    ecosystems fit: Ambiguous (the person chooses). None: ANY, matching in every ecosystem; and
    without a repository at all, DEFAULT, saying so."""
    found = manifests.of(workspace) if workspace is not None else []
    declared: dict[str, list[tuple[Manifest, Declaration]]] = {}
    resolved = {eco: manifests.resolve(name, eco, workspace) for eco in {d.ecosystem for m in found
                                                                         for d in m.declarations}}
    for manifest in found:
        for declaration in manifest.declarations:
            if _declares(declaration, name, resolved[declaration.ecosystem]):
                declared.setdefault(declaration.ecosystem, []).append((manifest, declaration))
    if len(declared) == 1:
        ecosystem, hits = next(iter(declared.items()))
        paths = [manifest.path for manifest, _ in hits]
        return Placement(ecosystem, hits[0][1].name,
                         f"{_listed(paths)} declare{'s' if len(set(paths)) == 1 else ''} it")
    if declared:
        choices = tuple(declared)
        where = "; ".join(f"{eco} in {_listed(m.path for m, _ in hits)}" for eco, hits in declared.items())
        raise Ambiguous(f"{name!r} is declared in more than one ecosystem ({where}): say which one "
                        f"({', '.join(choices)})", field="ecosystem", choices=choices)
    if spelled := ecosystems.spelled_ecosystem(name):
        return Placement(spelled, name, f"its spelling makes it {spelled}'s")
    own = [m for m in found if m.primary] or found  # a Dockerfile speaks when nothing else does
    possible: dict[str, list[str]] = {}
    for manifest in own:
        for ecosystem in dict.fromkeys([manifest.ecosystem, *(d.ecosystem for d in manifest.declarations)]):
            if ecosystems.name_problem(name, ecosystem) is None:
                possible.setdefault(ecosystem, []).append(manifest.path)
    if len(possible) == 1:
        ecosystem, paths = next(iter(possible.items()))
        return Placement(ecosystem, name, f"no manifest declares it, and the repository's manifests are {ecosystem}'s "
                                          f"({_listed(paths)})")
    if possible:
        choices = tuple(possible)
        where = "; ".join(f"{eco} ({_listed(paths)})" for eco, paths in possible.items())
        raise Ambiguous(f"no manifest declares {name!r}, and the repository has manifests of more than one "
                        f"ecosystem ({where}): say which one ({', '.join(choices)})",
                        field="ecosystem", choices=choices)
    if workspace is None:  # a caller with no repository (the domain's own API, an agent outside one)
        return Placement(ecosystems.DEFAULT, name, f"no repository to read manifests from: {ecosystems.DEFAULT}, "
                                                   "the default")
    where = "no manifest in the repository" if not found else "no manifest of the repository"
    return Placement(ecosystems.ANY, name, f"{where} declares it or tells its ecosystem: recorded for every "
                                           "ecosystem (--ecosystem records it in one)")


def spelling_pattern(folded: str) -> re.Pattern[str]:
    """A folded name as people write it: any of '-', '_', '.' (or nothing) where it has '-',
    never as part of a longer name."""
    parts = [re.escape(p) for p in folded.split("-")]
    return re.compile(r"(?<![\w@/.-])" + r"[-_.]?".join(parts) + r"(?![\w/-]|\.\w)", re.IGNORECASE)


def tag_mentions(conn, project: str, key: str, spellings: set[str]) -> None:
    """Memories written before `key` entered the graveyard name it too: record it as their
    entity, so a recall suppression on `key` reaches them."""
    # A global record reaches every project's memories.
    projects = memories.projects(conn) if project == "" else None
    for spelling in spellings:
        tokens = [t for t in re.split(r"[^\w]+", spelling) if t]
        if not tokens:
            continue
        phrase = "content : NEAR(" + " ".join('"' + t.replace('"', '""') + '"' for t in tokens) + ", 2)"
        pattern = spelling_pattern(spelling)
        rows = memories.rows_matching(conn, phrase, projects or [project, ""]) if len(tokens) > 1 else \
            memories.rows_matching(conn, 'content : "' + tokens[0].replace('"', '""') + '"', projects or [project, ""])
        memories.add_entity(conn, [rid for rid, content in rows if pattern.search(content)], key)


@dataclass(frozen=True, slots=True)
class AbandonPlan:
    name: str
    reason: str
    project: str
    effort: int | None
    ecosystem: str
    key: str
    alias_keys: frozenset[str]
    decided_by: str = ""


@dataclass(frozen=True, slots=True)
class Misfiled:
    """A record whose name the repository declares only in another ecosystem."""

    approach: ApproachRow
    declared_in: str  # the ecosystem that declares it
    manifest: str  # where, relative to the repository
    command: str  # what refiles it


class Graveyard:
    """Reads come from an in-memory index rebuilt only when the event log or a repository's
    shared folder has moved, so a lookup costs a dictionary access plus one `MAX(seq)` query.
    Approaches shared in a repository (memory/team/folder.py) join
    the store's with source `repo`, in the project that repository is."""

    def __init__(self, ctx: Context, shared: SharedFolders | None = None) -> None:
        self.ctx = ctx
        self.shared = shared if shared is not None else SharedFolders()
        self._index: GraveyardIndex | None = None
        self._lock = threading.Lock()
        self.manifests = Manifests()  # what the repositories abandoned names are placed in declare

    # --- reads -------------------------------------------------------------------------------

    def index(self) -> GraveyardIndex:
        # The shared folders as last checked: the edges check them on each refresh (the language
        # server's live refresh, each MCP tool call; a CLI command reads them at its start).
        generation = self.shared.generation
        known = self._index
        if known is not None and known.shared_generation == generation:
            # The head and whether the graveyard changed since, in one statement (on PostgreSQL one
            # round trip: no transaction around it).
            with self.ctx.store.read_one() as conn:
                seq, touched = events.head_touching(conn, known.seq, GRAVEYARD_TARGETS)
            if not touched:  # at most memories changed: the graveyard is as it was
                with self._lock:
                    if self._index is known:
                        self._index = known._replace(seq=seq) if seq != known.seq else known
                        return self._index
        # The rebuild reads the head and the rows in one snapshot. The store's lock first, as every
        # writer takes it (a write transaction may read the graveyard): taking them in the other
        # order here could deadlock two threads.
        with self.ctx.store.read() as conn:
            seq = events.last_seq(conn)
            with self._lock:
                self._index = build_index(seq, approaches.all_rows(conn), suppressions.active(conn),
                                          shared_approaches(self.shared), generation)
        return self._index

    def forget_cache(self) -> None:
        """After a rolled-back write: the index may hold what it wrote, under an event number
        the next write will take again."""
        with self._lock:
            self._index = None

    def vocabulary(self) -> frozenset[str]:
        return self.index().vocabulary

    def check(self, names_to_check: Iterable[str], project: str, *, include_other_projects: bool = True,
              ecosystem: str | None = None) -> list[ApproachCheck]:
        """One verdict per name (verdicts.py says which record answers)."""
        return check(self.index(), names_to_check, project, include_other_projects=include_other_projects,
                     ecosystem=ecosystem)

    def recall_suppressed_values(self, project: str) -> set[str]:
        return {v for v, rows in self.index().recall_suppressions.items() if any(s.project in ("", project) for s in rows)}

    def in_scope(self, project: str, *, status: str | None = "abandoned") -> list[ApproachRow]:
        """The store's records of `project` and the global scope, and those shared in its repository."""
        shared = [a for a in self.index().shared.values() if a.project == project]
        with self.ctx.store.read() as conn:
            rows = approaches.all_rows(conn, status=status)
        return [a for a in rows if a.project in (project, "")] + [a for a in shared if status in (None, a.status)]

    def get(self, approach_id: int) -> ApproachRow:
        approach_id = validate.integer(approach_id, "approach_id", low=1, high=2**62)
        if is_shared_id(approach_id):
            found_shared = self.index().shared.get(approach_id)
            if found_shared is None:
                raise NotFound(f"no approach #{approach_id} is shared in the repository any more", field="approach_id")
            return found_shared
        with self.ctx.store.read() as conn:
            found = approaches.get(conn, approach_id)
        if found is None:
            raise NotFound(f"no approach #{approach_id}", field="approach_id")
        return found

    def find(self, name: str, project: str) -> ApproachRow:
        """The store's record of `name` in this project or the global scope (a verb changes that
        one; one shared in the repository changes only with its file)."""
        verdict = self.check([name], project, include_other_projects=False)[0]
        if verdict.approach is None:
            raise NotFound(f"{name!r} is not in the graveyard of this project or the global one", field="name")
        recorded = [a for a in (verdict.approach, *verdict.also) if source_of(a) == "store"]
        if not recorded:
            shared = verdict.approach
            raise Conflict(f"{shared.display_name!r} is shared in the repository by {shared.actor} "
                           f"({getattr(shared, 'path', '')}): `cenotaph unshare {shared.name}` removes it for "
                           f"everyone, `cenotaph suppress {shared.name} --kind diagnostic` silences it for you",
                           field="name")
        return recorded[0]

    # --- writes ------------------------------------------------------------------------------

    def plan(self, name: str, *, reason: str, project: str, effort: int | None = None, ecosystem: str | None = None,
             aliases: Iterable[str] = (), workspace: Path | None = None) -> AbandonPlan:
        """Validate and normalize an abandonment before anything is written. Without an
        `ecosystem`, the repository at `workspace` decides (see `place`), or refuses when two fit."""
        name = validate.text(name, "name", max_length=validate.MAX_NAME).strip()
        reason = validate.text(reason, "reason")
        project = validate.project(project)
        effort = validate.optional_integer(effort, "effort", low=1, high=5)
        if ecosystem is not None:
            validate.choice(ecosystem, "ecosystem", ecosystems.NAMES)
            placement = Placement(ecosystem, name, f"chosen: {ecosystem}")
        else:
            placement = place(name, workspace, self.manifests)
        ecosystem = placement.ecosystem
        # An import name the repository's environment resolves is its package's (never a declared name).
        if placement.name == name and (package := self.manifests.resolve(name, ecosystem, workspace)):
            placement = Placement(ecosystem, package, placement.decided_by)
        # A deeper name than its registry takes (`lodash/fp`, `@scope/pkg/sub`) is its package's; a
        # name with a version in it (`github.com/pkg/errors@v0.9.1`) is refused as written.
        recorded = placement.name
        if ecosystems.name_problem(recorded, ecosystem) and (outer := ecosystems.enclosing(recorded, ecosystem)) \
                and not _VERSION_MARK.search(recorded, len(outer[-1])):
            recorded = outer[-1]
        recorded = validate.package_name(recorded, ecosystem=ecosystem)
        key = ecosystems.normalize(recorded, ecosystem)
        if not key:
            raise InvalidInput("does not contain a package or tool name", field="name")
        alias_keys = {names.fold(a) for a in validate.text_list(list(aliases), "aliases")}
        # Every name it goes by: as typed, as declared, its import names (`markdown_it` for
        # markdown-it-py) and, recorded for any ecosystem, the package an import name stands for.
        alias_keys.update({names.fold(recorded), *ecosystems.aliases_for(key)})
        if recorded not in ecosystems.enclosing(name, ecosystem):  # `pygments.lexer` is no name of pygments
            alias_keys.add(names.fold(name))
        alias_keys.update(ecosystems.lookup_keys(recorded, ecosystem if ecosystem != ecosystems.ANY else None))
        alias_keys.update(self.manifests.import_names(key, ecosystem, workspace))
        alias_keys.discard(key)
        alias_keys.discard("")
        # Shown as the package it is recorded as (`markdown-it-py`, `lodash`), whichever name it was given by.
        return AbandonPlan(recorded, reason, project, effort, ecosystem, key, frozenset(alias_keys),
                           placement.decided_by)

    def abandon(self, actor: Actor, name: str, *, reason: str, project: str, effort: int | None = None,
                ecosystem: str | None = None, aliases: Iterable[str] = (), memory_id: int | None = None,
                outcome: str = "abandoned") -> AbandonResult:
        return self.record(actor, self.plan(name, reason=reason, project=project, effort=effort, ecosystem=ecosystem,
                                            aliases=aliases), memory_id=memory_id, outcome=outcome)

    def story(self, plan: AbandonPlan) -> MemoryRow | None:
        """The live memory that tells this approach's story: abandoning it again (after a
        reinstatement, say) links that one, a new reason as its new version, not a second story;
        a story the reinstatement ended (valid time) holds again."""
        with self.ctx.store.read() as conn:
            before = approaches.find(conn, plan.project, plan.key)
            row = None if before is None or before.memory_id is None else memories.current(conn, before.memory_id)
        return row if row is not None and row.state == "active" else None

    def told(self, project: str, key: str) -> tuple[MemoryRow | None, MemoryRow | None]:
        """The memories that hold now and tell the state of the approach `key` recorded in
        `project`: its story (abandoned), and the reason it was reinstated, when it was."""
        with self.ctx.store.read() as conn:
            approach = approaches.find(conn, project, key)
            if approach is None:
                return None, None
            story = None if approach.memory_id is None else memories.current(conn, approach.memory_id)
            back = None
            if approach.status == "reinstated" and approach.status_reason:
                text = reinstated_text(approach.display_name, approach.status_reason)
                found = memories.live_with_hash(conn, approach.project, "decision", content_hash(text))
                back = None if found is None else memories.current(conn, found)
        holds = [None if r is None or r.state != "active" or r.valid_to is not None else r for r in (story, back)]
        return holds[0], holds[1]

    def record(self, actor: Actor, plan: AbandonPlan, *, memory_id: int | None = None,
               outcome: str = "abandoned") -> AbandonResult:
        name, reason, project, effort, ecosystem, key, alias_keys = (
            plan.name, plan.reason, plan.project, plan.effort, plan.ecosystem, plan.key, plan.alias_keys)
        now = self.ctx.now()
        with self.ctx.store.write() as tx:
            before = approaches.find(tx, project, key)
            approach_id = approaches.upsert(
                tx, project=project, name=key, display_name=name, ecosystem=ecosystem, reason=reason, effort=effort,
                outcome=outcome, memory_id=memory_id, actor=actor.name, at=now,
            )
            approaches.add_aliases(tx, approach_id, sorted(alias_keys))
            tag_mentions(tx, project, key, {key, names.fold(name), *alias_keys})
            self.ctx.event(
                tx, actor=actor.name, action="abandon", target=f"approach:{approach_id}", project=project,
                before=None if before is None else {"status": before.status, "reason": before.reason},
                after={"name": key, "status": "abandoned", "effort": effort, "ecosystem": ecosystem}, reason=reason,
            )
            recall_suppressed = self._suppress_recall(tx, actor, project, key, effort, reason, now)
            approach = approaches.get(tx, approach_id)
            # A global abandonment is silenced in any project that silenced the name.
            silenced = [s for s in suppressions.active(tx, kind="diagnostic")
                        if s.value == key and (project == "" or s.project in (project, ""))]
        assert approach is not None
        return AbandonResult(approach=approach, memory_id=memory_id, recall_suppressed=recall_suppressed,
                             silenced=silenced, decided_by=plan.decided_by)

    def _suppress_recall(self, tx: Any, actor: Actor, project: str, key: str, effort: int | None, reason: str,
                         now: str) -> bool:
        """A dead end that cost days or more keeps the memories naming it out of recall."""
        if effort is None or effort < RECALL_SUPPRESSING_EFFORT:
            return False
        suppressions.add(tx, project=project, kind="recall", value=key,
                         reason=f"abandoned at effort {effort}/5: {reason}", actor=actor.name, at=now)
        self.ctx.event(tx, actor=actor.name, action="suppress", target=f"suppression:{key}", project=project,
                       after={"kind": "recall", "value": key, "automatic": True}, reason=reason)
        return True

    def set_effort(self, actor: Actor, name: str, *, effort: int, project: str,
                   reason: str | None = None) -> tuple[ApproachRow, bool]:
        """What an abandoned approach cost, given (or corrected) after it was recorded; raised to
        4 or more it keeps its memories out of recall as abandoning at that effort does. Lowered,
        an existing recall silence stays: lifting it is a person's separate decision. Returns the
        record and whether a recall silence was added."""
        effort = validate.integer(effort, "effort", low=1, high=5)
        reason = None if reason is None else secrets.screen(validate.text(reason, "reason"), "reason", actor)
        approach = self.find(name, validate.project(project))
        now = self.ctx.now()
        with self.ctx.store.write() as tx:
            approaches.set_effort(tx, approach.id, effort, actor.name, now)
            self.ctx.event(tx, actor=actor.name, action="effort", target=f"approach:{approach.id}",
                           project=approach.project, before={"effort": approach.effort}, after={"effort": effort},
                           reason=reason)
            silenced = any(s.value == approach.name and s.project == approach.project
                           for s in suppressions.active(tx, kind="recall"))
            suppressed = approach.status == "abandoned" and not silenced and self._suppress_recall(
                tx, actor, approach.project, approach.name, effort, reason or approach.reason, now)
            found = approaches.get(tx, approach.id)
        assert found is not None
        return found, suppressed

    def misfiled(self, project: str, workspace: Path) -> list[Misfiled]:
        """The store's abandoned records of `project` (and the global scope) whose name the
        repository's manifests declare only in another ecosystem (`moment` recorded under PyPI in
        a repository whose package.json declares it), each with the command that refiles it."""
        found = self.manifests.of(workspace)
        misfiled = []
        for approach in self.in_scope(project):
            if source_of(approach) != "store" or approach.ecosystem == ecosystems.ANY:
                continue
            declared = {d.ecosystem: m.path for m in found for d in m.declarations
                        if _declares(d, approach.display_name, None)}
            if declared and approach.ecosystem not in declared:
                ecosystem, path = next(iter(declared.items()))
                scope = " --global" if approach.project == "" else ""
                misfiled.append(Misfiled(approach, ecosystem, path,
                                         f"cenotaph refile {approach.display_name} --ecosystem {ecosystem}{scope}"))
        return misfiled

    def refile(self, actor: Actor, name: str, *, ecosystem: str, project: str) -> ApproachRow:
        """Move a record to another ecosystem, under that ecosystem's key; its reason, effort,
        story and history stay, its old key becomes an alias, and an event says so."""
        validate.choice(ecosystem, "ecosystem", ecosystems.NAMES)
        approach = self.find(name, validate.project(project))
        key = ecosystems.normalize(validate.package_name(approach.display_name, ecosystem=ecosystem), ecosystem)
        now = self.ctx.now()
        with self.ctx.store.write() as tx:
            other = approaches.find(tx, approach.project, key)
            if other is not None and other.id != approach.id:
                raise Conflict(f"{key!r} is already recorded as approach #{other.id}", field="ecosystem")
            approaches.set_ecosystem(tx, approach.id, key, ecosystem, actor.name, now)
            approaches.add_aliases(tx, approach.id, sorted({approach.name, *ecosystems.aliases_for(key)} - {key}))
            self.ctx.event(tx, actor=actor.name, action="refile", target=f"approach:{approach.id}",
                           project=approach.project, before={"name": approach.name, "ecosystem": approach.ecosystem},
                           after={"name": key, "ecosystem": ecosystem}, reason=None)
            found = approaches.get(tx, approach.id)
        assert found is not None
        return found

    def reinstate(self, actor: Actor, name: str, *, reason: str, project: str) -> ApproachRow:
        reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
        approach = self.find(name, validate.project(project))
        now = self.ctx.now()
        with self.ctx.store.write() as tx:
            approaches.set_status(tx, approach.id, "reinstated", reason, actor.name, now)
            self.ctx.event(tx, actor=actor.name, action="reinstate", target=f"approach:{approach.id}",
                           project=approach.project, before={"status": approach.status},
                           after={"status": "reinstated"}, reason=reason)
            # A reinstated approach no longer keeps its memories out of recall.
            for s in suppressions.active(tx, kind="recall"):
                if s.value == approach.name and s.project == approach.project:
                    suppressions.lift(tx, s.id, reason=f"reinstated: {reason}", actor=actor.name, at=now)
            found = approaches.get(tx, approach.id)
        assert found is not None
        return found

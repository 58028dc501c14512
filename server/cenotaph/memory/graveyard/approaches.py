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
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput, NotFound
from cenotaph.memory.graveyard.verdicts import GraveyardIndex, build_index, check, guess_ecosystem, shared_approaches
from cenotaph.memory.models import AbandonResult, Actor, ApproachCheck
from cenotaph.memory.team.folder import SharedFolders, is_shared_id, source_of
from cenotaph.nlp import ecosystems, names
from cenotaph.nlp.detect import declared_ecosystem
from cenotaph.store import approaches, events, memories, suppressions
from cenotaph.store.graveyard_file import TARGETS as GRAVEYARD_TARGETS  # event targets that change the index
from cenotaph.store.records import ApproachRow, MemoryRow

RECALL_SUPPRESSING_EFFORT = 4  # DESIGN: an approach abandoned at effort 4–5 leaves recall


def workspace_ecosystem(name: str, workspace: Path) -> str:
    """Where `name` lives as this workspace sees it: its spelling, else the manifests at the
    workspace's root that declare it, else no ecosystem in particular (it matches any)."""
    return ecosystems.spelled_ecosystem(name) or declared_ecosystem(name, workspace) or ecosystems.ANY


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

    # --- reads -------------------------------------------------------------------------------

    def index(self) -> GraveyardIndex:
        # The shared folders as last checked: the edges check them on each refresh (the language
        # server's live refresh, each MCP tool call; a CLI command reads them at its start).
        generation = self.shared.generation
        with self.ctx.store.read() as conn:
            seq = events.last_seq(conn)
        current = self._index
        if current is not None and current.seq == seq and current.shared_generation == generation:
            return current
        # The store's lock first, as every writer takes it (a write transaction may read the
        # graveyard): taking them in the other order here could deadlock two threads.
        with self.ctx.store.read() as conn, self._lock:
            seq = events.last_seq(conn)
            if self._index is not None and self._index.shared_generation == generation and \
                    not events.touches_since(conn, self._index.seq, GRAVEYARD_TARGETS):
                # Only memories changed: the graveyard is as it was.
                self._index.seq = seq
                return self._index
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
        `ecosystem`, the `workspace` the caller works in decides (see workspace_ecosystem);
        without either, the spelling, else PyPI."""
        name = validate.text(name, "name", max_length=validate.MAX_NAME).strip()
        reason = validate.text(reason, "reason")
        project = validate.project(project)
        effort = validate.optional_integer(effort, "effort", low=1, high=5)
        if ecosystem is not None:
            validate.choice(ecosystem, "ecosystem", ecosystems.NAMES)
        if ecosystem is None:
            ecosystem = guess_ecosystem(name) if workspace is None else workspace_ecosystem(name, workspace)
        name = validate.package_name(name, ecosystem=ecosystem)
        key = ecosystems.normalize(name, ecosystem)
        if not key:
            raise InvalidInput("does not contain a package or tool name", field="name")
        alias_keys = {names.fold(a) for a in validate.text_list(list(aliases), "aliases")}
        alias_keys.update(ecosystems.aliases_for(key))
        if names.fold(name) != key:
            alias_keys.add(names.fold(name))
        alias_keys.discard(key)
        alias_keys.discard("")
        return AbandonPlan(name, reason, project, effort, ecosystem, key, frozenset(alias_keys))

    def abandon(self, actor: Actor, name: str, *, reason: str, project: str, effort: int | None = None,
                ecosystem: str | None = None, aliases: Iterable[str] = (), memory_id: int | None = None,
                outcome: str = "abandoned") -> AbandonResult:
        return self.record(actor, self.plan(name, reason=reason, project=project, effort=effort, ecosystem=ecosystem,
                                            aliases=aliases), memory_id=memory_id, outcome=outcome)

    def story(self, plan: AbandonPlan) -> MemoryRow | None:
        """The live memory that tells this approach's story: abandoning it again (after a
        reinstatement, say) links that one, a new reason as its new version, not a second story."""
        with self.ctx.store.read() as conn:
            before = approaches.find(conn, plan.project, plan.key)
            row = None if before is None or before.memory_id is None else memories.current(conn, before.memory_id)
        return row if row is not None and row.state == "active" else None

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
                             silenced=silenced)

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

"""The domain's front door: every edge (CLI, language server, MCP) calls these methods."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from cenotaph.config import Settings
from cenotaph.memory import proposals, secrets, validate
from cenotaph.memory.knowledge.anchors.follow import Anchors, Place, parse_at
from cenotaph.memory.context import Context
from cenotaph.memory.core import audit, concepts, lifecycle, pruning, timeline
from cenotaph.memory.core import contradictions as links
from cenotaph.memory.core import trust as belief
from cenotaph.memory.core.recall import Recaller, document_locations
from cenotaph.memory.core.remember import remember
from cenotaph.memory.core.why import why
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.graveyard import suppressions
from cenotaph.memory.graveyard.approaches import Graveyard
from cenotaph.memory.knowledge import compaction, documents, feeds
from cenotaph.memory.mining import candidates
from cenotaph.memory.mining import git as mine_git
from cenotaph.memory.mining import transcripts as mine_transcripts
from cenotaph.memory.models import (
    ALL_KINDS,
    OUTCOMES,
    Anchor,
    AnchoredMemory,
    TRUSTS,
    AbandonResult,
    Actor,
    ApproachCheck,
    ExperienceResult,
    Location,
    MigrateStoreReport,
    RecallResponse,
    RememberResult,
    ShareResult,
    reinstated_text,
    story_text,
    tagged_location,
)
from cenotaph.memory.operations import backup, importing, repair
from cenotaph.memory.operations import migrate_store as store_migration
from cenotaph.memory.policy import compile as compiler
from cenotaph.memory.policy import lessons
from cenotaph.memory.team import roles, sharing
from cenotaph.memory.team.folder import FolderState, SharedFolders
from cenotaph.nlp import ecosystems
from cenotaph.store import anchors as store_anchors
from cenotaph.store import events, memories, vectors
from cenotaph.store.db import Store
from cenotaph.store.memories import Scope
from cenotaph.store.records import (
    ApproachRow,
    EventRow,
    MemoryRow,
    ProposalRow,
    SuppressionRow,
)

# How long `why`, `check_store`, `repair` and `migrate_store` wait for this process's recent recalls
# to be written: `why` reads them back, the check's FTS5 commands would meet their write
# mid-snapshot, and a copy of the store holds them.
RECORDS_WAIT_SECONDS = 1.0


@dataclass(slots=True)
class ReindexReport:
    model: str
    dim: int
    memories: int


class Memory:
    def __init__(self, ctx: Context, settings: Settings | None = None) -> None:
        self.ctx = ctx
        self.settings = settings or Settings()
        self.shared = SharedFolders()  # the repositories whose `.cenotaph/` this process reads
        self.graveyard = Graveyard(ctx, self.shared)
        self.anchors = Anchors(ctx, self.working_tree)
        self.recaller = Recaller(ctx, self.graveyard, annotate=self.anchors.annotate)

    def close(self) -> None:
        """Write what reads recorded (waiting a bounded time for a busy store), then close the store."""
        self.recaller.recorder.close()
        self.ctx.store.close()

    # --- writes ----------------------------------------------------------------------------------

    @contextmanager
    def together(self) -> Iterator[None]:
        """The writes made inside succeed or fail together: one store transaction, its rows and
        events; a file a share writes into `.cenotaph/` comes last (after every check), so a
        failure before it leaves the folder as it was. What the graveyard's cache read of writes
        rolled back is forgotten."""
        try:
            with self.ctx.store.write():
                yield
        except BaseException:
            self.graveyard.forget_cache()
            raise

    def remember(self, actor: Actor, content: str, *, project: str, kind: str = "note",
                 tags: list[str] | None = None, force: bool = False, at: Place | str | None = None,
                 **fields: Any) -> RememberResult:
        """`at` anchors the memory to lines of a file in the project's repository (`PATH:LINE[-LINE]`)."""
        if at is None:
            return remember(self.ctx, actor, content, project=project, kind=kind, tags=tags, force=force,
                            vocabulary=self._vocabulary(), **fields)
        place = parse_at(at) if isinstance(at, str) else at
        self.anchors.taken(validate.project(project), place, 0)  # refused before anything is written
        with self.together():
            result = remember(self.ctx, actor, content, project=project, kind=kind, tags=tags, force=force,
                              vocabulary=self._vocabulary(), **fields)
            if result.stored and result.id is not None:
                self.anchors.attach(actor, self.anchors.taken(validate.project(project), place, result.id))
        return result

    def abandon(self, actor: Actor, name: str, *, reason: str, project: str, effort: int | None = None,
                ecosystem: str | None = None, aliases: Iterable[str] = (),
                workspace: Path | None = None) -> AbandonResult:
        """Record `name` in the graveyard, with a memory that tells the story. Without an
        `ecosystem`, the manifests of the caller's `workspace` say which (Graveyard.plan)."""
        plan = self.graveyard.plan(name, reason=reason, project=project, effort=effort, ecosystem=ecosystem,
                                   aliases=aliases, workspace=workspace)
        secrets.check(plan.name, "name")  # a name is not redacted (it would name nothing): it is refused
        plan = dataclasses.replace(plan, reason=secrets.screen(plan.reason, "reason", actor))
        story = story_text(plan.name, plan.reason)
        told = self.graveyard.story(plan)
        _, reinstated = self.graveyard.told(plan.project, plan.key)
        # One transaction: a crash leaves the memory and its graveyard record together, or neither.
        with self.ctx.store.write() as tx:
            again = f"{plan.name} abandoned again: {plan.reason}"
            if reinstated is not None:  # why it came back held until now
                timeline.hold_until(self.ctx, tx, actor, reinstated, self.ctx.now(), reason=again)
            if told is not None and told.valid_to is not None:  # the story a reinstatement ended holds again
                told = timeline.hold_until(self.ctx, tx, actor, told, None, reason=again)
            if told is None:
                memory_id = self.remember(
                    actor, story, project=plan.project, kind="experience", tags=["abandoned", plan.name], force=True,
                    experience={"outcome": "abandoned", "effort": plan.effort},
                ).id
            else:
                memory_id = told.memory_id
                if told.content != story:
                    self.update(actor, memory_id, content=story, reason=f"{plan.name} abandoned again")
            return self.graveyard.record(actor, plan, memory_id=memory_id)

    def record_experience(self, actor: Actor, summary: str, *, project: str, outcome: str, effort: int,
                          iterations: int | None = None, breakthrough: str | None = None,
                          gotchas: list[str] | None = None, abandoned: list[tuple[str, str]] | None = None,
                          tags: list[str] | None = None, workspace: Path | None = None) -> ExperienceResult:
        """One experience (what was tried, at what effort, with what outcome) and the approaches it
        abandoned, each entering the graveyard linked to it."""
        # Checked here, else refused as `content` below.
        summary = secrets.screen(validate.text(summary, "summary", max_length=validate.MAX_CONTENT), "summary", actor)
        validate.choice(outcome, "outcome", OUTCOMES)
        validate.integer(effort, "effort", low=1, high=5)
        plans = []
        for i, pair in enumerate(abandoned or []):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise validate.InvalidInput("expected NAME=REASON", field=f"abandoned[{i}]")
            try:
                plan = self.graveyard.plan(pair[0], reason=pair[1], project=project, effort=effort,
                                           workspace=workspace)
                secrets.check(plan.name, "name")
                plans.append(dataclasses.replace(plan, reason=secrets.screen(plan.reason, "reason", actor)))
            except validate.InvalidInput as exc:  # re-raised as it is (a SecretFound stays one), renamed
                exc.field = f"abandoned[{i}].{exc.field}"
                raise
        with self.ctx.store.write():  # the experience and the approaches it abandoned, all or nothing
            stored = self.remember(
                actor, summary, project=project, kind="experience", tags=tags, force=True,
                experience={"outcome": outcome, "effort": effort, "iterations": iterations,
                            "breakthrough": breakthrough, "gotchas": gotchas},
            )
            assert stored.id is not None
            results = [self.graveyard.record(actor, plan, memory_id=stored.id) for plan in plans]
        return ExperienceResult(id=stored.id, abandoned=results)

    def misfiled_approaches(self, project: str, workspace: Path):
        """Abandoned records the repository declares only in another ecosystem (Graveyard.misfiled)."""
        return self.graveyard.misfiled(project, workspace)

    def refile(self, actor: Actor, name: str, *, ecosystem: str, project: str) -> ApproachRow:
        """Move an abandoned record to the ecosystem the repository declares it in (Graveyard.refile)."""
        return self.graveyard.refile(actor, name, ecosystem=ecosystem, project=project)

    def reinstate_approach(self, actor: Actor, name: str, *, reason: str, project: str) -> ApproachRow | ProposalRow:
        """Take an approach out of the graveyard; an agent's reinstatement lifts a block, so it is
        a proposal a person accepts (unless the user's policy lets agents reinstate)."""
        approach = self.graveyard.find(name, validate.project(project))
        if proposals.must_propose(self.settings, actor, "reinstate"):
            return proposals.propose(self.ctx, actor, action="reinstate", target=f"approach:{approach.id}",
                                     project=approach.project, reason=validate.text(reason, "reason"),
                                     arguments={"name": approach.name, "project": validate.project(project)})
        story, _ = self.graveyard.told(approach.project, approach.name)
        # One transaction: the record, its story's end and the reason it came back, or none of them.
        with self.ctx.store.write() as tx:
            back = self.graveyard.reinstate(actor, name, reason=reason, project=project)
            told = reinstated_text(back.display_name, str(back.status_reason))  # the reason as screened
            if story is not None:  # the story held until now: recalled as history, not as advice
                timeline.hold_until(self.ctx, tx, actor, story, back.updated_at, reason=told)
            self.remember(actor, told, project=back.project, kind="decision", tags=["reinstated", back.display_name],
                          force=True)
        return back

    def set_effort(self, actor: Actor, name: str, *, effort: int, project: str,
                   reason: str | None = None) -> tuple[ApproachRow, bool]:
        """What the dead end `name` cost (1–5), given after it was recorded (Graveyard.set_effort)."""
        return self.graveyard.set_effort(actor, name, effort=effort, project=project, reason=reason)

    def import_memories(self, actor: Actor, items: Iterable[importing.ImportItem], *, project: str,
                        batch: int = importing.BATCH, total: int | None = None,
                        progress: Callable[[int, int | None], None] | None = None) -> importing.ImportReport:
        """Write many memories in batches (source `import`); see memory/operations/importing.py for the rules."""
        return importing.import_memories(self.ctx, actor, items, project=project, vocabulary=self._vocabulary(),
                                         batch=batch, total=total, progress=progress)

    def import_jsonl(self, actor: Actor, lines: Iterable[str], *, project: str, total: int | None = None,
                     progress: Callable[[int, int | None], None] | None = None) -> importing.ImportReport:
        """Import JSON Lines (one object a line: content; kind, tags, valid_from, project optional);
        a line that cannot be read is refused by number, the others go in."""
        report = importing.ImportReport()
        items = importing.read_jsonl(lines, report.refused)
        return importing.import_memories(self.ctx, actor, items, project=project, vocabulary=self._vocabulary(),
                                         total=total, progress=progress, report=report)

    def ingest(self, actor: Actor, paths: Iterable[str], *, project: str, root: Path) -> documents.IngestReport:
        """The repository's documents as chunk memories with their location (memory/knowledge/documents.py)."""
        return documents.ingest(self.ctx, actor, paths, project=project, root=root, vocabulary=self._vocabulary())

    # --- feeds -----------------------------------------------------------------------------------

    def feed_add(self, actor: Actor, url: str, *, project: str,
                 expires_days: int = feeds.DEFAULT_EXPIRY_DAYS) -> feeds.FeedRow:
        return feeds.add(self.ctx, actor, url, project=project, expires_days=expires_days)

    def feed_remove(self, actor: Actor, url: str, *, project: str) -> feeds.FeedRow:
        return feeds.remove(self.ctx, actor, url, project=project)

    def feed_list(self, project: str | None) -> list[feeds.FeedRow]:
        return feeds.listing(self.ctx, project)

    def feed_pull(self, actor: Actor, *, project: str | None, due_after: timedelta | None = None) -> feeds.PullReport:
        """Pull feeds (only those not pulled within `due_after`, when given) and expire old entries."""
        return feeds.pull(self.ctx, actor, project=project, due_after=due_after, vocabulary=self._vocabulary())

    def promote(self, actor: Actor, memory_id: int) -> MemoryRow:
        """Keep a feed entry for good: no expiry, confirmed."""
        return feeds.promote(self.ctx, actor, memory_id)

    def location(self, memory_id: int) -> Location | None:
        """Where a document memory lies in its file, or where a memory remembered from a selection
        came from; None for any other memory."""
        memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
        with self.ctx.store.read() as conn:
            found = document_locations(conn, [memory_id]).get(memory_id)
            anchored = store_anchors.of(conn, [memory_id]).get(memory_id)
        if anchored is not None:  # where its code is now
            a = self.anchors.check(anchored).anchor
            return Location(a.path, a.start_line, a.end_line)
        return found or tagged_location(self.get(memory_id).tags)

    def _vocabulary(self) -> frozenset[str]:
        """Names entity extraction must recognise: the graveyard's, and every recall-suppressed one
        (a suppression reaches memories written after it too); the index read once (a store read)."""
        return (index := self.graveyard.index()).vocabulary | frozenset(index.recall_suppressions)

    # --- reads -----------------------------------------------------------------------------------

    def recall(self, actor: Actor, query: str, *, project: str, k: int = 10, **options: Any) -> RecallResponse:
        return self.recaller.recall(actor, query, project=project, k=k, **options)

    # --- anchors (memory/knowledge/anchors/) ----------------------------------------------------------------

    def working_tree(self, project: str) -> Path | None:
        """The repository of `project` this process runs in (the edges attach it)."""
        return next((s.root for s in self.shared.states() if s.project == project), None)

    def anchored(self, project: str, *, stale_only: bool = False) -> list[AnchoredMemory]:
        """The anchored memories of `project`, checked against the working tree now."""
        return self.anchors.listing(project, stale_only=stale_only)

    def reconfirm_anchor(self, actor: Actor, memory_id: int, at: Place | str | None = None) -> AnchoredMemory:
        """Re-anchor a memory to its code as it is now (where the check finds it, or `at`)."""
        return self.anchors.reconfirm(actor, memory_id, parse_at(at) if isinstance(at, str) else at)

    def anchors_in(self, project: str, file: Path, lines: list[str] | None = None) -> list[AnchoredMemory]:
        """The anchored memories in a file of `project`'s working tree, checked now (against its
        `lines` as an editor holds them, if given), which an editor follows as it edits."""
        return self.anchors.in_file(project, file, lines)

    def follow_edits(self, items: list[AnchoredMemory], lines: list[str],
                     places: dict[int, tuple[int, int]]) -> list[Anchor]:
        """Where an open document's edits moved its anchors, and whether their text still holds."""
        return self.anchors.follow_edits(items, lines, places)

    def retire_anchored(self, actor: Actor, memory_id: int, *, reason: str) -> MemoryRow:
        """Archive an anchored memory whose code changed."""
        return self.anchors.retire(actor, memory_id, reason=validate.text(reason, "reason"))

    def check_approaches(self, names: Iterable[str], *, project: str, include_other_projects: bool = True,
                         ecosystem: str | None = None, detected: bool = False) -> list[ApproachCheck]:
        """One verdict per name. A name someone typed must be one some ecosystem takes (`requests==2.0`
        is told its name is `requests`; a Go path checked as npm is clear there, not refused);
        names the scanners read out of a document (`detected`) are checked as found, so that one
        odd spelling mid-edit costs no document its diagnostics."""
        if ecosystem is not None:
            validate.choice(ecosystem, "ecosystem", ecosystems.NAMES)
        checked = validate.text_list(list(names), "names", max_items=1000, max_length=validate.MAX_NAME)
        if not detected:
            checked = [validate.package_name(name, f"names[{i}]", ecosystem=None) for i, name in enumerate(checked)]
        return self.graveyard.check(checked, validate.project(project),
                                    include_other_projects=include_other_projects, ecosystem=ecosystem)

    def database_role(self) -> str | None:
        """The role this session logged in as on a PostgreSQL store (the person, there); None on SQLite."""
        return self.ctx.store.role

    def change_seq(self) -> int:
        """The event log's head: other processes' writes move it."""
        # Under the store's lock: `serve` polls this from its event loop while MCP tools write from
        # worker threads on the same connection, and a statement open there makes their
        # BEGIN IMMEDIATE fail at once with "database is locked" instead of waiting.
        with self.ctx.store.read() as conn:
            return events.last_seq(conn)

    # --- maintenance -----------------------------------------------------------------------------

    def reindex(self, progress: Callable[[int, int], None] | None = None, batch: int = 64) -> ReindexReport:
        """Re-embed every memory version with the configured model (after a model change)."""
        store = self.ctx.store
        dim = self.ctx.embedder.dim
        with store.read() as conn:
            versions = memories.embeddable(conn)
        rows = [(row_id, project, content) for row_id, project, content, _ in versions]
        current = sum(1 for *_, is_current in versions if is_current)
        with store.write() as conn:
            vectors.drop(conn)
            vectors.create(conn, dim)
            store.set_meta(conn, "embedding_model", "")
        for start in range(0, len(rows), batch):
            chunk = rows[start:start + batch]
            embedded = self.ctx.embedder.embed([content for _, _, content in chunk])
            with store.write() as conn:
                for (row_id, project, _), vector in zip(chunk, embedded, strict=True):
                    vectors.insert(conn, row_id, project, vector)
            if progress:
                progress(min(start + batch, len(rows)), len(rows))
        with store.write() as conn:
            # Rows other processes wrote (or forgot) since the list above was read.
            repair.sync_vectors(self.ctx, conn)
            store.set_meta(conn, "embedding_model", self.ctx.embedder.model_name)
            store.set_meta(conn, "embedding_dim", str(dim))
            self.ctx.event(conn, actor="cenotaph", action="reindex", target="store", project="",
                           after={"model": self.ctx.embedder.model_name, "dim": dim, "memories": current,
                                  "versions": len(rows)})
        return ReindexReport(model=self.ctx.embedder.model_name, dim=dim, memories=current)

    # --- suppressions ----------------------------------------------------------------------------

    def suppress(self, actor: Actor, name: str, *, kind: str, project: str, reason: str,
                 ecosystem: str | None = None) -> SuppressionRow | ProposalRow:
        """Stop flagging `name` in editors (`diagnostic`) or keep memories naming it out of recall
        (`recall`), in `project` or everywhere (`""`). An agent's is a proposal a person accepts
        (a silenced name is a lifted block), unless the user's policy lets agents suppress."""
        if proposals.must_propose(self.settings, actor, "suppress"):
            kind = validate.choice(kind, "kind", suppressions.KINDS)
            project = validate.project(project)
            key, _ = suppressions.key_for(self.graveyard, name, project, ecosystem)
            return proposals.propose(self.ctx, actor, action="suppress", target=f"suppression:{key}", project=project,
                                     reason=validate.text(reason, "reason"),
                                     arguments={"name": key, "kind": kind, "project": project,
                                                **({} if ecosystem is None else {"ecosystem": ecosystem})})
        return suppressions.suppress(self.ctx, self.graveyard, actor, name, kind=kind, project=project,
                                     reason=reason, ecosystem=ecosystem)

    def suppressions(self, project: str) -> list[SuppressionRow]:
        """The silences in force in `project` (its own and the global ones)."""
        return suppressions.in_scope(self.ctx, validate.project(project))

    def unsuppress(self, actor: Actor, name: str, *, kind: str, project: str,
                   reason: str) -> SuppressionRow | ProposalRow:
        found = suppressions.active(self.ctx, self.graveyard, name, kind=kind, project=project)
        reason = validate.text(reason, "reason")
        if proposals.must_propose(self.settings, actor, "unsuppress"):
            return proposals.propose(self.ctx, actor, action="unsuppress", target=f"suppression:{found.value}",
                                     project=found.project, reason=reason,
                                     arguments={"name": found.value, "kind": found.kind, "project": found.project})
        return suppressions.unsuppress(self.ctx, actor, found, reason=reason)

    # --- trust -----------------------------------------------------------------------------------

    def set_trust(self, actor: Actor, memory_id: int, trust: str, *, reason: str) -> MemoryRow | ProposalRow:
        """Confirm, dispute, refute or un-verify a memory. An agent never confirms; its refutations
        are proposals unless the user's policy allows them."""
        validate.choice(trust, "trust", TRUSTS)
        reason = validate.text(reason, "reason")
        if actor.kind == "agent" and trust == "confirmed":
            raise Conflict("only a person can confirm a memory", field="trust")
        if trust == "refuted" and proposals.must_propose(self.settings, actor, "refute"):
            row = self.get(memory_id)
            return proposals.propose(self.ctx, actor, action="refute", target=f"memory:{row.memory_id}",
                                     project=row.project, reason=reason, arguments={"memory_id": row.memory_id})
        return belief.change(self.ctx, actor, memory_id, trust, reason=reason)

    def get(self, memory_id: int) -> MemoryRow:
        """The current version of a memory (a forgotten one has no content)."""
        memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
        with self.ctx.store.read() as conn:
            row = memories.current(conn, memory_id)
        if row is None:
            raise NotFound(f"no memory #{memory_id}", field="memory_id")
        return row

    # --- sharing with the team (memory/team/folder.py, memory/team/sharing.py) ----------------------------

    def attach_repositories(self, repositories: Iterable[tuple[Path, str]]) -> None:
        """Read the `.cenotaph/` folders of these (repository root, project) pairs, and no others."""
        self.shared.attach(repositories)

    def shared_folders(self) -> list[FolderState]:
        self.shared.refresh()
        return self.shared.states()

    # --- the team's roles (PostgreSQL) ---------------------------------------------------------

    def team_add(self, actor: Actor, person: str, role: str) -> roles.NewMember:
        """A login for `person` (made if missing) with `role` in this store; its password shown once."""
        return roles.add(self.ctx, actor, person, role)

    def team_set_role(self, actor: Actor, person: str, role: str) -> roles.TeamMember:
        return roles.set_role(self.ctx, actor, person, role)

    def team_remove(self, actor: Actor, person: str) -> roles.TeamMember:
        return roles.remove(self.ctx, actor, person)

    def team_members(self) -> list[roles.TeamMember]:
        return roles.members(self.ctx)

    def share(self, actor: Actor, target: str | int, *, project: str,
              reason: str | None = None) -> ShareResult | ProposalRow:
        """Write a memory (by id) or an abandoned approach (by name) into the repository's
        `.cenotaph/` folder. An agent's share is a proposal, whatever the policy: writing into
        the repository is a person's act."""
        plan = sharing.plan(self.ctx, self.graveyard, self.shared, actor, target, project=project)
        if actor.kind == "agent":
            return proposals.propose(self.ctx, actor, action="share", target=f"shared:{plan.path}",
                                     project=plan.state.project, reason=validate.text(reason, "reason"),
                                     arguments={"target": str(target), "project": plan.state.project})
        return sharing.apply(self.ctx, self.shared, actor, plan)

    def unshare(self, actor: Actor, target: str | int, *, project: str,
                reason: str | None = None) -> ShareResult | ProposalRow:
        """Remove a shared entry's file (git keeps its history); an agent's unshare is a proposal."""
        state, path = sharing.shared_path(self.graveyard, self.shared, target, project=project)
        if actor.kind == "agent":
            return proposals.propose(self.ctx, actor, action="unshare", target=f"shared:{path}",
                                     project=state.project, reason=validate.text(reason, "reason"),
                                     arguments={"target": path, "project": state.project})
        return sharing.unshare(self.ctx, self.shared, actor, state, path)

    # --- proposals -------------------------------------------------------------------------------

    def proposals(self, project: str | None, status: str | None = "pending") -> list[ProposalRow]:
        return proposals.listing(self.ctx, project, status)

    def proposal(self, proposal_id: int) -> ProposalRow:
        return proposals.get(self.ctx, proposal_id)

    def propose_candidates(self, actor: Actor, project: str,
                           found: Iterable[candidates.Candidate]) -> candidates.ProposeReport:
        """Mined graveyard candidates become `abandon` proposals for a person to accept or reject."""
        return candidates.propose(self.ctx, self.graveyard, actor, project, found)

    def mine_git(self, actor: Actor, path: str, *, project: str, since: str | None = None,
                 max_commits: int | None = None) -> mine_git.GitMiningReport:
        """Read the repository's manifest history (only what is new since the last run) and propose
        the dependencies it abandoned; nothing enters the graveyard until a person accepts."""
        return mine_git.run(self.ctx, self.graveyard, actor, project, path, since=since, max_commits=max_commits)
    def mine_transcripts(self, actor: Actor, project: str, repo_root: Path | str, *,
                         claude_dir: Path | str | None = None,
                         codex_dir: Path | str | None = None) -> mine_transcripts.TranscriptReport:
        """Graveyard candidates from the agent transcripts of sessions inside `repo_root` (Claude
        Code's under `claude_dir`, Codex's under `codex_dir`; a source given None is not read), as
        proposals."""
        sources = mine_transcripts.Sources(claude_dir=Path(claude_dir) if claude_dir is not None else None,
                                           codex_dir=Path(codex_dir) if codex_dir is not None else None)
        return mine_transcripts.run(self.ctx, self.graveyard, actor, project, Path(repo_root), sources)

    def pending_candidates(self, project: str) -> int:
        """How many mined candidates of `project` wait for a person."""
        return candidates.pending_count(self.ctx, project)

    def first_notice(self, project: str, workspace: str) -> bool:
        """Whether `workspace` has not been told about its candidates before (and now it has)."""
        return candidates.first_notice(self.ctx, project, workspace)

    def accept_proposal(self, actor: Actor, proposal_id: int, *, reason: str | None = None,
                        effort: int | None = None) -> Any:
        """A person carries out a proposal; returns what the verb returns. For a mined `abandon`
        candidate, `reason` replaces the drafted reason and `effort` is the effort it cost."""
        proposal = proposals.pending(self.ctx, actor, proposal_id)
        reason = validate.optional_text(reason, "reason")
        if effort is not None and proposal.action != candidates.ACTION:
            raise validate.InvalidInput("only an abandon proposal takes an effort", field="effort")
        note = f"{proposal.reason} (proposed by {proposal.actor}, proposal #{proposal.id})"
        args = proposal.arguments
        verbs: dict[str, Callable[[], Any]] = {
            "forget": lambda: self.forget(actor, args["memory_id"], reason=note, confirm=True),
            "refute": lambda: self.set_trust(actor, args["memory_id"], "refuted", reason=note),
            "resolve": lambda: self.resolve_contradiction(actor, args["contradiction_id"], keep=args["keep"],
                                                          reason=note),
            "suppress": lambda: self.suppress(actor, args["name"], kind=args["kind"], project=args["project"],
                                              reason=note, ecosystem=args.get("ecosystem")),
            "reinstate": lambda: self.reinstate_approach(actor, args["name"], reason=note, project=args["project"]),
            "unsuppress": lambda: self.unsuppress(actor, args["name"], kind=args["kind"], project=args["project"],
                                                  reason=note),
            candidates.ACTION: lambda: self.abandon(actor, args["name"], reason=reason or args["reason"],
                                                    project=proposal.project, effort=effort,
                                                    ecosystem=args["ecosystem"]),
            compiler.ACTION: lambda: compiler.write(self.ctx, actor, proposal),
            compaction.ACTION: lambda: compaction.accept(self.ctx, actor, proposal, note,
                                                         vocabulary=self._vocabulary()),
            concepts.ACTION: lambda: concepts.apply(self.ctx, actor, args["verb"], args["a"], args["b"], reason=note),
            "share": lambda: self.share(actor, args["target"], project=args["project"]),
            "unshare": lambda: self.unshare(actor, args["target"], project=args["project"]),
        }
        if proposal.action not in verbs:
            raise Conflict(f"proposal #{proposal.id} asks for {proposal.action!r}, which this Cenotaph cannot do")
        # One transaction: the verb and the decision land together or not at all.
        with self.ctx.store.write():
            result = verbs[proposal.action]()
            proposals.decide(self.ctx, actor, proposal, "accepted", reason)
        return result

    def reject_proposal(self, actor: Actor, proposal_id: int, *, reason: str) -> ProposalRow:
        return self.reject_proposals(actor, [proposal_id], reason=reason)[0]

    def reject_proposals(self, actor: Actor, proposal_ids: Iterable[int] = (), *, reason: str,
                         project: str | None = None, classes: Iterable[str] = (),
                         path: str | None = None) -> list[ProposalRow]:
        """Reject, with one reason, the proposals named by id and the project's pending mined
        candidates of any of `classes` with evidence in files matching the glob `path`."""
        selection = candidates.Selection(ids=tuple(proposal_ids), classes=tuple(classes), path=path)
        return self.decide_proposals(actor, "rejected", selection, project=project, reason=reason).proposals

    def decide_proposals(self, actor: Actor, decision: str, selection: candidates.Selection, *,
                         project: str | None = None, reason: str | None = None, effort: int | None = None,
                         preview: bool = False) -> candidates.Batch:
        """Accept or reject at once the proposals `selection` names by id and the project's pending
        mined candidates its filters pick; all or none (one transaction), recorded as one batch that
        `reopen_proposals` undoes. A preview lists what would be decided and decides nothing (an
        agent may ask for one; only a person decides)."""
        validate.choice(decision, "decision", ("accepted", "rejected"))
        if not preview:
            named = " ".join(str(i) for i in selection.ids) or "…"
            proposals.only_a_person(actor, " ".join(f"#{i}" for i in selection.ids) or "these candidates",
                                    f"cenotaph {decision[:6]} {named}")
        reason = validate.text(reason, "reason") if decision == "rejected" and not preview else validate.optional_text(reason, "reason")
        selection = selection.checked()
        if not selection.ids and not selection.filtered:
            raise validate.InvalidInput("name the proposals: ids, or a class, path, commit or confidence", field="id")
        named = [proposals.get(self.ctx, i) for i in selection.ids]
        if selection.filtered:
            if project is None:
                raise validate.InvalidInput("choosing candidates by class, path, commit or confidence needs a project",
                                            field="project")
            named += candidates.select(proposals.listing(self.ctx, project), selection)
        chosen = list({row.id: row for row in named}.values())
        batch = candidates.Batch(decision=decision, proposals=chosen, preview=preview)
        if preview:
            return batch
        chosen = [proposals.pending(self.ctx, actor, row.id) for row in chosen]  # a person's, still pending
        with self.ctx.store.write() as tx:
            decided = []
            for proposal in chosen:
                if decision == "accepted":
                    batch.results.append(self.accept_proposal(actor, proposal.id, reason=reason, effort=effort))
                    decided.append(proposals.get(self.ctx, proposal.id))
                    continue
                if proposal.action == candidates.ACTION:
                    candidates.dismiss(self.ctx, actor, proposal, reason)
                decided.append(proposals.decide(self.ctx, actor, proposal, "rejected", reason))
            batch.proposals = decided
            candidates.record_batch(self.ctx, tx, actor, batch, reason)
        return batch

    def reopen_proposals(self, actor: Actor, *, batch: int | None = None,
                         proposal_ids: Iterable[int] = ()) -> list[ProposalRow]:
        """Undo rejections: the proposals of bulk decision `batch` (those still as it left them) and
        those named by id are pending again; all or none."""
        ids = list(proposal_ids)
        if batch is not None:
            decision, in_batch = candidates.batch_ids(self.ctx, batch)
            if decision != "rejected":
                raise Conflict(f"batch #{batch} accepted its proposals: their approaches are in the graveyard; "
                               f"reinstate each (`cenotaph reinstate NAME`) to bring it back", field="batch")
            ids += [i for i in in_batch if proposals.get(self.ctx, i).status == "rejected"]
        if not ids:
            raise validate.InvalidInput("name what to reopen: a batch, or proposal ids", field="id")
        rows = [proposals.decided(self.ctx, actor, i) for i in dict.fromkeys(ids)]
        with self.ctx.store.write():
            for row in rows:
                candidates.reopen(self.ctx, actor, row)
        return [proposals.get(self.ctx, row.id) for row in rows]

    # --- from memory to policy -----------------------------------------------------------------

    def bless(self, actor: Actor, memory_id: int, *, reason: str | None = None) -> MemoryRow:
        """A person vouches for a memory: its lessons compile without waiting to recur."""
        return lessons.bless(self.ctx, actor, memory_id, reason=reason)

    def lessons(self, project: str) -> list[lessons.Lesson]:
        """Every lesson of `project`, reinforced or not (what `compile` would draw from)."""
        return lessons.gather(self.ctx, project)

    def compile(self, actor: Actor, target: str, *, project: str, root: Path,
                directory: str | None = None) -> compiler.CompileResult:
        """Render `target` from the reinforced lessons and propose the files that would change;
        only a person's `accept_proposal` writes them (and only if they are still as diffed)."""
        return compiler.propose(self.ctx, actor, target, project=project, root=root, directory=directory)

    def propose_hooks(self, actor: Actor, agent: str, *, install: bool, project: str, root: Path,
                      command: str, scope: str = "project") -> compiler.CompileResult:
        """Propose `agent`'s settings of `scope` (project, local, user) under `root` with Cenotaph's
        hooks (running `command`) merged in or taken out; `accept_proposal` writes it as it writes a compile."""
        return compiler.propose_hooks(self.ctx, actor, agent, install=install, project=project, root=root,
                                      command=command, scope=scope)

    def recent(self, project: str, *, kinds: Iterable[str] = (), limit: int = 10) -> list[MemoryRow]:
        """The newest active memories of `project` and the global scope, of `kinds` (all when
        empty): what a briefing lists as preferences and recent decisions."""
        scope = memories.Scope(projects=tuple(dict.fromkeys((validate.project(project), ""))), states=("active",),
                               kinds=tuple(validate.choice(k, "kinds", ALL_KINDS) for k in kinds))
        with self.ctx.store.read() as conn:
            return memories.newest(conn, scope, limit=validate.integer(limit, "limit", low=1, high=1000))

    # --- lifecycle -------------------------------------------------------------------------------

    def deprioritise(self, actor: Actor, memory_id: int, *, reason: str, hints: Iterable[str] = ()) -> MemoryRow:
        """Keep a memory but rank it low (×0.2); a query matching one of `hints` pins it at 0.6."""
        return lifecycle.move(self.ctx, actor, memory_id, "deprioritised", reason=reason, hints=list(hints))

    def archive(self, actor: Actor, memory_id: int, *, reason: str) -> MemoryRow:
        return lifecycle.move(self.ctx, actor, memory_id, "archived", reason=reason)

    def reinstate(self, actor: Actor, memory_id: int, *, reason: str) -> MemoryRow:
        return lifecycle.move(self.ctx, actor, memory_id, "active", reason=reason)

    def forget(self, actor: Actor, memory_id: int, *, reason: str,
               confirm: bool = False) -> ForgetPreview | MemoryRow | ProposalRow:
        """Without `confirm`, what would go; with it, the content goes and a tombstone stays."""
        reason = validate.text(reason, "reason")
        preview = pruning.forget_preview(self.ctx, memory_id)
        if not confirm:
            return preview
        if proposals.must_propose(self.settings, actor, "forget"):
            return proposals.propose(self.ctx, actor, action="forget", target=f"memory:{preview.memory_id}",
                                     project=preview.project, reason=reason,
                                     arguments={"memory_id": preview.memory_id})
        return pruning.forget(self.ctx, actor, preview.memory_id, reason=reason)

    def deprioritised(self, project: str) -> list[MemoryRow]:
        with self.ctx.store.read() as conn:
            return memories.list_rows(conn, Scope(projects=(validate.project(project),), states=("deprioritised",)),
                                      limit=10_000)

    def maintain(self, actor: Actor, project: str | None = None) -> MaintenanceReport:
        """Archive duplicates, each with the reason "duplicate of <id>"."""
        return pruning.archive_duplicates(self.ctx, actor, project)

    # --- compaction (memory/knowledge/compaction.py) -------------------------------------------------------

    def compact_candidates(self, project: str, *,
                           older_than_days: int = compaction.DEFAULT_OLDER_THAN_DAYS) -> list[compaction.Cluster]:
        """Clusters of similar memories of `project` valid since more than `older_than_days`."""
        return compaction.find(self.ctx, project, older_than_days=older_than_days)

    def compact_cluster(self, project: str, cluster_id: str, *,
                        older_than_days: int = compaction.DEFAULT_OLDER_THAN_DAYS) -> compaction.Cluster:
        """One cluster with its members' texts (what a summary is written from)."""
        return compaction.get(self.ctx, project, cluster_id, older_than_days=older_than_days)

    def compact_apply(self, actor: Actor, project: str, cluster_id: str, *, summary: str, reason: str | None = None,
                      older_than_days: int = compaction.DEFAULT_OLDER_THAN_DAYS,
                      ) -> compaction.CompactResult | ProposalRow:
        """Store `summary` for the cluster and supersede its members; an agent's summary is a
        proposal a person accepts (unless the user's policy lets agents compact)."""
        cluster = compaction.get(self.ctx, project, cluster_id, older_than_days=older_than_days)
        if proposals.must_propose(self.settings, actor, compaction.ACTION):
            return compaction.propose(self.ctx, actor, cluster, summary=summary, reason=reason)
        return compaction.summarise(self.ctx, actor, cluster.project, cluster.member_ids, summary=summary,
                                    expected_cluster=cluster.id, reason=reason, vocabulary=self._vocabulary())

    # --- time ------------------------------------------------------------------------------------

    def update(self, actor: Actor, memory_id: int, *, content: str, reason: str | None = None) -> MemoryRow:
        """New content as a new version; the old one's record time is closed, not overwritten."""
        return timeline.update(self.ctx, actor, memory_id, content=content, reason=reason,
                               vocabulary=self._vocabulary())

    def history(self, memory_id: int) -> MemoryHistory:
        return timeline.history(self.ctx, memory_id)

    # --- contradictions --------------------------------------------------------------------------

    def contradictions(self, project: str | None, status: str | None = "open") -> list[ContradictionView]:
        return links.listing(self.ctx, project, status)

    def resolve_contradiction(self, actor: Actor, contradiction_id: int, *, keep: str,
                              reason: str) -> ContradictionView | ProposalRow:
        validate.choice(keep, "keep", links.KEEP)
        reason = validate.text(reason, "reason")
        if proposals.must_propose(self.settings, actor, "resolve"):
            with self.ctx.store.read() as conn:
                link = links.get_open(conn, contradiction_id)
            return proposals.propose(self.ctx, actor, action="resolve", target=f"contradiction:{link.id}",
                                     project=link.project, reason=reason,
                                     arguments={"contradiction_id": link.id, "keep": keep})
        return links.resolve(self.ctx, actor, contradiction_id, keep=keep, reason=reason)

    def dismiss_contradiction(self, actor: Actor, contradiction_id: int, *, reason: str) -> ContradictionView:
        return links.dismiss(self.ctx, actor, contradiction_id, reason=reason)

    def scan_contradictions(self, actor: Actor, project: str) -> ScanReport:
        return links.scan(self.ctx, actor, project)

    # --- audit -----------------------------------------------------------------------------------

    def audit_verify(self, since: AuditReport | None = None) -> AuditReport:
        return audit.verify(self.ctx, since)

    def audit_log(self, target: str | None = None, since: str | None = None, limit: int = 1000, *,
                  actor: str | None = None, newest_first: bool = False) -> list[EventRow]:
        return audit.log(self.ctx, target=target, since=since, limit=limit, actor=actor, newest_first=newest_first)

    def why(self, topic: str, project: str) -> WhyReport:
        # This process's recalls are in the log it reads, unless the store is too busy to wait for.
        self.recaller.recorder.flush(RECORDS_WAIT_SECONDS)
        return why(self.ctx, topic, project)

    # --- concepts (memory/core/concepts.py) -------------------------------------------------------------

    def concepts(self, project: str, limit: int = 50) -> list[concepts.ConceptView]:
        return concepts.listing(self.ctx, project, limit)

    def related(self, memory_id: int, k: int = 10) -> list[concepts.RelatedMemory]:
        return concepts.related(self.ctx, memory_id, k)

    def concepts_rebuild(self, actor: Actor,
                         progress: Callable[[int], None] | None = None) -> concepts.RebuildReport:
        return concepts.rebuild(self.ctx, actor, self._vocabulary(), progress)

    def concept_verdict(self, actor: Actor, verb: str, a: str, b: str | None = None, *, project: str,
                        reason: str | None = None) -> concepts.Verdict | ProposalRow:
        """merge A into B, remove A, dismiss the pair A–B, rename A to B. An agent's verdict is a
        proposal, whatever the policy: the concept graph is a person's review."""
        if actor.kind == "agent":
            first, second = concepts.check(self.ctx, verb, a, b)
            return proposals.propose(self.ctx, actor, action=concepts.ACTION, target=f"concept:{first}",
                                     project=validate.project(project), reason=validate.text(reason, "reason"),
                                     arguments={"verb": verb, "a": first, "b": second})
        return concepts.apply(self.ctx, actor, verb, a, b, reason=reason)

    # --- backup ----------------------------------------------------------------------------------

    def backup(self, actor: Actor, path: str) -> BackupReport:
        return backup.backup(self.ctx, actor, path)

    def restore(self, actor: Actor, path: str) -> RestoreReport:
        """Replace the store with a backup: a person's act (it brings back or takes away every block)."""
        if actor.kind != "human":
            raise Conflict("only a person can restore a store from a backup", field="actor")
        return backup.restore(self.ctx, actor, path)

    def migrate_store(self, target: Store, progress: Callable[[int, int], None] | None = None) -> MigrateStoreReport:
        """Copy this whole store into `target` (empty, or a previous copy of this one)."""
        self.recaller.recorder.flush(RECORDS_WAIT_SECONDS)  # this process's recalls are copied too
        return store_migration.migrate_store(self.ctx, target, progress)

    # --- repair ----------------------------------------------------------------------------------

    def check_store(self) -> repair.StoreCheck:
        """Whether the file is sound and its full-text index and vectors agree with the memories."""
        self.recaller.recorder.flush(RECORDS_WAIT_SECONDS)
        return repair.check(self.ctx)

    def repair(self, actor: Actor, progress: Callable[[int, int], None] | None = None) -> repair.RepairReport:
        """Bring the full-text index and the vectors back in step (e.g. after a crash during reindex)."""
        self.recaller.recorder.flush(RECORDS_WAIT_SECONDS)
        return repair.repair(self.ctx, actor, progress)

"""The domain's front door: every edge (CLI, language server, MCP) calls these methods."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.graveyard import Graveyard
from cenotaph.memory.models import OUTCOMES, AbandonResult, Actor, ApproachCheck, ExperienceResult, RememberResult, RecallResponse
from cenotaph.memory.recall import Recaller
from cenotaph.memory.remember import remember
from cenotaph.store import events, memories, vectors


@dataclass(slots=True)
class ReindexReport:
    model: str
    dim: int
    memories: int


class Memory:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.graveyard = Graveyard(ctx)
        self.recaller = Recaller(ctx, self.graveyard)

    # --- writes ----------------------------------------------------------------------------------

    def remember(self, actor: Actor, content: str, *, project: str, kind: str = "note",
                 tags: list[str] | None = None, force: bool = False, **fields: Any) -> RememberResult:
        return remember(self.ctx, actor, content, project=project, kind=kind, tags=tags, force=force,
                        vocabulary=self.graveyard.vocabulary(), **fields)

    def abandon(self, actor: Actor, name: str, *, reason: str, project: str, effort: int | None = None,
                ecosystem: str | None = None, aliases: Iterable[str] = ()) -> AbandonResult:
        """Record `name` in the graveyard, with a memory that tells the story."""
        name = validate.text(name, "name", max_length=300)
        reason = validate.text(reason, "reason")
        validate.optional_integer(effort, "effort", low=1, high=5)
        stored = self.remember(
            actor, f"Abandoned {name.strip()}: {reason}", project=project, kind="experience",
            tags=["abandoned", name.strip()], force=True, experience={"outcome": "abandoned", "effort": effort},
        )
        return self.graveyard.abandon(actor, name, reason=reason, project=project, effort=effort, ecosystem=ecosystem,
                                      aliases=aliases, memory_id=stored.id)

    def record_experience(self, actor: Actor, summary: str, *, project: str, outcome: str, effort: int,
                          iterations: int | None = None, breakthrough: str | None = None,
                          gotchas: list[str] | None = None, abandoned: list[tuple[str, str]] | None = None,
                          tags: list[str] | None = None) -> ExperienceResult:
        """One experience (what was tried, at what effort, with what outcome) and the approaches it
        abandoned, each entering the graveyard linked to it."""
        validate.choice(outcome, "outcome", OUTCOMES)
        validate.integer(effort, "effort", low=1, high=5)
        pairs = []
        for i, pair in enumerate(abandoned or []):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise validate.InvalidInput("expected NAME=REASON", field=f"abandoned[{i}]")
            pairs.append((validate.text(pair[0], f"abandoned[{i}].name", max_length=300),
                          validate.text(pair[1], f"abandoned[{i}].reason")))
        stored = self.remember(
            actor, summary, project=project, kind="experience", tags=tags, force=True,
            experience={"outcome": outcome, "effort": effort, "iterations": iterations,
                        "breakthrough": breakthrough, "gotchas": gotchas},
        )
        assert stored.id is not None
        results = [self.graveyard.abandon(actor, name, reason=reason, project=project, effort=effort,
                                          memory_id=stored.id) for name, reason in pairs]
        return ExperienceResult(id=stored.id, abandoned=results)

    def reinstate_approach(self, actor: Actor, name: str, *, reason: str, project: str):
        return self.graveyard.reinstate(actor, name, reason=reason, project=project)

    # --- reads -----------------------------------------------------------------------------------

    def recall(self, actor: Actor, query: str, *, project: str, k: int = 10, **options: Any) -> RecallResponse:
        return self.recaller.recall(actor, query, project=project, k=k, **options)

    def check_approaches(self, names: Iterable[str], *, project: str, include_other_projects: bool = True,
                         ecosystem: str | None = None) -> list[ApproachCheck]:
        checked = validate.text_list(list(names), "names", max_items=1000, max_length=300)
        return self.graveyard.check(checked, validate.project(project),
                                    include_other_projects=include_other_projects, ecosystem=ecosystem)

    def change_seq(self) -> int:
        """The event log's head: other processes' writes move it."""
        return events.last_seq(self.ctx.store.conn)

    # --- maintenance -----------------------------------------------------------------------------

    def reindex(self, progress: Callable[[int, int], None] | None = None, batch: int = 64) -> ReindexReport:
        """Re-embed every memory version with the configured model (after a model change)."""
        store = self.ctx.store
        dim = self.ctx.embedder.dim
        with store.read() as conn:
            rows = [(r.id, r.project, r.content) for r in memories.all_current(conn)]
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
            store.set_meta(conn, "embedding_model", self.ctx.embedder.model_name)
            store.set_meta(conn, "embedding_dim", str(dim))
            self.ctx.event(conn, actor="cenotaph", action="reindex", target="store", project="",
                           after={"model": self.ctx.embedder.model_name, "dim": dim, "memories": len(rows)})
        return ReindexReport(model=self.ctx.embedder.model_name, dim=dim, memories=len(rows))

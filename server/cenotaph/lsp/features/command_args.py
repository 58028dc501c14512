"""The arguments of the commands (shared_schema/commands.schema.json), as the client sends
them: one object each, camelCase on the wire, checked before any verb runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from cenotaph.lsp.convert import Wire
from cenotaph.nlp import ecosystems

if TYPE_CHECKING:
    from cenotaph.memory.mining.candidates import Selection

Reason = Annotated[str, StringConstraints(min_length=1)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=300)]
Id = Annotated[int, Field(ge=1)]


class _ProjectOrUri(Wire):
    project: str | None = None
    uri: str | None = None

    def _require_project(self) -> None:
        if self.project is None and self.uri is None:
            raise ValueError("give `project` or `uri`")


class SilenceArgs(_ProjectOrUri):
    name: Name
    scope: Literal["project", "everywhere"]
    reason: Reason | None = None

    @model_validator(mode="after")
    def _scoped(self) -> SilenceArgs:
        if self.scope == "project":
            self._require_project()
        return self


class LiftSilenceArgs(Wire):
    name: Name
    kind: Literal["diagnostic", "recall"]
    project: str  # "" is everywhere
    reason: Reason | None = None


class ReinstateArgs(Wire):
    name: Name
    project: str
    reason: Reason | None = None


class ShowWhyArgs(Wire):
    approach_id: Id


class MarkWrongArgs(Wire):
    approach_id: Id
    reason: Reason | None = None


class Lines(Wire):
    """A selection's lines, 1-based and inclusive."""

    start: Id
    end: Id

    @model_validator(mode="after")
    def _ordered(self) -> Lines:
        if self.end < self.start:
            raise ValueError("`end` is before `start`")
        return self


class RememberArgs(_ProjectOrUri):
    text: Annotated[str, StringConstraints(min_length=1, max_length=50_000)]
    kind: Literal["note", "experience", "decision", "preference", "fact"] = "note"
    lines: Lines | None = None  # the selection's lines in `uri`, kept with the memory as its location tag

    @model_validator(mode="after")
    def _scoped(self) -> RememberArgs:
        self._require_project()
        if self.lines is not None and self.uri is None:
            raise ValueError("`lines` needs the `uri` of their document")
        return self


class BlessArgs(Wire):
    memory_id: Id
    reason: Reason | None = None


class SetEffortArgs(Wire):
    name: Name
    project: str  # "" is everywhere
    effort: Annotated[int, Field(ge=1, le=5)] | None = None
    reason: Reason | None = None


class AbandonArgs(_ProjectOrUri):
    name: Name
    scope: Literal["project", "everywhere"] = "project"
    reason: Reason | None = None
    effort: Annotated[int, Field(ge=1, le=5)] | None = None
    ecosystem: Literal[ecosystems.NAMES] | None = None  # type: ignore[valid-type]

    @model_validator(mode="after")
    def _scoped(self) -> AbandonArgs:
        if self.scope == "project":
            self._require_project()
        return self


class ShareArgs(_ProjectOrUri):
    """An abandoned approach (`name`) or a memory (`memoryId`), shared in the project's repository."""

    name: Name | None = None
    memory_id: Id | None = None

    @model_validator(mode="after")
    def _one_target(self) -> ShareArgs:
        self._require_project()
        if (self.name is None) == (self.memory_id is None):
            raise ValueError("give `name` or `memoryId`")
        return self


class UnshareArgs(_ProjectOrUri):
    """A shared entry, by approach `name`, `memoryId` or the `path` of its file in the repository."""

    name: Name | None = None
    memory_id: Id | None = None
    path: Annotated[str, StringConstraints(min_length=1, max_length=1000)] | None = None

    @model_validator(mode="after")
    def _one_target(self) -> UnshareArgs:
        self._require_project()
        if sum(v is not None for v in (self.name, self.memory_id, self.path)) != 1:
            raise ValueError("give one of `name`, `memoryId` or `path`")
        return self


class ResolveContradictionArgs(Wire):
    contradiction_id: Id
    keep: Literal["a", "b", "both", "neither"]
    reason: Reason | None = None


class DismissContradictionArgs(Wire):
    contradiction_id: Id
    reason: Reason | None = None


class SetTrustArgs(Wire):
    memory_id: Id
    trust: Literal["confirmed", "disputed", "refuted", "unverified"]
    reason: Reason | None = None


class AnchorArgs(Wire):
    memory_id: Id


class MemoryArgs(AnchorArgs):
    reason: Reason | None = None


class AcceptProposalArgs(Wire):
    proposal_id: Id
    reason: Reason | None = None


class AcceptCandidateArgs(Wire):
    proposal_id: Id
    draft: Annotated[str, StringConstraints(max_length=2000)] | None = None  # the drafted reason, to edit
    reason: Reason | None = None
    effort: Annotated[int, Field(ge=1, le=5)] | None = None


class MineArgs(_ProjectOrUri):
    @model_validator(mode="after")
    def _scoped(self) -> MineArgs:
        self._require_project()
        return self


class RejectProposalArgs(Wire):
    proposal_id: Id
    reason: Reason | None = None


class DecideCandidatesArgs(_ProjectOrUri):
    """Candidates chosen by id and by filters (each must match), decided at once or previewed."""

    decision: Literal["accept", "reject"]
    proposal_ids: Annotated[list[Id], Field(max_length=10_000)] = []
    classes: list[Literal["dev", "types", "backport", "build", "subproject", "moved-out", "plain"]] = []
    path: Annotated[str, StringConstraints(min_length=1, max_length=1000)] | None = None
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-fA-F]{4,40}$")] | None = None
    below: Annotated[float, Field(ge=0, le=1)] | None = None
    preview: bool = False
    reason: Reason | None = None

    @model_validator(mode="after")
    def _chosen(self) -> DecideCandidatesArgs:
        if self.selection().filtered:
            self._require_project()
        elif not self.proposal_ids:
            raise ValueError("give `proposalIds`, `classes`, `path`, `commit` or `below`")
        return self

    def selection(self) -> Selection:
        from cenotaph.memory.mining.candidates import Selection  # the domain loads after `initialize`

        return Selection(ids=tuple(self.proposal_ids), classes=tuple(self.classes), path=self.path,
                         commit=self.commit, below=self.below)


class ReopenCandidatesArgs(Wire):
    batch: Id | None = None
    proposal_ids: Annotated[list[Id], Field(max_length=10_000)] = []

    @model_validator(mode="after")
    def _chosen(self) -> ReopenCandidatesArgs:
        if self.batch is None and not self.proposal_ids:
            raise ValueError("give `batch` or `proposalIds`")
        return self


class ShowLocationArgs(Wire):
    memory_id: Id


class CommandResult(Wire):
    done: bool
    message: str
    id: int | None = None
    markdown: str | None = None
    ids: list[int] | None = None  # the proposals a bulk decision touched (or, in a preview, would touch)

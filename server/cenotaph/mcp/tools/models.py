"""Tool results: pydantic models the SDK publishes as output schemas and returns as structured
content. They translate the domain's dataclasses; nothing here decides anything."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cenotaph.memory.core.concepts import RelatedMemory
from cenotaph.memory.models import (
    ApproachCheck,
    ContradictionView,
    ForgetPreview,
    MemoryHistory,
    RecallResponse,
    RememberResult,
    ShareResult,
)
from cenotaph.memory.team.folder import source_of
from cenotaph.store.records import EventRow, MemoryRow, ProposalRow, SuppressionRow

BRIEF_CHARS = 280


def brief(text: str, limit: int = BRIEF_CHARS) -> str:
    """A one-glance excerpt for compact listings (the full text is one `recall` or `history` away)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _FromRow(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class MemoryView(BaseModel):
    id: int
    version: int
    project: str
    kind: str
    content: str
    tags: list[str]
    source: str
    actor: str
    state: str
    state_reason: str | None
    reinstate_hints: list[str]
    trust: str
    trust_reason: str | None
    valid_from: str
    valid_to: str | None
    recorded_at: str
    superseded_at: str | None
    effort: int | None = None
    outcome: str | None = None
    iterations: int | None = None
    breakthrough: str | None = None
    gotchas: list[str] = []

    @classmethod
    def of(cls, row: MemoryRow) -> MemoryView:
        data = {name: getattr(row, name) for name in cls.model_fields if name != "id"}
        return cls(id=row.memory_id, **data)


class MemoryBrief(BaseModel):
    id: int
    kind: str
    content: str
    trust: str
    recorded_at: str

    @classmethod
    def of(cls, row: MemoryRow) -> MemoryBrief:
        return cls(id=row.memory_id, kind=row.kind, content=brief(row.content), trust=row.trust,
                   recorded_at=row.recorded_at)


class ApproachView(_FromRow):
    id: int
    project: str
    name: str
    display_name: str
    ecosystem: str
    reason: str
    effort: int | None
    outcome: str
    status: str
    status_reason: str | None
    memory_id: int | None
    actor: str
    created_at: str
    updated_at: str
    aliases: list[str] = []


class SuppressionView(_FromRow):
    id: int
    project: str
    kind: str
    value: str
    reason: str
    actor: str
    created_at: str
    lifted_at: str | None
    lifted_reason: str | None
    lifted_by: str | None


class ProposalView(_FromRow):
    """A change an agent asked for that waits for a person (in the editor's ledger)."""

    id: int
    project: str
    action: str
    target: str
    arguments: dict[str, Any] = {}
    reason: str
    actor: str
    status: str
    created_at: str
    decided_at: str | None = None
    decided_by: str | None = None
    decision_reason: str | None = None


class ForgetPreviewView(_FromRow):
    """What forget would remove: the content of every version, its links and graveyard records."""

    memory_id: int
    project: str
    kind: str
    content: str
    versions: int
    open_contradictions: list[int]
    approaches: list[str]


class ChangeOutcome(BaseModel):
    """`applied`: done now, the changed record is returned. `proposed`: recorded as a proposal
    that a person accepts or rejects in the editor. `preview`: nothing changed yet."""

    status: Literal["applied", "proposed", "preview"]
    memory: MemoryView | None = None
    suppression: SuppressionView | None = None
    contradiction: ContradictionItem | None = None
    proposal: ProposalView | None = None
    forget_preview: ForgetPreviewView | None = None

    @classmethod
    def of(cls, result: MemoryRow | SuppressionRow | ProposalRow | ContradictionView | ForgetPreview) -> ChangeOutcome:
        """Sort what a domain verb returned into its slot."""
        if isinstance(result, ProposalRow):
            return cls(status="proposed", proposal=ProposalView.model_validate(result))
        if isinstance(result, ForgetPreview):
            return cls(status="preview", forget_preview=ForgetPreviewView.model_validate(result))
        if isinstance(result, MemoryRow):
            return cls(status="applied", memory=MemoryView.of(result))
        if isinstance(result, SuppressionRow):
            return cls(status="applied", suppression=SuppressionView.model_validate(result))
        if isinstance(result, ContradictionView):
            return cls(status="applied", contradiction=ContradictionItem.of(result))
        raise TypeError(f"no slot for a {type(result).__name__}")


# --- remember / recall ----------------------------------------------------------------------------


class ContradictionWarningView(_FromRow):
    contradiction_id: int
    other_id: int
    other_content: str
    similarity: float
    explanation: str


class RememberOutcome(BaseModel):
    """`stored` false: a near-duplicate exists (`duplicate_of`); pass force=true to store anyway.
    `contradictions`: stored, but it seems to contradict these memories (both are now disputed)."""

    stored: bool
    id: int | None
    duplicate_of: int | None = None
    similarity: float | None = None
    trust: str | None = None
    contradictions: list[ContradictionWarningView] = []

    @classmethod
    def of(cls, result: RememberResult) -> RememberOutcome:
        return cls(stored=result.stored, id=result.id, duplicate_of=result.duplicate_of,
                   similarity=result.similarity, trust=result.memory.trust if result.memory else None,
                   contradictions=[ContradictionWarningView.model_validate(w) for w in result.contradictions])


class ScoreView(_FromRow):
    relevance: float
    bm25: float | None
    cosine: float | None
    state_factor: float
    trust_factor: float
    recency: float
    experience_weight: float
    temporal_boost: float
    pinned: bool = False
    passed_on: float = 0.0  # relevance (included above) passed on by the question this memory answers
    concept: float = 0.0  # relevance (included above) from the query's reviewed concepts it is linked to
    concepts: list[str] = []  # those concepts (`cenotaph concepts merge` made them aliases)


class LocationView(_FromRow):
    """Where a document memory lies in the repository: read the file there for the whole context."""

    path: str
    start_line: int
    end_line: int


class RecallItem(_FromRow):
    """`result_type` abandoned_warning: the query names an abandoned approach (reason, effort);
    these come first. Otherwise a memory, with the lane and score components that ranked it."""

    result_type: Literal["memory", "abandoned_warning"]
    id: int
    content: str
    project: str
    kind: str
    tags: list[str]
    state: str
    trust: str
    score: float
    lane: Literal["graveyard", "exact", "semantic"]
    components: ScoreView | None
    is_global: bool
    disputed: bool = False
    reinstate_hint_matched: bool = False
    valid_from: str | None = None
    recorded_at: str | None = None
    source: str | None = None  # memories: human, agent, import or repo (shared in the repository)
    actor: str | None = None  # memories: who wrote it (e.g. vscode, mcp:claude-code)
    location: LocationView | None = None  # documents: file and lines
    name: str | None = None
    reason: str | None = None
    effort: int | None = None
    ecosystem: str | None = None
    shared_path: str | None = None  # source `repo`: its file in the repository's `.cenotaph/` folder


class RecallOutput(_FromRow):
    query: str
    project: str
    lane: Literal["exact", "semantic"]
    results: list[RecallItem]
    notices: list[str] = []

    @classmethod
    def of(cls, response: RecallResponse) -> RecallOutput:
        return cls.model_validate(response)


# --- the graveyard -------------------------------------------------------------------------------


class AlsoAbandoned(BaseModel):
    """Another record that abandons the same name here or everywhere, with its own reason."""

    source: Literal["store", "repo"]
    project: str
    reason: str
    effort: int | None = None
    by: str


class ApproachVerdict(BaseModel):
    """`abandoned`: do not suggest it (see reason); `reinstated`: it was abandoned once and
    brought back; `clear`: nothing recorded. `scope` says where the record applies; `source`
    `repo`: the team shared it in the repository (`shared_by`, `shared_path`); `also`: the
    other records that abandon it, each with its reason."""

    name: str
    key: str
    status: Literal["abandoned", "reinstated", "clear"]
    scope: Literal["project", "global", "other_project"] | None = None
    reason: str | None = None
    effort: int | None = None
    ecosystem: str | None = None
    project: str | None = None
    approach_id: int | None = None
    memory_id: int | None = None
    status_reason: str | None = None
    diagnostic_suppressed: bool = False
    source: Literal["store", "repo"] | None = None
    shared_by: str | None = None
    shared_path: str | None = None
    also: list[AlsoAbandoned] = []

    @classmethod
    def of(cls, check: ApproachCheck) -> ApproachVerdict:
        a = check.approach
        shared = a is not None and source_of(a) == "repo"
        return cls(name=check.name, key=check.key, status=check.status, scope=check.scope,
                   diagnostic_suppressed=check.diagnostic_suppressed, source=check.source,
                   shared_by=a.actor if shared else None, shared_path=getattr(a, "path", None) if shared else None,
                   also=[AlsoAbandoned(source=source_of(o), project=o.project, reason=o.reason, effort=o.effort,
                                       by=o.actor) for o in check.also],
                   **({} if a is None else dict(reason=a.reason, effort=a.effort, ecosystem=a.ecosystem,
                                               project=a.project, approach_id=a.id, memory_id=a.memory_id,
                                               status_reason=a.status_reason)))


class ApproachChecks(BaseModel):
    results: list[ApproachVerdict]


class AbandonOutcome(BaseModel):
    approach: ApproachView
    memory_id: int | None
    recall_suppressed: bool


class ExperienceOutcome(BaseModel):
    id: int
    abandoned: list[AbandonOutcome]


class ShareOutcome(BaseModel):
    """`proposed`: waiting for a person to accept it (writing into the repository is a person's
    act); `applied`: the file `path` in the repository's `.cenotaph/` folder was written or removed."""

    status: Literal["applied", "proposed"]
    proposal: ProposalView | None = None
    path: str | None = None
    changed: bool | None = None

    @classmethod
    def of(cls, result: ShareResult | ProposalRow) -> ShareOutcome:
        if isinstance(result, ProposalRow):
            return cls(status="proposed", proposal=ProposalView.model_validate(result))
        return cls(status="applied", path=result.path, changed=result.changed)


# --- contradictions ------------------------------------------------------------------------------


class ContradictionSide(BaseModel):
    id: int
    content: str
    trust: str
    state: str
    recorded_at: str

    @classmethod
    def of(cls, row: MemoryRow, *, compact: bool) -> ContradictionSide:
        return cls(id=row.memory_id, content=brief(row.content) if compact else row.content, trust=row.trust,
                   state=row.state, recorded_at=row.recorded_at)


class ContradictionItem(BaseModel):
    """Two memories that seem to say opposite things; `a` or `b` is null once forgotten."""

    id: int
    project: str
    status: Literal["open", "resolved", "dismissed"]
    found_by: str
    explanation: str
    resolution: Literal["keep_a", "keep_b", "both", "neither"] | None = None
    reason: str | None = None
    a: ContradictionSide | None
    b: ContradictionSide | None
    created_at: str

    @classmethod
    def of(cls, view: ContradictionView, *, compact: bool = False) -> ContradictionItem:
        def side(row: MemoryRow | None) -> ContradictionSide | None:
            return None if row is None else ContradictionSide.of(row, compact=compact)

        return cls(id=view.id, project=view.project, status=view.status, found_by=view.found_by,
                   explanation=view.explanation, resolution=view.resolution, reason=view.reason,
                   a=side(view.memory_a), b=side(view.memory_b), created_at=view.created_at)


class ContradictionList(BaseModel):
    contradictions: list[ContradictionItem]
    more: int = 0


# --- history and why -----------------------------------------------------------------------------


class TransitionView(_FromRow):
    field: str
    from_value: str | None
    to_value: str
    reason: str | None
    actor: str
    at: str


class EventView(BaseModel):
    seq: int
    at: str
    actor: str
    action: str
    target: str
    before: Any = None
    after: Any = None
    reason: str | None = None

    @classmethod
    def of(cls, event: EventRow) -> EventView:
        return cls(seq=event.seq, at=event.at, actor=event.actor, action=event.action, target=event.target,
                   before=None if event.before is None else json.loads(event.before),
                   after=None if event.after is None else json.loads(event.after), reason=event.reason)


class TombstoneView(_FromRow):
    content_hash: str
    reason: str
    actor: str
    at: str


class HistoryOutput(BaseModel):
    """Versions oldest first (content edits); transitions (state and trust changes, each with
    its reason); the audit events that touched it; a tombstone if it was forgotten."""

    memory_id: int
    versions: list[MemoryView]
    transitions: list[TransitionView]
    events: list[EventView]
    tombstone: TombstoneView | None = None
    summarised_by: int | None = None  # while superseded: the summary that stands for it
    summarises: list[int] = []  # when it is a summary: its sources

    @classmethod
    def of(cls, history: MemoryHistory) -> HistoryOutput:
        return cls(memory_id=history.memory_id, versions=[MemoryView.of(v) for v in history.versions],
                   transitions=[TransitionView.model_validate(t) for t in history.transitions],
                   events=[EventView.of(e) for e in history.events],
                   tombstone=None if history.tombstone is None else TombstoneView.model_validate(history.tombstone),
                   summarised_by=history.summarised_by, summarises=history.summarises)


class WhyRecallView(_FromRow):
    at: str
    actor: str
    query: str
    memory_ids: list[int]
    scores: list[float]
    approaches: list[str]


class WhyOutput(_FromRow):
    """The recalls since `since` whose results mention the topic: who asked what, and what came back."""

    topic: str
    project: str
    since: str
    recalls: list[WhyRecallView]


# --- briefing ------------------------------------------------------------------------------------


class GraveyardEntry(BaseModel):
    name: str
    ecosystem: str
    reason: str
    effort: int | None
    scope: Literal["project", "global"]
    approach_id: int


class ProposalBrief(BaseModel):
    id: int
    action: str
    target: str
    reason: str
    actor: str


class Briefing(BaseModel):
    """What to know before working on this project. Lists are capped; `truncated` names those
    that hold more than shown."""

    project: str
    graveyard: list[GraveyardEntry]
    open_contradictions: list[ContradictionItem]
    pending_proposals: list[ProposalBrief]
    preferences: list[MemoryBrief]
    recent_decisions: list[MemoryBrief]
    truncated: list[str] = []


class NeighbourView(_FromRow):
    name: str
    count: int  # memories in which the two are among the strongest concepts


class ConceptView(_FromRow):
    """A concept: `aliases` are other spellings a person merged into it."""

    name: str
    kind: Literal["package", "path", "identifier", "phrase"]
    count: int  # current memories of the project linked to it
    aliases: list[str]
    neighbours: list[NeighbourView]


class ConceptsOutput(BaseModel):
    concepts: list[ConceptView]


class RelatedView(BaseModel):
    memory: MemoryView
    shared: list[str]  # the concepts it shares with the memory asked about


class RelatedOutput(BaseModel):
    related: list[RelatedView]

    @classmethod
    def of(cls, found: list[RelatedMemory]) -> RelatedOutput:
        return cls(related=[RelatedView(memory=MemoryView.of(r.memory), shared=r.shared) for r in found])

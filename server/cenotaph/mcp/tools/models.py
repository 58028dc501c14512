"""Tool results: pydantic models the SDK publishes as output schemas and returns as structured
content. They translate the domain's dataclasses; nothing here decides anything."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cenotaph.memory.models import ApproachCheck, RecallResponse, RememberResult
from cenotaph.store.records import MemoryRow

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


class ChangeOutcome(BaseModel):
    """`applied`: done now. `proposed`: recorded as a proposal a person accepts or rejects.
    `preview`: nothing changed; what would change (call again with confirm=true)."""

    status: Literal["applied", "proposed", "preview"]
    memory: MemoryView | None = None
    suppression: SuppressionView | None = None
    proposal: ProposalView | None = None
    preview: dict[str, Any] | None = None

    @classmethod
    def of(cls, result: Any, *, preview: bool = False) -> ChangeOutcome:
        """Sort a domain verb's return value (a row, a proposal or a preview) into its slot."""
        kind = type(result).__name__
        if kind == "ProposalRow":
            return cls(status="proposed", proposal=ProposalView.model_validate(result))
        if isinstance(result, MemoryRow):
            return cls(status="preview" if preview else "applied", memory=MemoryView.of(result))
        if kind == "SuppressionRow":
            return cls(status="applied", suppression=SuppressionView.model_validate(result))
        data = _plain(result)
        return cls(status="preview" if preview else "applied",
                   preview=data if isinstance(data, dict) else {"result": data})


def _plain(value: Any) -> Any:
    """A JSON-shaped copy of a dataclass tree."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


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
    name: str | None = None
    reason: str | None = None
    effort: int | None = None
    ecosystem: str | None = None


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


class ApproachVerdict(BaseModel):
    """`abandoned`: do not suggest it (see reason); `reinstated`: it was abandoned once and
    brought back; `clear`: nothing recorded. `scope` says where the record applies."""

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

    @classmethod
    def of(cls, check: ApproachCheck) -> ApproachVerdict:
        a = check.approach
        return cls(name=check.name, key=check.key, status=check.status, scope=check.scope,
                   diagnostic_suppressed=check.diagnostic_suppressed,
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


# --- contradictions ------------------------------------------------------------------------------


class ContradictionSide(BaseModel):
    id: int
    content: str
    trust: str | None = None
    recorded_at: str | None = None


class ContradictionItem(BaseModel):
    id: int
    project: str
    status: str
    found_by: str | None = None
    explanation: str | None = None
    resolution: str | None = None
    a: ContradictionSide | None = None
    b: ContradictionSide | None = None
    created_at: str | None = None


class ContradictionList(BaseModel):
    contradictions: list[ContradictionItem]
    more: int = 0


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
    """What to know before working on this project. Lists are capped; `more` counts what was left out."""

    project: str
    graveyard: list[GraveyardEntry]
    open_contradictions: list[ContradictionItem]
    pending_proposals: list[ProposalBrief]
    preferences: list[MemoryBrief]
    recent_decisions: list[MemoryBrief]
    more: dict[str, int] = {}

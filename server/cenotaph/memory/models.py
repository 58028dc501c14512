"""What the domain hands to the edges: plain dataclasses, no protocol types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from cenotaph.store.records import ApproachRow, MemoryRow

ActorKind = Literal["human", "agent"]
KINDS = ("note", "experience", "decision", "preference", "fact")
OUTCOMES = ("success", "partial", "abandoned", "failed")
STATES = ("active", "deprioritised", "archived", "deleted")
TRUSTS = ("unverified", "confirmed", "disputed", "refuted")


@dataclass(frozen=True, slots=True)
class Actor:
    """Who makes a call: `name` is what the audit log shows (`cli`, `vscode`, `nvim`, `mcp:claude`)."""

    name: str
    kind: ActorKind = "human"

    @property
    def source(self) -> str:
        return "human" if self.kind == "human" else "agent"

    @property
    def default_trust(self) -> str:
        return "confirmed" if self.kind == "human" else "unverified"


@dataclass(slots=True)
class ContradictionWarning:
    contradiction_id: int
    other_id: int
    other_content: str
    similarity: float
    explanation: str


@dataclass(slots=True)
class RememberResult:
    stored: bool
    id: int | None
    duplicate_of: int | None = None
    similarity: float | None = None
    contradictions: list[ContradictionWarning] = field(default_factory=list)
    memory: MemoryRow | None = None


@dataclass(slots=True)
class ScoreComponents:
    relevance: float
    bm25: float | None
    cosine: float | None
    state_factor: float
    trust_factor: float
    recency: float
    experience_weight: float
    temporal_boost: float
    pinned: bool = False


@dataclass(slots=True)
class RecallResult:
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
    components: ScoreComponents | None
    is_global: bool
    disputed: bool = False
    reinstate_hint_matched: bool = False
    valid_from: str | None = None
    recorded_at: str | None = None
    # Abandoned warnings only:
    name: str | None = None
    reason: str | None = None
    effort: int | None = None
    ecosystem: str | None = None


@dataclass(slots=True)
class RecallResponse:
    query: str
    project: str
    lane: Literal["exact", "semantic"]
    results: list[RecallResult]
    notices: list[str] = field(default_factory=list)


@dataclass(slots=True)
class AbandonResult:
    approach: ApproachRow
    memory_id: int | None
    recall_suppressed: bool


@dataclass(slots=True)
class ApproachCheck:
    """The verdict on one name: `abandoned` (with where and why), `reinstated` or `clear`."""

    name: str
    key: str
    status: Literal["abandoned", "reinstated", "clear"]
    scope: Literal["project", "global", "other_project"] | None = None
    approach: ApproachRow | None = None
    diagnostic_suppressed: bool = False


@dataclass(slots=True)
class ExperienceResult:
    id: int
    abandoned: list[AbandonResult]

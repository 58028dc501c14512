"""What the domain hands to the edges: plain dataclasses, no protocol types."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

from cenotaph.store.records import ApproachRow, EventRow, MemoryRow, SuppressionRow, TombstoneRow, TransitionRow

ActorKind = Literal["human", "agent"]
KINDS = ("note", "experience", "decision", "preference", "fact")  # what a person or agent writes
# Memories that come from a source outside the conversation, written by their own verbs (`ingest`,
# `feed pull`) with where they came from.
SOURCED_KINDS = ("document", "knowledge")
ALL_KINDS = KINDS + SOURCED_KINDS
OUTCOMES = ("success", "partial", "abandoned", "failed")
STATES = ("active", "deprioritised", "archived", "deleted", "superseded")
TRUSTS = ("unverified", "confirmed", "disputed", "refuted")
COMPILE_TARGETS = ("skill", "agents-md", "claude-md", "copilot", "ruff", "eslint", "biome")


def story_text(name: str, reason: str) -> str:
    """The memory `abandon` writes to tell an approach's story."""
    return f"Abandoned {name}: {reason}"


def reinstated_text(name: str, reason: str) -> str:
    """The memory `reinstate-approach` writes: why the approach is back, recallable beside its
    story, which then holds no longer."""
    return f"Reinstated {name}: {reason}"


def location_tag(path: str, start_line: int, end_line: int) -> str:
    """The tag a memory remembered from a selection carries: where it came from, `at:src/app.py:10-12`
    (lines 1-based and inclusive; the path relative to its workspace folder when it lies in one)."""
    return f"at:{path}:{start_line}" if start_line == end_line else f"at:{path}:{start_line}-{end_line}"


def tagged_location(tags: Iterable[str]) -> Location | None:
    """Where a memory remembered from a selection came from: its `location_tag` read back."""
    for tag in tags:
        path, _, lines = tag.removeprefix("at:").rpartition(":")
        start, _, end = lines.partition("-")
        if tag.startswith("at:") and path and start.isdigit() and (end.isdigit() or not end):
            return Location(path, int(start), int(end or start))
    return None


@dataclass(frozen=True, slots=True)
class Actor:
    """Who makes a call: `name` is what the audit log shows (`cli`, `vscode`, `nvim`, `mcp:claude`)."""

    name: str
    kind: ActorKind = "human"
    # A person may ask for secrets in what they write to be stored as `[REDACTED:<kind>]`
    # instead of being refused; an agent's writes are always refused (see memory/secrets.py).
    redact_secrets: bool = False

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
    passed_on: float = 0.0  # relevance (included above) passed on by the question this memory follows
    concept: float = 0.0  # relevance (included above) from the query's reviewed concepts it is linked to
    concepts: list[str] = field(default_factory=list)  # those concepts


@dataclass(frozen=True, slots=True)
class Location:
    """Where a document memory lies, or where a memory remembered from a selection came from: its
    file (relative to the repository root), lines (1-based) and heading path (`Setup › Install`;
    empty before the first heading, and for a selection)."""

    path: str
    start_line: int
    end_line: int
    heading: str = ""


ANCHOR_STATES = ("current", "moved", "stale", "lost")


@dataclass(slots=True)
class Anchor:
    """Where in the code a memory is about, as the last check found it (memory/knowledge/anchors/): its file
    relative to the repository root, its lines (1-based, inclusive) and its state: `current` (the
    text is where it was taken), `moved` (followed to another place or file), `stale` (the text
    changed past the threshold: the memory may no longer hold), `lost` (the file is gone)."""

    path: str
    start_line: int
    end_line: int
    state: str
    # What a reader is told of a stale or lost anchor; empty otherwise.
    caution: str = ""


@dataclass(slots=True)
class AnchoredMemory:
    """A memory with its anchor (`cenotaph anchors`): the anchored text as taken (`then`) and what
    lies at the anchor's place now (`now`, empty when lost), to show what changed."""

    memory_id: int
    content: str
    anchor: Anchor
    revision: str | None
    taken_at: str
    then: str
    now: str


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
    # When it stopped holding (valid time), if it did; `history`: before now (or the `valid_at`
    # asked), so it is shown as what held then, after the memories that hold, never as advice.
    valid_to: str | None = None
    history: bool = False
    recorded_at: str | None = None
    # Memories only: where the text came from (human, agent, import) and who wrote it, so that a
    # reader can weigh text that looks like instructions as the data it is.
    source: str | None = None
    actor: str | None = None
    location: Location | None = None  # documents, and memories remembered from a selection
    anchor: Anchor | None = None  # memories anchored to code, re-checked against the working tree
    # Feed entries only (memory/knowledge/feeds.py): the entry's link and title, to cite it.
    link: str | None = None
    title: str | None = None
    # Abandoned warnings only:
    name: str | None = None
    reason: str | None = None
    effort: int | None = None
    ecosystem: str | None = None
    # Source `repo` only: the file in the repository's `.cenotaph/` folder that holds it.
    shared_path: str | None = None


@dataclass(slots=True)
class RecallResponse:
    query: str
    project: str
    lane: Literal["exact", "semantic"]
    results: list[RecallResult]
    notices: list[str] = field(default_factory=list)
    # Fewer than k memories held evidence enough (memory/core/recall.py's floor): nothing else
    # matched; `below_floor` candidates would have filled the list without it.
    nothing_else_matched: bool = False
    below_floor: int = 0
    # The query's words that no stored text holds (memory/core/recall.py): what nothing speaks of.
    unknown_words: list[str] = field(default_factory=list)


def nothing_else(response: RecallResponse) -> str:
    """What every edge says when fewer than k memories matched: with none, that nothing answers."""
    why = [f"{response.below_floor} weaker left out"] if response.below_floor else []
    if response.unknown_words:
        why.append(f"no memory or document mentions {', '.join(response.unknown_words)}")
    said = "nothing answers this" if not any(r.result_type == "memory" for r in response.results) else \
        "nothing else matched"
    return f"{said} ({'; '.join(why)})" if why else said


@dataclass(slots=True)
class AbandonResult:
    approach: ApproachRow
    memory_id: int | None
    recall_suppressed: bool
    # The name's diagnostic silences still in force where it was abandoned: editors will not flag
    # it there until one is lifted (a silence outlives a reinstatement).
    silenced: list[SuppressionRow] = field(default_factory=list)
    # What decided the ecosystem, in words: the manifest that declares the name, the manifests
    # the repository has, the caller's choice, or that nothing did (recorded for any ecosystem).
    decided_by: str = ""


@dataclass(slots=True)
class ApproachCheck:
    """The verdict on one name: `abandoned` (with where and why), `reinstated` or `clear`."""

    name: str
    key: str
    status: Literal["abandoned", "reinstated", "clear"]
    scope: Literal["project", "global", "other_project"] | None = None
    approach: ApproachRow | None = None
    diagnostic_suppressed: bool = False
    # `store` (the person's own record) or `repo` (shared in the repository, memory/team/folder.py).
    source: Literal["store", "repo"] | None = None
    # The other records abandoning the same name here or everywhere (e.g. the repository's when
    # the person abandoned it too): one verdict, every reason.
    also: list[ApproachRow] = field(default_factory=list)


@dataclass(slots=True)
class ShareResult:
    """A file written into (or removed from) a repository's `.cenotaph/` folder."""

    action: Literal["share", "unshare"]
    kind: Literal["approach", "memory"]
    path: str  # relative to the repository root, as git shows it
    repository: str
    changed: bool  # False: the file already said exactly this (share) or was already gone (unshare)


@dataclass(slots=True)
class ExperienceResult:
    id: int
    abandoned: list[AbandonResult]


# --- trust, time and audit ---------------------------------------------------------------------------

@dataclass(slots=True)
class ContradictionView:
    """A contradiction link with both sides as they are now (a forgotten side has no content)."""

    id: int
    project: str
    status: Literal["open", "resolved", "dismissed"]
    resolution: Literal["keep_a", "keep_b", "both", "neither"] | None
    found_by: str
    explanation: str
    reason: str | None
    created_at: str
    decided_at: str | None
    decided_by: str | None
    memory_a: MemoryRow | None
    memory_b: MemoryRow | None


@dataclass(slots=True)
class ForgetPreview:
    """What `forget` would remove; nothing has changed yet."""

    memory_id: int
    project: str
    kind: str
    content: str
    versions: int
    open_contradictions: list[int]
    approaches: list[str]
    confirmed: bool = False


@dataclass(slots=True)
class MemoryHistory:
    memory_id: int
    versions: list[MemoryRow]
    transitions: list[TransitionRow]
    events: list[EventRow]
    tombstone: TombstoneRow | None = None
    summarised_by: int | None = None  # the summary that stands for it while it is superseded
    summarises: list[int] = field(default_factory=list)  # the sources, when it is a summary


@dataclass(slots=True)
class AuditReport:
    ok: bool
    checked: int
    head: int
    first_bad_seq: int | None = None
    problem: str | None = None
    head_hash: str = ""  # the hash of event #head: a later check resumes from it (audit.verify's `since`)


@dataclass(slots=True)
class WhyRecall:
    at: str
    actor: str
    query: str
    memory_ids: list[int]
    scores: list[float]
    approaches: list[str]


@dataclass(slots=True)
class WhyReport:
    topic: str
    project: str
    since: str
    recalls: list[WhyRecall]


@dataclass(slots=True)
class ScanReport:
    project: str
    compared: int
    found: list[ContradictionWarning]


@dataclass(slots=True)
class MaintenanceReport:
    archived: list[tuple[int, int]]  # (archived memory id, the memory it duplicates)


@dataclass(slots=True)
class BackupReport:
    path: str
    schema_version: int
    events: int
    bytes: int


@dataclass(slots=True)
class RestoreReport:
    path: str
    memories_added: int = 0
    memories_updated: int = 0
    skipped_forgotten: int = 0
    forgotten: int = 0
    approaches: int = 0
    suppressions: int = 0
    dismissals: int = 0
    contradictions: int = 0
    candidate_dismissals: int = 0  # mined candidates a person rejected
    blessings: int = 0


def as_json(value: Any) -> Any:
    """A result as JSON values, every dataclass field by its name: what `--json` prints and what
    the language server's `cenotaph/recall` and `cenotaph/remember` answer, one shape for both."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    return value


@dataclass(slots=True)
class TableCopy:
    """One table of `migrate-store`: rows on each side after the copy, and what the copy did."""

    table: str
    source: int
    target: int
    inserted: int = 0
    updated: int = 0
    deleted: int = 0


@dataclass(slots=True)
class MigrateStoreReport:
    target: str
    schema_version: int
    tables: list[TableCopy]
    events_verified: int
    embedding_model: str | None
    # False when the source's vectors were built by another model than the configured one: they are
    # copied as they are, and both stores want `cenotaph reindex`.
    model_matches: bool

    @property
    def changed(self) -> int:
        return sum(t.inserted + t.updated + t.deleted for t in self.tables)

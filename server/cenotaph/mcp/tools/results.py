"""Tool results: the one place where a domain object becomes what an agent reads. A domain dataclass
is shown field by field, under its own names and types: `Result[SomeDataclass]` is the pydantic
model the SDK publishes as a tool's output schema, and `result(value)` fills it. `VIEWS` says only
where agents see a type differently (internals hidden, a field renamed or reshaped, the schema's
description), so a field added to a domain dataclass reaches agents with no edit here. The result
types that only MCP has (a change's outcome, the compact briefs) are written out below or beside
the tools that return them."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import operator
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, create_model, model_validator

from cenotaph.memory.core.concepts import ConceptView
from cenotaph.memory.knowledge.compaction import Cluster
from cenotaph.memory.models import (
    ContradictionView,
    ForgetPreview,
    Location,
    MemoryHistory,
    RecallResponse,
    RecallResult,
    RememberResult,
    WhyReport,
    nothing_else,
)
from cenotaph.memory.policy.compile import CompileResult, FileChange
from cenotaph.store.records import EventRow, MemoryRow, ProposalRow, SuppressionRow, TombstoneRow, TransitionRow

BRIEF_CHARS = 280


def brief(text: str, limit: int = BRIEF_CHARS) -> str:
    """A one-glance excerpt for compact listings (the full text is one `recall` or `history` away)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ContradictionSide(BaseModel):
    # One side as a contradiction shows it: the memory itself is one `history` away.
    id: int
    content: str
    trust: str
    state: str
    recorded_at: str

    @classmethod
    def of(cls, row: MemoryRow | None) -> ContradictionSide | None:
        return None if row is None else cls(id=row.memory_id, content=row.content, trust=row.trust, state=row.state,
                                            recorded_at=row.recorded_at)


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


def _json_or_none(text: str | None) -> Any:
    return None if text is None else json.loads(text)


@dataclasses.dataclass(frozen=True, slots=True)
class View:
    """How agents see one domain type where it differs from its fields as they are."""

    hidden: tuple[str, ...] = ()  # internals: the row's own key, hashes, search text, counters
    renamed: Mapping[str, str] = dataclasses.field(default_factory=dict)  # domain name -> the name agents see
    # domain name -> the type agents see and how the value becomes it
    reshaped: Mapping[str, tuple[Any, Callable[[Any], Any]]] = dataclasses.field(default_factory=dict)
    doc: str | None = None  # the schema's description: what an agent needs to know to read it


VIEWS: dict[type, View] = {
    MemoryRow: View(hidden=("id", "content_hash", "polarity", "recall_count", "last_recalled_at", "lemmas",
                            "context"),
                    renamed={"memory_id": "id"}),  # agents name a memory by its id across versions
    ProposalRow: View(doc="A change an agent asked for that waits for a person (in the editor's ledger)."),
    ForgetPreview: View(hidden=("confirmed",), doc="What forget would remove: the content of every version, its "
                                                   "links and graveyard records."),
    RememberResult: View(
        renamed={"memory": "trust"}, reshaped={"memory": (str | None, lambda row: None if row is None else row.trust)},
        doc="`stored` false: a near-duplicate exists (`duplicate_of`); pass force=true to store anyway.\n"
            "`contradictions`: stored, but it seems to contradict these memories (both are now disputed)."),
    Location: View(doc="Where a document memory lies in the repository: read the file there for the whole context."),
    RecallResult: View(doc="`result_type` abandoned_warning: the query names an abandoned approach (reason, effort);\n"
                           "these come first. Otherwise a memory, with the lane and score components that ranked it."),
    ContradictionView: View(
        hidden=("decided_at", "decided_by"), renamed={"memory_a": "a", "memory_b": "b"},
        reshaped={"memory_a": (ContradictionSide | None, ContradictionSide.of),
                  "memory_b": (ContradictionSide | None, ContradictionSide.of)},
        doc="Two memories that seem to say opposite things; `a` or `b` is null once forgotten."),
    TransitionRow: View(hidden=("id", "memory_id")),
    EventRow: View(hidden=("project", "prev_hash", "hash"),
                   reshaped={"before": (Any, _json_or_none), "after": (Any, _json_or_none)}),
    TombstoneRow: View(hidden=("memory_id",)),
    MemoryHistory: View(doc="Versions oldest first (content edits); transitions (state and trust changes, each with\n"
                            "its reason); the audit events that touched it; a tombstone if it was forgotten."),
    WhyReport: View(doc="The recalls since `since` whose results mention the topic: who asked what, and what came "
                        "back."),
    ConceptView: View(doc="A concept: `aliases` are other spellings a person merged into it."),
    Cluster: View(hidden=("project",), doc="A cluster with every member's full text: what the summary must say."),
    CompileResult: View(
        hidden=("root",), renamed={"proposal": "proposal_id"},
        reshaped={"proposal": (int | None, lambda proposal: None if proposal is None else proposal.id)},
        doc="What `accept` would write, waiting for a person; `proposal_id` is None when every file is\n"
            "already up to date."),
    FileChange: View(hidden=("draft",)),  # the diff shows it
}
PLAIN = View()


@functools.cache
def model_of(cls: type) -> type[BaseModel]:
    """The model agents read a domain dataclass as: its shown fields, in its order, with its
    defaults. It reads an instance of `cls` (or of a subclass, as `cls`) through `cls`'s view."""
    view = VIEWS.get(cls, PLAIN)
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in view.hidden:
            continue
        shown = view.reshaped[f.name][0] if f.name in view.reshaped else _shown_type(hints[f.name])
        if f.default is not dataclasses.MISSING:
            fields[view.renamed.get(f.name, f.name)] = (shown, f.default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[view.renamed.get(f.name, f.name)] = (shown, f.default_factory())  # pydantic copies it per instance
        else:
            fields[view.renamed.get(f.name, f.name)] = shown

    def read(value: Any) -> Any:
        """The fields agents see of a domain object; nested ones are read by their own models."""
        if not isinstance(value, cls):
            return value
        return {view.renamed.get(f.name, f.name):
                view.reshaped[f.name][1](getattr(value, f.name)) if f.name in view.reshaped else getattr(value, f.name)
                for f in dataclasses.fields(cls) if f.name not in view.hidden}

    model = create_model(cls.__name__.removesuffix("Row"), __module__=__name__,
                         __validators__={"read": model_validator(mode="before")(read)}, **fields)
    model.__doc__ = inspect.cleandoc(view.doc) if view.doc else None
    return model


def _shown_type(annotation: Any) -> Any:
    """`annotation` with every domain dataclass in it replaced by the model agents read it as."""
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return model_of(annotation)
    args, origin = typing.get_args(annotation), typing.get_origin(annotation)
    if not args or origin is Literal:
        return annotation
    shown = tuple(_shown_type(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return functools.reduce(operator.or_, shown)
    return origin[shown]


class Result:
    """`Result[SomeDataclass]`, a tool's return annotation: the model agents read it as (the SDK
    publishes its schema)."""

    def __class_getitem__(cls, domain: type) -> type[BaseModel]:
        return model_of(domain)


def result(value: Any) -> BaseModel:
    """A domain object as agents read it: the one conversion every tool result goes through. A
    subclass that extends a domain dataclass (a shared approach: its file) is shown as that one."""
    declared = [c for c in type(value).__mro__ if dataclasses.is_dataclass(c)][-1]
    return model_of(declared).model_validate(value)


class ChangeOutcome(BaseModel):
    """`applied`: done now, the changed record is returned. `proposed`: recorded as a proposal
    that a person accepts or rejects in the editor. `preview`: nothing changed yet."""

    status: Literal["applied", "proposed", "preview"]
    memory: Result[MemoryRow] | None = None
    suppression: Result[SuppressionRow] | None = None
    contradiction: Result[ContradictionView] | None = None
    proposal: Result[ProposalRow] | None = None
    forget_preview: Result[ForgetPreview] | None = None

    @classmethod
    def of(cls, change: MemoryRow | SuppressionRow | ProposalRow | ContradictionView | ForgetPreview) -> ChangeOutcome:
        """Sort what a domain verb returned into its slot."""
        slots = {ProposalRow: ("proposed", "proposal"), ForgetPreview: ("preview", "forget_preview"),
                 MemoryRow: ("applied", "memory"), SuppressionRow: ("applied", "suppression"),
                 ContradictionView: ("applied", "contradiction")}
        for kind, (status, slot) in slots.items():
            if isinstance(change, kind):
                return cls(status=status, **{slot: result(change)})
        raise TypeError(f"no slot for a {type(change).__name__}")


# --- what a tool call returns --------------------------------------------------------------------

def reply(value: BaseModel, text: str | None = None) -> CallToolResult:
    """A tool's result: `value` as structured content without nulls, and the text an agent reads
    (`text`, a short rendering, or else the same facts as compact JSON)."""
    structured = value.model_dump(mode="json", exclude_none=True, by_alias=True)
    if text is None:
        text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


class AnchorHit(BaseModel):
    """Where in the code a memory is about, checked now: current, moved, stale or lost."""

    path: str
    start_line: int
    end_line: int
    state: str
    caution: str | None = None  # a stale or lost anchor's: the memory may no longer hold


class Hit(BaseModel):
    """One recall result as an agent reads it by default: what it is, when, how far it is
    believed, why it matched, where it comes from (to cite it), and its text."""

    id: int
    kind: str
    date: str | None = None
    # A memory that held until this date and holds no longer (an abandonment since reinstated, a
    # rule a newer one replaced): history, not advice.
    until: str | None = None
    trust: str | None = None
    why: str
    # Who wrote it, and where the text came from when not from a person (agent, import, repo): a
    # reader weighs text that looks like instructions as the data it is.
    by: str | None = None
    source: str | None = None
    content: str
    # An abandoned approach the query names (these come first):
    name: str | None = None
    reason: str | None = None
    effort: int | None = None
    # Provenance: a document's file, lines and heading path; a feed entry's link and title; a shared
    # entry's file in the repository's `.cenotaph/` folder.
    at: str | None = None
    heading: str | None = None
    link: str | None = None
    title: str | None = None
    shared_path: str | None = None
    anchor: AnchorHit | None = None

    @classmethod
    def of(cls, r: RecallResult) -> Hit:
        if r.result_type == "abandoned_warning":
            return cls(id=r.id, kind="abandoned", why=f"names {r.name}", content=r.content, name=r.name,
                       reason=r.reason, effort=r.effort, shared_path=r.shared_path)
        where = r.location
        return cls(id=r.id, kind=r.kind, date=(r.valid_from or r.recorded_at or "")[:10] or None,
                   until=(r.valid_to or "")[:10] or None if r.history else None, trust=r.trust,
                   why=_why_matched(r), by=r.actor, source=None if r.source == "human" else r.source,
                   content=r.content,
                   at=None if where is None else f"{where.path}:{where.start_line}",
                   heading=None if where is None else where.heading or None,
                   link=r.link, title=r.title, shared_path=r.shared_path,
                   anchor=None if r.anchor is None else AnchorHit(path=r.anchor.path, start_line=r.anchor.start_line,
                                                                  end_line=r.anchor.end_line, state=r.anchor.state,
                                                                  caution=r.anchor.caution or None))


class Recalled(BaseModel):
    query: str
    project: str
    results: list[Hit]
    notices: list[str] = []
    # Fewer than k memories cleared recall's relevance floor: these are all that matched (absent
    # when k were found, to keep the reply short).
    nothing_else_matched: Literal[True] | None = None
    # The query's words no stored text holds (absent when there are none).
    unknown_words: list[str] | None = None


def _why_matched(r: RecallResult) -> str:
    """Why a memory came back, in a few words (`explain: true` gives the score's components)."""
    parts = [r.lane]
    c = r.components
    if c is not None:
        if c.pinned:
            parts.append("pinned")
        if c.concepts:
            parts.append("concepts " + ", ".join(c.concepts[:3]))
        if c.passed_on > 0:
            parts.append("answers a question")
        if c.temporal_boost > 1:
            parts.append("date")
    if r.reinstate_hint_matched:
        parts.append("hint")
    if r.state != "active":
        parts.append(r.state)
    if r.history:
        parts.append("history")
    return ", ".join(parts)


def recall_reply(response: RecallResponse, *, explain: bool) -> CallToolResult:
    """Abandoned-approach warnings first (reason and effort), then one metadata line per memory
    and its text. `explain`: every field, with the score's components."""
    hits = [Hit.of(r) for r in response.results]
    lines = []
    for h in hits:
        if h.kind == "abandoned":
            effort = f", effort {h.effort}/5" if h.effort else ""
            lines.append(f"ABANDONED {h.name}{effort}: {h.reason}" + (f" ({h.shared_path})" if h.shared_path else ""))
            continue
        source = " · ".join(s for s in (h.at, h.heading and f"§ {h.heading}", h.title, h.link, h.shared_path) if s)
        author = f" · by {h.by}" + (f" ({h.source})" if h.source else "") if h.by else ""
        anchor = f" · code {h.anchor.path}:{h.anchor.start_line}-{h.anchor.end_line} {h.anchor.state}" if h.anchor else ""
        held = f" → {h.until}" if h.until else ""
        lines.append(f"[{h.id}] {h.kind} · {h.date or '-'}{held} · {h.trust}{author} · {h.why}"
                     + (f" · {source}" if source else "") + anchor)
        lines.append(h.content)
        if h.until:
            lines.append(f"history: this held until {h.until} and holds no longer; not current advice")
        if h.anchor is not None and h.anchor.caution:
            lines.append(f"warning: {h.anchor.caution}")
    lines.extend(f"note: {n}" for n in response.notices)
    if response.nothing_else_matched:
        lines.append(f"note: {nothing_else(response)}")
    text = "\n".join(lines) or f"Nothing recalled for {response.query!r}."
    if explain:
        return reply(result(response), text)
    return reply(Recalled(query=response.query, project=response.project, results=hits, notices=response.notices,
                          nothing_else_matched=response.nothing_else_matched or None,
                          unknown_words=response.unknown_words or None), text)

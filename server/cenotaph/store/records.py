"""Rows as the store hands them out."""

from __future__ import annotations

from dataclasses import dataclass

# The graveyard's rows live apart, re-exported here: an agent's hook reads them from the graveyard's
# file without building the others.
from cenotaph.store.graveyard_rows import ApproachRow, SuppressionRow

__all__ = ["ApproachRow", "BlessingRow", "ContradictionRow", "EventRow", "MemoryRow", "ProposalRow", "RecallLogRow",
           "SuppressionRow", "TombstoneRow", "TransitionRow"]


@dataclass(slots=True)
class MemoryRow:
    id: int
    memory_id: int
    version: int
    project: str
    kind: str
    content: str
    content_hash: str
    tags: list[str]
    source: str
    actor: str
    state: str
    state_reason: str | None
    reinstate_hints: list[str]
    trust: str
    trust_reason: str | None
    polarity: int
    valid_from: str
    valid_to: str | None
    recorded_at: str
    superseded_at: str | None
    effort: int | None
    outcome: str | None
    iterations: int | None
    breakthrough: str | None
    gotchas: list[str]
    recall_count: int
    last_recalled_at: str | None
    lemmas: str = ""
    context: str = ""


@dataclass(slots=True)
class EventRow:
    seq: int
    at: str
    actor: str
    action: str
    target: str
    project: str
    before: str | None
    after: str | None
    reason: str | None
    prev_hash: str
    hash: str


@dataclass(slots=True)
class RecallLogRow:
    id: int
    at: str
    actor: str
    project: str
    query: str
    results: str


@dataclass(slots=True)
class ProposalRow:
    """An agent's destructive or epistemic verb, waiting for a person to accept or reject it."""

    id: int
    project: str
    action: str
    target: str
    arguments: dict
    reason: str
    actor: str
    status: str
    created_at: str
    decided_at: str | None
    decided_by: str | None
    decision_reason: str | None


@dataclass(slots=True)
class ContradictionRow:
    id: int
    project: str
    memory_a: int
    memory_b: int
    found_by: str
    explanation: str
    status: str
    resolution: str | None
    reason: str | None
    actor: str
    created_at: str
    decided_at: str | None
    decided_by: str | None


@dataclass(slots=True)
class TransitionRow:
    id: int
    memory_id: int
    field: str
    from_value: str | None
    to_value: str
    reason: str | None
    actor: str
    at: str


@dataclass(slots=True)
class TombstoneRow:
    memory_id: int
    content_hash: str
    reason: str
    actor: str
    at: str


@dataclass(slots=True)
class BlessingRow:
    memory_id: int
    project: str
    reason: str | None
    actor: str
    at: str


@dataclass(slots=True)
class AnchorRow:
    """A memory's anchor in code (store/anchors.py): lines 1-based and inclusive."""

    memory_id: int
    project: str
    path: str
    start_line: int
    end_line: int
    text: str
    lines_before: str
    lines_after: str
    revision: str | None
    state: str
    taken_at: str
    checked_at: str


@dataclass(slots=True)
class ConceptVerdicts:
    """A person's verdicts touching some concept values: alias → canonical for those that are
    aliases, the removed ones (among the values and their canonicals), and the dismissed pairs
    (low, high) both of whose sides are among them."""
    aliases: dict[str, str]
    removed: set[str]
    dismissed: set[tuple[str, str]]

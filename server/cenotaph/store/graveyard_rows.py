"""The graveyard's rows as the store hands them out (store/records.py re-exports them): an agent's
hook builds them from the graveyard's file beside the store (store/graveyard_file.py) without the
store's other rows."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class ApproachRow:
    """An approach the graveyard holds: abandoned or reinstated, with its reason and names."""

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
    aliases: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SuppressionRow:
    """A silenced warning (`diagnostic`) or recall (`recall`) of a name, active until lifted."""

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

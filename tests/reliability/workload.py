"""One writer's mixed stream of writes and reads, the same whichever door it goes through (MCP
over HTTP, MCP over stdio, the command line). The stream is a generator: it yields an `Op`, the
driver performs it and sends back what the door answered, reduced to a small dict. Each writer
changes only what it created (and the contradictions it was handed), so what must be in the
store afterwards, and how many events each write adds to the log, follow from the answers."""

from __future__ import annotations

import uuid
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

NEXT_STATE = {"active": "deprioritised", "deprioritised": "archived", "archived": "active"}
CYCLE = ("remember", "recall", "abandon", "transition", "dispute", "check", "resolve", "suppress", "remember",
         "briefing")


@dataclass(slots=True)
class Op:
    verb: str
    args: dict[str, Any]


@dataclass(slots=True)
class Ack:
    """An answered operation: what was asked, what came back, the events it adds."""

    op: Op
    result: dict[str, Any]
    events: int


@dataclass
class Expected:
    """What one writer's acknowledged writes must have left in the store."""

    memories: dict[int, str] = field(default_factory=dict)  # id → content, byte for byte
    states: dict[int, str] = field(default_factory=dict)
    disputed: set[int] = field(default_factory=set)
    approaches: dict[str, bool] = field(default_factory=dict)  # name → recall-suppressed too
    suppressions: set[str] = field(default_factory=set)
    proposals: dict[int, int] = field(default_factory=dict)  # proposal id → contradiction id
    resolved: set[int] = field(default_factory=set)


def events_for(op: Op, result: dict[str, Any]) -> int:
    """Events one acknowledged operation adds to the log."""
    verb = op.verb
    if verb in ("recall", "check", "briefing"):
        return 0
    if verb == "abandon":
        return 2 + bool(result["recall_suppressed"])  # its memory, the graveyard record, the suppression
    if verb == "resolve":
        # An agent's resolve is a proposal; a person's refutes the loser and clears the winner's dispute.
        return 1 if "proposal_id" in result else 3
    return 1


def stream(writer: str, count: int, contradictions: list[int], acks: list[Ack],
           expected: Expected) -> Generator[Op, dict[str, Any], None]:
    """`count` operations; every answer is appended to `acks` and folded into `expected`."""
    pending_contradictions = list(contradictions)
    transitions = 0
    for i in range(count):
        verb = CYCLE[i % len(CYCLE)]
        mine = list(expected.memories)
        if verb in ("transition", "dispute") and not mine:
            verb = "remember"
        if verb == "dispute" and not (undisputed := [m for m in mine if m not in expected.disputed]):
            verb = "remember"
        if verb == "resolve" and not pending_contradictions:
            verb = "remember"
        tag = f"{writer}-{i}"
        if verb == "remember":
            # Neutral wording (no "use"/"avoid"): no contradiction heuristics, one event per write.
            op = Op(verb, {"content": f"Reliability note {tag}: the widget cache key is {uuid.uuid4().hex}.\n"
                                      f"Second line with quotes \" ' and a tab\t{i}."})
        elif verb == "recall":
            op = Op(verb, {"query": f"widget cache key {writer}"})
        elif verb == "abandon":
            op = Op(verb, {"name": f"relib-{tag}", "reason": f"dropped in run {tag}", "effort": i % 5 + 1})
        elif verb == "transition":
            target = mine[transitions % len(mine)]
            transitions += 1
            op = Op(verb, {"memory_id": target, "to": NEXT_STATE[expected.states[target]],
                           "reason": f"moved by {tag}"})
        elif verb == "dispute":
            op = Op(verb, {"memory_id": undisputed[0], "reason": f"disputed by {tag}"})
        elif verb == "check":
            op = Op(verb, {"names": [f"relib-{writer}-2", "numpy", f"relib-{tag}"]})
        elif verb == "resolve":
            op = Op(verb, {"contradiction_id": pending_contradictions.pop(0), "reason": f"resolved by {tag}"})
        elif verb == "suppress":
            op = Op(verb, {"name": f"quiet-{tag}", "reason": f"silenced by {tag}"})
        else:
            op = Op(verb, {})
        result = yield op
        acks.append(Ack(op, result, events_for(op, result)))
        fold(op, result, expected)


def fold(op: Op, result: dict[str, Any], expected: Expected) -> None:
    a = op.args
    if op.verb == "remember":
        expected.memories[result["id"]] = a["content"]
        expected.states[result["id"]] = "active"
    elif op.verb == "abandon":
        expected.approaches[a["name"]] = result["recall_suppressed"]
    elif op.verb == "transition":
        expected.states[a["memory_id"]] = a["to"]
    elif op.verb == "dispute":
        expected.disputed.add(a["memory_id"])
    elif op.verb == "resolve":
        if "proposal_id" in result:
            expected.proposals[result["proposal_id"]] = a["contradiction_id"]
        else:
            expected.resolved.add(a["contradiction_id"])
    elif op.verb == "suppress" and "proposal_id" not in result:
        expected.suppressions.add(a["name"])

"""The lines several verbs print: a memory, a contradiction, a feed, and whatever a verb returned."""

from __future__ import annotations

from typing import Any

from cenotaph.memory.models import AbandonResult, ContradictionView


def memory_line(row: Any) -> str:
    flags = ", ".join(f for f in (row.kind, row.state, row.trust) if f)
    return f"#{row.memory_id} v{row.version} [{flags}] {row.content or '(forgotten)'}"


def contradiction_line(view: Any) -> str:
    def side(label: str, row: Any) -> str:
        return f"  {label}: " + (memory_line(row) if row is not None else "(missing)")

    verdict = view.status if view.resolution is None else f"{view.status} ({view.resolution})"
    lines = [f"contradiction #{view.id} [{verdict}, found by {view.found_by}] {view.explanation}",
             side("a", view.memory_a), side("b", view.memory_b)]
    if view.reason:
        lines.append(f"  reason: {view.reason}")
    return "\n".join(lines)


def feed_line(f: Any) -> str:
    state = f"last error: {f.last_error}" if f.last_error else f"last pulled {f.last_success}" if f.last_success \
        else "never pulled"
    return f"feed #{f.id} {f.url} · {f.entries} live entries · expire after {f.expires_days} days · {state}"


def proposal_line(proposal: Any) -> str:
    """A change filed for a person. An agent's shell is told, in words it can pass on, that it
    cannot carry the change out itself (cli/authority.py)."""
    text = f"proposed as #{proposal.id} ({proposal.action} {proposal.target}); nothing has changed yet."
    if proposal.actor.startswith("agent:"):
        return (f"{text} Only a person can accept it, and you cannot. Stop here: tell the person what you "
                f"proposed and why, and ask them to accept or reject #{proposal.id} (from the editor's ledger, "
                f"or with `cenotaph accept {proposal.id}` in a terminal of their own).")
    return f"{text} A person accepts it with `cenotaph accept {proposal.id}`."


def outcome(result: Any) -> str:
    """One line for whatever a verb returned: the changed record, or the proposal it became."""
    from cenotaph.memory.knowledge.compaction import CompactResult
    from cenotaph.memory.policy.compile import CompileWrite
    from cenotaph.store.records import MemoryRow, ProposalRow, SuppressionRow

    if isinstance(result, ProposalRow):
        return proposal_line(result)
    if isinstance(result, MemoryRow):
        return memory_line(result)
    if isinstance(result, SuppressionRow):
        where = "everywhere" if result.project == "" else f"in {result.project}"
        state = f"lifted ({result.lifted_reason})" if result.lifted_at else "active"
        return f"{result.kind} suppression of {result.value} {where}: {state}"
    if isinstance(result, ContradictionView):
        return contradiction_line(result)
    if isinstance(result, CompileWrite):
        return "wrote " + ", ".join(f.path for f in result.files) + f" in {result.root}"
    if isinstance(result, AbandonResult):
        a = result.approach
        return (f"{a.display_name} ({a.ecosystem}) abandoned {'in ' + a.project if a.project else 'everywhere'}"
                f"{f', effort {a.effort}/5' if a.effort else ''}: {a.reason}")
    if isinstance(result, CompactResult):
        return (f"summary {memory_line(result.summary)} — superseded " + ", ".join(f"#{i}" for i in result.superseded)
                + f" (forget or refute #{result.summary.memory_id} to restore them)")
    return str(result)

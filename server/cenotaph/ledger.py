"""The ledger's Markdown, rendered from the memory alone: the language server serves it as a
read-only document with code actions on its entries (`lsp/features/ledger.py`), the MCP server as
a resource (`mcp/resources.py`). It lists the graveyard, open contradictions side by side,
deprioritised memories with their hints, pending proposals, the candidates mined from history,
the silences and the top concepts; with the lines the editors' hovers share (`one_line`, `where`,
`shared_by`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cenotaph.memory.models import ContradictionView
from cenotaph.memory.team.folder import source_of
from cenotaph.store.records import ApproachRow, MemoryRow, ProposalRow, SuppressionRow

if TYPE_CHECKING:
    from cenotaph.memory.core.concepts import ConceptView
    from cenotaph.memory.service import Memory

# Entries listed per section: the ledger stays a readable document (and a bounded answer) on a
# store of any size; the counts are the whole.
SECTION_LIMIT = 100
CONCEPT_LIMIT = 20  # the project's top concepts, read-only (`cenotaph concepts` reviews them)


def one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def where(approach: ApproachRow, scope: str | None) -> str:
    if scope == "project":
        return "here"
    if scope == "global" or approach.project == "":
        return "everywhere"
    return f"in {approach.project}"


def shared_by(approach: ApproachRow) -> str:
    """`shared in the repository by Ada Lovelace, 2026-03-01` for an approach shared there, else ``."""
    if source_of(approach) != "repo":
        return ""
    return f"shared in the repository by {approach.actor}, {approach.created_at[:10]}"


@dataclass(frozen=True, slots=True)
class Counts:
    """Each section's whole count (a section lists at most SECTION_LIMIT entries)."""

    graveyard: int
    contradictions: int
    deprioritised: int
    proposals: int
    candidates: int
    silences: int


@dataclass(slots=True)
class Ledger:
    project: str
    text: str
    seq: int
    counts: Counts


def _cell(text: str) -> str:
    return one_line(text, 300).replace("|", "\\|")


def _memory_label(row: MemoryRow | None) -> str:
    if row is None:
        return "(missing)"
    return f"memory #{row.memory_id} · {row.trust} · {row.valid_from[:10]}"


def _contradiction_lines(view: ContradictionView) -> list[str]:
    a, b = view.memory_a, view.memory_b
    return [
        f"### contradiction #{view.id} · found by {view.found_by} · {view.created_at[:10]}",
        "",
        f"| {_memory_label(a)} | {_memory_label(b)} |",
        "| --- | --- |",
        f"| {_cell(a.content) if a else ''} | {_cell(b.content) if b else ''} |",
        "",
        one_line(view.explanation, 500),
    ]


def graveyard_line(a: ApproachRow, project: str, shared: ApproachRow | None = None) -> str:
    """One graveyard entry as the ledger (and the MCP graveyard resource) lists it; `shared`, the
    repository's entry for the same record, is a mark on it rather than an entry of its own."""
    effort = f" · effort {a.effort}/5" if a.effort else ""
    mark = f" · shared in the repository ({getattr(shared, 'path', '')})" if shared is not None else ""
    return (f"- approach #{a.id} · **{a.display_name}** ({a.ecosystem}) · abandoned "
            f"{where(a, 'project' if a.project == project else 'global')}{effort} · "
            f"{shared_by(a) or f'{a.updated_at[:10]} by {a.actor}'}{mark} — {one_line(a.reason, 500)}")


def one_per_name(graveyard: list[ApproachRow]) -> list[tuple[ApproachRow, ApproachRow | None]]:
    """The graveyard's entries, newest first, one per record: an entry the person shared is listed
    once, with its shared copy beside it; one shared by someone else stays an entry of its own."""
    recorded = {(a.project, a.name): a for a in graveyard if source_of(a) != "repo"}
    copies = {(a.project, a.name): a for a in graveyard if source_of(a) == "repo" and (a.project, a.name) in recorded}
    entries = [(a, copies.get((a.project, a.name))) for a in graveyard
               if source_of(a) != "repo" or (a.project, a.name) not in recorded]
    return sorted(entries, key=lambda e: e[0].updated_at, reverse=True)


def render_for(memory: Memory, project: str) -> Ledger:
    """The ledger of `project` from `memory` alone."""
    seq = memory.change_seq()  # read first: the text is at least this new
    graveyard = memory.graveyard.in_scope(project)
    contradictions = memory.contradictions(project)
    deprioritised = memory.deprioritised(project)
    from cenotaph.memory.mining.candidates import ACTION as CANDIDATE_ACTION  # the domain loads after `initialize`

    pending = memory.proposals(project)
    proposals = [p for p in pending if p.action != CANDIDATE_ACTION]
    candidates = [p for p in pending if p.action == CANDIDATE_ACTION]
    graveyard = one_per_name(graveyard)
    graveyard_lines = [graveyard_line(a, project, shared) for a, shared in graveyard[:SECTION_LIMIT]]
    contradiction_lines = [line for i, view in enumerate(contradictions[:SECTION_LIMIT])
                           for line in [*([""] if i else []), *_contradiction_lines(view)]]
    deprioritised_lines = []
    for row in deprioritised[:SECTION_LIMIT]:
        hints = f" — reinstate when: {one_line(', '.join(row.reinstate_hints), 300)}" if row.reinstate_hints else ""
        why = f" — why: {one_line(row.state_reason, 300)}" if row.state_reason else ""
        deprioritised_lines.append(f"- memory #{row.memory_id} · {row.kind} · {row.trust} · "
                                   f"{row.recorded_at[:10]} — {one_line(row.content, 300)}{why}{hints}")
    proposal_lines = [f"- proposal #{p.id} · {p.actor} proposes to {p.action} {p.target} · {p.created_at[:10]} — "
                      f"{one_line(p.reason, 300)}" for p in proposals[:SECTION_LIMIT]]
    candidate_lines = [line for p in sorted(candidates, key=_confidence, reverse=True)[:SECTION_LIMIT]
                       for line in _candidate_lines(p)]
    silences = memory.suppressions(project)
    silence_lines = [silence_line(s) for s in silences[:SECTION_LIMIT]]
    concept_lines = [_concept_line(c) for c in memory.concepts(project, CONCEPT_LIMIT)]
    lines = [f"# Cenotaph ledger · {project or 'global scope'}", "", "Read-only. Code actions on an entry act on it."]
    for title, count, body in (("Graveyard", len(graveyard), graveyard_lines),
                               ("Open contradictions", len(contradictions), contradiction_lines),
                               ("Deprioritised memories", len(deprioritised), deprioritised_lines),
                               ("Pending proposals", len(proposals), proposal_lines),
                               ("Candidates from history", len(candidates), candidate_lines),
                               ("Silences", len(silences), silence_lines)):
        lines += ["", f"## {title} ({count})", "", *(body or ["_none_"])]
        if count > SECTION_LIMIT:
            lines += ["", f"_… and {count - SECTION_LIMIT} more, not listed here._"]
    lines += ["", f"## Top concepts ({len(concept_lines)})", "", *(concept_lines or ["_none_"])]
    text = "\n".join(lines).rstrip() + "\n"
    counts = Counts(graveyard=len(graveyard), contradictions=len(contradictions),
                    deprioritised=len(deprioritised), proposals=len(proposals), candidates=len(candidates),
                    silences=len(silences))
    return Ledger(project, text, seq, counts)


def silence_line(s: SuppressionRow) -> str:
    """`- silence #3 · **poetry** · not flagged in editors · here · 2026-03-01 by ada — why`"""
    what = "not flagged in editors" if s.kind == "diagnostic" else "kept out of recall"
    return (f"- silence #{s.id} · **{_cell(s.value)}** · {what} · {'everywhere' if s.project == '' else 'here'} · "
            f"{s.created_at[:10]} by {s.actor} — {one_line(s.reason, 300)}")


def _concept_line(c: ConceptView) -> str:
    """`- concept **postgresql** · 3 memories · also pg, postgres · with pool ×2`: no entry id, so
    no code action; a person reviews concepts with `cenotaph concepts merge|remove|dismiss|rename`."""
    aliases = f" · also {_cell(', '.join(c.aliases))}" if c.aliases else ""
    near = f" · with {_cell(', '.join(f'{n.name} ×{n.count}' for n in c.neighbours))}" if c.neighbours else ""
    return f"- concept **{_cell(c.name)}** · {c.count} {'memory' if c.count == 1 else 'memories'}{aliases}{near}"


def _confidence(proposal: ProposalRow) -> float:
    value = proposal.arguments.get("confidence")
    return value if isinstance(value, (int, float)) else 0.0


def _candidate_lines(proposal: ProposalRow) -> list[str]:
    """An abandon proposal mined from the past: what, how sure, the drafted reason, and the first
    piece of evidence (indented: it belongs to the entry above it)."""
    args = proposal.arguments
    replacement = f" · replaced by {one_line(str(args['replacement']), 100)}" if args.get("replacement") else ""
    lines = [f"- candidate #{proposal.id} · **{one_line(str(args.get('name', '?')), 200)}** "
             f"({args.get('ecosystem', '?')}) · confidence {_confidence(proposal):.2f}{replacement} — "
             f"{one_line(proposal.reason, 500)}"]
    from cenotaph.memory.mining.candidates import evidence as candidate_evidence  # loads after `initialize`

    evidence = candidate_evidence(proposal)
    if evidence:
        first = evidence[0]
        more = f" (and {len(evidence) - 1} more)" if len(evidence) > 1 else ""
        lines.append(f"  - {first.get('origin', '?')} · {first.get('role', '?')} · {str(first.get('at', ''))[:10]} · "
                     f"{one_line(str(first.get('ref', '')), 120)} — {one_line(str(first.get('summary', '')), 300)}{more}")
    return lines

"""`/proposals`: what waits for a person (candidates mined from the past, an agent's proposals,
compile and hooks-install proposals with their diffs). Accept or reject one or many: the choice is
shown first as a preview (each proposal, its diff), and only its confirmation calls the domain's
`accept_proposal` / `reject_proposals`, as `cenotaph accept` and `cenotaph reject` do; an accepted
candidate can be undone at once (its approach reinstated)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.responses import HTMLResponse

from cenotaph.cli.render import outcome
from cenotaph.console.pages import number
from cenotaph.console.render import (
    Form,
    Html,
    Notice,
    day,
    diff_block,
    field_input,
    hidden,
    join,
    select,
    short,
    tag,
    void,
)
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.models import AbandonResult
from cenotaph.store.records import ProposalRow

if TYPE_CHECKING:
    from starlette.requests import Request

    from cenotaph.console.app import Console

RECENT = 20  # decided proposals listed under the pending ones
STATUSES = ("pending", "accepted", "rejected", "all")


def describe(p: ProposalRow) -> Html:
    """What a proposal asks, with its evidence or diffs."""
    args = p.arguments
    if p.action == "abandon":
        evidence = [tag("li", f"{e.get('role', '?')} {str(e.get('ref', ''))[:7]} {str(e.get('at', ''))[:10]} "
                              f"{e.get('author') or ''}: {short(str(e.get('summary', '')), 300)}"
                              + (f" ({e['path']})" if e.get("path") else ""))
                    for e in (args.get("evidence") or [])[:5] if isinstance(e, dict)]
        confidence = args.get("confidence")
        head = tag("div", "abandon ", tag("strong", args.get("name", "?")), f" ({args.get('ecosystem', '?')})",
                   f", confidence {confidence:.2f}" if isinstance(confidence, (int, float)) else "")
        return join([head, tag("div", args.get("reason") or p.reason, class_="content"),
                     tag("ul", *evidence, class_="evidence") if evidence else ""])
    if isinstance(args.get("files"), list):
        files = [join([tag("div", tag("code", f.get("path", "?"))), diff_block(str(f.get("diff", "")))])
                 for f in args["files"] if isinstance(f, dict)]
        return join([tag("div", f"{p.action} {args.get('target', p.target)} into {args.get('root', '')}"), *files])
    if p.action == "compact":
        return join([tag("div", "a summary of " + ", ".join(f"#{i}" for i in args.get("member_ids", []))),
                     tag("div", args.get("summary", ""), class_="content")])
    return tag("div", f"{p.action} {p.target}")


def render(console: Console, request: Request) -> HTMLResponse:
    csrf = console.session(request).csrf
    status = request.query_params.get("status", "pending")
    if status not in STATUSES:
        raise InvalidInput(f"expected one of {', '.join(STATUSES)}", field="status")
    rows = console.memory.proposals(console.project, status=None if status == "all" else status)
    listed = []
    for p in rows:
        pick = void("input", type="checkbox", name="id", value=p.id, aria_label=f"select proposal #{p.id}") \
            if p.status == "pending" else ""
        one = join([tag("button", "Accept", type="submit", name="one", value=f"accept:{p.id}"),
                    tag("button", "Reject", type="submit", name="one", value=f"reject:{p.id}")]) \
            if p.status == "pending" else tag("span", f"{p.status} by {p.decided_by}: {p.decision_reason or ''}")
        listed.append(tag("tr", tag("td", pick), tag("td", f"#{p.id}"), tag("td", describe(p)),
                          tag("td", tag("div", p.reason, class_="content")), tag("td", f"{p.actor}, {day(p.created_at)}"),
                          tag("td", one), id=f"proposal-{p.id}"))
    filters = tag("form", select("status", "show", [(s, s) for s in STATUSES], status),
                  tag("button", "Show", type="submit"), method="get", action="/proposals", class_="inline")
    table = tag("table", tag("thead", tag("tr", *[tag("th", h) for h in ("", "id", "what", "why", "proposed by", "")])),
                tag("tbody", *listed), class_="proposals")
    bulk = tag("form", hidden("csrf", csrf), table,
               tag("div", field_input("reason", "reason (required to reject; replaces a candidate's drafted reason)"),
                   field_input("effort", "effort 1–5 (candidates)"),
                   tag("button", "Accept selected", type="submit", name="verb", value="accept"),
                   tag("button", "Reject selected", type="submit", name="verb", value="reject"), class_="bulk"),
               method="post", action="/proposals/preview")
    body: list[object] = [filters, bulk if listed else tag("p", f"No {status} proposals.", class_="muted")]
    return console.page(request, "Proposals", body, current="/proposals")


def _chosen(form: dict[str, str]) -> tuple[str, list[int]]:
    """The verb and the proposals a form names: one row's button, or the checked boxes."""
    verb, _, one = form.get("one", "").partition(":")
    ids = [one] if one else [i for i in form.get("_ids", "").split(",") if i]
    verb = verb or form.get("verb", "")
    if verb not in ("accept", "reject"):
        raise InvalidInput("choose accept or reject", field="verb")
    if not ids:
        raise InvalidInput("select at least one proposal", field="id")
    return verb, [number(i, "id") for i in ids]


def preview(console: Console, form: dict[str, str]) -> HTMLResponse | Notice:
    """What the choice would do, before anything is done: a page with its confirmation."""
    verb, ids = _chosen(form)
    if verb == "reject" and not form.get("reason", "").strip():
        raise InvalidInput("a rejection needs a reason", field="reason")
    pending = {p.id: p for p in console.memory.proposals(console.project, status="pending")}
    missing = [i for i in ids if i not in pending]
    if missing:
        raise InvalidInput(f"no pending proposal #{missing[0]} in this project", field="id")
    items = [tag("li", tag("strong", f"#{i} "), describe(pending[i])) for i in ids]
    confirm = Form("/proposals/decide", form["csrf"],
                   [hidden("verb", verb), *[hidden("id", i) for i in ids], hidden("reason", form.get("reason", "")),
                    hidden("effort", form.get("effort", ""))],
                   button=f"Confirm: {verb} {len(ids)}", css="confirm")
    reason = form.get("reason", "").strip()
    body = [tag("p", f"{verb.capitalize()} these {len(ids)} proposals" + (f", because: {reason}" if reason else "")
                + ". Nothing has changed yet."),
            tag("ol", *items, class_="preview"), confirm.render(), tag("a", "Cancel", href="/proposals")]
    return console.sheet(f"Preview: {verb}", body, current="/proposals")


def decide(console: Console, form: dict[str, str]) -> Notice:
    verb, ids = _chosen(form)
    reason = form.get("reason", "").strip() or None
    if verb == "reject":
        rows = console.memory.reject_proposals(console.actor, ids, reason=reason or "")
        return Notice(f"rejected {len(rows)} proposals: " + ", ".join(f"#{r.id}" for r in rows))
    effort_text = form.get("effort", "").strip()
    effort = number(effort_text, "effort") if effort_text else None
    lines, undo = [], []
    # Each its own transaction, as `cenotaph accept` does: one already decided leaves the others accepted.
    for proposal_id in ids:
        result = console.memory.accept_proposal(console.actor, proposal_id, reason=reason, effort=effort)
        lines.append(f"accepted #{proposal_id}: {outcome(result)}")
        if isinstance(result, AbandonResult):
            a = result.approach
            undo.append(Form("/graveyard/reinstate", form["csrf"],
                             [hidden("name", a.name), hidden("project", a.project), hidden("next", "/proposals"),
                              hidden("reason", f"undo: proposal #{proposal_id} accepted by mistake")],
                             button=f"Undo: reinstate {a.display_name}").render())
    return Notice("; ".join(lines), undo=join(undo) if undo else None)


PAGES = (("/proposals", render),)
ACTIONS = (("/proposals/preview", preview), ("/proposals/decide", decide))

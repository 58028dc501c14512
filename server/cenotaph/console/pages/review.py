"""`/contradictions`: the open ones side by side, resolved (keep one, both, neither) or dismissed
with a reason; `/events`: the audit log, newest first, its hash chain verified, filtered by who
made the change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cenotaph.cli.render import outcome
from cenotaph.console.pages import number
from cenotaph.console.render import (
    Form,
    Html,
    Notice,
    day,
    field_input,
    link,
    page_url,
    select,
    short,
    table,
    tag,
    void,
)
from cenotaph.store.records import MemoryRow

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse

    from cenotaph.console.app import Console

EVENTS = 200  # the newest events a page lists


def _side(label: str, row: MemoryRow | None) -> Html:
    if row is None:
        return tag("div", f"{label}: (missing)", class_="side")
    return tag("div", tag("div", f"{label}: ", link(f"/memories/{row.memory_id}", f"#{row.memory_id}"),
                          f" · {row.trust} · {day(row.valid_from)}", class_="muted"),
               tag("div", row.content, class_="content"), class_="side")


def contradictions(console: Console, request: Request) -> HTMLResponse:
    csrf = console.session(request).csrf
    views = console.memory.contradictions(console.project)
    items = []
    for v in views:
        resolve = Form(f"/contradictions/{v.id}/resolve", csrf,
                       [select("keep", "keep", [("a", "A"), ("b", "B"), ("both", "both (A ended)"),
                                                ("neither", "neither")]),
                        field_input("reason", "reason", required=True)], button="Resolve")
        dismiss = Form(f"/contradictions/{v.id}/dismiss", csrf, [field_input("reason", "reason", required=True)],
                       button="Dismiss")
        items.append(tag("article", tag("h2", f"#{v.id} · found by {v.found_by} · {day(v.created_at)}"),
                         tag("div", _side("A", v.memory_a), _side("B", v.memory_b), class_="sides"),
                         tag("p", v.explanation, class_="muted"), resolve.render(), dismiss.render(),
                         class_="contradiction", id=f"contradiction-{v.id}"))
    body = items or [tag("p", "No open contradictions.", class_="muted")]
    return console.page(request, "Contradictions", body, current="/contradictions")


def resolve(console: Console, form: dict[str, str]) -> Notice:
    result = console.memory.resolve_contradiction(console.actor, number(form["contradiction_id"], "contradiction_id"),
                                                  keep=form.get("keep", ""), reason=form.get("reason", ""))
    return Notice(outcome(result))


def dismiss(console: Console, form: dict[str, str]) -> Notice:
    result = console.memory.dismiss_contradiction(console.actor, number(form["contradiction_id"], "contradiction_id"),
                                                  reason=form.get("reason", ""))
    return Notice(outcome(result))


def events(console: Console, request: Request) -> HTMLResponse:
    actor = request.query_params.get("actor", "").strip() or None
    head = console.memory.change_seq()
    if console.audit_cache is None or console.audit_cache[0] != head:
        # The whole chain the first time, then the events added since (≈ 6 µs an event: 0.6 s at 100,000).
        since = console.audit_cache[1] if console.audit_cache else None
        console.audit_cache = (head, console.memory.audit_verify(since))
    report = console.audit_cache[1]
    chain = tag("p", f"Chain verified: {report.checked} events, head #{report.head}.", class_="notice") if report.ok \
        else tag("p", f"Chain broken at event #{report.first_bad_seq}: {report.problem}", class_="notice error")
    rows = console.memory.audit_log(limit=EVENTS, actor=actor, newest_first=True)
    box = tag("form", void("input", type="text", name="actor", value=actor, placeholder="who (e.g. cli, console:ada)",
                           aria_label="actor"),
              tag("button", "Filter", type="submit"), method="get", action="/events", class_="inline")
    listed = table(("seq", "when", "who", "action", "target", "reason", "after"),
                   [[e.seq, day(e.at), link(page_url("/events", actor=e.actor), e.actor), e.action,
                     _target(e.target), e.reason or "", tag("div", short(e.after, 300), class_="content")]
                    for e in rows], "events")
    body = [chain, box, listed if rows else tag("p", "No events.", class_="muted")]
    return console.page(request, "Events", body, current="/events")


def _target(target: str) -> Html:
    kind, _, number = target.partition(":")
    return link(f"/memories/{number}", target) if kind == "memory" and number.isdigit() else Html(tag("code", target))


PAGES = (("/contradictions", contradictions), ("/events", events))
ACTIONS = (("/contradictions/{contradiction_id}/resolve", resolve), ("/contradictions/{contradiction_id}/dismiss", dismiss))

"""`/memories?q=…`: recall as the agents get it (the lane of each result and why it scored so), or
the newest memories without a query; `/memories/<id>`: one memory's versions, transitions with
their reasons, trust, valid and record time and events, and the verbs a person uses on it
(update, deprioritise, archive, reinstate, forget after its preview, confirm, dispute, refute)."""

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
    hidden,
    link,
    safe_url,
    select,
    short,
    table,
    tag,
    textarea,
    void,
)
from cenotaph.memory.models import RecallResult, ScoreComponents

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse

    from cenotaph.console.app import Console

RESULTS = 20
RECENT = 50


def _why(c: ScoreComponents | None) -> Html:
    if c is None:
        return Html("")
    parts = [f"relevance {c.relevance:.3f}"]
    parts += [f"bm25 {c.bm25:.2f}"] if c.bm25 is not None else []
    parts += [f"cosine {c.cosine:.3f}"] if c.cosine is not None else []
    parts += [f"state ×{c.state_factor:.2f}", f"trust ×{c.trust_factor:.2f}", f"recency ×{c.recency:.2f}",
              f"experience ×{c.experience_weight:.2f}", f"time ×{c.temporal_boost:.2f}"]
    parts += ["pinned by a reinstate hint"] if c.pinned else []
    parts += [f"concepts {', '.join(c.concepts)} (+{c.concept:.3f})"] if c.concepts else []
    parts += [f"passed on +{c.passed_on:.3f}"] if c.passed_on else []
    return tag("div", " · ".join(parts), class_="why")


def _result(r: RecallResult) -> Html:
    if r.result_type == "abandoned_warning":
        return tag("li", tag("span", "graveyard", class_="lane"), " abandoned ", tag("strong", r.name or ""),
                   f" ({r.ecosystem}, effort {r.effort or '?'}/5): ", tag("span", r.reason or "", class_="content"),
                   class_="result warning")
    source = safe_url(r.link)
    cite = tag("a", r.title or r.link or "", href=source, rel="noopener noreferrer") if source else \
        tag("span", r.title or "", class_="muted")
    head = tag("div", tag("span", r.lane, class_="lane"), " ", link(f"/memories/{r.id}", f"#{r.id}"),
               f" {r.kind} · {r.state} · {r.trust} · score {r.score:.3f} · {r.actor or r.source or ''}", " ", cite)
    return tag("li", head, tag("div", r.content, class_="content"), _why(r.components), class_="result")


def search(console: Console, request: Request) -> HTMLResponse:
    query = request.query_params.get("q", "").strip()
    box = tag("form", void("input", type="search", name="q", value=query, placeholder="recall…", aria_label="query"),
              tag("button", "Recall", type="submit"), method="get", action="/memories", class_="inline")
    body: list[object] = [box]
    if query:
        response = console.memory.recall(console.actor, query, project=console.project, k=RESULTS)
        body += [tag("p", f"lane: {response.lane} · {len(response.results)} results", class_="muted"),
                 *[tag("p", n, class_="muted") for n in response.notices],
                 tag("ol", *[_result(r) for r in response.results], class_="results")]
    else:
        rows = console.memory.recent(console.project, limit=RECENT)
        body += [tag("h2", "Newest"),
                 table(("id", "kind", "trust", "recorded", "content"),
                       [[link(f"/memories/{m.memory_id}", f"#{m.memory_id}"), m.kind, m.trust, day(m.recorded_at),
                         tag("div", short(m.content, 400), class_="content")] for m in rows], "memories")]
    return console.page(request, "Memories", body, current="/memories")


def detail(console: Console, request: Request) -> HTMLResponse:
    memory_id = number(request.path_params["memory_id"], "memory_id")
    history = console.memory.history(memory_id)
    current = history.versions[-1]
    csrf = console.session(request).csrf
    here = f"/memories/{memory_id}"
    facts = table(("", ""), [
        ("kind", current.kind), ("project", current.project or "global"), ("state", current.state),
        ("why", current.state_reason or ""), ("trust", current.trust), ("trust reason", current.trust_reason or ""),
        ("valid", f"{day(current.valid_from)} → {day(current.valid_to) or 'open'}"),
        ("recorded", f"{day(current.recorded_at)} → {day(current.superseded_at) or 'current'}"),
        ("tags", ", ".join(current.tags)), ("written by", f"{current.actor} ({current.source})"),
        ("recalled", f"{current.recall_count} times"),
    ], "facts")
    versions = table(("version", "valid", "recorded", "content"),
                     [[v.version, f"{day(v.valid_from)} → {day(v.valid_to) or 'open'}",
                       f"{day(v.recorded_at)} → {day(v.superseded_at) or 'current'}",
                       tag("div", v.content, class_="content")] for v in reversed(history.versions)], "versions")
    transitions = table(("when", "who", "what", "from", "to", "reason"),
                        [[day(t.at), t.actor, t.field, t.from_value or "", t.to_value, t.reason or ""]
                         for t in history.transitions], "transitions")
    events = table(("seq", "when", "who", "action", "reason"),
                   [[e.seq, day(e.at), e.actor, e.action, e.reason or ""] for e in history.events], "events")
    body: list[object] = [tag("div", current.content, class_="content main-content"), facts]
    if history.tombstone is not None:
        t = history.tombstone
        body.append(tag("p", f"Forgotten by {t.actor} on {day(t.at)}: {t.reason}", class_="notice"))
    else:
        body.append(tag("section", *_verbs(csrf, here, current.state), class_="verbs"))
    body += [tag("h2", "Versions"), versions, tag("h2", "Transitions"), transitions, tag("h2", "Events"), events]
    return console.page(request, f"Memory #{memory_id}", body, current="/memories")


def _verbs(csrf: str, here: str, state: str) -> list[Html]:
    reason = field_input("reason", "reason", required=True)
    forms = [
        Form(f"{here}/update", csrf, [textarea("content", "new content"), field_input("reason", "reason")],
             button="Update", css="block"),
        Form(f"{here}/trust", csrf, [select("trust", "trust", [("confirmed", "confirm"), ("disputed", "dispute"),
                                                                ("refuted", "refute")]), reason], button="Set trust"),
        Form(f"{here}/deprioritise", csrf, [reason, field_input("hints", "reinstate when (comma-separated)")],
             button="Deprioritise"),
        Form(f"{here}/archive", csrf, [reason], button="Archive"),
        Form(f"{here}/forget", csrf, [reason], button="Forget…"),
    ]
    if state != "active":
        forms.insert(1, Form(f"{here}/reinstate", csrf, [reason], button="Reinstate"))
    return [f.render() for f in forms]


def update(console: Console, form: dict[str, str]) -> Notice:
    row = console.memory.update(console.actor, number(form["memory_id"], "memory_id"), content=form.get("content", ""),
                                reason=form.get("reason") or None)
    return Notice(f"updated: {outcome(row)}")


def trust(console: Console, form: dict[str, str]) -> Notice:
    row = console.memory.set_trust(console.actor, number(form["memory_id"], "memory_id"), form.get("trust", ""),
                                   reason=form.get("reason", ""))
    return Notice(outcome(row))


def deprioritise(console: Console, form: dict[str, str]) -> Notice:
    hints = [h.strip() for h in form.get("hints", "").split(",") if h.strip()]
    row = console.memory.deprioritise(console.actor, number(form["memory_id"], "memory_id"), reason=form.get("reason", ""), hints=hints)
    return Notice(outcome(row))


def archive(console: Console, form: dict[str, str]) -> Notice:
    return Notice(outcome(console.memory.archive(console.actor, number(form["memory_id"], "memory_id"), reason=form.get("reason", ""))))


def reinstate(console: Console, form: dict[str, str]) -> Notice:
    row = console.memory.reinstate(console.actor, number(form["memory_id"], "memory_id"), reason=form.get("reason", ""))
    return Notice(outcome(row))


def forget(console: Console, form: dict[str, str]) -> HTMLResponse | Notice:
    """Without `confirm`, the preview (what would go) and a form to confirm it."""
    memory_id = number(form["memory_id"], "memory_id")
    if form.get("confirm") == "yes":
        console.memory.forget(console.actor, memory_id, reason=form.get("reason", ""), confirm=True)
        return Notice(f"forgot memory #{memory_id}: its content is gone, a tombstone keeps its hash and the reason")
    p = console.memory.forget(console.actor, memory_id, reason=form.get("reason", ""))
    confirm = Form(f"/memories/{memory_id}/forget", form["csrf"],
                   [hidden("reason", form.get("reason", "")), hidden("confirm", "yes")],
                   button=f"Confirm: forget #{memory_id}", css="confirm")
    gone = [f"{p.versions} versions of its content",
            *([f"open contradictions {', '.join(f'#{c}' for c in p.open_contradictions)}"]
              if p.open_contradictions else []),
            *([f"the story of {', '.join(p.approaches)}"] if p.approaches else [])]
    body = [tag("p", "Forgetting removes the content for good; a tombstone keeps its hash and your reason so "
                     "that no restore or import brings it back. Nothing has changed yet."),
            tag("div", p.content, class_="content main-content"),
            tag("ul", *[tag("li", g) for g in gone]), confirm.render(),
            link(f"/memories/{memory_id}", "Cancel")]
    return console.sheet(f"Forget memory #{memory_id}?", body, current="/memories")


PAGES = (("/memories", search), ("/memories/{memory_id}", detail))
ACTIONS = tuple((f"/memories/{{memory_id}}/{verb.__name__}", verb)
                for verb in (update, trust, deprioritise, archive, reinstate, forget))

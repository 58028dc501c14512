"""`/graveyard`: the approaches abandoned here and everywhere (reason, effort, ecosystem, who and
when), those reinstated, and the silences in force; reinstate an approach or lift a silence, each
with a reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cenotaph.console.render import (
    Form,
    Notice,
    day,
    field_input,
    hidden,
    link,
    table,
    tag,
)
from cenotaph.ledger import one_per_name, shared_by, where

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse

    from cenotaph.console.app import Console


def render(console: Console, request: Request) -> HTMLResponse:
    csrf = console.session(request).csrf
    project = console.project
    records = console.memory.graveyard.in_scope(project, status=None)
    abandoned = [(a, shared) for a, shared in one_per_name(records) if a.status == "abandoned"]
    reinstated = [(a, shared) for a, shared in one_per_name(records) if a.status != "abandoned"]
    rows = []
    for a, shared in abandoned:
        reinstate = Form("/graveyard/reinstate", csrf, [hidden("name", a.name), hidden("project", a.project),
                                                         field_input("reason", "reason", required=True)],
                         button="Reinstate")
        story = link(f"/memories/{a.memory_id}", f"#{a.memory_id}") if a.memory_id else ""
        mark = tag("div", f"shared in the repository ({getattr(shared, 'path', '')})", class_="muted") if shared else ""
        rows.append([tag("strong", a.display_name), a.ecosystem, tag("div", a.reason, class_="content"),
                     f"{a.effort}/5" if a.effort else "—", where(a, "project" if a.project == project else "global"),
                     tag("div", shared_by(a) or f"{a.actor}, {day(a.updated_at)}", mark), story, reinstate.render()])
    back = [[tag("strong", a.display_name), a.ecosystem, tag("div", a.status_reason or "", class_="content"),
             f"{a.actor}, {day(a.updated_at)}"] for a, _ in reinstated]
    silences = console.memory.suppressions(project)
    silence_rows = []
    for s in silences:
        lift = Form("/graveyard/unsuppress", csrf, [hidden("name", s.value), hidden("kind", s.kind),
                                                     hidden("project", s.project),
                                                     field_input("reason", "reason", required=True)], button="Lift")
        what = "not flagged in editors" if s.kind == "diagnostic" else "kept out of recall"
        silence_rows.append([tag("strong", s.value), what, "everywhere" if s.project == "" else "here",
                             tag("div", s.reason, class_="content"), f"{s.actor}, {day(s.created_at)}", lift.render()])
    body: list[object] = [
        tag("h2", f"Abandoned ({len(abandoned)})"),
        table(("approach", "ecosystem", "reason", "effort", "where", "who, when", "story", ""), rows, "graveyard")
        if rows else tag("p", "Nothing abandoned here.", class_="muted"),
        tag("h2", f"Silences ({len(silences)})"),
        table(("name", "what", "where", "reason", "who, when", ""), silence_rows, "silences")
        if silence_rows else tag("p", "No silences in force.", class_="muted"),
        tag("h2", f"Reinstated ({len(reinstated)})"),
        table(("approach", "ecosystem", "why reinstated", "who, when"), back, "reinstated")
        if back else tag("p", "None reinstated.", class_="muted"),
    ]
    return console.page(request, "Graveyard", body, current="/graveyard")


def reinstate(console: Console, form: dict[str, str]) -> Notice:
    approach = console.memory.reinstate_approach(console.actor, form.get("name", ""), reason=form.get("reason", ""),
                                                 project=form.get("project", ""))
    return Notice(f"reinstated {approach.display_name}: {form.get('reason', '')}")


def unsuppress(console: Console, form: dict[str, str]) -> Notice:
    result = console.memory.unsuppress(console.actor, form.get("name", ""), kind=form.get("kind", ""),
                                       project=form.get("project", ""), reason=form.get("reason", ""))
    return Notice(f"lifted the {getattr(result, 'kind', '')} silence of {form.get('name', '')}")


PAGES = (("/graveyard", render),)
ACTIONS = (("/graveyard/reinstate", reinstate), ("/graveyard/unsuppress", unsuppress))

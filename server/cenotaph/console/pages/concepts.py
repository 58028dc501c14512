"""`/concepts`: the project's concept graph drawn as SVG, laid out here (a few rounds of a
force-directed layout from a circle, deterministic: the same graph draws the same), with the
verdicts a person gives: merge one concept into another, dismiss a pair, remove one."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from cenotaph.cli.render import outcome
from cenotaph.console.render import (
    Form,
    Html,
    Notice,
    field_input,
    hidden,
    select,
    table,
    tag,
)
from cenotaph.store.records import ProposalRow

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse

    from cenotaph.console.app import Console
    from cenotaph.memory.core.concepts import ConceptView

DRAWN = 40  # the project's top concepts drawn
SIZE = 640
ROUNDS = 60


def layout(names: list[str], edges: list[tuple[str, str, int]], size: float = SIZE,
           rounds: int = ROUNDS) -> dict[str, tuple[float, float]]:
    """Fruchterman–Reingold from positions on a circle: linked concepts pull together, all push
    apart; the step cools each round. Positions stay inside the square."""
    n = len(names)
    if n == 0:
        return {}
    centre, radius = size / 2, size * 0.4
    pos = {name: [centre + radius * math.cos(2 * math.pi * i / n), centre + radius * math.sin(2 * math.pi * i / n)]
           for i, name in enumerate(names)}
    k = math.sqrt(size * size / n) * 0.6
    step = size / 10
    for _ in range(rounds):
        move = {name: [0.0, 0.0] for name in names}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
                d = max(math.hypot(dx, dy), 0.01)
                push = k * k / d
                move[a][0] += dx / d * push
                move[a][1] += dy / d * push
                move[b][0] -= dx / d * push
                move[b][1] -= dy / d * push
        for a, b, weight in edges:
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            d = max(math.hypot(dx, dy), 0.01)
            pull = d * d / k * min(weight, 5) / 2
            move[a][0] -= dx / d * pull
            move[a][1] -= dy / d * pull
            move[b][0] += dx / d * pull
            move[b][1] += dy / d * pull
        for name in names:
            mx, my = move[name]
            length = max(math.hypot(mx, my), 0.01)
            pos[name][0] = min(size - 40, max(40, pos[name][0] + mx / length * min(length, step)))
            pos[name][1] = min(size - 20, max(20, pos[name][1] + my / length * min(length, step)))
        step *= 0.93
    return {name: (round(x, 1), round(y, 1)) for name, (x, y) in pos.items()}


def graph_svg(views: list[ConceptView]) -> Html:
    names = [v.name for v in views]
    drawn = set(names)
    edges = sorted({(min(v.name, n.name), max(v.name, n.name), n.count)
                    for v in views for n in v.neighbours if n.name in drawn and n.name != v.name})
    at = layout(names, edges)
    lines = [tag("line", tag("title", f"{a} – {b}: {w}"), x1=at[a][0], y1=at[a][1], x2=at[b][0], y2=at[b][1],
                 stroke_width=min(1 + w, 6), class_="edge") for a, b, w in edges]
    nodes = [tag("g", tag("title", f"{v.name}: {v.count} memories"),
                 tag("circle", cx=at[v.name][0], cy=at[v.name][1], r=round(4 + 2 * math.sqrt(v.count), 1),
                     class_="node"),
                 tag("text", v.name, x=at[v.name][0], y=at[v.name][1] - 8, text_anchor="middle"),
                 class_="concept") for v in views]
    return tag("svg", tag("title", "concept graph"), *lines, *nodes, xmlns="http://www.w3.org/2000/svg",
               viewBox=f"0 0 {SIZE} {SIZE}", role="img", class_="graph", aria_label="concept graph")


def render(console: Console, request: Request) -> HTMLResponse:
    csrf = console.session(request).csrf
    views = console.memory.concepts(console.project, limit=DRAWN)
    names = [(v.name, v.name) for v in views]
    reason = field_input("reason", "reason")
    verdicts = [
        Form("/concepts/verdict", csrf, [hidden("verb", "merge"),
                                         select("a", "merge", names), select("b", "into", names), reason],
             button="Merge"),
        Form("/concepts/verdict", csrf, [hidden("verb", "dismiss"),
                                         select("a", "dismiss the pair", names), select("b", "and", names), reason],
             button="Dismiss pair"),
        Form("/concepts/verdict", csrf, [hidden("verb", "remove"),
                                         select("a", "remove", names), reason], button="Remove"),
    ]
    listing = table(("concept", "memories", "also", "with"),
                    [[tag("strong", v.name), v.count, ", ".join(v.aliases),
                      ", ".join(f"{n.name} ×{n.count}" for n in v.neighbours)] for v in views], "concepts")
    body: list[object] = [graph_svg(views), tag("section", *[f.render() for f in verdicts], class_="verbs"), listing] \
        if views else [tag("p", "No concepts yet (`cenotaph concepts rebuild` derives them).", class_="muted")]
    return console.page(request, "Concepts", body, current="/concepts")


def verdict(console: Console, form: dict[str, str]) -> Notice:
    b = form.get("b") if form.get("verb") != "remove" else None
    result = console.memory.concept_verdict(console.actor, form.get("verb", ""), form.get("a", ""), b,
                                            project=console.project, reason=form.get("reason") or None)
    # A person's verdict is applied at once (only an agent's becomes a proposal).
    return Notice(f"{result.verb} {result.concept}" + (f" → {result.other}" if result.other else "")
                  if not isinstance(result, ProposalRow) else outcome(result))


PAGES = (("/concepts", render),)
ACTIONS = (("/concepts/verdict", verdict),)

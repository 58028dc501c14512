"""HTML from domain records: every value is escaped here, at render time (`text`, `attr`), never on
the write path; the markup around it is the console's own. No content becomes a URL except a feed
entry's link, and only an http(s) one (`safe_url`)."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit


class Html(str):
    """Markup the console built (its values already escaped): `text` leaves it as it is."""


def text(value: object) -> Html:
    """Any value as inert text: `<`, `>`, `&` and both quotes escaped."""
    if isinstance(value, Html):
        return value
    return Html(html.escape("" if value is None else str(value), quote=True))


def attr(value: object) -> str:
    """A value for a double-quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def join(parts: Iterable[object]) -> Html:
    return Html("".join(text(p) for p in parts))


def tag(name: str, /, *children: object, **attrs: object) -> Html:
    """`<name a="v">children</name>`; an attribute `class_` is `class`, None or False leaves it out,
    True writes it bare."""
    rendered = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        key = key.rstrip("_").replace("_", "-")
        rendered.append(f" {key}" if value is True else f' {key}="{attr(value)}"')
    return Html(f"<{name}{''.join(rendered)}>{join(children)}</{name}>")


def void(name: str, /, **attrs: object) -> Html:
    return Html(tag(name, **attrs)[: -len(f"</{name}>")])


def link(href: str, label: object, **attrs: object) -> Html:
    """A link to one of the console's own pages (a path it built, never stored text)."""
    assert href.startswith("/"), href
    return tag("a", label, href=href, **attrs)


def safe_url(url: str | None) -> str | None:
    """A stored URL only if it is http(s): a `javascript:` or `data:` link from content never
    becomes an href."""
    if not url:
        return None
    return url if urlsplit(url.strip()).scheme.lower() in ("http", "https") else None


def page_url(path: str, **query: object) -> str:
    pairs = {k: v for k, v in query.items() if v not in (None, "")}
    return path + ("?" + urlencode(pairs) if pairs else "")


def short(value: str | None, limit: int = 200) -> str:
    flat = " ".join((value or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def day(at: str | None) -> str:
    return (at or "")[:16].replace("T", " ")


@dataclass(slots=True)
class Form:
    """A POST form with the session's CSRF token; `fields` are its inputs."""

    action: str
    csrf: str
    fields: list[Html] = field(default_factory=list)
    button: str = "Submit"
    css: str = "inline"

    def render(self) -> Html:
        return tag("form", void("input", type="hidden", name="csrf", value=self.csrf), *self.fields,
                   tag("button", self.button, type="submit"), method="post", action=self.action,
                   class_=self.css)


def hidden(name: str, value: object) -> Html:
    return void("input", type="hidden", name=name, value=value)


def field_input(name: str, label: str, *, value: object = None, required: bool = False,
                placeholder: str | None = None) -> Html:
    return tag("label", label, " ", void("input", type="text", name=name, value=value, required=required,
                                          placeholder=placeholder))


def select(name: str, label: str, options: Iterable[tuple[str, str]], selected: str | None = None) -> Html:
    return tag("label", label, " ", tag("select", *[tag("option", shown, value=value, selected=value == selected)
                                                    for value, shown in options], name=name))


def textarea(name: str, label: str, value: object = "", rows: int = 4) -> Html:
    return tag("label", label, tag("textarea", value, name=name, rows=rows, required=True), class_="block")


def table(headers: Iterable[str], rows: Iterable[Iterable[object]], css: str | None = None) -> Html:
    head = tag("tr", *[tag("th", h) for h in headers])
    body = [tag("tr", *[tag("td", cell) for cell in row]) for row in rows]
    return tag("table", tag("thead", head), tag("tbody", *body), class_=css)


def content_block(value: str | None) -> Html:
    """Stored text verbatim (whitespace kept by the stylesheet), escaped."""
    return tag("div", value if value is not None else "(forgotten: no content)", class_="content")


def diff_block(diff: str) -> Html:
    """A unified diff, each line marked added, removed or context by its class."""
    lines = []
    for line in diff.splitlines():
        css = "add" if line.startswith("+") and not line.startswith("+++") else \
            "del" if line.startswith("-") and not line.startswith("---") else "ctx"
        lines.append(tag("span", line + "\n", class_=css))
    return tag("pre", *lines, class_="diff")


NAV = (("/graveyard", "Graveyard"), ("/proposals", "Proposals"), ("/memories", "Memories"),
       ("/contradictions", "Contradictions"), ("/events", "Events"), ("/concepts", "Concepts"),
       ("/knowledge", "Knowledge"))


@dataclass(slots=True)
class Notice:
    message: str
    error: bool = False
    field: str | None = None
    undo: Html | None = None  # a form that undoes what was just done


def layout(title: str, body: Iterable[object], *, current: str, person: str, project: str, seq: int,
           notices: Iterable[Notice] = ()) -> Html:
    """The whole page: navigation, the notices left by the last action, and `body`. `data-seq` is
    the event log's head the page was rendered at (the live refresh compares it)."""
    nav = tag("nav", *[link(href, label, class_="current" if href == current else None) for href, label in NAV],
              tag("span", f"{person} · {project or 'global scope'}", class_="who"))
    shown = []
    for n in notices:
        where = tag("strong", f"{n.field}: ") if n.field else ""
        shown.append(tag("div", where, n.message, n.undo or "", class_="notice error" if n.error else "notice",
                         role="alert" if n.error else "status"))
    return Html("<!doctype html>\n" + tag(
        "html",
        tag("head", void("meta", charset="utf-8"), void("meta", name="viewport", content="width=device-width"),
            tag("title", f"{title} · Cenotaph"), void("link", rel="stylesheet", href="/static/console.css"),
            tag("script", src="/static/console.js", defer=True)),
        tag("body", nav, tag("main", *shown, tag("h1", title), *body, id="main", data_seq=seq)),
        lang="en"))

"""The console's Starlette application and its security at the door.

- Host: every request's Host header must name the bound address (DNS rebinding: a foreign page
  that resolves its own name to 127.0.0.1 is refused before anything else).
- Login: the per-start token, on any page's address (`?token=…`, as Jupyter takes it), is exchanged
  for a session: an HttpOnly, SameSite=Strict cookie named for the port (two consoles on one host
  keep theirs apart); the browser is sent on to the same address without the token.
- State changes: only POST, each with an Origin header naming this console and the session's CSRF
  token in its form (constant-time compares).
- Every answer: a Content-Security-Policy allowing only the console's own script and stylesheet
  (no inline script), nosniff, no framing, no referrer, no caching.
Pages are rendered by `pages/`; stored text becomes HTML only through `render.py`."""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from cenotaph import identity
from cenotaph.console.render import Html, Notice, layout, tag
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import Actor
from cenotaph.store.connect import StoreUnavailable

if TYPE_CHECKING:
    from cenotaph.memory.service import Memory

STATIC = Path(__file__).with_name("static")
MAX_SESSIONS = 64  # the oldest is dropped past this: a console is one person's, on a few browsers
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    # same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with a form POST.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


class Refused(Exception):
    """A request the door turns away (status and one sentence)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class Session:
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    notices: list[Notice] = field(default_factory=list)


@dataclass(slots=True)
class Console:
    """What every page works with: the domain, the project, the person logged in (the actor of
    every change made here), the login token and the sessions it opened."""

    memory: Memory
    project: str
    person: str
    token: str
    port: int
    hosts: frozenset[str]  # the Host headers this console answers to (`127.0.0.1:8765`, …)
    sessions: OrderedDict[str, Session] = field(default_factory=OrderedDict)
    audit_cache: tuple[int, Any] | None = None  # (head, AuditReport): the chain verified up to the head

    @property
    def actor(self) -> Actor:
        return identity.human("console", self.person)

    @property
    def cookie(self) -> str:
        return f"cenotaph_console_{self.port}"

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts)

    def open_session(self) -> str:
        sid = secrets.token_urlsafe(32)
        self.sessions[sid] = Session()
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)
        return sid

    def session(self, request: Request) -> Session:
        return request.scope["console.session"]

    def page(self, request: Request, title: str, body: list[Any], *, current: str) -> HTMLResponse:
        """A page, with the notices the last action left for this session (shown once)."""
        session = self.session(request)
        notices, session.notices = session.notices, []
        return self.sheet(title, body, current=current, notices=notices)

    def sheet(self, title: str, body: list[Any], *, current: str, notices: list[Notice] | None = None) -> HTMLResponse:
        """A page answering an action itself (a preview that asks for confirmation)."""
        return HTMLResponse(layout(title, body, current=current, person=self.person, project=self.project,
                                   seq=self.memory.change_seq(), notices=notices or []))


def hosts_for(host: str, port: int) -> frozenset[str]:
    from cenotaph.mcp.listener import is_loopback, url_host

    names = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    if not is_loopback(host):
        names.add(f"{url_host(host)}:{port}")
    return frozenset(names)


class Door:
    """The ASGI middleware that checks Host, exchanges the token, finds the session and adds the
    security headers; static files need a session too (nothing is served to a stranger)."""

    def __init__(self, app: ASGIApp, console: Console) -> None:
        self.app = app
        self.console = console

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.decode().lower() not in SECURITY_HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        request = Request(scope)
        try:
            response = self._admit(request)
        except Refused as refusal:
            response = refused_page(refusal.status, str(refusal))
        if response is not None:
            await response(scope, receive, secured)
            return
        await self.app(scope, receive, secured)

    def _admit(self, request: Request) -> Response | None:
        console = self.console
        if request.headers.get("host", "") not in console.hosts:
            raise Refused(403, "This console answers only at the address it printed (the Host header names another).")
        given = request.query_params.get("token")
        if given is not None:
            if not hmac.compare_digest(given.encode(), console.token.encode()):
                raise Refused(403, "That login token is not this console's: open the address `cenotaph console` printed.")
            if request.method != "GET":
                raise Refused(405, "Log in with a GET of the address `cenotaph console` printed.")
            rest = urlencode([(k, v) for k, v in parse_qsl(request.url.query, keep_blank_values=True) if k != "token"])
            response = RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(console.cookie, console.open_session(), httponly=True, samesite="strict", path="/")
            return response
        session = console.sessions.get(request.cookies.get(console.cookie, ""))
        if session is None:
            raise Refused(403, "Not logged in: open the address `cenotaph console` printed (it carries the token).")
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            if origin is None or origin not in console.origins:
                raise Refused(403, "Refused: a change must come from this console's own pages (the Origin differs).")
        request.scope["console.session"] = session
        return None


def refused_page(status: int, message: str) -> HTMLResponse:
    body = tag("html", tag("head", tag("title", "Cenotaph console")), tag("body", tag("p", message)))
    return HTMLResponse("<!doctype html>\n" + body, status_code=status)


Action = Callable[[Console, dict[str, str]], Notice | Response]


async def checked_form(console: Console, request: Request) -> dict[str, str]:
    """The form of a POST whose CSRF token is the session's."""
    form = await request.form()
    values = {k: v for k, v in form.multi_items() if isinstance(v, str)}
    values["_ids"] = ",".join(v for k, v in form.multi_items() if k == "id" and isinstance(v, str))
    sent = values.get("csrf", "")
    if not hmac.compare_digest(sent.encode(), console.session(request).csrf.encode()):
        raise Refused(403, "Refused: the form's CSRF token is missing or not this session's (reload the page).")
    return values


def back_to(values: dict[str, str], default: str) -> str:
    """Where to go after an action: the form's `next`, if it is one of the console's own paths."""
    target = values.get("next") or default
    return target if target.startswith("/") and not target.startswith("//") and "\\" not in target else default


def action(console: Console, run: Action) -> Callable[[Request], Awaitable[Response]]:
    """A POST endpoint: check the form, run the domain call off the event loop, keep its notice (a
    domain error names its field) for the page it redirects to. `run` may answer with a page of
    its own instead (a preview that asks for confirmation)."""

    async def endpoint(request: Request) -> Response:
        try:
            values = await checked_form(console, request)
        except Refused as refusal:
            return refused_page(refusal.status, str(refusal))
        values.update(request.path_params)
        try:
            outcome = await run_in_threadpool(run, console, values)
        except CenotaphError as exc:
            outcome = Notice(exc.message, error=True, field=exc.field)
        except StoreUnavailable as exc:  # e.g. a PostgreSQL role that may not do this (store.connect.NotPermitted)
            outcome = Notice(str(exc), error=True, field="store")
        if isinstance(outcome, Response):
            return outcome
        console.session(request).notices.append(outcome)
        return RedirectResponse(back_to(values, request.url.path.rsplit("/", 1)[0] or "/"), status_code=303)

    return endpoint


def page(console: Console, render: Callable[[Console, Request], HTMLResponse]) -> Callable[[Request], Awaitable[Response]]:
    """A GET endpoint rendered off the event loop; a domain error (a bad query value) is a page
    message naming its field."""

    async def endpoint(request: Request) -> Response:
        try:
            return await run_in_threadpool(render, console, request)
        except CenotaphError as exc:
            console.session(request).notices.append(Notice(exc.message, error=True, field=exc.field))
            return console.page(request, "Error", [Html("")], current=request.url.path)

    return endpoint


def build_app(console: Console) -> ASGIApp:
    from cenotaph.console.pages import (
        concepts,
        graveyard,
        knowledge,
        memories,
        proposals,
        review,
    )

    routes: list[Any] = [
        Route("/", lambda request: RedirectResponse("/graveyard", status_code=303)),
        Route("/api/head", lambda request: JSONResponse({"seq": console.memory.change_seq()})),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    for module in (graveyard, proposals, memories, review, concepts, knowledge):
        for path, render in module.PAGES:
            routes.append(Route(path, page(console, render), methods=["GET"]))
        for path, run in module.ACTIONS:
            routes.append(Route(path, action(console, run), methods=["POST"]))
    return Door(Starlette(routes=routes), console)

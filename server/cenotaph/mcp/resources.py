"""The project's graveyard (Markdown and JSON), its ledger and each memory as MCP resources, and
their change notifications: a client that subscribed (`resources/subscribe`, or a
`subscriptions/listen` stream on the 2026-07-28 wire) is told when one reads differently.
Changes are found as the language server's live refresh finds them: the event log's head is
polled, and only when it moved are the resources a client has read rendered again."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated, ServerEvent

from cenotaph.ledger import graveyard_line, one_per_name, render_for
from cenotaph.mcp.tools.base import ToolEnv
from cenotaph.mcp.tools.results import result
from cenotaph.memory.errors import CenotaphError, NotFound

log = logging.getLogger(__name__)

GRAVEYARD = "cenotaph://graveyard"
GRAVEYARD_JSON = "cenotaph://graveyard.json"
LEDGER = "cenotaph://ledger"
MEMORY = "cenotaph://memory/{id}"
PROJECT_RESOURCES = (GRAVEYARD, GRAVEYARD_JSON, LEDGER)
_MEMORY_URI = re.compile(r"^cenotaph://memory/([1-9][0-9]*)$")
POLL_SECONDS = 0.25


def graveyard_markdown(env: ToolEnv) -> str:
    entries = one_per_name(env.memory.graveyard.in_scope(env.project))
    lines = [f"# Graveyard · {env.project or 'global scope'}", "",
             "Approaches abandoned here: do not suggest them without telling the user the reason.", ""]
    lines += [graveyard_line(a, env.project, shared) for a, shared in entries] or ["_none_"]
    return "\n".join(lines) + "\n"


def graveyard_json(env: ToolEnv) -> str:
    approaches = sorted(env.memory.graveyard.in_scope(env.project), key=lambda a: a.updated_at, reverse=True)
    return json.dumps({"project": env.project,
                       "approaches": [result(a).model_dump(mode="json") for a in approaches]},
                      ensure_ascii=False, indent=2)


def memory_json(env: ToolEnv, memory_id: int) -> str:
    return result(env.memory.get(memory_id)).model_dump_json(indent=2)


class _ListenedBus(InMemorySubscriptionBus):
    """The in-process bus, telling the watch when a `subscriptions/listen` stream opens: the
    stream's URI filter is not ours to see, so the project's resources are watched from then."""

    def __init__(self, on_listen: Callable[[], None]) -> None:
        super().__init__()
        self._on_listen = on_listen

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        self._on_listen()
        return super().subscribe(listener)


class ResourceWatch:
    """What each resource read as when a client last saw it, the clients subscribed to it on
    the handshake-era wire, and the bus that `subscriptions/listen` streams listen on."""

    def __init__(self, env: ToolEnv) -> None:
        self.env = env
        self.bus = _ListenedBus(self._watch_project_resources)
        self.shown: dict[str, str] = {}
        self.subscribers: dict[str, set[ServerSession]] = {}
        self._seen_seq: int | None = None
        self._running = False

    def _render(self, uri: str) -> str:
        static: dict[str, Callable[[ToolEnv], str]] = {
            GRAVEYARD: graveyard_markdown, GRAVEYARD_JSON: graveyard_json,
            LEDGER: lambda env: render_for(env.memory, env.project).text}
        with self.env.domain():
            if uri in static:
                return static[uri](self.env)
            found = _MEMORY_URI.match(uri)
            if found is None:
                raise ResourceNotFoundError(f"no Cenotaph resource {uri!r}")
            return memory_json(self.env, int(found.group(1)))

    def _watch_project_resources(self) -> None:
        """Take the project's resources' current text as the base to compare with (on the event
        loop, once per listen stream: a few queries)."""
        if self._seen_seq is None:
            self._seen_seq = self.env.memory.change_seq()
        for uri in PROJECT_RESOURCES:
            if uri not in self.shown:
                try:
                    self.shown[uri] = self._render(uri)
                except CenotaphError as exc:
                    log.warning("resource %s: %s", uri, exc)

    async def read(self, uri: str) -> str:
        """Render `uri` off the event loop (tool calls share the connection) and keep what it showed."""
        if self._seen_seq is None:
            self._seen_seq = await anyio.to_thread.run_sync(self.env.memory.change_seq)
        try:
            text = await anyio.to_thread.run_sync(self._render, uri)
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except CenotaphError as exc:
            raise ResourceError(str(exc)) from None
        self.shown[uri] = text
        return text

    async def subscribe(self, ctx: ServerRequestContext, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        self.subscribers.setdefault(uri, set()).add(ctx.session)
        if uri not in self.shown:
            await self.read(uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext,
                          params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        self.subscribers.get(str(params.uri), set()).discard(ctx.session)
        return types.EmptyResult()

    async def follow(self, interval: float = POLL_SECONDS) -> None:
        """Until cancelled: when the store moved, tell who listens which resources changed.
        One loop per server however many sessions it runs."""
        while self._running:  # another session's loop follows; take over when it ends
            await anyio.sleep(interval)
        self._running = True
        try:
            while True:
                await anyio.sleep(interval)
                try:
                    await self._check()
                except Exception:  # noqa: BLE001 - a failed round must not end the watch
                    log.exception("resource change notifications")
        finally:
            self._running = False

    async def _check(self) -> None:
        if not self.shown:
            return
        seq = await anyio.to_thread.run_sync(self.env.memory.change_seq)
        if seq == self._seen_seq:
            return
        self._seen_seq = seq
        for uri, before in list(self.shown.items()):
            try:
                text = await anyio.to_thread.run_sync(self._render, uri)
            except (ResourceError, CenotaphError):
                text = ""  # gone: a change too
            if text == before:
                continue
            self.shown[uri] = text
            await self.bus.publish(ResourceUpdated(uri=uri))
            for session in list(self.subscribers.get(uri, ())):
                try:
                    await session.send_resource_updated(uri)
                except Exception:  # noqa: BLE001 - a closed session stops listening
                    self.subscribers[uri].discard(session)


def register(server: MCPServer, watch: ResourceWatch) -> None:
    """The resources on `server`, and the handshake-era subscribe verbs (the SDK's MCPServer
    serves only `subscriptions/listen` on its own)."""
    for uri, name, mime, description in (
        (GRAVEYARD, "graveyard", "text/markdown",
         "The approaches abandoned in this project (and everywhere), with their reasons."),
        (GRAVEYARD_JSON, "graveyard.json", "application/json", "The graveyard as JSON: one object per approach."),
        (LEDGER, "ledger", "text/markdown",
         "The project's ledger: graveyard, open contradictions, deprioritised memories, pending proposals."),
    ):
        server.resource(uri, name=name, mime_type=mime, description=description)(_reader(watch, uri))

    @server.resource(MEMORY, name="memory", mime_type="application/json",
                     description="One memory by id (as remember and recall return them), with its state and trust.")
    async def memory_resource(id: str) -> str:  # noqa: A002 - the template's variable
        return await watch.read(f"cenotaph://memory/{id}")

    lowlevel = server._lowlevel_server  # noqa: SLF001 - the SDK's documented way to add a request handler
    lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, watch.subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, watch.unsubscribe)


def _reader(watch: ResourceWatch, uri: str) -> Callable[[], object]:
    async def read() -> str:
        return await watch.read(uri)

    read.__name__ = uri.removeprefix("cenotaph://").replace(".", "_")
    return read

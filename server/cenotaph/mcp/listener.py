"""MCP over Streamable HTTP for a process whose stdio is taken (the language server's): the
address is bound, its bearer token made and its endpoint file written at once, so that the
editor and agents can be told where it is; the MCP stack behind it (the SDK, Starlette, uvicorn
and the tool schemas: 0.85 s of CPU and tens of MB, `cenotaph.mcp.http`) is loaded when the first
connection arrives, which waits in the socket's queue meanwhile. An editor session no agent
joins never loads it."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import ipaddress
import logging
import os
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cenotaph.mcp.endpoints import store_key, write_endpoint_file
from cenotaph.memory.errors import InvalidInput

if TYPE_CHECKING:
    from cenotaph.memory.service import Memory

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
MIN_TOKEN_LENGTH = 32


class _Redact(logging.Filter):
    """Masks secrets in every record a handler writes: pygls logs each message it sends at INFO,
    the endpoint report (and so the token) included."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "<token>")
            record.msg, record.args = message, None
        return True


_redact = _Redact()


def hide_in_logs(secret: str) -> None:
    """Keep `secret` out of every log this process writes (filters on the root's handlers see
    the records of every logger)."""
    _redact.secrets.add(secret)
    for handler in logging.getLogger().handlers:
        if _redact not in handler.filters:
            handler.addFilter(_redact)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket that says it is one (protocol IPPROTO_TCP, not 0 as
    `socket.create_server` leaves it): asyncio sets TCP_NODELAY only on connections whose
    socket says so. Without it, the end of each answer on a kept-alive connection waited for the
    client's delayed ACK, 40 ms a call (docs/benchmarks-history.md, "MCP over HTTP")."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen()
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


@dataclass(slots=True, eq=False)
class HttpEndpoint:
    url: str
    token: str
    project: str
    store: str
    endpoint_file: Path | None
    memory: Memory = field(repr=False)
    host: str = field(repr=False)
    workspace: Path | None = field(repr=False)
    sock: socket.socket = field(repr=False)
    _loading: asyncio.Task[None] | None = field(default=None, repr=False)
    _server: Any = field(default=None, repr=False)  # cenotaph.mcp.http's uvicorn server, once serving
    _serving: asyncio.Task[None] | None = field(default=None, repr=False)

    def report(self) -> dict[str, str]:
        """What the language server tells its editor (shared_schema/endpoint.schema.json)."""
        return {"url": self.url, "token": self.token, "project": self.project, "store": self.store}

    def _on_first_connection(self) -> None:
        loop = asyncio.get_running_loop()
        loop.remove_reader(self.sock)  # called once: the stack takes over the socket
        self._loading = loop.create_task(self._serve(), name="cenotaph-mcp-load")

    async def _serve(self) -> None:
        """Load the MCP stack and serve. When it cannot load, the endpoint is taken down, so that
        agents serve themselves rather than wait."""
        try:  # the import, most of a second, off the loop: the editor's requests go on meanwhile
            http = await asyncio.to_thread(importlib.import_module, "cenotaph.mcp.http")
            self._server, self._serving = await http.start_serving(self)
            await http.started(self._server, self._serving)
        except Exception:
            log.exception("MCP over HTTP at %s could not start: the endpoint is closed", self.url)
            await self.stop()

    async def stop(self) -> None:
        """Stop serving (open streams get a short grace) and remove the endpoint file."""
        if self.endpoint_file is not None:
            self.endpoint_file.unlink(missing_ok=True)
            self.endpoint_file = None
        loading, self._loading = self._loading, None
        if loading is not None and loading is not asyncio.current_task() and not loading.done():
            loading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await loading
        with contextlib.suppress(ValueError, OSError, RuntimeError):
            asyncio.get_running_loop().remove_reader(self.sock)
        if self._server is not None:
            self._server.should_exit = True
            # SystemExit: uvicorn's way of reporting a failed start, which _serve has logged.
            with contextlib.suppress(asyncio.CancelledError, SystemExit):
                await self._serving
            self._server = self._serving = None
        self.sock.close()


async def open_http(memory: Memory, *, project: str, host: str = "127.0.0.1", port: int = 0,
                    token: str | None = None, allow_remote: bool = False, endpoint_file: bool = True,
                    workspace: Path | None = None) -> HttpEndpoint:
    """MCP on `http://host:port/mcp` for the running loop, served from the first connection on.
    `port` 0 lets the OS choose; the token is random per start unless given. A non-loopback
    `host` is refused unless `allow_remote` and an explicit `token` are both given. With
    `endpoint_file`, `{url, token, project, store}` is written to `<pid>.json`, a 0600 file
    (see `write_endpoint_file`) that `stop()` removes; `cenotaph mcp` for the same store and
    project then forwards to it instead of loading the models again."""
    if not is_loopback(host) and not (allow_remote and token):
        raise InvalidInput(f"{host!r} is not a loopback address; serving MCP beyond this machine needs "
                           "allow_remote and an explicit token", field="host")
    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        raise InvalidInput(f"a bearer token needs at least {MIN_TOKEN_LENGTH} characters", field="token")
    token = token or secrets.token_urlsafe(32)
    hide_in_logs(token)
    # Bound here, so that the URL is known and a failed bind raises here (uvicorn would call
    # sys.exit inside the host's loop).
    sock = listen(host, port)
    url = f"http://{url_host(host)}:{sock.getsockname()[1]}{MCP_PATH}"
    store = store_key(memory.ctx.store.path)
    try:
        path = write_endpoint_file(url, token, project, os.getpid(), store=store) if endpoint_file else None
    except BaseException:
        sock.close()
        raise
    endpoint = HttpEndpoint(url=url, token=token, project=project, store=store, endpoint_file=path, memory=memory,
                            host=host, workspace=workspace, sock=sock)
    asyncio.get_running_loop().add_reader(sock, endpoint._on_first_connection)
    log.info("MCP over HTTP at %s for project %r", url, project)
    return endpoint

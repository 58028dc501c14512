"""MCP over Streamable HTTP from inside another process's event loop (the language server's:
its stdio belongs to the editor), behind a per-start bearer token, with Origin/Host checks;
and the endpoint files that let agents on this machine find it."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import os
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from cenotaph.mcp.endpoints import store_key, write_endpoint_file
from cenotaph.mcp.server import build_server
from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.service import Memory

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
SHUTDOWN_GRACE_SECONDS = 1
MIN_TOKEN_LENGTH = 32


class EndpointReport(BaseModel):
    """What the language server tells its editor client (shared_schema/endpoint.schema.json)."""

    url: str
    token: str
    project: str
    store: str | None = None



# --- the server ----------------------------------------------------------------------------------


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


class _BearerToken:
    """The SDK's TokenVerifier for the one token this start accepts (constant-time compare)."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="cenotaph-local", scopes=[])
        return None


class _HostOriginGuard:
    """DNS-rebinding checks on every request, before authentication: a page from a foreign
    origin learns nothing, not even whether a token would have worked. A foreign Host is
    forbidden (403) like a foreign Origin; the SDK's 421 would invite a retry elsewhere."""

    def __init__(self, app: ASGIApp, settings: TransportSecuritySettings) -> None:
        self.app = app
        self._checks = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._checks.validate_request(Request(scope), is_post=False)
            if refusal is not None and refusal.status_code == 421:
                refusal = Response("Invalid Host header", status_code=403)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the host process (the language server) owns them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass(slots=True)
class HttpEndpoint:
    url: str
    token: str
    project: str
    store: str
    endpoint_file: Path | None
    _server: _EmbeddedServer = field(repr=False)
    _task: asyncio.Task[None] = field(repr=False)

    def report(self) -> EndpointReport:
        return EndpointReport(url=self.url, token=self.token, project=self.project, store=self.store)

    async def stop(self) -> None:
        """Stop serving (open streams get SHUTDOWN_GRACE_SECONDS) and remove the endpoint file."""
        if self.endpoint_file is not None:
            self.endpoint_file.unlink(missing_ok=True)
            self.endpoint_file = None
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _security(host: str, port: int) -> TransportSecuritySettings:
    hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if not _is_loopback(host):
        hosts.append(f"{_url_host(host)}:{port}")
        origins.append(f"http://{_url_host(host)}:{port}")
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def _listen(host: str, port: int) -> socket.socket:
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
    except BaseException:
        sock.close()
        raise
    return sock


async def serve_http(memory: Memory, *, project: str, host: str = "127.0.0.1", port: int = 0,
                     token: str | None = None, allow_remote: bool = False,
                     endpoint_file: bool = True, workspace: Path | None = None) -> HttpEndpoint:
    """Serve the MCP tools on `http://host:port/mcp` as a task on the running loop. `port` 0
    lets the OS choose; the token is random per start unless given. A non-loopback `host` is
    refused unless `allow_remote` and an explicit `token` are both given. With
    `endpoint_file`, `{url, token, project, store}` is written to `<pid>.json`, a 0600 file
    (see `write_endpoint_file`) that `stop()` removes; `cenotaph mcp` for the same store and
    project then forwards to it instead of loading the models again."""
    if not _is_loopback(host) and not (allow_remote and token):
        raise InvalidInput(f"{host!r} is not a loopback address; serving MCP beyond this machine needs "
                           "allow_remote and an explicit token", field="host")
    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        raise InvalidInput(f"a bearer token needs at least {MIN_TOKEN_LENGTH} characters", field="token")
    token = token or secrets.token_urlsafe(32)
    hide_in_logs(token)

    # Bound before uvicorn starts, so the URL is known and a failed bind raises here (uvicorn
    # would call sys.exit inside the host's loop).
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    url = f"http://{_url_host(host)}:{port}{MCP_PATH}"

    # No resource_server_url: there is no OAuth server to point clients at, only the token.
    auth = AuthSettings(issuer_url=f"http://{_url_host(host)}:{port}", resource_server_url=None)
    try:
        # Off the loop: the first build of the tool schemas takes a noticeable fraction of a second.
        mcp = await asyncio.to_thread(build_server, memory, project=project, token_verifier=_BearerToken(token),
                                      auth=auth, workspace=workspace)
    except BaseException:
        sock.close()
        raise
    security = _security(host, port)
    app = _HostOriginGuard(mcp.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=security,
                                                   host=host), security)
    config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS)
    server = _EmbeddedServer(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name="cenotaph-mcp-http")
    while not server.started:
        if task.done():
            sock.close()
            try:
                task.result()
            except SystemExit:  # uvicorn's way of reporting a failed startup
                pass
            raise RuntimeError("the MCP HTTP server stopped while starting (see the log)")
        await asyncio.sleep(0.01)
    store = store_key(memory.ctx.store.path)
    path = write_endpoint_file(url, token, project, os.getpid(), store=store) if endpoint_file else None
    log.info("MCP over HTTP at %s for project %r", url, project)
    return HttpEndpoint(url=url, token=token, project=project, store=store, endpoint_file=path, _server=server,
                        _task=task)

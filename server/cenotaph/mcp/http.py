"""MCP over Streamable HTTP from inside another process's event loop (the language server's:
its stdio belongs to the editor), behind a per-start bearer token, with Origin/Host checks. The
address, token and endpoint file come first, from `cenotaph.mcp.listener`, which loads this
module when the first connection arrives."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import Iterator

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from cenotaph.mcp.listener import MCP_PATH, HttpEndpoint, is_loopback, url_host
from cenotaph.mcp.server import build_server

SHUTDOWN_GRACE_SECONDS = 1


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


def _security(host: str, port: int) -> TransportSecuritySettings:
    hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if not is_loopback(host):
        hosts.append(f"{url_host(host)}:{port}")
        origins.append(f"http://{url_host(host)}:{port}")
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


async def start_serving(endpoint: HttpEndpoint) -> tuple[_EmbeddedServer, asyncio.Task[None]]:
    """Serve the MCP tools on the endpoint's bound socket, as a task on the running loop (the
    connections waiting in its queue are the first answered); `started` waits for it."""
    host, port = endpoint.host, endpoint.sock.getsockname()[1]
    # No resource_server_url: there is no OAuth server to point clients at, only the token.
    auth = AuthSettings(issuer_url=f"http://{url_host(host)}:{port}", resource_server_url=None)
    # Off the loop: the first build of the tool schemas takes a noticeable fraction of a second.
    mcp = await asyncio.to_thread(build_server, endpoint.memory, project=endpoint.project,
                                  token_verifier=_BearerToken(endpoint.token), auth=auth,
                                  workspace=endpoint.workspace)
    security = _security(host, port)
    app = _HostOriginGuard(mcp.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=security,
                                                   host=host), security)
    config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS)
    server = _EmbeddedServer(config)
    return server, asyncio.get_running_loop().create_task(server.serve(sockets=[endpoint.sock]),
                                                          name="cenotaph-mcp-http")


async def started(server: _EmbeddedServer, task: asyncio.Task[None]) -> None:
    while not server.started:
        if task.done():
            try:
                task.result()
            except SystemExit:  # uvicorn's way of reporting a failed startup
                pass
            raise RuntimeError("the MCP HTTP server stopped while starting (see the log)")
        await asyncio.sleep(0.01)

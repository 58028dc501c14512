"""The MCP endpoint report (shared_schema/endpoint.schema.json): where this process serves MCP,
sent to the editor so that it can register the server for its agent."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pydantic import Field

from cenotaph import project as project_resolution
from cenotaph.lsp.convert import Wire
from cenotaph.mcp.listener import open_http
from cenotaph.memory.errors import CenotaphError

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

NOTIFICATION = "cenotaph/mcpEndpoint"


class EndpointReport(Wire):
    url: str = Field(pattern=r"^http://127\.0\.0\.1:[0-9]{1,5}/")
    token: str = Field(min_length=32)
    project: str
    store: str | None = None


def send(ls: ServerContext, report: EndpointReport) -> None:
    ls.protocol.notify(NOTIFICATION, report.dump())


async def start(ls: ServerContext) -> None:
    """Serve MCP over HTTP from this process, on this loop, and tell the editor where (the MCP
    stack loads when an agent first connects)."""
    settings = ls.memory.settings
    if not settings.mcp_enabled:
        return
    project = ls.folders[-1][1] if ls.folders else (ls.explicit_project or project_resolution.resolve(None, Path.cwd()))
    workspace = ls.folders[-1][0] if ls.folders else project_resolution.repository_root(Path.cwd())
    try:
        served = await open_http(ls.memory, project=project, host=settings.mcp_host, port=settings.mcp_port,
                                 token=settings.mcp_token, allow_remote=settings.mcp_allow_remote,
                                 workspace=workspace)
    except (CenotaphError, OSError) as exc:
        log.error("MCP over HTTP not started: %s", exc)
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"Cenotaph: MCP endpoint not started: {exc}"))
        return
    ls.mcp_endpoint = served
    send(ls, EndpointReport(url=served.url, token=served.token, project=served.project, store=served.store))


async def stop(ls: ServerContext) -> None:
    served, ls.mcp_endpoint = ls.mcp_endpoint, None
    if served is not None:
        await served.stop()

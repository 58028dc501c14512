"""The MCP endpoint report (shared_schema/endpoint.schema.json): where this process serves MCP,
sent to the editor so that it can register the server for its agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from cenotaph.lsp.convert import Wire

if TYPE_CHECKING:
    from cenotaph.lsp.server import CenotaphServer

NOTIFICATION = "cenotaph/mcpEndpoint"


class EndpointReport(Wire):
    url: str = Field(pattern=r"^http://127\.0\.0\.1:[0-9]{1,5}/")
    token: str = Field(min_length=32)
    project: str


def send(ls: CenotaphServer, report: EndpointReport) -> None:
    ls.protocol.notify(NOTIFICATION, report.dump())

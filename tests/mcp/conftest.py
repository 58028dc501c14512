"""An in-process MCP client on the real tool server over a fresh store."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, Implementation

from cenotaph.mcp.server import build_server
from cenotaph.memory.service import Memory

PROJECT = "github.com/acme/shop"
CLIENT_NAME = "test-agent"


@pytest.fixture
def server(memory: Memory) -> MCPServer:
    return build_server(memory, project=PROJECT)


@asynccontextmanager
async def connect(server: MCPServer, name: str = CLIENT_NAME) -> AsyncIterator[Client]:
    async with Client(server, client_info=Implementation(name=name, version="1.0")) as client:
        yield client


RENDERED = {"recall", "check_approaches"}  # their text is a short rendering, not the JSON


def nulls_in(value: Any, path: str = "") -> list[str]:
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [n for k, v in value.items() for n in nulls_in(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [n for i, v in enumerate(value) for n in nulls_in(v, f"{path}[{i}]")]
    return []


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A successful call's structured result, which holds no nulls; its text content is the same
    JSON (compact), or for a rendered tool the rendering."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert nulls_in(result.structured_content) == []
    if tool not in RENDERED:
        assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def call_text(client: Client, tool: str, **arguments: Any) -> str:
    """A successful call's text: what an agent reads."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.content[0].text


async def call_error(client: Client, tool: str, **arguments: Any) -> str:
    """A failed call's message (an error result, not a protocol error or a crash)."""
    result: CallToolResult = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = "\n".join(c.text for c in result.content)
    assert "Traceback" not in text
    return text

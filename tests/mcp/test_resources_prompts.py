"""Resources and prompts, through the SDK's client on the real server: what they list, what they
read, and the change notifications on both wires (2026-07-28 `subscriptions/listen`, and the
handshake era's `resources/subscribe`)."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation

from cenotaph.memory.models import Actor
from tests.mcp.conftest import PROJECT, call, connect

AGENT = Actor(name="other-agent", kind="agent")
NOTIFIED_WITHIN_SECONDS = 10  # bounds a stuck test; the watch polls every quarter second


async def test_resources_and_templates_are_listed(server):
    async with connect(server) as client:
        listed = {r.uri: r.mime_type for r in (await client.list_resources()).resources}
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        capabilities = client.server_capabilities
    assert listed == {"cenotaph://graveyard": "text/markdown", "cenotaph://graveyard.json": "application/json",
                      "cenotaph://ledger": "text/markdown"}
    assert templates == ["cenotaph://memory/{id}"]
    assert capabilities.resources.subscribe and capabilities.prompts is not None


async def test_graveyard_ledger_and_memory_read_what_the_store_holds(server, memory):
    memory.abandon(AGENT, "is-odd", reason="a dependency for x % 2", project="another/project")  # not listed
    async with connect(server) as client:
        empty = (await client.read_resource("cenotaph://graveyard")).contents[0].text
        abandoned = await call(client, "abandon", name="left-pad", reason="one line of code", effort=2)
        markdown = (await client.read_resource("cenotaph://graveyard")).contents[0].text
        data = json.loads((await client.read_resource("cenotaph://graveyard.json")).contents[0].text)
        ledger = (await client.read_resource("cenotaph://ledger")).contents[0].text
        memory_id = abandoned["memory_id"]
        one = json.loads((await client.read_resource(f"cenotaph://memory/{memory_id}")).contents[0].text)
        with pytest.raises(MCPError) as missing:
            await client.read_resource("cenotaph://memory/999999")
    assert "_none_" in empty and "left-pad" not in empty
    assert "**left-pad**" in markdown and "one line of code" in markdown and "is-odd" not in markdown
    assert data["project"] == PROJECT
    assert [(a["display_name"], a["reason"], a["effort"]) for a in data["approaches"]] == [
        ("left-pad", "one line of code", 2)]
    assert ledger.startswith(f"# Cenotaph ledger · {PROJECT}") and "**left-pad**" in ledger
    assert one["id"] == memory_id and "left-pad" in one["content"]
    assert "999999" in missing.value.error.message


async def _updated(received: list[str], uri: str) -> None:
    with anyio.fail_after(NOTIFIED_WITHIN_SECONDS):
        while uri not in received:
            await anyio.sleep(0.05)


async def test_listen_streams_hear_of_a_write_by_another_process(server, memory):
    async with connect(server) as client:
        assert client.protocol_version == "2026-07-28"
        async with client.listen(resource_subscriptions=["cenotaph://graveyard", "cenotaph://ledger"]) as sub:
            received: list[str] = []

            async def collect() -> None:
                async for event in sub:
                    received.append(event.uri)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(collect)
                await anyio.sleep(0.6)  # a full watch round with nothing written: nothing to tell
                quiet = list(received)
                # The store moves without this server's doing, as the CLI or an editor moves it.
                await anyio.to_thread.run_sync(lambda: memory.abandon(AGENT, "moment", reason="use date-fns",
                                                                      project=PROJECT))
                await _updated(received, "cenotaph://graveyard")
                await _updated(received, "cenotaph://ledger")
                tasks.cancel_scope.cancel()
    assert quiet == []
    assert "cenotaph://graveyard.json" not in received  # not in this stream's filter


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
async def test_handshake_era_subscribers_get_resources_updated(server, memory):
    received: list[str] = []

    async def on_message(message) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            received.append(str(message.params.uri))

    async with Client(server, mode="legacy", message_handler=on_message,
                      client_info=Implementation(name="old-agent", version="1")) as client:
        assert client.protocol_version != "2026-07-28"
        stored = await call(client, "remember", content="Builds are cached in ~/.cache/shop.")
        uri = f"cenotaph://memory/{stored['id']}"
        await client.session.subscribe_resource(uri)
        await client.session.subscribe_resource("cenotaph://graveyard")
        await anyio.to_thread.run_sync(lambda: memory.update(AGENT, stored["id"], content="Builds are cached in "
                                                             "~/.cache/shop-builds.", reason="moved"))
        await _updated(received, uri)
        assert "cenotaph://graveyard" not in received  # it reads as before
        await client.session.unsubscribe_resource(uri)
        await call(client, "abandon", name="left-pad", reason="one line of code")
        await _updated(received, "cenotaph://graveyard")
    assert received.count(uri) == 1


async def test_prompts_fill_in_what_the_memory_holds(server, memory):
    memory.abandon(AGENT, "left-pad", reason="one line of code", project=PROJECT)
    async with connect(server) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        start = (await client.get_prompt("session-start")).messages[0].content.text
        check = (await client.get_prompt("before-adding-a-dependency", {"names": "left-pad, requests"}))
        wrap = (await client.get_prompt("wrap-up")).messages[0].content.text
    assert set(prompts) == {"session-start", "before-adding-a-dependency", "wrap-up"}
    assert [a.name for a in prompts["before-adding-a-dependency"].arguments] == ["names"]
    assert PROJECT in start and "left-pad" in start and "one line of code" in start
    text = check.messages[0].content.text
    assert "- left-pad: abandoned (project) — one line of code" in text and "- requests: clear" in text
    assert "record_experience" in wrap and "abandoned" in wrap

"""An agent is never allowed to store a secret: the MCP tools answer with an error result that
names the field, the kind and the range and tells it to remove the secret; there is no override."""

from __future__ import annotations

from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from tests.conftest import CENOTAPH
from tests.mcp.conftest import PROJECT, call, call_error, connect
from tests.memory import secrets_real_text as real
from tests.memory.secrets_corpus import LOOK_ALIKES, SECRETS

HUMAN = Actor(name="cli", kind="human")
AWS = "AKIAQ3EGUWZXJ7NK4PLR"


async def test_every_fake_secret_is_refused_and_every_look_alike_stored(server, memory: Memory):
    async with connect(server) as client:
        for what, text, secret in SECRETS:
            message = await call_error(client, "remember", content=text)
            assert "content: " in message and " at " in message, what
            assert "remove the secret" in message and secret not in message, what
        for what, text in LOOK_ALIKES:
            stored = await call(client, "remember", content=text, force=True)
            assert stored["stored"], what
        message = await call_error(client, "record_experience", summary="moved the deploy", outcome="success",
                                   effort=2, gotchas=[f"the key {AWS} expired"])
    assert "gotchas[0]: AWS Access Key at 8–28" in message
    assert len(memory.recent(PROJECT, limit=100)) == len(LOOK_ALIKES)
    assert all(AWS not in e.after for e in memory.audit_log() if e.after)


async def test_real_text_an_agent_sends_prose_secrets_refused_identifiers_stored(server, memory: Memory):
    """Issue 27 through the MCP server: an agent's note of code is stored, its prose secret is
    refused naming the kind, even when it asks for redaction (there is no such argument)."""
    prose = [(what, text, secret) for what, text, secret in real.SECRET if what.startswith(("issue 27", "prose"))]
    async with connect(server) as client:
        for what, text, secret in prose:
            message = await call_error(client, "remember", content=text)
            assert "content: " in message and "remove the secret" in message and secret not in message, what
        for what, text in real.ORDINARY:
            assert (await call(client, "remember", content=text, force=True))["stored"], what
    assert len(memory.recent(PROJECT, limit=200)) == len(real.ORDINARY)


async def test_the_contradictions_answer_quotes_nothing_of_a_forgotten_side(server, memory: Memory):
    token = "zqxjvorblefumph"
    async with connect(server) as client:
        first = await call(client, "remember", content=f"Always run the {token} script before a staging deploy")
        await call(client, "remember", content=f"Never run the {token} script before a staging deploy")
        listed = await call(client, "inspect", what="contradictions")
        assert token in str(listed)  # the positive control: both sides are quoted while they exist
        memory.forget(HUMAN, first["id"], reason="named an internal script", confirm=True)
        settled = await call(client, "inspect", what="contradictions", status="resolved")
    assert settled["contradictions"] and "Always run" not in str(settled) and "Never run" in str(settled)
    assert memory.history(first["id"]).versions[0].content == ""


async def test_the_real_stdio_server_refuses_a_secret(tmp_path: Path, cli_env: dict[str, str]):
    repo = tmp_path / "repo"
    repo.mkdir()
    params = StdioServerParameters(command=CENOTAPH, args=["mcp", "--project", "acme/stdio"], env=cli_env, cwd=repo)
    async with Client(params, client_info=Implementation(name="stdio-agent", version="1")) as client:
        refused = await client.call_tool("remember", {"content": f"the key is {AWS} for the deploy user"})
        stored = await client.call_tool("remember", {"content": "the key is in the vault for the deploy user"})
    assert refused.is_error
    assert "content: AWS Access Key at 11–31" in refused.content[0].text and AWS not in refused.content[0].text
    assert not stored.is_error and stored.structured_content["stored"]

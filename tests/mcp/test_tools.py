"""Every tool through the SDK's in-process client, on the real store, embedder and analyzer."""

from __future__ import annotations

import pytest

from cenotaph.mcp.server import INSTRUCTIONS
from cenotaph.store import events

from tests.conftest import HUMAN
from tests.mcp.conftest import CLIENT_NAME, PROJECT, call, call_error, connect

ACTOR = f"mcp:{CLIENT_NAME}"
READ_ONLY = {"briefing", "recall", "check_approaches", "inspect", "candidates"}
DESTRUCTIVE = {"change"}  # it can forget
EXPECTED = READ_ONLY | DESTRUCTIVE | {
    "remember", "abandon", "record_experience", "approach", "settle", "mine", "compile", "share", "compact",
    "review_concept",
}
PRO = "Always use pnpm to install packages in this repository."
CONTRA = "Never use pnpm to install packages in this repository."


def _event_actors(memory, action: str) -> list[str]:
    with memory.ctx.store.read() as conn:
        return [e.actor for e in events.query(conn, target=None, since_at=None, limit=1000) if e.action == action]


async def test_tools_are_typed_annotated_and_described(server):
    async with connect(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert client.instructions == INSTRUCTIONS
    assert set(tools) == EXPECTED
    for name, tool in tools.items():
        assert 60 < len(tool.description) < 200, name  # one or two sentences: when to call it
        assert tool.description.count(". ") <= 1, name
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
        assert tool.annotations.destructive_hint is (name in DESTRUCTIVE), name
    assert "before suggesting" in tools["check_approaches"].description
    assert len(INSTRUCTIONS.splitlines()) <= 7


async def test_remember_and_recall_attribute_the_client(server, memory):
    async with connect(server) as client:
        stored = await call(client, "remember", content="Payments retry with exponential backoff, capped at 5 tries.",
                            kind="decision", tags=["payments"])
        found = await call(client, "recall", query="how do payment retries back off?")
    assert stored["stored"] is True and stored["trust"] == "unverified"
    assert found["project"] == PROJECT
    assert found["results"][0]["id"] == stored["id"]
    assert found["results"][0]["content"] == "Payments retry with exponential backoff, capped at 5 tries."
    assert _event_actors(memory, "remember") == [ACTOR]


async def test_recall_shows_the_share_an_answer_got_from_its_question(server):
    async with connect(server) as client:
        await call(client, "remember", content="What port does the staging API listen on?")
        answer = await call(client, "remember", content="8443, behind the nginx proxy.")
        other = await call(client, "remember", content="The staging API logs go to Loki.", force=True)
        found = await call(client, "recall", query="staging API port", explain=True)
    scores = {r["id"]: r["components"] for r in found["results"]}
    assert scores[answer["id"]]["passed_on"] > 0
    # Positive control: a memory that follows no question gets nothing passed on.
    assert scores[other["id"]]["passed_on"] == 0


async def test_client_name_comes_from_client_info(server, memory):
    async with connect(server, name="claude-code") as client:
        await call(client, "remember", content="The staging database is reset every Monday.")
    assert _event_actors(memory, "remember") == ["mcp:claude-code"]


async def test_near_duplicate_is_refused_unless_forced(server):
    async with connect(server) as client:
        first = await call(client, "remember", content="The API is versioned in the URL path, like /v2/orders.")
        again = await call(client, "remember", content="The API is versioned in the URL path, like /v2/orders.")
        forced = await call(client, "remember", content="The API is versioned in the URL path, like /v2/orders.",
                            force=True)
    assert again["stored"] is False and again["duplicate_of"] == first["id"]
    assert forced["stored"] is True and forced["id"] != first["id"]


async def test_recall_k_is_bounded(server):
    async with connect(server) as client:
        await call(client, "remember", content="Feature flags live in config/flags.yaml.")
        assert len((await call(client, "recall", query="feature flags", k=50))["results"]) >= 1
        message = await call_error(client, "recall", query="feature flags", k=51)
    assert message == "k: 51 is outside the allowed range (must be at most 50)"


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("remember", {"content": "x", "kind": "memo"}, "kind"),
    ("remember", {"content": "   "}, "content"),
    ("remember", {"content": "ok", "valid_from": "last tuesday"}, "valid_from"),
    ("recall", {"query": "anything", "as_of": "not a date"}, "as_of"),
    ("abandon", {"name": "left-pad", "reason": "r", "effort": 9}, "effort"),
    ("abandon", {"name": "", "reason": "gone"}, "name"),
    ("record_experience", {"summary": "s", "outcome": "meh", "effort": 2}, "outcome"),
    ("record_experience", {"summary": "s", "outcome": "failed", "effort": 2,
                           "abandoned": [{"name": "", "reason": "r"}]}, "abandoned.0.name"),
    ("check_approaches", {"names": []}, "names"),
    ("approach", {"action": "reinstate", "name": "never-abandoned", "reason": "why not"}, "name"),
    ("approach", {"action": "suppress", "name": "lodash", "reason": "noise"}, "kind"),
    ("change", {"memory_id": 1, "action": "update", "reason": "typo"}, "content"),
    ("change", {"memory_id": 1, "action": "confirm", "reason": "I checked"}, "action"),
    ("change", {"memory_id": 0, "action": "archive", "reason": "r"}, "memory_id"),
    ("inspect", {"what": "history"}, "memory_id"),
    ("inspect", {"what": "why"}, "topic"),
    ("settle", {"contradiction_id": 1, "keep": "c", "reason": "r"}, "keep"),
    ("share", {"target": "1", "reason": "r", "action": "publish"}, "action"),
    ("compact", {"cluster_id": ""}, "cluster_id"),
    ("review_concept", {"verb": "merge", "a": "pg"}, "reason"),
    ("mine", {"source": "svn"}, "source"),
    ("compile", {"target": "makefile"}, "target"),
    ("remember", {}, "content"),
])
async def test_bad_arguments_are_error_results_naming_the_field(server, memory, tool, arguments, field):
    async with connect(server) as client:
        message = await call_error(client, tool, **arguments)
        # Positive control: the same session still serves a good call.
        assert (await call(client, "check_approaches", names=["ok"]))["results"][0]["status"] == "clear"
    # Plain words naming the field, as the CLI says it: no framework text.
    assert any(line.startswith(f"{field}: ") for line in message.splitlines()), message
    for framework in ("pydantic", "validation error", "Error executing tool", "Input should", "Arguments"):
        assert framework not in message, message
    assert _event_actors(memory, "remember") == []


async def test_unknown_tool_is_an_error_result(server):
    async with connect(server) as client:
        assert "Unknown tool" in await call_error(client, "rememberr", content="x")


async def test_abandon_then_check_approaches(server, memory):
    async with connect(server) as client:
        abandoned = await call(client, "abandon", name="requests", reason="blocks the event loop", effort=3)
        everywhere = await call(client, "abandon", name="moment", reason="unmaintained", global_scope=True)
        checks = await call(client, "check_approaches", names=["requests", "httpx", "moment"])
    assert abandoned["approach"]["name"] == "requests" and abandoned["recall_suppressed"] is False
    assert everywhere["approach"]["project"] == ""
    by_name = {c["name"]: c for c in checks["results"]}
    assert by_name["requests"]["status"] == "abandoned"
    assert by_name["requests"]["scope"] == "project"
    assert by_name["requests"]["reason"] == "blocks the event loop"
    assert by_name["moment"]["scope"] == "global"
    assert by_name["httpx"]["status"] == "clear"
    assert _event_actors(memory, "abandon") == [ACTOR, ACTOR]


async def test_record_experience_puts_its_dead_ends_in_the_graveyard(server):
    async with connect(server) as client:
        result = await call(client, "record_experience", summary="Moved PDF rendering to a worker queue.",
                            outcome="success", effort=4, iterations=3, breakthrough="render off the request thread",
                            gotchas=["fonts must be bundled"],
                            abandoned=[{"name": "wkhtmltopdf", "reason": "archived upstream, no CSS grid"}])
        checks = await call(client, "check_approaches", names=["wkhtmltopdf", "weasyprint"])
    assert result["abandoned"][0]["approach"]["name"] == "wkhtmltopdf"
    assert result["abandoned"][0]["approach"]["memory_id"] == result["id"]
    assert [c["status"] for c in checks["results"]] == ["abandoned", "clear"]
    assert checks["results"][0]["memory_id"] == result["id"]


async def test_an_agents_reinstatement_is_a_proposal_a_person_accepts(server, memory):
    async with connect(server) as client:
        await call(client, "abandon", name="celery", reason="too heavy for one queue")
        await call(client, "abandon", name="rq", reason="no retries")
        proposed = await call(client, "approach", action="reinstate", name="celery",
                              reason="we now run several queues")
        before = await call(client, "check_approaches", names=["celery"])
        memory.accept_proposal(HUMAN, proposed["id"])
        checks = await call(client, "check_approaches", names=["celery", "rq"])
    # An agent lifts no block itself: the approach stays abandoned until a person accepts.
    assert proposed["action"] == "reinstate" and proposed["status"] == "pending"
    assert before["results"][0]["status"] == "abandoned"
    assert [c["status"] for c in checks["results"]] == ["reinstated", "abandoned"]


async def test_set_trust_disputes_directly_and_proposes_a_refutation(server, memory):
    async with connect(server) as client:
        a = (await call(client, "remember", content="The cache TTL is 60 seconds."))["id"]
        b = (await call(client, "remember", content="Orders are archived after 90 days."))["id"]
        disputed = await call(client, "change", memory_id=a, action="dispute", reason="config says 300")
        refuted = await call(client, "change", memory_id=b, action="refute", reason="it is 30 days now")
        confirm = await call_error(client, "change", memory_id=a, action="confirm", reason="I checked")
        missing = await call_error(client, "change", memory_id=999, action="dispute", reason="?")
        unverified = await call(client, "change", memory_id=a, action="unverify", reason="config was reverted")
    assert disputed["status"] == "applied" and disputed["memory"]["trust"] == "disputed"
    assert refuted["status"] == "proposed"
    assert refuted["proposal"]["action"] == "refute" and refuted["proposal"]["actor"] == ACTOR
    assert memory.get(b).trust == "unverified"  # a proposal changes nothing yet
    assert unverified["memory"]["trust"] == "unverified"
    assert confirm.startswith("action: 'confirm' is not one of")
    assert missing.startswith("memory_id: ")


async def test_lifecycle_verbs(server, memory):
    async with connect(server) as client:
        a = (await call(client, "remember", content="Use the legacy billing endpoint for invoices."))["id"]
        b = (await call(client, "remember", content="The mobile app reads the same GraphQL schema."))["id"]
        low = await call(client, "change", memory_id=a, action="deprioritise", reason="rarely needed",
                         hints=["invoices"])
        archived = await call(client, "change", memory_id=b, action="archive", reason="the mobile app was retired")
        back = await call(client, "change", memory_id=b, action="reinstate", reason="it is back")
        unknown = await call_error(client, "change", memory_id=4242, action="archive", reason="x")
    assert low["memory"]["state"] == "deprioritised" and low["memory"]["reinstate_hints"] == ["invoices"]
    assert archived["memory"]["state"] == "archived"
    assert back["memory"]["state"] == "active"
    assert unknown.startswith("memory_id: ")


async def test_forget_previews_then_proposes(server, memory):
    async with connect(server) as client:
        kept = (await call(client, "remember", content="The admin password is rotated monthly."))["id"]
        preview = await call(client, "change", memory_id=kept, action="forget", reason="sensitive")
        proposed = await call(client, "change", memory_id=kept, action="forget", reason="sensitive", confirm=True)
    assert preview["status"] == "preview"
    assert preview["forget_preview"]["content"] == "The admin password is rotated monthly."
    assert proposed["status"] == "proposed" and proposed["proposal"]["action"] == "forget"
    assert memory.get(kept).content == "The admin password is rotated monthly."


async def test_update_keeps_history(server):
    async with connect(server) as client:
        first = (await call(client, "remember", content="Deploys go out on Tuesdays."))["id"]
        updated = await call(client, "change", memory_id=first, action="update",
                             content="Deploys go out on Thursdays.", reason="moved after the freeze")
        history = await call(client, "inspect", what="history", memory_id=first)
    assert updated["memory"]["content"] == "Deploys go out on Thursdays." and updated["memory"]["version"] == 2
    assert [v["content"] for v in history["versions"]] == ["Deploys go out on Tuesdays.", "Deploys go out on Thursdays."]
    assert {e["actor"] for e in history["events"]} == {ACTOR}


async def test_why_lists_the_recalls_that_surfaced_a_topic(server):
    async with connect(server) as client:
        stored = (await call(client, "remember", content="Redis holds the session cache."))["id"]
        await call(client, "recall", query="where are sessions cached")
        why = await call(client, "inspect", what="why", topic="Redis")
        unrelated = await call(client, "inspect", what="why", topic="kafka")
    assert why["recalls"][0]["query"] == "where are sessions cached"
    assert stored in why["recalls"][0]["memory_ids"]
    assert unrelated.get("recalls", []) == []


async def test_contradictions_listed_and_resolution_proposed(server, memory):
    async with connect(server) as client:
        await call(client, "remember", content=PRO)
        contra = await call(client, "remember", content=CONTRA)
        listed = await call(client, "inspect", what="contradictions")
        link = contra["contradictions"][0]["contradiction_id"]
        resolved = await call(client, "settle", contradiction_id=link, keep="b", reason="we moved to npm")
        missing = await call_error(client, "settle", contradiction_id=999, keep="no_conflict", reason="x")
        dismissed = await call(client, "settle", contradiction_id=link, keep="no_conflict",
                               reason="different repositories")
        left = await call(client, "inspect", what="contradictions")
    assert [c["id"] for c in listed["contradictions"]] == [link]
    assert {listed["contradictions"][0]["a"]["content"], listed["contradictions"][0]["b"]["content"]} == {PRO, CONTRA}
    assert resolved["status"] == "proposed" and resolved["proposal"]["action"] == "resolve"
    assert missing.startswith("contradiction_id: ")
    assert dismissed["status"] == "applied"
    assert left.get("contradictions", []) == []


async def test_suppress_and_unsuppress(server, memory):
    async with connect(server) as client:
        await call(client, "abandon", name="lodash", reason="native methods suffice")
        await call(client, "abandon", name="underscore", reason="native methods suffice")
        silenced = await call(client, "approach", action="suppress", name="lodash", kind="diagnostic",
                              reason="vendored copy is fine")
        unchanged = await call(client, "check_approaches", names=["lodash"])
        memory.accept_proposal(HUMAN, silenced["proposal"]["id"])
        checks = await call(client, "check_approaches", names=["lodash", "underscore"])
        lifted = await call(client, "approach", action="unsuppress", name="lodash", kind="diagnostic",
                            reason="vendored copy removed")
        bad_kind = await call_error(client, "approach", action="suppress", name="lodash", kind="everything",
                                    reason="x")
    # The agent's suppression waits for a person; accepted, it silences lodash alone.
    assert silenced["status"] == "proposed" and silenced["proposal"]["action"] == "suppress"
    assert unchanged["results"][0].get("diagnostic_suppressed", False) is False
    assert [c.get("diagnostic_suppressed", False) for c in checks["results"]] == [True, False]
    assert lifted["status"] == "proposed" and lifted["proposal"]["action"] == "unsuppress"
    assert bad_kind.startswith("kind: ")


async def test_briefing_is_compact_and_complete(server, memory):
    async with connect(server) as client:
        await call(client, "abandon", name="requests", reason="blocks the event loop", effort=2)
        await call(client, "remember", content="The user prefers small pull requests.", kind="preference")
        await call(client, "remember", content="We chose PostgreSQL over MySQL for JSONB.", kind="decision")
        await call(client, "remember", content="CI runs on every push.", kind="note")
        await call(client, "remember", content=PRO)
        await call(client, "remember", content=CONTRA)
        note = (await call(client, "remember", content="The CDN is Fastly."))["id"]
        await call(client, "change", memory_id=note, action="refute", reason="we moved to Cloudflare")
        briefing = await call(client, "briefing")
    assert [g["name"] for g in briefing["graveyard"]] == ["requests"]
    assert briefing["graveyard"][0]["reason"] == "blocks the event loop"
    assert [p["content"] for p in briefing["preferences"]] == ["The user prefers small pull requests."]
    assert [d["content"] for d in briefing["recent_decisions"]] == ["We chose PostgreSQL over MySQL for JSONB."]
    assert len(briefing["open_contradictions"]) == 1
    assert [p["action"] for p in briefing["pending_proposals"]] == ["refute"]
    assert "truncated" not in briefing or briefing["truncated"] == []

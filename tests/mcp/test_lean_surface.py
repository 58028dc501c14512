"""What an agent pays for (issue 28): the tool list and a recall in a few thousand characters,
provenance it can cite, and a whole session from the `session-start` prompt to `wrap-up`."""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cenotaph.mcp.tools.results import Hit
from tests.conftest import HUMAN
from tests.mcp.conftest import PROJECT, call, call_text, connect
from tests.memory.test_feeds import RSS

TOOL_LIST_BUDGET = 20_000  # characters of tools/list as JSON: about 5k tokens
RECALL_OVERHEAD_BUDGET = 3_000  # characters a k=10 recall adds beyond its memories' own text

# Ten short memories of one topic, as an agent would find them.
DEPLOYS = [f"Deploy rule {i}: the {service} service deploys from the release branch after its {check} passes."
           for i, (service, check) in enumerate([
               ("billing", "contract test"), ("search", "index rebuild"), ("checkout", "smoke test"),
               ("auth", "token rotation"), ("mailer", "template lint"), ("reports", "query audit"),
               ("gateway", "load test"), ("images", "cache warmup"), ("orders", "schema check"),
               ("payments", "PCI scan")])]


async def test_the_tool_list_fits_in_a_few_thousand_tokens(server):
    async with connect(server) as client:
        listed = await client.list_tools()
    size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
    assert size <= TOOL_LIST_BUDGET, size
    # Positive control: the list holds every tool, each with its arguments' schema.
    assert len(listed.tools) == 16 and all(t.input_schema["properties"] or t.name == "briefing" for t in listed.tools)


async def test_a_k10_recall_adds_little_beyond_the_memories_text(server, memory):
    for text in DEPLOYS:
        memory.remember(HUMAN, text, project=PROJECT, kind="decision", force=True)
    async with connect(server) as client:
        found = await client.call_tool("recall", {"query": "which branch do services deploy from", "k": 10})
        explained = await call(client, "recall", query="which branch do services deploy from", k=10, explain=True)
    contents = [r["content"] for r in found.structured_content["results"]]
    assert sorted(contents) == sorted(DEPLOYS)
    text = found.content[0].text
    structured = json.dumps(found.structured_content, ensure_ascii=False)
    # The text and the structured content each carry the memories; all but one copy of their text
    # is what recall adds.
    added = len(text) + len(structured) - sum(map(len, contents))
    assert added <= RECALL_OVERHEAD_BUDGET, added
    # One metadata line per memory, then its content; no score internals unless asked.
    lines = text.splitlines()
    assert len(lines) == 20 and sorted(lines[1::2]) == sorted(DEPLOYS)
    assert all(re.fullmatch(r"\[\d+\] decision · \d{4}-\d\d-\d\d · confirmed · by test · semantic", line)
               for line in lines[::2]), lines[0]
    print(f"k=10 recall: {len(text) + len(structured)} characters, {added} beyond the memories' text")
    assert "components" not in structured and "score" not in structured
    assert all("components" in r for r in explained["results"])


async def test_abandoned_warnings_come_first_with_reason_and_effort(server, memory):
    memory.abandon(HUMAN, "requests", reason="blocks the event loop", project=PROJECT, effort=4)
    memory.remember(HUMAN, "HTTP calls go through httpx with a shared client.", project=PROJECT)
    async with connect(server) as client:
        text = await call_text(client, "recall", query="should we call the API with requests or httpx?")
        found = await call(client, "recall", query="should we call the API with requests or httpx?")
    assert text.splitlines()[0] == "ABANDONED requests, effort 4/5: blocks the event loop"
    warning, *memories = found["results"]
    assert (warning["kind"], warning["name"], warning["reason"], warning["effort"]) == (
        "abandoned", "requests", "blocks the event loop", 4)
    assert [m["content"] for m in memories] == ["HTTP calls go through httpx with a shared client."]


@pytest.fixture
def feed_url(tmp_path: Path) -> Iterator[str]:
    """An RSS feed served on loopback."""
    (tmp_path / "rss.xml").write_text(RSS, encoding="utf-8")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/rss.xml"
    httpd.shutdown()
    httpd.server_close()


async def test_results_carry_provenance_an_agent_can_cite(server, memory, tmp_path, feed_url):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.md").write_text("# Runbook\n\nIntro.\n\n## Database\n\n### Failover\n\n"
                                     "Promote the replica with pg_ctl promote, then repoint PgBouncer.\n")
    memory.ingest(HUMAN, [str(docs)], project=PROJECT, root=tmp_path)
    memory.feed_add(HUMAN, feed_url, project=PROJECT)
    memory.feed_pull(HUMAN, project=PROJECT)
    note = memory.remember(HUMAN, "Failover drills run every quarter.", project=PROJECT)
    async with connect(server) as client:
        chunk = (await call(client, "recall", query="how do we promote the replica in a failover"))["results"]
        entry = (await call(client, "recall", query="acme-db security fix in the query builder"))["results"]
        text = await call_text(client, "recall", query="how do we promote the replica in a failover")
    failover = next(r for r in chunk if "pg_ctl" in r["content"])
    assert (failover["kind"], failover["at"], failover["heading"]) == (
        "document", "docs/runbook.md:9", "Runbook › Database › Failover")
    assert "docs/runbook.md:9 · § Runbook › Database › Failover" in text
    feed = next(r for r in entry if r["kind"] == "knowledge")
    assert (feed["link"], feed["title"]) == ("https://acme.example/r/1.9", "acme-db 1.9 security fix")
    # Positive control: a plain memory has no provenance fields at all.
    plain = next(r for r in chunk if r["id"] == note.id)
    assert not {"at", "heading", "link", "title", "shared_path"} & set(plain)


def test_a_shared_entry_names_its_file():
    from cenotaph.memory.models import RecallResult
    shared = RecallResult(result_type="memory", id=7, content="Use uv.", project=PROJECT, kind="decision", tags=[],
                          state="active", trust="confirmed", score=1.0, lane="semantic", components=None,
                          is_global=False, source="repo", shared_path=".cenotaph/memories/use-uv.md")
    assert Hit.of(shared).shared_path == ".cenotaph/memories/use-uv.md"


async def test_a_scripted_session_from_session_start_to_wrap_up(server, memory):
    memory.abandon(HUMAN, "moment", reason="unmaintained; use date-fns", project=PROJECT, effort=2)
    memory.remember(HUMAN, "The user prefers small pull requests.", project=PROJECT, kind="preference")
    async with connect(server) as client:
        start = await client.get_prompt("session-start")
        opening = start.messages[0].content.text
        assert "moment" in opening and "`check_approaches`" in opening and "`recall`" in opening
        tools = {t.name for t in (await client.list_tools()).tools}
        for named in ("briefing", "check_approaches", "recall", "remember", "record_experience", "abandon"):
            assert f"`{named}`" in opening + (await client.get_prompt("wrap-up")).messages[0].content.text \
                or named in tools
        brief = await call(client, "briefing")
        assert [g["name"] for g in brief["graveyard"]] == ["moment"]
        verdicts = await call_text(client, "check_approaches", names=["moment", "date-fns"])
        assert verdicts.splitlines() == ["moment: ABANDONED (project, effort 2/5): unmaintained; use date-fns",
                                         "date-fns: clear"]
        decided = await call(client, "remember", content="Dates are formatted with date-fns everywhere.",
                             kind="decision")
        recalled = await call(client, "recall", query="how are dates formatted")
        assert recalled["results"][0]["id"] == decided["id"]
        corrected = await call(client, "change", memory_id=decided["id"], action="update", reason="scope",
                               content="Dates are formatted with date-fns in the web app.")
        assert corrected["memory"]["version"] == 2
        history = await call(client, "inspect", what="history", memory_id=decided["id"])
        assert len(history["versions"]) == 2
        await call(client, "abandon", name="dayjs", reason="plugins clash with our locale setup", effort=2)
        wrap = (await client.get_prompt("wrap-up")).messages[0].content.text
        assert "`record_experience`" in wrap
        recorded = await call(client, "record_experience", summary="Moved date formatting to date-fns.",
                              outcome="success", effort=2, gotchas=["locales load lazily"],
                              abandoned=[{"name": "luxon", "reason": "too heavy for the bundle"}])
        final = await call_text(client, "check_approaches", names=["dayjs", "luxon"])
    assert recorded["abandoned"][0]["approach"]["name"] == "luxon"
    assert [line.split(":")[0] for line in final.splitlines()] == ["dayjs", "luxon"]
    assert "ABANDONED" in final.splitlines()[0] and "ABANDONED" in final.splitlines()[1]

"""The console's routes in process (Starlette's TestClient) over a real SQLite store: the door's
security (token, cookie, Host, Origin, CSRF, headers), every page, and each verb as the person
logged in."""

from __future__ import annotations

import html
import re
from pathlib import Path

from cenotaph.console.pages.concepts import layout
from cenotaph.console.render import safe_url
from cenotaph.memory.models import Actor

from tests.conftest import AGENT
from tests.console.conftest import (
    ORIGIN,
    PERSON,
    PORT,
    PROJECT,
    TOKEN,
    candidate,
    csrf_of,
    notices,
    post,
)

HUMAN = Actor(name="cli", kind="human")
PAGES = ("/graveyard", "/proposals", "/memories", "/memories?q=httpx", "/memories/1", "/contradictions", "/events",
         "/concepts", "/knowledge")
ACTOR = f"console:{PERSON}"


def test_the_token_becomes_an_httponly_strict_cookie_and_leaves_the_address(anonymous):
    answer = anonymous.get(f"/proposals?status=all&token={TOKEN}")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/proposals?status=all"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"cenotaph_console_{PORT}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert TOKEN not in cookie
    assert anonymous.get("/proposals?status=all").status_code == 200  # the cookie is the session


def test_without_the_token_nothing_is_served(anonymous, memory):
    memory.remember(HUMAN, "Prefer httpx over requests.", project=PROJECT)
    for path in (*PAGES, "/api/head", "/static/console.js"):
        refused = anonymous.get(path)
        assert refused.status_code == 403, path
        assert "Prefer httpx" not in refused.text
    wrong = anonymous.get("/graveyard?token=" + "y" * 46)
    assert wrong.status_code == 403 and "set-cookie" not in wrong.headers
    assert anonymous.get(f"/graveyard?token={TOKEN}").status_code == 303  # control: the right one logs in


def test_a_foreign_host_is_refused_even_with_the_token(anonymous):
    rebound = anonymous.get(f"/graveyard?token={TOKEN}", headers={"host": "evil.example:8767"})
    assert rebound.status_code == 403 and "set-cookie" not in rebound.headers
    assert anonymous.get(f"/graveyard?token={TOKEN}", headers={"host": f"localhost:{PORT}"}).status_code == 303


def test_a_change_needs_this_origin_and_the_sessions_csrf_token(client, memory):
    stored = memory.remember(HUMAN, "Prefer httpx over requests.", project=PROJECT)
    path, data = f"/memories/{stored.id}/archive", {"reason": "old"}
    assert post(client, path, data, origin=None).status_code == 403
    assert post(client, path, data, origin="http://evil.example").status_code == 403
    assert post(client, path, data, origin=f"http://127.0.0.1:{PORT + 1}").status_code == 403
    forged = client.post(path, data={"csrf": "forged", **data}, headers={"origin": ORIGIN})
    assert forged.status_code == 403
    assert client.post(path, data=data, headers={"origin": ORIGIN}).status_code == 403  # no token at all
    assert memory.get(stored.id).state == "active"  # nothing was written
    done = post(client, path, data, follow=False)
    assert done.status_code == 303 and done.headers["location"] == f"/memories/{stored.id}"
    assert memory.get(stored.id).state == "archived"
    assert memory.audit_log(target=f"memory:{stored.id}")[-1].actor == ACTOR


def test_every_answer_carries_the_security_headers(client):
    for path in ("/graveyard", "/static/console.js", "/api/head"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


HOSTILE = ('<script>window.__pwned++</script>', '<img src=x onerror="window.__pwned++">',
           '"><svg onload=window.__pwned++>', "javascript:window.__pwned++")


def test_stored_text_is_shown_verbatim_and_inert_on_every_page(client, memory):
    text = "Use httpx. " + " ".join(HOSTILE)
    stored = memory.remember(HUMAN, text, project=PROJECT)
    memory.abandon(HUMAN, "requests", reason=text, project=PROJECT, effort=2)
    for path in PAGES:
        page = client.get(path)
        assert page.status_code == 200, path
        assert page.text.count("<script") == 1, path  # the console's own, and no other
        assert "onerror=" not in page.text.replace("onerror=&quot;", "") and "<svg onload" not in page.text
    shown = client.get(f"/memories/{stored.id}").text
    assert html.escape(text, quote=True) in shown  # escaped at render, whole
    assert memory.get(stored.id).content == text  # and stored as written


def test_a_domain_error_is_a_message_naming_the_field(client, memory):
    stored = memory.remember(HUMAN, "Prefer httpx over requests.", project=PROJECT)
    page = post(client, f"/memories/{stored.id}/archive", {"reason": "  "})
    assert page.status_code == 200
    assert any(n.startswith("reason: ") for n in notices(page.text))
    assert memory.get(stored.id).state == "active"
    assert notices(client.get(f"/memories/{stored.id}").text) == []  # a notice is shown once
    missing = client.get("/memories/999")
    assert any(n.startswith("memory_id: no memory #999") for n in notices(missing.text))


def test_a_memory_page_shows_its_versions_transitions_and_events_and_its_verbs_work(client, memory):
    stored = memory.remember(HUMAN, "The API is at v1.", project=PROJECT)
    post(client, f"/memories/{stored.id}/update", {"content": "The API is at v2.", "reason": "released"})
    post(client, f"/memories/{stored.id}/trust", {"trust": "disputed", "reason": "Bo says v3"})
    post(client, f"/memories/{stored.id}/deprioritise", {"reason": "noisy", "hints": "api, version"})
    page = client.get(f"/memories/{stored.id}").text
    assert "The API is at v1." in page and "The API is at v2." in page  # both versions
    assert "Bo says v3" in page and "noisy" in page  # transitions with their reasons
    assert memory.get(stored.id).reinstate_hints == ["api", "version"]
    post(client, f"/memories/{stored.id}/reinstate", {"reason": "needed"})
    assert memory.get(stored.id).state == "active"
    assert {e.actor for e in memory.audit_log(target=f"memory:{stored.id}")} == {"cli", ACTOR}


def test_forget_shows_its_preview_first_then_forgets_on_confirmation(client, memory):
    stored = memory.remember(HUMAN, "The staging password rotates monthly.", project=PROJECT)
    preview = post(client, f"/memories/{stored.id}/forget", {"reason": "obsolete"})
    assert "Nothing has changed yet" in preview.text and "rotates monthly" in preview.text
    assert memory.get(stored.id).state == "active"
    post(client, f"/memories/{stored.id}/forget", {"reason": "obsolete", "confirm": "yes"})
    assert memory.history(stored.id).tombstone.actor == ACTOR
    assert "Forgotten by " + ACTOR in client.get(f"/memories/{stored.id}").text


def test_recall_shows_each_results_lane_and_why(client, memory):
    memory.remember(HUMAN, "Prefer httpx over requests for async HTTP calls.", project=PROJECT)
    memory.abandon(HUMAN, "requests", reason="blocking calls in async code", project=PROJECT, effort=2)
    page = client.get("/memories?q=which HTTP client for requests").text
    assert 'class="lane">graveyard' in page and "blocking calls in async code" in page
    assert 'class="lane">semantic' in page and "cosine" in page and "recency" in page
    memory.remember(HUMAN, "Run pytest with --no-cov in CI.", project=PROJECT)
    exact = client.get("/memories?q=--no-cov").text
    assert "lane: exact" in exact and 'class="lane">exact' in exact


def test_proposals_preview_accept_undo_and_reject_in_bulk(client, memory, tmp_path: Path):
    report = memory.propose_candidates(HUMAN, PROJECT, [candidate("requests"), candidate("nose"), candidate("mock")])
    first, second, third = (p.id for p in report.proposed)
    stored = memory.remember(HUMAN, "Deploys go through the staging cluster.", project=PROJECT)
    agent = memory.forget(AGENT, stored.id, reason="<b>stale</b>", confirm=True)
    hooks = memory.propose_hooks(HUMAN, "claude-code", install=True, project=PROJECT, root=tmp_path,
                                 command="cenotaph hook claude-code").proposal
    page = client.get("/proposals").text
    assert "abandon <strong>requests</strong>" in page and "drop requests" in page  # the evidence
    assert "&lt;b&gt;stale&lt;/b&gt;" in page and f"{AGENT.name}, " in page  # the reason, escaped; who proposed
    assert 'class="diff"' in page and 'class="add">+' in page  # the hooks file's diff
    preview = post(client, "/proposals/preview", {"one": f"accept:{first}"})
    assert "Nothing has changed yet" in preview.text and "Confirm: accept 1" in preview.text
    assert memory.check_approaches(["requests"], project=PROJECT)[0].status == "clear"
    done = post(client, "/proposals/decide", {"verb": "accept", "id": str(first), "effort": "3"})
    assert memory.check_approaches(["requests"], project=PROJECT)[0].status == "abandoned"
    assert "Undo: reinstate requests" in done.text
    graveyard = client.get("/graveyard").text
    assert "<strong>requests</strong>" in graveyard and f"{ACTOR}, " in graveyard
    undo = re.search(r'<form method="post" action="/graveyard/reinstate".*?</form>', done.text).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', undo))
    client.post("/graveyard/reinstate", data=fields, headers={"origin": ORIGIN})
    assert memory.check_approaches(["requests"], project=PROJECT)[0].status == "reinstated"
    refused = post(client, "/proposals/preview", {"verb": "reject", "id": [str(second), str(third)]})
    assert any(n.startswith("reason: ") for n in notices(refused.text))  # a rejection needs a reason
    post(client, "/proposals/decide", {"verb": "reject", "id": [str(second), str(third)], "reason": "still used"})
    post(client, "/proposals/decide", {"verb": "accept", "id": str(agent.id)})
    post(client, "/proposals/decide", {"verb": "accept", "id": str(hooks.id)})
    assert memory.proposals(PROJECT) == []
    assert memory.history(stored.id).tombstone is not None
    assert (tmp_path / ".claude" / "settings.json").exists()
    decided = memory.proposals(PROJECT, status=None)
    assert {p.decided_by for p in decided} == {ACTOR}


def test_contradictions_are_resolved_or_dismissed(client, memory):
    a = memory.remember(HUMAN, "Always use poetry for dependency management.", project=PROJECT)
    b = memory.remember(HUMAN, "Never use poetry for dependency management.", project=PROJECT)
    c = memory.remember(HUMAN, "Always pin the Python version in CI.", project=PROJECT)
    d = memory.remember(HUMAN, "Never pin the Python version in CI.", project=PROJECT)
    first, second = (v.id for v in memory.contradictions(PROJECT))
    page = client.get("/contradictions").text
    assert "Always use poetry" in page and "Never pin the Python" in page
    post(client, f"/contradictions/{first}/resolve", {"keep": "b", "reason": "we moved to uv"})
    post(client, f"/contradictions/{second}/dismiss", {"reason": "both hold, per project"})
    assert memory.contradictions(PROJECT) == []
    assert memory.get(a.id).trust == "refuted" and memory.get(b.id).trust != "refuted"
    assert memory.get(c.id).trust != "refuted" and memory.get(d.id).trust != "refuted"


def test_events_show_the_verified_chain_and_filter_by_who(client, memory):
    stored = memory.remember(HUMAN, "Prefer httpx over requests.", project=PROJECT)
    post(client, f"/memories/{stored.id}/archive", {"reason": "old"})
    page = client.get("/events").text
    assert "Chain verified: " in page and ACTOR in page and ">cli<" in page
    mine = client.get(f"/events?actor={ACTOR}").text
    assert ACTOR in mine and ">cli<" not in mine and "archive" in mine


def test_concepts_are_drawn_and_a_merge_is_a_persons_verdict(client, memory):
    for text in ("Postgres connection pool sizing for the API.", "Tune the postgresql pool timeout.",
                 "The pool for postgres needs a health check.", "Redis cache eviction for the API."):
        memory.remember(HUMAN, text, project=PROJECT)
    names = [c.name for c in memory.concepts(PROJECT)]
    assert len(names) >= 2
    page = client.get("/concepts").text
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in page and page.count('class="node"') == len(names)
    merged, into = names[-1], names[0]
    post(client, "/concepts/verdict", {"verb": "merge", "a": merged, "b": into, "reason": "same thing"})
    assert merged not in [c.name for c in memory.concepts(PROJECT)]
    assert memory.audit_log(actor=ACTOR)[-1].action == "concept:merge"


def test_the_layout_is_deterministic_and_inside_the_drawing():
    names = [f"n{i}" for i in range(12)]
    edges = [("n0", "n1", 3), ("n1", "n2", 1), ("n3", "n4", 2)]
    placed = layout(names, edges)
    assert placed == layout(names, edges)
    assert all(40 <= x <= 600 and 20 <= y <= 620 for x, y in placed.values())
    linked = abs(placed["n0"][0] - placed["n1"][0]) + abs(placed["n0"][1] - placed["n1"][1])
    apart = abs(placed["n0"][0] - placed["n7"][0]) + abs(placed["n0"][1] - placed["n7"][1])
    assert linked < apart
    assert layout([], []) == {}


def test_only_http_links_from_stored_text_become_links():
    assert safe_url("https://example.org/a") == "https://example.org/a"
    assert safe_url(" JavaScript:alert(1)") is None
    assert safe_url("data:text/html,<script>") is None
    assert safe_url(None) is None


def test_the_head_endpoint_moves_with_another_doors_write(client, memory):
    before = client.get("/api/head").json()["seq"]
    memory.remember(HUMAN, "Prefer httpx over requests.", project=PROJECT)
    assert client.get("/api/head").json()["seq"] > before
    assert f'data-seq="{before + 1}"' in client.get("/memories").text


def test_graveyard_silences_are_lifted_with_a_reason(client, memory):
    memory.suppress(HUMAN, "poetry", kind="diagnostic", project=PROJECT, reason="legacy tool here")
    page = client.get("/graveyard").text
    assert "<strong>poetry</strong>" in page and "legacy tool here" in page
    post(client, "/graveyard/unsuppress", {"name": "poetry", "kind": "diagnostic", "project": PROJECT,
                                          "reason": "migrated"})
    assert memory.suppressions(PROJECT) == []
    assert csrf_of(client) == csrf_of(client, "/events")  # one token per session

"""Feeds (issue 18) against a real HTTP server on loopback: RSS 2.0 and Atom entries become
`knowledge` memories that expire unless promoted; conditional requests; a malformed or unreachable
feed records its error and changes nothing else; entries updated in place; no entry stored twice."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from cenotaph.memory.errors import Conflict, InvalidInput
from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"

RSS = """<?xml version="1.0"?>
<rss version="2.0"><channel><title>Acme releases</title><link>https://acme.example/</link>
<item><title>acme-db 2.0 released</title><link>https://acme.example/r/2.0</link>
<guid>acme-2.0</guid><pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate>
<description>&lt;p&gt;The connection pool now &lt;b&gt;recycles&lt;/b&gt; idle connections.&lt;/p&gt;</description></item>
<item><title>acme-db 1.9 security fix</title><link>https://acme.example/r/1.9</link>
<guid>acme-1.9</guid><pubDate>Sun, 01 Feb 2026 10:00:00 GMT</pubDate>
<description>Fixes an injection in the query builder.</description></item>
</channel></rss>"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Widget changelog</title><id>urn:widget</id>
<updated>2026-03-05T00:00:00Z</updated>
<entry><title>Widget 3.1</title><id>urn:widget:3.1</id><link href="https://widget.example/3.1"/>
<updated>2026-03-05T00:00:00Z</updated><summary>Widget 3.1 drops support for Python 3.9.</summary></entry>
</feed>"""


class Feeds:
    """What the loopback server serves, and what it was asked."""

    def __init__(self) -> None:
        self.documents: dict[str, str] = {"/rss.xml": RSS, "/atom.xml": ATOM, "/bad.xml": "<html><body>oops"}
        self.requests: list[tuple[str, str | None]] = []

    def etag(self, path: str) -> str:
        return f'"{abs(hash(self.documents[path]))}"'


@pytest.fixture
def server() -> Iterator[tuple[str, Feeds]]:
    feeds = Feeds()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            feeds.requests.append((self.path, self.headers.get("If-None-Match")))
            if self.path not in feeds.documents:
                self.send_error(404)
                return
            tag = feeds.etag(self.path)
            if self.headers.get("If-None-Match") == tag:
                self.send_response(304)
                self.end_headers()
                return
            body = feeds.documents[self.path].encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("ETag", tag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", feeds
    httpd.shutdown()
    httpd.server_close()


def knowledge(memory) -> list:
    return [r for r in memory.recent(P, kinds=["knowledge"], limit=100)]


def test_rss_and_atom_entries_become_knowledge_with_link_title_and_published_time(memory, server):
    base, _ = server
    memory.feed_add(HUMAN, f"{base}/rss.xml", project=P)
    memory.feed_add(HUMAN, f"{base}/atom.xml", project=P, expires_days=7)
    report = memory.feed_pull(HUMAN, project=P)
    assert [(p.added, p.error) for p in report.feeds] == [(2, None), (1, None)]
    rows = {r.content.split("\n")[0]: r for r in knowledge(memory)}
    assert set(rows) == {"acme-db 2.0 released", "acme-db 1.9 security fix", "Widget 3.1"}
    release = rows["acme-db 2.0 released"]
    assert release.content == "acme-db 2.0 released\n\nThe connection pool now recycles idle connections."
    assert release.valid_from.startswith("2026-03-02T10:00:00") and release.trust == "unverified"
    found = memory.recall(HUMAN, "connection pool recycles idle connections", project=P, k=1).results[0]
    assert found.kind == "knowledge" and found.id == release.memory_id
    listed = {f.url: f for f in memory.feed_list(P)}
    assert listed[f"{base}/rss.xml"].entries == 2 and listed[f"{base}/rss.xml"].title == "Acme releases"


def test_a_second_pull_asks_with_the_etag_and_a_304_changes_nothing(memory, server):
    base, feeds = server
    memory.feed_add(HUMAN, f"{base}/rss.xml", project=P)
    memory.feed_pull(HUMAN, project=P)
    head = memory.change_seq()
    report = memory.feed_pull(HUMAN, project=P)
    assert report.feeds[0].not_modified and feeds.requests[-1][1] is not None
    assert memory.change_seq() == head and len(knowledge(memory)) == 2


def test_an_entry_updated_in_place_becomes_a_new_version_and_nothing_is_stored_twice(memory, server):
    base, feeds = server
    memory.feed_add(HUMAN, f"{base}/rss.xml", project=P)
    memory.feed_pull(HUMAN, project=P)
    feeds.documents["/rss.xml"] = RSS.replace("Fixes an injection", "Fixes an SQL injection")
    report = memory.feed_pull(HUMAN, project=P).feeds[0]
    assert (report.updated, report.unchanged, report.added) == (1, 1, 0)
    fixed = next(r for r in knowledge(memory) if "security fix" in r.content)
    assert fixed.version == 2 and "SQL injection" in fixed.content
    # The same entries served by a second feed are already stored.
    feeds.documents["/mirror.xml"] = feeds.documents["/rss.xml"]
    memory.feed_add(HUMAN, f"{base}/mirror.xml", project=P)
    mirror = next(p for p in memory.feed_pull(HUMAN, project=P).feeds if p.feed.url.endswith("mirror.xml"))
    assert (mirror.added, mirror.duplicates) == (0, 2) and len(knowledge(memory)) == 2


def test_a_malformed_or_unreachable_feed_records_its_error_and_changes_nothing_else(memory, server):
    base, _ = server
    memory.feed_add(HUMAN, f"{base}/bad.xml", project=P)
    memory.feed_add(HUMAN, "http://127.0.0.1:9/feed.xml", project=P)
    memory.feed_add(HUMAN, f"{base}/atom.xml", project=P)
    report = {p.feed.url: p for p in memory.feed_pull(HUMAN, project=P).feeds}
    assert report[f"{base}/bad.xml"].error.startswith("not a feed")
    assert report["http://127.0.0.1:9/feed.xml"].error.startswith("cannot fetch")
    assert report[f"{base}/atom.xml"].added == 1  # the positive control
    errors = {f.url: f.last_error for f in memory.feed_list(P)}
    assert errors[f"{base}/bad.xml"] and errors[f"{base}/atom.xml"] is None
    assert len(knowledge(memory)) == 1


def test_entries_expire_unless_promoted(memory, server, clock):
    base, _ = server
    memory.feed_add(HUMAN, f"{base}/rss.xml", project=P, expires_days=30)
    memory.feed_pull(HUMAN, project=P)
    kept, dropped = sorted(knowledge(memory), key=lambda r: r.content)
    with pytest.raises(Conflict):
        memory.promote(AGENT, kept.memory_id)
    promoted = memory.promote(HUMAN, kept.memory_id)
    assert promoted.trust == "confirmed"
    clock.advance(days=29)
    assert memory.feed_pull(HUMAN, project=P).expired == []  # not yet: the positive control
    clock.advance(days=2)
    assert memory.feed_pull(HUMAN, project=P).expired == [dropped.memory_id]
    assert memory.get(dropped.memory_id).state == "archived"
    assert memory.get(dropped.memory_id).state_reason == "expired"
    assert memory.get(kept.memory_id).state == "active"


def test_feed_addresses_are_checked_and_not_added_twice(memory, server):
    base, _ = server
    with pytest.raises(InvalidInput):
        memory.feed_add(HUMAN, "file:///etc/passwd", project=P)
    memory.feed_add(HUMAN, f"{base}/rss.xml", project=P)
    with pytest.raises(Conflict):
        memory.feed_add(HUMAN, f"{base}/rss.xml", project=P)
    removed = memory.feed_remove(HUMAN, f"{base}/rss.xml", project=P)
    assert removed.url == f"{base}/rss.xml" and memory.feed_list(P) == []


def test_due_feeds_only(memory, server, clock):
    base, feeds = server
    memory.feed_add(HUMAN, f"{base}/atom.xml", project=P)
    from datetime import timedelta

    memory.feed_pull(HUMAN, project=P, due_after=timedelta(hours=6))
    asked = len(feeds.requests)
    clock.advance(hours=1)
    assert memory.feed_pull(HUMAN, project=P, due_after=timedelta(hours=6)).feeds == []
    clock.advance(hours=6)
    assert len(memory.feed_pull(HUMAN, project=P, due_after=timedelta(hours=6)).feeds) == 1
    assert len(feeds.requests) == asked + 1

"""`/knowledge`: knowledge from outside the conversation: the repository's documents (the files
ingested, their chunks by heading) and the feeds (their entries, which expire unless promoted)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cenotaph.console.render import day, link, safe_url, short, table, tag

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse

    from cenotaph.console.app import Console

CHUNKS = 300  # the newest document chunks read for the file list
ENTRIES = 50


def render(console: Console, request: Request) -> HTMLResponse:
    memory = console.memory
    files: dict[str, list[tuple[int, str]]] = {}
    for row in memory.recent(console.project, kinds=["document"], limit=CHUNKS):
        where = memory.location(row.memory_id)
        path = where.path if where else "(unknown file)"
        files.setdefault(path, []).append((row.memory_id, where.heading if where else ""))
    documents = table(("file", "chunks", "headings"),
                      [[tag("code", path), len(chunks),
                        tag("span", *[link(f"/memories/{i}", heading or f"#{i}", class_="chip") for i, heading in chunks])]
                       for path, chunks in sorted(files.items())], "documents")
    feeds = memory.feed_list(console.project)
    feed_rows = []
    for f in feeds:
        url = safe_url(f.url)
        shown = tag("a", f.url, href=url, rel="noopener noreferrer") if url else tag("code", f.url)
        feed_rows.append([shown, f.title or "", f.entries, day(f.last_pulled) or "never",
                          tag("span", f.last_error or "", class_="error")])
    entries = memory.recent(console.project, kinds=["knowledge"], limit=ENTRIES)
    body: list[object] = [
        tag("h2", f"Documents ({len(files)} files)"),
        documents if files else tag("p", "No documents ingested (`cenotaph ingest PATH`).", class_="muted"),
        tag("h2", f"Feeds ({len(feeds)})"),
        table(("feed", "title", "live entries", "last pulled", "last error"), feed_rows, "feeds")
        if feed_rows else tag("p", "No feeds (`cenotaph feed add URL`).", class_="muted"),
        tag("h2", "Newest feed entries"),
        table(("id", "recorded", "entry"), [[link(f"/memories/{m.memory_id}", f"#{m.memory_id}"), day(m.recorded_at),
                                            tag("div", short(m.content, 400), class_="content")] for m in entries],
              "entries") if entries else tag("p", "No feed entries.", class_="muted"),
    ]
    return console.page(request, "Knowledge", body, current="/knowledge")


PAGES = (("/knowledge", render),)
ACTIONS = ()

"""Feeds (RSS 0.9x/1.0/2.0, Atom): each entry a memory of kind `knowledge` with its link, title and
published date as valid time, which expires (archived "expired") unless a person promotes it.

A pull asks with the feed's ETag and Last-Modified, so an unchanged feed costs one 304. A feed that
cannot be fetched or read records its error and changes nothing else. An entry already stored (its
link, or its text, in the project) is not stored twice; an entry whose text changed in place
becomes a new version of its memory."""

from __future__ import annotations

import html
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context, content_hash, format_time
from cenotaph.memory.core.lifecycle import apply as change_state
from cenotaph.memory.core.remember import new_row
from cenotaph.memory.core.timeline import new_version
from cenotaph.memory.core.trust import set_trust
from cenotaph.memory.errors import Conflict, InvalidInput, NotFound, Unavailable
from cenotaph.memory.models import Actor
from cenotaph.nlp.embedder import EmbedderUnavailable
from cenotaph.store import feeds, memories, vectors
from cenotaph.store.feeds import EntryRow, FeedRow
from cenotaph.store.records import MemoryRow

KIND = "knowledge"
TRUST = "unverified"
DEFAULT_EXPIRY_DAYS = 30
FETCH_TIMEOUT = 20.0
MAX_FEED_BYTES = 10_000_000
USER_AGENT = "cenotaph-feed/1"


@dataclass(slots=True)
class FeedPull:
    feed: FeedRow
    not_modified: bool = False
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0
    refused_secrets: int = 0  # entries left out because they hold a secret (memory/secrets.py)
    error: str | None = None


@dataclass(slots=True)
class PullReport:
    feeds: list[FeedPull] = field(default_factory=list)
    expired: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Entry:
    key: str
    link: str | None
    title: str | None
    content: str
    published: str | None


def add(ctx: Context, actor: Actor, url: str, *, project: str, expires_days: int = DEFAULT_EXPIRY_DAYS) -> FeedRow:
    url = _url(url)
    project = validate.project(project)
    expires_days = validate.integer(expires_days, "expires_days", low=1, high=36_500)
    with ctx.store.write() as tx:
        if feeds.find(tx, project, url) is not None:
            raise Conflict(f"{url} is already a feed of this project", field="url")
        feed_id = feeds.add(tx, project=project, url=url, expires_days=expires_days, at=ctx.now())
        ctx.event(tx, actor=actor.name, action="feed:add", target=f"feed:{feed_id}", project=project,
                  after={"url": url, "expires_days": expires_days})
        found = feeds.get(tx, feed_id)
    assert found is not None
    return found


def remove(ctx: Context, actor: Actor, url: str, *, project: str) -> FeedRow:
    """The feed goes; the entries it brought stay as they are and still expire."""
    found = _feed(ctx, url, project)
    with ctx.store.write() as tx:
        feeds.remove(tx, found.id)
        ctx.event(tx, actor=actor.name, action="feed:remove", target=f"feed:{found.id}", project=found.project,
                  before={"url": found.url})
    return found


def listing(ctx: Context, project: str | None) -> list[FeedRow]:
    with ctx.store.read() as conn:
        return feeds.listing(conn, None if project is None else validate.project(project))


def pull(ctx: Context, actor: Actor, *, project: str | None, due_after: timedelta | None = None,
         vocabulary: frozenset[str] = frozenset()) -> PullReport:
    """Pull every feed of `project` (all projects when None); with `due_after`, only those not
    pulled within that time. Expired entries are archived on the way."""
    report = PullReport()
    now = ctx.clock()
    for feed in listing(ctx, project):
        if due_after is not None and feed.last_pulled and \
                datetime.fromisoformat(feed.last_pulled.replace("Z", "+00:00")) > now - due_after:
            continue
        report.feeds.append(_pull_one(ctx, actor, feed, vocabulary))
    report.expired = expire(ctx, actor)
    return report


def expire(ctx: Context, actor: Actor) -> list[int]:
    with ctx.store.write() as tx:
        gone = feeds.expired(tx, ctx.now())
        for memory_id in gone:
            row = memories.current(tx, memory_id)
            if row is not None:
                change_state(ctx, tx, row, "archived", reason="expired", actor=actor.name)
    return gone


def promote(ctx: Context, actor: Actor, memory_id: int) -> MemoryRow:
    """A person keeps a feed entry: it no longer expires, and it is confirmed."""
    if actor.kind != "human":
        raise Conflict("only a person can promote a feed entry", field="actor")
    memory_id = validate.integer(memory_id, "memory_id", low=1, high=2**62)
    with ctx.store.write() as tx:
        entry = feeds.entry_of(tx, memory_id)
        row = memories.current(tx, memory_id)
        if entry is None or row is None:
            raise NotFound(f"memory #{memory_id} is not a feed entry", field="memory_id")
        if row.state == "deleted":
            raise Conflict(f"memory #{memory_id} was forgotten", field="memory_id")
        feeds.promote(tx, memory_id, ctx.now())
        ctx.event(tx, actor=actor.name, action="promote", target=f"memory:{memory_id}", project=row.project,
                  before={"expires_at": entry.expires_at}, after={"expires_at": None})
        if row.trust != "confirmed":
            set_trust(ctx, tx, row, "confirmed", reason="promoted from a feed", actor=actor.name)
        if row.state == "archived":
            change_state(ctx, tx, row, "active", reason="promoted from a feed", actor=actor.name)
        found = memories.current(tx, memory_id)
    assert found is not None
    return found


def _url(url: str) -> str:
    url = validate.text(url, "url", max_length=2048).strip()
    if not re.match(r"^https?://[^\s/]+", url):
        raise InvalidInput("expected an http:// or https:// address", field="url")
    return url


def _feed(ctx: Context, url_or_id: str, project: str) -> FeedRow:
    project = validate.project(project)
    with ctx.store.read() as conn:
        found = feeds.get(conn, int(url_or_id)) if str(url_or_id).isdigit() else feeds.find(conn, project, url_or_id)
    if found is None or found.project != project:
        raise NotFound(f"no feed {url_or_id} in this project", field="url")
    return found


def _fetch(feed: FeedRow) -> tuple[int, bytes, dict[str, str]]:
    request = urllib.request.Request(feed.url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
    if feed.etag:
        request.add_header("If-None-Match", feed.etag)
    if feed.modified:
        request.add_header("If-Modified-Since", feed.modified)
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:  # noqa: S310 - http(s) only, checked
            body = response.read(MAX_FEED_BYTES + 1)
            if len(body) > MAX_FEED_BYTES:
                raise ValueError(f"larger than {MAX_FEED_BYTES} bytes")
            return response.status, body, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as exc:
        if exc.code == 304:
            return 304, b"", {}
        raise


def _pull_one(ctx: Context, actor: Actor, feed: FeedRow, vocabulary: frozenset[str]) -> FeedPull:
    result = FeedPull(feed=feed)
    try:
        status, body, headers = _fetch(feed)
    except (OSError, ValueError, urllib.error.URLError) as exc:
        return _failed(ctx, feed, result, f"cannot fetch: {getattr(exc, 'reason', None) or exc}")
    if status == 304:
        result.not_modified = True
        with ctx.store.write() as tx:
            feeds.record_pull(tx, feed.id, at=ctx.now(), error=None, etag=feed.etag, modified=feed.modified)
        return result
    import feedparser  # ≈ 0.1 s to import: only when a feed is pulled

    parsed = feedparser.parse(body, response_headers=headers)
    if parsed.bozo and not parsed.entries:
        return _failed(ctx, feed, result, f"not a feed: {parsed.get('bozo_exception') or 'unreadable'}")
    entries = [e for e in (_entry(item) for item in parsed.entries) if e is not None]
    screened = [e for e in entries if not secrets.scan(e.content)]
    result.refused_secrets = len(entries) - len(screened)
    entries = screened
    with ctx.store.read() as conn:
        known = feeds.entries(conn, feed.id)
        rows = {key: memories.current(conn, e.memory_id) for key, e in known.items()}
        links = feeds.links_in(conn, feed.project)
        present = memories.hashes_present(conn, feed.project, [content_hash(e.content) for e in entries])
    fresh, changed = [], []
    for entry in entries:
        row = rows.get(entry.key)
        if row is not None:
            if row.state == "deleted" or row.content_hash == content_hash(entry.content):
                result.unchanged += 1
            else:
                changed.append((entry, row))
        elif (entry.link and entry.link in links) or content_hash(entry.content) in present:
            result.duplicates += 1
        else:
            fresh.append(entry)
            present.add(content_hash(entry.content))
            if entry.link:
                links.add(entry.link)
    texts = [e.content for e, _ in changed] + [e.content for e in fresh]
    try:
        embedded = ctx.embedder.embed(texts) if texts else []
    except EmbedderUnavailable as exc:
        raise Unavailable(str(exc), field="model") from exc
    ctx.ensure_vectors()
    ctx.analyzer.set_vocabulary(vocabulary)
    analyses = [ctx.analyzer.analyze(t) for t in texts]
    now = ctx.now()
    expires_at = format_time(ctx.clock() + timedelta(days=feed.expires_days))
    with ctx.store.write() as tx:
        use_vectors = ctx.vectors_current()
        for (entry, row), vector, analysis in zip(changed, embedded, analyses, strict=False):
            updated = new_version(ctx, tx, row, vector=vector if use_vectors else None,
                                  entities=sorted(analysis.entities), content=entry.content,
                                  content_hash=content_hash(entry.content), lemmas=analysis.lemmas,
                                  polarity=analysis.polarity, actor=actor.name)
            ctx.event(tx, actor=actor.name, action="update", target=f"memory:{row.memory_id}", project=feed.project,
                      before={"version": row.version, "content_hash": row.content_hash},
                      after={"version": updated.version, "content_hash": updated.content_hash},
                      reason=f"updated in {feed.url}")
            result.updated += 1
        next_id = memories.next_memory_id(tx)
        for n, entry in enumerate(fresh):
            analysis = analyses[len(changed) + n]
            row = new_row(memory_id=next_id + n, project=feed.project, kind=KIND, content=entry.content,
                          source="import", actor=actor.name, trust=TRUST, analysis=analysis,
                          valid_from=entry.published or now, recorded_at=now, context=entry.title or "")
            row.id = memories.insert(tx, row)
            if use_vectors:
                vectors.insert(tx, row.id, feed.project, embedded[len(changed) + n])
            memories.insert_entities(tx, row.id, analysis.entities)
            feeds.put_entry(tx, EntryRow(memory_id=row.memory_id, feed_id=feed.id, entry_key=entry.key,
                                         link=entry.link, title=entry.title, expires_at=expires_at, promoted_at=None))
            ctx.event(tx, actor=actor.name, action="feed:entry", target=f"memory:{row.memory_id}", project=feed.project,
                      after={"kind": KIND, "content_hash": row.content_hash, "feed": feed.id, "link": entry.link,
                             "expires_at": expires_at})
            result.added += 1
        feeds.record_pull(tx, feed.id, at=now, error=None, etag=headers.get("etag"),
                          modified=headers.get("last-modified"), title=parsed.feed.get("title"))
        result.feed = feeds.get(tx, feed.id) or feed
    return result


def _failed(ctx: Context, feed: FeedRow, result: FeedPull, error: str) -> FeedPull:
    with ctx.store.write() as tx:
        feeds.record_pull(tx, feed.id, at=ctx.now(), error=error[:500])
        result.feed = feeds.get(tx, feed.id) or feed
    result.error = error
    return result


def _entry(item: Any) -> _Entry | None:
    title = _text(item.get("title") or "")
    body = ""
    if item.get("content"):
        body = _text(item["content"][0].get("value", ""))
    if not body:
        body = _text(item.get("summary") or "")
    content = "\n\n".join(part for part in (title, body) if part).strip()
    if not content:
        return None
    link = item.get("link") or None
    key = item.get("id") or link or content_hash(content)
    return _Entry(key=str(key)[:2048], link=link, title=title or None, content=content[:validate.MAX_CONTENT],
                  published=_published(item))


def _published(item: Any) -> str | None:
    for name in ("published_parsed", "updated_parsed"):
        parsed = item.get(name)
        if parsed:
            return format_time(datetime(*parsed[:6], tzinfo=UTC))
    raw = item.get("published") or item.get("updated")
    if raw:
        try:
            return format_time(parsedate_to_datetime(raw))
        except (TypeError, ValueError):
            return None
    return None


class _TextOnly(HTMLParser):
    """The words of an entry's HTML: feeds carry markup, a memory keeps the text it says."""

    BLOCKS = frozenset({"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "tr",
                        "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _text(value: str) -> str:
    if "<" not in value:
        return html.unescape(value).strip()
    parser = _TextOnly()
    parser.feed(value)
    parser.close()
    text = "".join(parser.parts)
    return re.sub(r"\n\s*\n+", "\n\n", re.sub(r"[ \t]+", " ", text)).strip()


@dataclass(frozen=True, slots=True)
class FeedSuggestion:
    package: str
    ecosystem: str
    url: str  # the repository's release feed


_GITHUB = re.compile(r"github\.com[/:](?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?(?:[/#?]|$)")
_MANIFESTS = ("requirements.txt", "requirements-dev.txt", "pyproject.toml", "setup.cfg", "package.json")


def suggest(root: Path) -> list[FeedSuggestion]:
    """Release feeds (`https://github.com/<owner>/<repo>/releases.atom`) for the dependencies the
    repository declares, where the installed package's metadata names its GitHub repository (each
    ecosystem says where its installed packages are: the workspace's Python environment,
    node_modules)."""
    from cenotaph.nlp import ecosystems
    from cenotaph.nlp.detect import detect

    declared: dict[tuple[str, str], str] = {}
    for name in _MANIFESTS:
        path = root / name
        if path.is_file():
            for mention in detect(name, path.read_text(encoding="utf-8", errors="replace")):
                if mention.kind == "declaration":
                    declared.setdefault((mention.ecosystem, mention.key), mention.name)
    by_ecosystem: dict[str, dict[str, str]] = {}
    for (ecosystem, key), name in declared.items():
        by_ecosystem.setdefault(ecosystem, {})[key] = name
    urls: dict[tuple[str, str], list[str]] = {}
    for ecosystem, named in by_ecosystem.items():
        if read := ecosystems.get(ecosystem).project_urls:
            urls.update(((ecosystem, key), found) for key, found in read(root, named).items())
    found: dict[str, FeedSuggestion] = {}
    for (ecosystem, key), name in sorted(declared.items()):
        for url in urls.get((ecosystem, key), []):
            match = _GITHUB.search(url)
            if match:
                feed = f"https://github.com/{match['owner']}/{match['repo']}/releases.atom"
                found.setdefault(feed, FeedSuggestion(package=name, ecosystem=ecosystem, url=feed))
                break
    return list(found.values())

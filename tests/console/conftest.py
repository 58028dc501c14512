"""The console over a real SQLite store in a tmp folder, with the session's models; a client
logged in through the token as a browser would be. (The console's PostgreSQL side, database
roles per person, is a later piece of issue 40: these tests are SQLite's.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from cenotaph.app import open_store
from cenotaph.console.app import Console, build_app, hosts_for
from cenotaph.memory.context import Context
from cenotaph.memory.mining.candidates import Candidate, Evidence
from cenotaph.memory.service import Memory
from starlette.testclient import TestClient

PROJECT = "shop"
PERSON = "ada@example.com"
TOKEN = "t0k3n-" + "x" * 40
PORT = 8767
ORIGIN = f"http://127.0.0.1:{PORT}"


def candidate(name: str, reason: str = "dropped for httpx", confidence: float = 0.9) -> Candidate:
    return Candidate(name=name, ecosystem="pypi", reason=reason, confidence=confidence,
                     evidence=(Evidence(origin="git", role="removed", ref="abc1234def", summary=f"drop {name}",
                                        at="2026-02-01T10:00:00Z", author="Bo", path="requirements.txt"),))


@pytest.fixture
def memory(tmp_path: Path, embedder, analyzer) -> Iterator[Memory]:
    store = open_store(tmp_path / "cenotaph.db")
    domain = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    yield domain
    store.close()


@pytest.fixture
def console(memory: Memory) -> Console:
    return Console(memory=memory, project=PROJECT, person=PERSON, token=TOKEN, port=PORT,
                   hosts=hosts_for("127.0.0.1", PORT))


@pytest.fixture
def anonymous(console: Console) -> TestClient:
    return TestClient(build_app(console), base_url=ORIGIN, follow_redirects=False)


@pytest.fixture
def client(anonymous: TestClient) -> TestClient:
    assert anonymous.get(f"/graveyard?token={TOKEN}").status_code == 303
    return anonymous


def csrf_of(client: TestClient, path: str = "/graveyard") -> str:
    """The CSRF token in the forms of `path` (one with a form), else the client's session's."""
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    if found:
        return found.group(1)
    console: Console = client.app.console
    return console.sessions[client.cookies[console.cookie]].csrf


def post(client: TestClient, path: str, data: dict, *, origin: str | None = ORIGIN, follow: bool = True):
    headers = {"origin": origin} if origin else {}
    return client.post(path, data={"csrf": csrf_of(client), **data}, headers=headers, follow_redirects=follow)


def notices(html: str) -> list[str]:
    """The notices a page shows, tags stripped."""
    return [re.sub(r"<[^>]+>", "", n) for n in re.findall(r'<div class="notice[^"]*"[^>]*>(.*?)</div>', html)]

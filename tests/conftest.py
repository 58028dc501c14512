"""Shared fixtures: the real embedding model and spaCy pipeline, loaded once per session, over a
fresh SQLite store per test."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.store.db import Store

HUMAN = Actor(name="test", kind="human")
AGENT = Actor(name="mcp:test-agent", kind="agent")
REPO = Path(__file__).resolve().parents[1]
CENOTAPH = str(Path(sys.executable).with_name("cenotaph"))


class Clock:
    """A clock the test moves by hand, for time-dependent rules."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return Embedder()


@pytest.fixture(scope="session")
def analyzer() -> Analyzer:
    return Analyzer()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "cenotaph.db"


@pytest.fixture
def memory(db_path: Path, embedder: Embedder, analyzer: Analyzer, clock: Clock) -> Iterator[Memory]:
    store = Store(db_path)
    yield Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
    store.close()


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    """Environment for running the real `cenotaph` command on a private store."""
    env = dict(os.environ)
    env["CENOTAPH_HOME"] = str(tmp_path / "home")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env.pop("CENOTAPH_MODEL", None)
    return env

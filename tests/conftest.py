"""Shared fixtures: the real embedding model and spaCy pipeline, loaded once per session, over a
fresh store per test. Tests that touch the store (through `db_path`, `memory` or `cli_env`) run
twice, on SQLite and on PostgreSQL (tests/pg.py starts one real server for the session); a test
marked `sqlite_only` (with its reason) runs on SQLite alone, one marked `postgres_only` on
PostgreSQL alone."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from cenotaph.app import open_store
from cenotaph.cli import authority
from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder

from tests import pg

HUMAN = Actor(name="test", kind="human")
GIT_PERSON = "tester@example.invalid"  # git's user.email for the commands cli_env runs


def person_of(store: Path | str) -> str:
    """The person the events of a command run with cli_env name: the PostgreSQL store's login, or git's."""
    return urlsplit(store).username or "" if isinstance(store, str) else GIT_PERSON
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


STORES = tuple(os.environ.get("CENOTAPH_TEST_STORES", "sqlite,postgres").split(","))
NO_AVX2 = ("PostgreSQL store not tested: pgvector's vector.so needs AVX2 and this CPU lacks it "
           "(no avx2 in /proc/cpuinfo)")


@pytest.fixture(autouse=True, scope="session")
def _git_person(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every process of the session, in-process doors too, knows git's person as GIT_PERSON,
    whatever this machine's own git config says."""
    gitconfig = tmp_path_factory.mktemp("git") / "gitconfig"
    gitconfig.write_text(f"[user]\n\temail = {GIT_PERSON}\n\tname = Tester\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        yield


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only(reason): the test is about the SQLite file itself")
    config.addinivalue_line("markers", "postgres_only(reason): what the test needs only PostgreSQL's store has")
    config.addinivalue_line("markers", "install: Cenotaph built as a wheel and installed into a fresh environment")


# The folders whose tests run longest (a minute or two each: many processes, fuzzers, a large
# store) start first, so that pytest-xdist's workers share out the short ones at the end rather
# than two of them waiting on a third's long test. With this order the three workers ended within
# 4 s of each other; the whole run was no faster than without it, within the machine's noise.
LONG_FIRST = ("reliability", "e2e", "mcp", "lsp")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        parts = item.path.relative_to(config.rootpath).parts
        folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
        return LONG_FIRST.index(folder) if folder in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: each folder's and module's own order is kept


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store_kind" not in metafunc.fixturenames:
        return
    marked = metafunc.definition.get_closest_marker
    kinds = [k for k in STORES if (k == "sqlite" or marked("sqlite_only") is None)
             and (k == "postgres" or marked("postgres_only") is None)]
    metafunc.parametrize("store_kind", [
        pytest.param(k, marks=pytest.mark.skipif(pg.lacks_avx2(), reason=NO_AVX2)) if k == "postgres" else k
        for k in kinds], indirect=True)


@pytest.fixture
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pg.Server]:
    server = pg.Server()
    try:
        server.start()
        yield server
    finally:  # also when the start failed half-way: no server is left running
        server.stop()


@pytest.fixture
def db_path(store_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path | str]:
    """The test's store: a file on SQLite, a fresh database's URL on PostgreSQL."""
    if store_kind == "sqlite":
        yield tmp_path / "cenotaph.db"
        return
    server: pg.Server = request.getfixturevalue("pg_server")
    name = server.new_database()
    yield server.url(name)
    server.drop_database(name)


@pytest.fixture
def pg_url(pg_server: pg.Server) -> Iterator[str]:
    """A fresh PostgreSQL database beside whichever store the test runs on (a second store: the
    target of `migrate-store`, or the PostgreSQL-only reliability tests)."""
    if pg.lacks_avx2():
        pytest.skip(NO_AVX2)
    name = pg_server.new_database()
    yield pg_server.url(name)
    pg_server.drop_database(name)


@pytest.fixture
def memory(db_path: Path | str, embedder: Embedder, analyzer: Analyzer, clock: Clock) -> Iterator[Memory]:
    store = open_store(db_path)
    yield Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
    store.close()


@asynccontextmanager
async def write_lock_held(db_path: Path | str, *, at_most: float) -> AsyncIterator[None]:
    """Another process (tests/lock_holder.py) holds the store's write lock until the block ends,
    or for `at_most` seconds if that comes first."""
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.lock_holder", str(db_path), str(at_most),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    try:
        assert await asyncio.wait_for(holder.stdout.readline(), 60) == b"held\n"
        yield
    finally:
        holder.stdin.close()  # lets go of the lock
        await asyncio.wait_for(holder.wait(), 60)


def cli_store(cli_env: dict[str, str]) -> Path | str:
    """The store the `cenotaph` commands run with `cli_env` use. On SQLite it is their default
    store, whose folder a command creates on its first run: made here for a test that opens it
    before any command has."""
    if url := cli_env.get("CENOTAPH_STORE"):
        return url
    home = Path(cli_env["CENOTAPH_HOME"])
    home.mkdir(exist_ok=True)
    return home / "cenotaph.db"


@contextmanager
def cli_memory(cli_env: dict[str, str], embedder: Embedder, analyzer: Analyzer) -> Iterator[Memory]:
    """That store, opened in the test's process with the session's models: a test of another
    command seeds it in milliseconds a verb, where each `cenotaph abandon` process would load both
    models first (seconds)."""
    store = open_store(cli_store(cli_env))
    try:
        yield Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
    finally:
        store.close()


@pytest.fixture
def cli_env(tmp_path: Path, db_path: Path | str) -> dict[str, str]:
    """Environment for running the real `cenotaph` command on a private store (the test's
    PostgreSQL database through CENOTAPH_STORE; on SQLite its own home's file, or `--db`)."""
    env = dict(os.environ)
    env.pop("CENOTAPH_STORE", None)
    if isinstance(db_path, str):
        env["CENOTAPH_STORE"] = db_path
    env["CENOTAPH_HOME"] = str(tmp_path / "home")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    # Who the commands' events name on SQLite (cenotaph.identity): git's user.email, known here.
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f"[user]\n\temail = {GIT_PERSON}\n\tname = Tester\n", encoding="utf-8")
    env["GIT_CONFIG_GLOBAL"], env["GIT_CONFIG_NOSYSTEM"] = str(gitconfig), "1"
    env.pop("CENOTAPH_MODEL", None)
    for _, variables in authority.MARKERS:  # a suite run from an agent's shell still tests a person's commands
        for variable in variables:
            env.pop(variable, None)
    return env

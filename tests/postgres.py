"""A real PostgreSQL with pgvector for the tests that need one by name (the PostgreSQL reliability
tests, `migrate-store` between the two stores): started once a session by scripts/pg.sh, as
`make pg-up` starts it, on a port and folder of its own; a fresh database for each test."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A real PostgreSQL with pgvector for the session (scripts/pg.sh, as `make pg-up` starts it, on
    a port and folder of its own), stopped at the end; its URL without a database."""
    if "avx2" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("PostgreSQL tests skipped: this CPU lacks AVX2, which the pgvector build needs")
    env = dict(os.environ, VENV=str(Path(sys.executable).parents[1]), PGDEV_PORT="55439",
               PGDEV_DIR=f"/tmp/cenotaph-pgtest-{os.getuid()}", PGDEV_PASSWORD="cenotaph-test")
    script = str(REPO / "scripts" / "pg.sh")
    started = subprocess.run(["bash", script, "start"], env=env, capture_output=True, text=True, timeout=300)
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip().removeprefix("CENOTAPH_STORE=").rsplit("/", 1)[0]
    yield url
    subprocess.run(["bash", script, "stop"], env=env, capture_output=True, timeout=120)


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A new, empty database on the session's server, dropped afterwards."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield f"{pg_server}/{name}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

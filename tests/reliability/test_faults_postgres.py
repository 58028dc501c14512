"""Issue 30: a PostgreSQL server restarted under a session (or failed over to a standby at the
same address). While it is down, every call ends in one clear sentence (exit status 2 from the
command line) and nothing half-written stays; once it is back, the same session carries on,
its pool reconnected."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from cenotaph.store.connect import StoreUnavailable
from tests.conftest import CENOTAPH, HUMAN

PROJECT = "acme/app"
OUTAGE_SECONDS = 35


def current(memory) -> list[str]:
    with memory.ctx.store.read() as conn:
        return sorted(row[0] for row in conn.execute("SELECT content FROM memories WHERE superseded_at IS NULL"))


@pytest.mark.postgres_only("the server restarted under the session")
def test_a_restarted_server_is_told_plainly_and_the_session_goes_on(memory, pg_server, cli_env):
    memory.remember(HUMAN, "The staging database is rebuilt every night.", project=PROJECT)  # the control
    pg_server.halt()
    halted = time.monotonic()
    try:
        with pytest.raises(StoreUnavailable, match=r"^the PostgreSQL store at .* failed: "):
            memory.remember(HUMAN, "The deploy window is Tuesday morning.", project=PROJECT)
        with pytest.raises(StoreUnavailable, match=r"^the PostgreSQL store at .* failed: "):
            memory.recall(HUMAN, "when is the deploy window", project=PROJECT)
        done = subprocess.run([CENOTAPH, "recall", "--json", "--project", PROJECT, "deploy window"], env=cli_env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        error = json.loads(done.stdout)["error"]
        assert error["field"] == "store" and error["message"].startswith("cannot open the PostgreSQL store at ")
        assert f"cenotaph: error: {error['message']}" in done.stderr
        # Down for longer than the pool's doubling waits between attempts reach by then (about 1, 2,
        # 4, 8, 16 s): had they gone on, its next attempt would come long after the server is back.
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - halted)))
    finally:
        pg_server.resume()
    memory.remember(HUMAN, "Release notes are written on Fridays.", project=PROJECT)  # the same session
    assert current(memory) == ["Release notes are written on Fridays.", "The staging database is rebuilt every night."]

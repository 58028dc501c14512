"""Issue 30: faults end in a clear word. Each fault is injected for real (a 3 MB tmpfs filled to
the last byte, the same tmpfs remounted read-only, the PostgreSQL server stopped and started) and
each ends in exit status 2 with a one-line message, no traceback, and nothing half-written; the
same text reaches an editor as a JSON-RPC error."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from cenotaph.app import open_store
from tests.conftest import CENOTAPH
from tests.lsp.conftest import PROJECT, project_folder


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB file system of its own (a tmpfs), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def db_path(small_disk: Path) -> Path:
    """The store of this module's tests (and of the `serve` they start): on the small disk."""
    return small_disk / "cenotaph.db"


def cenotaph(cli_env: dict[str, str], db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CENOTAPH, *args, "--db", str(db), "--project", PROJECT], env=cli_env,
                          capture_output=True, text=True, timeout=300)


def fill(folder: Path) -> Path:
    """Write until the file system has no byte left."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler


def contents(db: Path) -> list[str]:
    store = open_store(db)
    try:
        with store.read() as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            return [row[0] for row in conn.execute("SELECT content FROM memories WHERE superseded_at IS NULL")]
    finally:
        store.close()


def refused(done: subprocess.CompletedProcess[str], words: str) -> dict:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and f"cenotaph: error: {words}" in done.stderr, done.stderr
    return json.loads(done.stdout)["error"]


def test_a_full_disk_ends_in_a_clear_word_and_keeps_what_was_written(small_disk, db_path, cli_env):
    db = db_path
    stored = cenotaph(cli_env, db, "remember", "The staging database is rebuilt every night.")
    assert stored.returncode == 0, stderr_of(stored)  # the control: with room, the write goes through
    filler = fill(small_disk)
    full = cenotaph(cli_env, db, "remember", "--json", "The deploy window is Tuesday morning.")
    error = refused(full, "the disk holding the store is full: nothing was written")
    assert error["field"] == "store" and error["message"].startswith("the disk holding the store is full")
    filler.unlink()
    assert contents(db) == ["The staging database is rebuilt every night."]


def test_a_read_only_store_ends_in_a_clear_word_and_changes_nothing(small_disk, db_path, cli_env):
    db = db_path
    assert cenotaph(cli_env, db, "remember", "The staging database is rebuilt every night.").returncode == 0
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    try:
        written = cenotaph(cli_env, db, "remember", "--json", "The deploy window is Tuesday morning.")
        error = refused(written, "the store is read-only")
        assert error["field"] == "store"
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert contents(db) == ["The staging database is rebuilt every night."]


async def test_the_editor_is_told_of_a_full_disk_and_its_session_goes_on(small_disk, db_path, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    request = session.client.protocol.send_request_async
    first = await request("cenotaph/remember", {"content": "The staging database is rebuilt every night.",
                                                "project": PROJECT})
    assert first.stored  # the control: with room, the write goes through
    filler = fill(small_disk)
    with pytest.raises(JsonRpcException) as failed:
        await request("cenotaph/remember", {"content": "The deploy window is Tuesday morning.", "project": PROJECT})
    assert str(failed.value.message).startswith("the disk holding the store is full: nothing was written")
    # Reads still answer on the full disk.
    answer = await request("cenotaph/recall", {"query": "when is the staging database rebuilt", "project": PROJECT})
    assert "rebuilt every night" in str(answer)
    filler.unlink()
    third = await request("cenotaph/remember", {"content": "Release notes are written on Fridays.", "project": PROJECT})
    assert third.stored  # the session went on
    assert sorted(contents(db_path)) == ["Release notes are written on Fridays.",
                                         "The staging database is rebuilt every night."]


def stderr_of(done: subprocess.CompletedProcess[str]) -> str:
    return done.stderr[-2000:]

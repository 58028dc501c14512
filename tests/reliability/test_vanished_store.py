"""Issue 30: the store's folder goes away under a running `cenotaph serve`, as when the mount it
lives on is unmounted (a bind mount lazily unmounted: the data stays on the device) or the folder
is moved away. The editor's next write ends in one clear sentence naming what happened, nothing of
it is written anywhere, and everything acknowledged before is on the device, intact."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.conftest import CENOTAPH
from tests.lsp.conftest import PROJECT, project_folder
from tests.reliability.test_faults import contents


@pytest.fixture
def device(tmp_path: Path) -> Path:
    """Where the store's bytes really are."""
    (tmp_path / "device").mkdir()
    return tmp_path / "device"


@pytest.fixture
def mounted(tmp_path: Path, device: Path) -> Iterator[Path]:
    """`device` bind-mounted at a folder of its own (unmounted afterwards, if the test has not)."""
    mount = tmp_path / "mount"
    mount.mkdir()
    done = subprocess.run(["mount", "--bind", str(device), str(mount)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot bind-mount here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


@pytest.fixture
def db_path(mounted: Path) -> Path:
    (mounted / "store").mkdir()
    return mounted / "store" / "cenotaph.db"


def unmount(mount: Path, device: Path) -> Path:
    """Lazily, as a mount that goes away under open files does; returns where the store now is."""
    subprocess.run(["umount", "-l", str(mount)], check=True)
    return device / "store"


def move_away(mount: Path, device: Path) -> Path:
    (mount / "store").rename(mount / "moved")
    return device / "moved"


@pytest.mark.parametrize("vanish", [unmount, move_away], ids=["mount unmounted", "folder moved away"])
async def test_a_store_whose_folder_vanishes_is_told_plainly_and_keeps_what_was_written(
        vanish, mounted, device, db_path, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    request = session.client.protocol.send_request_async
    first = await request("cenotaph/remember", {"content": "The staging database is rebuilt every night.",
                                                "project": PROJECT})
    assert first.stored  # the control: while the folder is there, the write goes through
    kept = vanish(mounted, device)
    with pytest.raises(JsonRpcException) as failed:
        await request("cenotaph/remember", {"content": "The deploy window is Tuesday morning.", "project": PROJECT})
    assert str(failed.value.message).startswith("the store's file is gone from its folder"), failed.value.message
    assert contents(kept / "cenotaph.db") == ["The staging database is rebuilt every night."]


@pytest.mark.sqlite_only("a store file named with --db")
def test_a_store_folder_missing_at_start_is_told_plainly_and_nothing_is_created(tmp_path: Path):
    env = dict(os.environ, CENOTAPH_HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"))
    env.pop("CENOTAPH_STORE", None)

    def audit(db: Path) -> subprocess.CompletedProcess[str]:
        # `audit verify` opens the store and loads no model: the fault costs no embedding.
        return subprocess.run([CENOTAPH, "audit", "verify", "--db", str(db)], env=env, capture_output=True, text=True,
                              timeout=120)

    missing = tmp_path / "no-such-folder" / "store"
    done = audit(missing / "cenotaph.db")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == (f"cenotaph: error: the folder {missing} does not exist: create it, or name a store "
                                   "in a folder that does (only the default store's folder is created)")
    assert not (tmp_path / "no-such-folder").exists()
    (tmp_path / "there").mkdir()  # the control: a folder that exists gets its store
    done = audit(tmp_path / "there" / "cenotaph.db")
    assert done.returncode == 0 and "the event log is intact" in done.stdout, done.stderr
    assert (tmp_path / "there" / "cenotaph.db").is_file()


@pytest.mark.sqlite_only("the store's file leaves its path")
@pytest.mark.parametrize("moved", [True, False], ids=["folder moved away", "folder in place (control)"])
def test_a_reader_opened_after_the_file_left_its_path_creates_no_empty_store(tmp_path: Path, moved: bool):
    from cenotaph.store.connect import StoreFault
    from cenotaph.store.db import Store

    (tmp_path / "store").mkdir()
    store = Store(tmp_path / "store" / "cenotaph.db")
    reading, done = threading.Event(), threading.Event()

    def hold_a_read() -> None:  # as the editor's change poll does, beside the request
        with store.read():
            reading.set()
            done.wait(30)

    holder = threading.Thread(target=hold_a_read)
    try:
        with store.write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES ('probe', 'kept')")
        holder.start()
        assert reading.wait(30)
        # Every reader opened so far is busy, so the next read opens one by the store's path.
        if moved:
            (tmp_path / "store").rename(tmp_path / "moved")
            with pytest.raises(StoreFault, match="^the store's file is gone from its folder"), store.read() as conn:
                conn.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone()
            assert not (tmp_path / "store").exists()
        else:
            with store.read() as conn:
                assert conn.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone()[0] == "kept"
    finally:
        done.set()
        holder.join(30)
        store.close()

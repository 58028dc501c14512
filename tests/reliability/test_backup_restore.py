"""Backup and restore: a backup taken while another connection writes is one consistent snapshot
that restores to a consistent store; restore never brings back a forgotten memory or a lifted
suppression; a truncated, damaged or foreign file is refused and changes nothing — and the
intact backup beside each refusal restores (the control)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from cenotaph.memory.errors import InvalidInput, NotFound
from cenotaph.store import suppressions
from cenotaph.store.backup import SQLITE_HEADER
from tests.conftest import HUMAN
from tests.reliability.support import PROJECT, assert_in_step, open_memory_on, record, scale

BACKUPS_DURING_WRITES = scale(3, 10)


# Backups are copies of the SQLite file; a PostgreSQL store leaves them to pg_dump (tests/store/test_postgres.py).
pytestmark = pytest.mark.sqlite_only("file backups of the SQLite store")

def _memories(memory) -> dict[str, str]:
    """content hash → content of every memory version."""
    with memory.ctx.store.read() as conn:
        return dict(conn.execute("SELECT content_hash, content FROM memories").fetchall())


def test_a_backup_taken_during_writes_restores_to_a_consistent_store(live_memory, db_path, embedder, analyzer,
                                                                      tmp_path):
    writer = open_memory_on(db_path, embedder, analyzer)  # another connection, writing all along
    stop = threading.Event()
    written: list[int] = []
    failures: list[BaseException] = []

    def write() -> None:
        try:
            while not stop.is_set():
                i = len(written)
                result = writer.remember(HUMAN, f"Written while backing up, #{i}: port {9000 + i} is free.",
                                         project=PROJECT, force=True)
                written.append(result.id)
                if i % 3 == 2:
                    writer.deprioritise(HUMAN, written[i - 1], reason="rarely relevant")
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        backups = []
        while len(backups) < BACKUPS_DURING_WRITES:
            if len(written) >= 5 * (len(backups) + 1):
                backups.append(live_memory.backup(HUMAN, str(tmp_path / f"during-{len(backups)}.db")))
    finally:
        stop.set()
        thread.join()
        writer.ctx.store.close()
    assert not failures, failures
    for number, report in enumerate(backups):
        snapshot = open_memory_on(Path(report.path), embedder, analyzer)
        fresh = open_memory_on(tmp_path / f"restored-{number}.db", embedder, analyzer)
        try:
            assert_in_step(snapshot)  # the snapshot itself: whole transactions only
            fresh.restore(HUMAN, report.path)
            assert_in_step(fresh)
            assert _memories(fresh) == _memories(snapshot)
        finally:
            snapshot.ctx.store.close()
            fresh.ctx.store.close()
    record("backup/restore", backups_during_writes=len(backups), writes_meanwhile=len(written))


def test_restore_never_brings_back_what_was_forgotten_or_lifted(live_memory, tmp_path, embedder, analyzer):
    memory = live_memory
    secret = memory.remember(HUMAN, "The staging box answers to the nickname zqxjvorble.", project=PROJECT).id
    kept = memory.remember(HUMAN, "Staging lives on host stg-3.", project=PROJECT).id
    memory.suppress(HUMAN, "left-pad", kind="recall", project=PROJECT, reason="noise")
    backup = memory.backup(HUMAN, str(tmp_path / "before.db")).path
    memory.forget(HUMAN, secret, reason="a secret", confirm=True)
    memory.unsuppress(HUMAN, "left-pad", kind="recall", project=PROJECT, reason="relevant again")
    memory.archive(HUMAN, kept, reason="moved")

    memory.restore(HUMAN, backup)
    assert memory.get(secret).state == "deleted" and memory.get(secret).content == ""
    with memory.ctx.store.read() as conn:
        assert not any(s.value == "left-pad" for s in suppressions.active(conn))
    assert "zqxjvorble" not in str(memory.recall(HUMAN, "staging nickname", project=PROJECT, include_refuted=True))
    assert_in_step(memory)
    # The control: into a store that never forgot or lifted them, both come back.
    fresh = open_memory_on(tmp_path / "fresh.db", embedder, analyzer)
    try:
        fresh.restore(HUMAN, backup)
        assert "The staging box answers to the nickname zqxjvorble." in _memories(fresh).values()
        with fresh.ctx.store.read() as conn:
            assert any(s.value == "left-pad" for s in suppressions.active(conn))
    finally:
        fresh.ctx.store.close()


def _broken_files(backup: Path, folder: Path) -> dict[str, Path]:
    data = backup.read_bytes()
    foreign = folder / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE memories (id INTEGER PRIMARY KEY, content TEXT)")
        conn.execute("INSERT INTO memories (content) VALUES ('not ours')")
    conn.close()
    damaged = bytearray(data)
    page = 4096
    for offset in range(2 * page, len(damaged) - page, 3 * page):  # scribble over whole pages
        damaged[offset:offset + page] = b"\xa5" * page
    files = {
        "truncated to half": data[: len(data) // 2],
        "truncated to one page": data[:4096],
        "only the header": SQLITE_HEADER,
        "empty": b"",
        "text": b"memories,events\n1,2\n",
        "damaged pages": bytes(damaged),
    }
    found = {name: folder / f"{name.replace(' ', '-')}.db" for name in files}
    for name, content in files.items():
        found[name].write_bytes(content)
    # Sound files whose memories were altered behind Cenotaph's back.
    for name, value in (("a tampered memory", "'tampered'"), ("undecodable text", "CAST(x'c328ff' AS TEXT)")):
        found[name] = folder / f"{name.replace(' ', '-')}.db"
        found[name].write_bytes(data)
        with sqlite3.connect(found[name]) as conn:
            conn.execute(f"UPDATE memories SET content = {value} WHERE id = (SELECT MAX(id) FROM memories)")
        conn.close()
    return {**found, "foreign database": foreign, "a directory": folder, "missing": folder / "missing.db"}


def test_a_truncated_damaged_or_foreign_file_is_refused_and_changes_nothing(live_memory, tmp_path):
    memory = live_memory
    for i in range(40):
        memory.remember(HUMAN, f"Fact {i} for the backup: queue {i} drains hourly.", project=PROJECT, force=True)
    backup = Path(memory.backup(HUMAN, str(tmp_path / "good.db")).path)
    memory.remember(HUMAN, "Written after the backup.", project=PROJECT)
    folder = tmp_path / "broken"
    folder.mkdir()
    refused = 0
    for name, path in _broken_files(backup, folder).items():
        before, contents = memory.change_seq(), _memories(memory)
        with pytest.raises((InvalidInput, NotFound)) as refusal:
            memory.restore(HUMAN, str(path))
        assert refusal.value.field == "path", name
        assert (memory.change_seq(), _memories(memory)) == (before, contents), name
        refused += 1
    assert_in_step(memory)
    report = memory.restore(HUMAN, str(backup))  # the control
    assert report.skipped_forgotten == 0 and memory.change_seq() > before
    assert_in_step(memory)
    record("backup/restore", broken_files_refused=refused)

import ast
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from cenotaph.store import memories, migrations, vectors
from cenotaph.store.connect import StoreFault, binding, open_connection
from cenotaph.store.db import Store
from cenotaph.store.records import MemoryRow

EXPECTED_TABLES = {
    "meta", "memories", "memory_fts", "memory_entities", "transitions", "tombstones", "approaches",
    "approach_aliases", "suppressions", "contradictions", "dismissals", "proposals", "recall_log", "events",
    "schema_migrations", "memory_substrings", "mining_cursors", "candidate_dismissals",
    "document_chunks", "feeds", "feed_entries", "event_scrubs", "blessings", "summary_sources",
    "memory_concepts", "concept_pairs", "concept_aliases", "concept_removals", "concept_dismissals", "anchors",
    "concept_counts", "vector_log",
}
EXPECTED_TRIGGERS = {"memories_fts_insert", "memories_fts_delete", "memories_fts_update", "events_no_update",
                     "events_no_delete", "memories_substrings_insert", "memories_substrings_delete",
                     "memories_substrings_update", "event_scrubs_no_update", "event_scrubs_no_delete",
                     "concept_counts_linked", "concept_counts_unlinked", "concept_counts_row_left",
                     "concept_counts_row_came", "concept_counts_row_deleted"}


def _tables(conn) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'memory_fts_%' "
                        "AND name NOT LIKE 'memory_substrings_%'")
    return {r[0] for r in rows if not r[0].startswith("sqlite_")}


def test_empty_database_migrates_to_the_expected_schema(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    assert store.schema_version == len(migrations.MIGRATIONS)
    assert _tables(store.conn) == EXPECTED_TABLES
    triggers = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert triggers == EXPECTED_TRIGGERS
    recorded = store.conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert recorded == [(1, "m0001_initial"), (2, "m0002_binary_vector_index"), (3, "m0003_substring_index"),
                        (4, "m0004_mining"), (5, "m0005_documents_and_feeds"), (6, "m0006_forgotten_means_gone"),
                        (7, "m0007_blessings"), (8, "m0008_compaction"), (9, "m0009_concepts"), (10, "m0010_anchors"),
                        (11, "m0011_newest_rows"), (12, "m0012_concept_counts"),
                        (13, "m0013_vector_log")]
    columns = {r[1] for r in store.conn.execute("PRAGMA table_info(memories)")}
    assert {"valid_from", "valid_to", "recorded_at", "superseded_at", "trust", "state", "effort", "outcome"} <= columns


def test_pragmas_wal_foreign_keys_busy_timeout(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_migrating_twice_applies_nothing_new(tmp_path: Path):
    Store(tmp_path / "s.db").close()
    store = Store(tmp_path / "s.db")
    assert store.conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(migrations.MIGRATIONS)


def test_a_newer_schema_is_refused(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    store.conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 'x')")
    store.close()
    with pytest.raises(migrations.SchemaTooNew):
        Store(tmp_path / "s.db")


def test_binding_loads_sqlite_vec():
    conn = open_connection(":memory:")
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v0.1")
    assert binding().name in {"sqlite3", "sqlean", "pysqlite3"}


def _row(memory_id: int, content: str) -> MemoryRow:
    return MemoryRow(
        id=0, memory_id=memory_id, version=1, project="p", kind="note", content=content, content_hash=str(memory_id),
        tags=[], source="human", actor="t", state="active", state_reason=None, reinstate_hints=[], trust="confirmed",
        trust_reason=None, polarity=0, valid_from="2026-01-01T00:00:00.000000Z", valid_to=None,
        recorded_at="2026-01-01T00:00:00.000000Z", superseded_at=None, effort=None, outcome=None, iterations=None,
        breakthrough=None, gotchas=[], recall_count=0, last_recalled_at=None, lemmas="", context="",
    )


def test_fts_and_vectors_stay_in_step_on_insert_update_delete(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    with store.write() as conn:
        vectors.create(conn, 8)
        ids = []
        for i, text in enumerate(["alpha beta", "gamma delta", "epsilon"], start=1):
            rid = memories.insert(conn, _row(i, text))
            vectors.insert(conn, rid, "p", np.array([1, i, 0, 0, 0, 0, 0, 0], dtype=np.float32))
            ids.append(rid)
    conn = store.conn
    assert memories.fts_rowids(conn) == set(ids) == vectors.row_ids(conn)
    with store.write() as conn:
        memories.set_fields(conn, ids[0], content="zeta eta")
    hits = {r[0] for r in conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'zeta'")}
    assert hits == {ids[0]}
    stale = {r[0] for r in conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'alpha'")}
    assert stale == set()
    with store.write() as conn:
        conn.execute("DELETE FROM memories WHERE id = ?", (ids[1],))
    assert memories.fts_rowids(conn) == {ids[0], ids[2]} == vectors.row_ids(conn)


def test_events_are_append_only(tmp_path: Path):
    from cenotaph.store import events

    store = Store(tmp_path / "s.db")
    with store.write() as conn:
        events.append(conn, at="t", actor="a", action="x", target="y", project="p")
    with pytest.raises(Exception, match="append-only"):
        with store.write() as conn:
            conn.execute("UPDATE events SET actor = 'b'")
    with pytest.raises(Exception, match="append-only"):
        with store.write() as conn:
            conn.execute("DELETE FROM events")
    assert store.conn.execute("SELECT actor FROM events").fetchall() == [("a",)]


def test_failed_write_rolls_back_everything(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    with pytest.raises(RuntimeError):
        with store.write() as conn:
            memories.insert(conn, _row(1, "kept only if committed"))
            raise RuntimeError("boom")
    assert store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 0
    with store.write() as conn:
        memories.insert(conn, _row(1, "committed"))
    assert store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1


def _in_another_process(path: Path, sql: str) -> list[tuple]:
    """`sql`'s rows, read by a process of its own that then closes its only connection."""
    code = ("import sys; from cenotaph.store.connect import binding; "
            "conn = binding().module.connect(sys.argv[1]); print(conn.execute(sys.argv[2]).fetchall()); conn.close()")
    done = subprocess.run([sys.executable, "-c", code, str(path), sql], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "server")})
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout)


def _committed_after_another_process_closed(path: Path, store: Store, value: str) -> bool:
    """Another process opens the store and closes it; then `store` commits `value`: whether a
    third process reads it (not when the commit went to a WAL file the second one had deleted)."""
    assert _in_another_process(path, "SELECT COUNT(*) FROM schema_migrations") == [(len(migrations.MIGRATIONS),)]
    with store.write() as conn:
        store.set_meta(conn, "written", value)
    return _in_another_process(path, "SELECT value FROM meta WHERE key = 'written'") == [(value,)]


def _count_in_a_read(store: Store) -> int:
    with store.read() as conn:
        time.sleep(0.2)  # held open, so that the next read opens a reader of its own
        return conn.execute("SELECT COUNT(*) FROM meta").fetchone()[0]


def test_opening_a_reader_keeps_this_process_s_locks_on_the_file(tmp_path: Path):
    """POSIX drops every lock a process holds on a file when the process closes any descriptor
    of that file. Had opening a reader connection closed one of its own (to read the header),
    the next process to close the store would take this one for gone, checkpoint and delete the
    WAL under it: this process's commits would then go to a deleted file, lost to every other
    process, and its readers would see pages of two WALs ("database disk image is malformed")."""
    path = tmp_path / "s.db"
    store = Store(path)
    with ThreadPoolExecutor(3) as pool:  # readers opened beside the writer (a burst of reads)
        list(pool.map(lambda _: _count_in_a_read(store), range(3)))
    assert len(store._readers) >= 2
    assert _committed_after_another_process_closed(path, store, "after the readers opened")

    # The control: closing a descriptor of the file here loses the next commit as described.
    path.open("rb").close()
    assert not _committed_after_another_process_closed(path, store, "after a descriptor was closed")


def test_a_damaged_store_is_told_as_damaged(tmp_path: Path):
    """What a read meets in a really damaged file reaches the person as such: the cure for the
    "malformed" above (a WAL deleted under a live process) hides no real damage."""
    path = tmp_path / "s.db"
    store = Store(path)
    with store.write() as conn:
        for memory_id in range(1, 200):
            memories.insert(conn, _row(memory_id, f"memory {memory_id} " + "text " * 40))
    with store.read() as conn:  # the control: the same read before the damage
        assert conn.execute("SELECT COUNT(*) FROM memories WHERE content LIKE '%text%'").fetchone()[0] == 199
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'memories'").fetchone()
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    store.truncate_wal_after_commit()  # every page in the file itself, none in a WAL beside it
    store.close()
    with path.open("r+b") as file:  # no connection to it is open here
        file.seek((root - 1) * page_size)
        file.write(b"\xa5" * page_size)
    store = Store(path)
    try:
        with pytest.raises(StoreFault, match=r"^the store is damaged: run `cenotaph repair` .*malformed"):
            with store.read() as conn:
                conn.execute("SELECT COUNT(*) FROM memories WHERE content LIKE '%text%'").fetchone()
    finally:
        store.close()


def test_a_read_does_not_wait_for_a_write_that_waits_for_another_process(tmp_path: Path):
    """This process's writer waits on another connection's write lock; a read in another thread
    answers meanwhile, from the last commit, and the write lands once the lock is free."""
    store, other = Store(tmp_path / "s.db"), Store(tmp_path / "s.db")
    with store.write() as conn:
        memories.insert(conn, _row(1, "committed before"))
    written = threading.Event()

    def write_behind_the_lock() -> None:
        with store.write() as conn:
            memories.insert(conn, _row(2, "written once the lock was free"))
        written.set()

    with other.write():
        writer = threading.Thread(target=write_behind_the_lock)
        writer.start()
        assert not written.wait(0.3)  # the control: the write is waiting on the lock
        with store.read() as conn:
            assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1
    writer.join(10)
    assert written.is_set()
    with store.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 2


def _another_process_has_the_store_alone(path: Path) -> bool:
    """Whether another process may leave WAL mode: SQLite allows it only to a connection that is
    the store's only one, as it checkpoints and removes the WAL when its last connection closes."""
    attempt = subprocess.run([sys.executable, "-c", "import sqlite3, sys\n"
                              "conn = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)\n"
                              "print(conn.execute('PRAGMA journal_mode = DELETE').fetchone()[0])", str(path)],
                             capture_output=True, text=True, timeout=60)
    assert attempt.returncode == 0 or "database is locked" in attempt.stderr, attempt.stderr
    return attempt.stdout.strip() == "delete"


def test_opening_another_connection_keeps_the_locks_this_process_holds(tmp_path: Path):
    """POSIX drops every lock a process holds on a file when it closes any descriptor of it. A new
    connection must not open the store's file outside SQLite: else another process, seeing no one
    else, checkpoints and removes the WAL under this one's open connections (the store then reads
    as malformed)."""
    path = tmp_path / "s.db"
    store = Store(path)
    with store.read():
        open_connection(path).close()  # as a reader connection opens beside the others
        assert not _another_process_has_the_store_alone(path)
    store.close()
    assert _another_process_has_the_store_alone(path)  # the control: once this process let go


def test_a_burst_of_concurrent_reads_leaves_a_few_reader_connections_open(tmp_path: Path):
    from cenotaph.store.db import IDLE_READERS

    store = Store(tmp_path / "s.db")
    # The store's own list: SQLite keeps a closed connection's file descriptor for reuse while
    # others hold the file, so descriptors do not show a close.
    readers = IDLE_READERS * 2
    inside, counted = threading.Barrier(readers + 1), threading.Event()

    def read() -> None:
        with store.read() as conn:
            conn.execute("SELECT COUNT(*) FROM memories").fetchone()
            inside.wait(10)
            counted.wait(10)

    threads = [threading.Thread(target=read) for _ in range(readers)]
    for thread in threads:
        thread.start()
    inside.wait(10)
    during = len(store._readers)
    counted.set()
    for thread in threads:
        thread.join(10)
    assert during == readers  # the control: one reader per concurrent read
    assert len(store._readers) == IDLE_READERS
    with store.read() as conn:  # a kept reader serves the next read
        assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 0
    assert len(store._readers) == IDLE_READERS


def test_reads_nest_in_writes_and_writes_never_in_reads(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    with store.write() as conn:
        memories.insert(conn, _row(1, "not yet committed"))
        with store.read() as inner:  # the write's own connection: it sees its uncommitted row
            assert inner is conn and inner.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1
    with store.read():
        with pytest.raises(RuntimeError, match="a write inside a read"):
            with store.write():
                pass
    with store.write() as conn:  # the control: outside the read, the same write goes in
        memories.insert(conn, _row(2, "after the read"))
    assert store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 2


def test_the_compaction_migration_widens_the_state_constraint_and_keeps_the_rows(tmp_path: Path):
    """A store written before compaction existed: migrating adds `superseded` to the states a row
    may have, and nothing else; the rows stay as they were."""
    path = tmp_path / "s.db"
    refused = binding().module.IntegrityError
    conn = open_connection(str(path))
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    older = migrations.MIGRATIONS[:migrations.MIGRATIONS.index(migrations._m0008_compaction)]
    conn.execute("BEGIN IMMEDIATE")
    for number, migration in enumerate(older, start=1):
        migration(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'x')", (number, migration.__name__.lstrip("_")))
    row_id = memories.insert(conn, _row(1, "kept as it was"))
    with pytest.raises(refused, match="CHECK constraint"):
        conn.execute("UPDATE memories SET state = 'superseded' WHERE id = ?", (row_id,))
    conn.execute("COMMIT")
    conn.close()

    store = Store(path)
    assert memories.current(store.conn, 1).content == "kept as it was"
    with store.write() as tx:
        tx.execute("UPDATE memories SET state = 'superseded' WHERE id = ?", (row_id,))
    assert memories.current(store.conn, 1).state == "superseded"
    with pytest.raises(refused, match="CHECK constraint"), store.write() as tx:
        tx.execute("UPDATE memories SET state = 'gone' WHERE id = ?", (row_id,))
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_counting_a_scope_reads_the_index_alone(tmp_path: Path):
    """A recall counts its scope's rows (current, not refuted): the current rows' index holds
    trust, so the count never reads the table (0.09 s → 0.02 s at 100,000 memories)."""
    store = Store(tmp_path / "s.db")
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    memories.count_in_scope(store.conn, memories.Scope(projects=("p", "")))
    store.conn.set_trace_callback(None)
    (plan,) = [" ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql)) for sql in statements]
    assert "COVERING INDEX memories_current" in plan, plan


def test_ranking_a_projects_concepts_reads_the_kept_counts_alone(tmp_path: Path):
    """Concepts are ranked from the counts the triggers keep, found by the project's key: no link
    of memory_concepts read, whatever the store's size."""
    from cenotaph.store import concepts

    store = Store(tmp_path / "s.db")
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    concepts.top(store.conn, "p", 40)
    store.conn.set_trace_callback(None)
    (plan,) = [" ".join(r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql)) for sql in statements]
    assert "SEARCH concept_counts USING PRIMARY KEY (project=?)" in plan and "memory_concepts" not in plan, plan


def test_a_schema_11_store_gets_its_concepts_counted(tmp_path: Path):
    """Migration 12 on a store with links already: the current rows' links are counted, the
    superseded row's are not."""
    from cenotaph.store import concepts

    store = Store(tmp_path / "s.db")
    with store.write() as conn:
        now, old = (memories.insert(conn, _row(n, text)) for n, text in ((1, "now"), (2, "old")))
        conn.execute("UPDATE memories SET superseded_at = recorded_at WHERE id = ?", (old,))
        for row in (now, old):
            concepts.link(conn, row, [("redis", "package"), ("pool", "phrase")], [("pool", "redis")])
    for trigger in ("linked", "unlinked", "row_left", "row_came", "row_deleted"):
        store.conn.execute(f"DROP TRIGGER concept_counts_{trigger}")
    store.conn.execute("DROP TABLE concept_counts")
    store.conn.execute("DROP TABLE vector_log")  # and what later migrations made
    store.conn.execute("DELETE FROM schema_migrations WHERE version >= 12")
    store.close()
    store = Store(tmp_path / "s.db")
    assert store.schema_version == len(migrations.MIGRATIONS)
    assert concepts.top(store.conn, "p", 10) == [("pool", "phrase", 1), ("redis", "package", 1)]

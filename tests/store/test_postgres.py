"""The PostgreSQL store's own promises (issue 16): how it is chosen, how it fails, its schema
guard, its event chain under concurrent writers and its filtered vector search. Everything else
it shares with SQLite runs in the domain, MCP and language-server tests on both stores."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from types import SimpleNamespace
from urllib.parse import urlsplit

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.core.audit import verify
from cenotaph.memory.errors import Conflict
from cenotaph.memory.service import Memory
from cenotaph.store import approaches, events, memories, vectors
from cenotaph.store.memories import Scope
from cenotaph.store.migrations import SchemaTooNew
from cenotaph.store.postgres import db as pgdb
from cenotaph.store.postgres import fulltext, migrations
from cenotaph.store.postgres import memories as pg_memories
from cenotaph.store.postgres.connection import PgCursor
from cenotaph.store.postgres.db import (
    CONNECT_TIMEOUT_S,
    PostgresStore,
    PostgresUnavailable,
)

from tests import pg
from tests.conftest import CENOTAPH, HUMAN, NO_AVX2, STORES

pytestmark = [pytest.mark.skipif("postgres" not in STORES, reason="CENOTAPH_TEST_STORES leaves PostgreSQL out"),
              pytest.mark.skipif(pg.lacks_avx2(), reason=NO_AVX2)]


@pytest.fixture
def url(pg_server: pg.Server):
    name = pg_server.new_database()
    yield pg_server.url(name)
    pg_server.drop_database(name)


def _event(conn, n: int) -> int:
    return events.append(conn, at=f"2026-03-01T12:00:{n:02d}.000000Z", actor="test", action="remember",
                         target=f"memory:{n}", project="p", after={"n": n})


def test_a_postgresql_url_opens_the_postgresql_store_and_doctor_hides_the_password(url, tmp_path):
    env = {"CENOTAPH_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "CENOTAPH_STORE": url}
    done = subprocess.run([CENOTAPH, "doctor", "--json"], env=env, capture_output=True, text=True, timeout=120, check=False)
    report = json.loads(done.stdout)
    password = url.split(":")[2].split("@")[0]
    assert report["store"] == url.replace(f":{password}@", "@") and password not in done.stdout
    assert report["store_kind"] == "postgresql" and report["pgvector_version"].startswith("0.8")
    # A SQLite file given by --db still wins over the environment (positive control: the file exists after).
    sqlite = tmp_path / "local.db"
    done = subprocess.run([CENOTAPH, "doctor", "--json", "--db", str(sqlite)], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert json.loads(done.stdout)["store"] == str(sqlite) and sqlite.exists()


def test_the_store_setting_in_config_toml_chooses_postgresql(url, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f'store = "{url}"\n')
    env = {"CENOTAPH_HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run([CENOTAPH, "abandon", "left-pad", "--ecosystem", "npm", "--reason", "unpublished"], env=env, check=True,
                   capture_output=True, timeout=120)
    with closing(PostgresStore(url)) as store, store.read() as conn:
        assert [a.name for a in approaches.all_rows(conn)] == ["left-pad"]
    assert not (home / "cenotaph.db").exists()


def test_an_unreachable_server_is_a_clear_error_within_the_connect_timeout(tmp_path):
    env = {"CENOTAPH_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    started = time.monotonic()
    done = subprocess.run([CENOTAPH, "check", "left-pad", "--db", "postgresql://someone:secret@127.0.0.1:9/none"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert time.monotonic() - started < CONNECT_TIMEOUT_S + 10  # the interpreter's start included
    assert done.returncode == 2 and "Traceback" not in done.stderr and "secret" not in done.stderr
    assert done.stderr.startswith("cenotaph: error: cannot open the PostgreSQL store at "
                                  "postgresql://someone@127.0.0.1:9/none")


def test_a_database_without_the_vector_extension_names_create_extension(pg_server: pg.Server):
    name = pg_server.new_database()
    bare = f"{name}_bare"
    role = f"{name}_user"
    try:
        # A database without the extensions, and a user who may not create them.
        pg_server._admin(f"CREATE DATABASE {bare}", f"CREATE ROLE {role} LOGIN PASSWORD 'pw'",
                         f"REVOKE CREATE ON DATABASE {bare} FROM PUBLIC")
        admin = urlsplit(pg_server.url(bare))
        url = admin._replace(netloc=f"{role}:pw@{admin.hostname}:{admin.port}").geturl()
        with pytest.raises(PostgresUnavailable, match=r"lacks the `vector` extension.*CREATE EXTENSION vector;"):
            PostgresStore(url)
        # Positive control: where it may be created, the store creates it and opens.
        PostgresStore(pg_server.url(bare)).close()
    finally:
        pg_server.drop_database(bare)
        pg_server._admin(f"DROP ROLE IF EXISTS {role}")
        pg_server.drop_database(name)


def test_a_schema_newer_than_the_program_is_refused(url):
    PostgresStore(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'now')")
    with pytest.raises(SchemaTooNew, match="schema 99"):
        PostgresStore(url)


def test_a_connection_dropped_during_a_write_rolls_it_back_and_the_pool_recovers(url):
    store = PostgresStore(url)
    try:
        with pytest.raises(PostgresUnavailable), store.write() as conn:
            store.set_meta(conn, "half", "written")
            _event(conn, 1)
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
            store.set_meta(conn, "after", "the drop")
        assert store.get_meta("half") is None
        with store.write() as conn:  # the next write gets a working connection
            store.set_meta(conn, "whole", "yes")
            _event(conn, 2)
        assert store.get_meta("whole") == "yes"
        with store.read() as conn:
            assert [e.seq for e in events.since(conn, 0)] == [1]
    finally:
        store.close()


def test_a_connection_reused_at_once_goes_unchecked_and_one_idle_longer_is_checked(url, monkeypatch):
    """The pool's check (a round trip) is skipped for a connection handed back within
    UNCHECKED_REUSE_S: one lost meanwhile fails that one transaction, told plainly, and the pool
    replaces it; one idle longer is checked and replaced before anyone sees it."""
    monkeypatch.setattr(pgdb, "UNCHECKED_REUSE_S", 0.5)
    store = PostgresStore(url)

    def terminate(conn) -> None:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))

    try:
        with store.read() as conn:
            pooled = conn
        terminate(pooled)
        with pytest.raises(PostgresUnavailable), store.read() as conn:  # handed out again unchecked
            assert conn is pooled
            conn.execute("SELECT 1")
        with store.read() as conn:  # the pool replaced it
            assert conn is not pooled and conn.execute("SELECT 1").fetchone() == (1,)
            replaced = conn
        terminate(replaced)
        time.sleep(0.6)
        with store.read() as conn:  # idle longer: checked, and replaced before use
            assert conn is not replaced and conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        store.close()


def test_concurrent_writers_on_separate_connections_keep_one_chain(url):
    stores = [PostgresStore(url, pool_size=2) for _ in range(4)]
    failures: list[BaseException] = []

    def writer(store: PostgresStore, offset: int) -> None:
        try:
            for n in range(25):
                with store.write() as conn:
                    _event(conn, offset + n)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(s, i * 100)) for i, s in enumerate(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert failures == []
        report = verify(SimpleNamespace(store=stores[0]))
        assert report.ok and report.checked == 100, report
    finally:
        for s in stores:
            s.close()


def test_a_read_sees_one_snapshot_while_another_machine_writes(url):
    # Recall divides counts read apart (rows in scope, rows matching a word): they must agree.
    with closing(PostgresStore(url)) as reader, closing(PostgresStore(url)) as writer:
        with reader.read() as conn:
            before = conn.execute("SELECT count(*) FROM events").fetchone()[0]
            with writer.write() as other:
                _event(other, 1)
            during = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        with reader.read() as conn:
            after = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        # A write on the connection a read had is back at read committed: it sees what others
        # committed while it waited for the write lock.
        with reader.write() as conn:
            writing = conn.execute("SHOW transaction_isolation").fetchone()[0]
        with reader.read() as conn:
            reading = conn.execute("SHOW transaction_isolation").fetchone()[0]
    assert during == before and after == before + 1  # positive control: the next read sees it
    assert (reading, writing) == ("repeatable read", "read committed")


def test_a_transactions_begin_goes_with_its_first_statement_and_an_empty_one_sends_nothing(url):
    """BEGIN is not a round trip of its own: it is sent with the transaction's first statement, and a
    transaction that reads nothing sends neither BEGIN nor COMMIT. A failing statement still rolls
    back everything before it, and the connection serves the next transaction."""
    idle, open_ = psycopg.pq.TransactionStatus.IDLE, psycopg.pq.TransactionStatus.INTRANS
    with closing(PostgresStore(url)) as store:
        with store.read() as conn:
            assert conn.info.transaction_status == idle  # nothing sent yet
        assert conn.info.transaction_status == idle and conn.pending_begin is None
        with store.read() as conn:
            level = conn.execute("SHOW transaction_isolation").fetchone()[0]
            assert conn.info.transaction_status == open_  # positive control: the statement opened it
        assert level == "repeatable read" and conn.info.transaction_status == idle
        with pytest.raises(psycopg.errors.UndefinedTable), store.write() as conn:
            store.set_meta(conn, "half", "written")
            conn.execute("SELECT * FROM no_such_table")
        with store.write() as conn:
            store.set_meta(conn, "whole", "yes")
        assert store.get_meta("half") is None and store.get_meta("whole") == "yes"


def test_a_rolled_back_append_leaves_no_gap_in_the_chain(url):
    store = PostgresStore(url)
    try:
        with store.write() as conn:
            _event(conn, 1)
        with pytest.raises(RuntimeError), store.write() as conn:
            _event(conn, 2)
            raise RuntimeError("abandoned write")
        with store.write() as conn:
            assert _event(conn, 3) == 2
        assert verify(SimpleNamespace(store=store)).ok
    finally:
        store.close()


def test_knn_filtered_by_project_returns_k_rows_of_that_project(url):
    """A project far from the query, beside a crowd near it, still gets its k nearest (an HNSW
    index read first and filtered after returned fewer: KNN now scans the project's own rows)."""
    store = open_store(url)
    rng = np.random.default_rng(7)
    near = rng.normal(size=(300, 384)).astype(np.float32) + 3  # the crowd, near the query
    far = rng.normal(size=(20, 384)).astype(np.float32) - 3  # the small project, far from it
    try:
        with store.write() as conn:
            vectors.create(conn, 384)
            ids = {"crowd": set(), "small": set()}
            for project, block in (("crowd", near), ("small", far)):
                for v in block:
                    row = memories.insert(conn, _row(project))
                    vectors.insert(conn, row, project, v)
                    ids[project].add(row)
        query = np.full(384, 3, dtype=np.float32)
        with store.read() as conn:
            small = vectors.knn(conn, "small", query, 10)
            crowd = vectors.knn(conn, "crowd", query, 10)
        assert len(small) == 10 and {i for i, _ in small} <= ids["small"]
        assert len(crowd) == 10 and {i for i, _ in crowd} <= ids["crowd"]
        assert [s for _, s in small] == sorted((s for _, s in small), reverse=True)
        assert min(s for _, s in crowd) > max(s for _, s in small)  # positive control: the crowd is nearer
    finally:
        store.close()


def test_a_store_made_before_the_stored_signs_gets_them_and_loses_the_unused_hnsw_index(url):
    """Migrations 5 and 6 on a store as schema 4 left it (vectors with an HNSW index and no signs
    column, the per-row phrase counter): the signs are stored for the rows already there, KNN reads
    them, the index and the counter are gone."""
    store = open_store(url)
    rng = np.random.default_rng(11)
    block = rng.normal(size=(30, 384)).astype(np.float32)
    with store.write() as conn:
        vectors.create(conn, 384)
        ids = [memories.insert(conn, _row("p")) for _ in block]
        for row, v in zip(ids, block, strict=True):
            vectors.insert(conn, row, "p", v)
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:  # back to schema 4's layout
        _undo_phrase_occurrences(conn)
        conn.execute("ALTER TABLE memory_vectors DROP COLUMN signs")
        conn.execute("CREATE INDEX memory_vectors_hnsw ON memory_vectors USING hnsw (embedding vector_cosine_ops)")
        conn.execute("CREATE FUNCTION cenotaph_phrase_frequency(tsvector, text[], text) RETURNS float8 "
                     "LANGUAGE sql RETURN 0")  # migration 4's, which migration 6 drops
        conn.execute("ALTER TABLE memories ALTER COLUMN fts SET STORAGE EXTENDED")
        long = " ".join(f"word{i}" for i in range(300))  # a row whose vector is stored out of line
        conn.execute("UPDATE memories SET content = %s WHERE id = %s", (long, ids[0]))
        (chunk,) = conn.execute("SELECT pg_column_toast_chunk_id(fts) FROM memories WHERE id = %s", (ids[0],)).fetchone()
        assert chunk is not None  # positive control: schema 4 kept it out of line
        _undo_postings(conn)
        _undo_anchors_and_roles(conn)
        conn.execute("DELETE FROM schema_migrations WHERE version >= 5")
    store = open_store(url)
    try:
        with store.read() as conn:
            nearest = vectors.knn(conn, "p", block[3], 5)
            index = conn.execute("SELECT to_regclass('memory_vectors_hnsw')").fetchone()[0]
            unsigned = conn.execute("SELECT count(*) FROM memory_vectors WHERE signs IS NULL").fetchone()[0]
            counter = conn.execute("SELECT to_regprocedure('cenotaph_phrase_frequency(tsvector, text[], text)')"
                                   ).fetchone()[0]
            bm25 = conn.execute("SELECT to_regprocedure('cenotaph_bm25(float8, integer, float8, float8)')").fetchone()[0]
            (chunk,) = conn.execute("SELECT pg_column_toast_chunk_id(fts) FROM memories WHERE id = ?", (ids[0],)
                                    ).fetchone()
            found = memories.fts_search(conn, '"word299"', Scope(projects=("p",)), 5)
        assert store.schema_version == len(migrations.MIGRATIONS) and index is None and unsigned == 0
        assert counter is None and bm25 is not None  # the search's own function stays
        assert chunk is None and [row for row, _ in found] == [ids[0]]  # kept in the row, and found
        assert nearest[0][0] == ids[3] and nearest[0][1] == pytest.approx(1.0)  # a row stored before the upgrade
        assert len(nearest) == 5
    finally:
        store.close()


def _undo_anchors_and_roles(conn) -> None:
    """Back to schema 7's layout: migration 8's table, migration 9's functions (their triggers with
    them), migration 10's indexes, migration 11's counts and migration 12's index gone."""
    _undo_signs_index(conn)
    conn.execute("DROP FUNCTION cenotaph_concept_link_counts(), cenotaph_concept_row_counts() CASCADE")
    conn.execute("DROP TABLE concept_counts")
    conn.execute("DROP FUNCTION cenotaph_reviewer_only(), cenotaph_team_role() CASCADE")
    conn.execute("DROP TABLE anchors")
    conn.execute("DROP INDEX memories_newest, memories_newest_kind, memories_current")
    conn.execute("CREATE INDEX memories_current ON memories (project, superseded_at, state)")
    conn.execute("DROP INDEX memory_concepts_concept")
    conn.execute("CREATE INDEX memory_concepts_concept ON memory_concepts (concept, memory_row)")


def _undo_concept_links_added(conn) -> None:
    """Back to schema 20's layout: a link counted in by a row trigger (migration 11)."""
    conn.execute("DROP TRIGGER concept_counts_links_added ON memory_concepts")
    conn.execute("DROP FUNCTION cenotaph_concept_links_added()")
    conn.execute("DROP TRIGGER concept_counts_links ON memory_concepts")
    conn.execute("CREATE TRIGGER concept_counts_links AFTER INSERT OR DELETE ON memory_concepts "
                 "FOR EACH ROW EXECUTE FUNCTION cenotaph_concept_link_counts()")


def _undo_text_kept_by_trigger(conn) -> None:
    """Back to schema 18's layout: `fts` and `fts_tokens` generated columns (PostgreSQL turns no
    column back into one: both are added again, what depends on them rebuilt as it was), the
    totals' update trigger taking whole statements (migration 4)."""
    rebuilt = [definition for (definition,) in conn.execute(
        "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'memories'::regclass "
        "AND indexrelid::regclass::text IN ('memories_fts', 'memories_live')")]
    rebuilt.append(conn.execute("SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'memories_postings_update'"
                                ).fetchone()[0])
    conn.execute("DROP TRIGGER memories_fts_columns ON memories")
    conn.execute("DROP TRIGGER memories_fts_totals_update ON memories")
    conn.execute("DROP TRIGGER memories_postings_update ON memories")
    conn.execute("DROP FUNCTION cenotaph_fts_columns(), cenotaph_fts_tokens_rewritten()")
    conn.execute("ALTER TABLE memories DROP COLUMN fts_tokens, DROP COLUMN fts")
    conn.execute("ALTER TABLE memories ADD COLUMN fts_tokens integer GENERATED ALWAYS AS ("
                 "cenotaph_word_count(content) + cenotaph_word_count(lemmas) + cenotaph_word_count(context)) STORED, "
                 "ADD COLUMN fts tsvector GENERATED ALWAYS AS ("
                 "setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words(content)), 'A') || "
                 "setweight(cenotaph_spaced_words(lemmas), 'B') || setweight(cenotaph_spaced_words(context), 'C')) STORED, "
                 "ALTER COLUMN fts SET STORAGE MAIN")
    for definition in rebuilt:
        conn.execute(definition)
    conn.execute("CREATE TRIGGER memories_fts_totals_update AFTER UPDATE ON memories REFERENCING OLD TABLE AS removed "
                 "NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_fts_totals()")


def _undo_phrase_occurrences(conn) -> None:
    """Back to schema 13's layout: the `fts` column as migration 3 computed it (a column's words
    right after the previous column's), the postings without their occurrences (migrations 7 and 12),
    and no index of the live rows nor counting functions (migration 15), nor words' row counts (16),
    nor the marked substrings' index (17), nor the content's pairs (18), nor the text's index kept
    by trigger (19), nor the postings' lengths (20), nor links counted a statement at a time (21)."""
    _undo_concept_links_added(conn)
    _undo_postings_scored_alone(conn)
    _undo_text_kept_by_trigger(conn)
    conn.execute("DROP TABLE content_pairs")
    conn.execute("DROP FUNCTION cenotaph_content_pairs(tsvector)")
    conn.execute("DROP INDEX memories_marked_substrings")
    conn.execute("DROP FUNCTION cenotaph_marked(text)")
    conn.execute("DROP TABLE word_rows")
    conn.execute("DROP INDEX memories_live")
    conn.execute("DROP FUNCTION cenotaph_rows_matching(tsquery), cenotaph_any_row_matching(tsquery)")
    _undo_postings(conn)
    conn.execute("DROP INDEX memories_fts")
    conn.execute("ALTER TABLE memories DROP COLUMN fts")
    conn.execute("DROP FUNCTION cenotaph_spaced_words(text)")
    conn.execute("ALTER TABLE memories ADD COLUMN fts tsvector GENERATED ALWAYS AS ("
                 + " || ".join(f"setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words({column})), '{label}')"
                               for column, label in fulltext.COLUMN_WEIGHTS.items())
                 + ") STORED, ALTER COLUMN fts SET STORAGE MAIN")
    conn.execute("CREATE INDEX memories_fts ON memories USING gin (fts)")
    migrations._m0007_postings(conn)
    migrations._m0012_index_only_reads(conn)


def _undo_signs_index(conn) -> None:
    """Back to schema 11's layout: the project's index without the row ids and signs, the
    postings' key without the frequency, and no vector log (migration 13)."""
    conn.execute("DROP FUNCTION cenotaph_vector_log() CASCADE")
    conn.execute("DROP TABLE vector_log")
    if conn.execute("SELECT to_regclass('memory_postings')").fetchone()[0] is not None:
        conn.execute("ALTER TABLE memory_postings DROP CONSTRAINT memory_postings_pkey, ADD PRIMARY KEY (lexeme, row_id)")
    if conn.execute("SELECT to_regclass('memory_vectors')").fetchone()[0] is not None:
        conn.execute("DROP INDEX IF EXISTS memory_vectors_project")
        conn.execute("CREATE INDEX memory_vectors_project ON memory_vectors (project)")


_KNN_PLAN = ("EXPLAIN SELECT row_id, signs <~> binary_quantize(%s::vector)::bit(384) AS distance FROM memory_vectors "
             "WHERE project = %s ORDER BY distance, row_id LIMIT 30")
_POSTINGS_PLAN = "EXPLAIN SELECT row_id, frequency FROM memory_postings p WHERE " + pg_memories._postings("p", "deploy")


def test_a_schema_11_store_gets_knn_and_postings_read_from_their_indexes_alone(url):
    """Migration 12: a project's row ids and signs move into its index, and each word's frequency
    into the postings' key, so KNN's scan and a word's lookup read an index and not the tables'
    rows (index-only scans, as a new store's are)."""
    store = open_store(url)
    rng = np.random.default_rng(5)
    block = rng.normal(size=(40, 384)).astype(np.float32)
    with store.write() as conn:
        vectors.create(conn, 384)
        ids = [memories.insert(conn, replace(_row("p"), content=f"deploy note {n}")) for n in range(len(block))]
        for row, v in zip(ids, block, strict=True):
            vectors.insert(conn, row, "p", v)
    store.close()

    def plans(conn) -> tuple[str, str]:
        conn.execute("VACUUM (ANALYZE) memory_vectors, memory_postings")  # index-only scans need all-visible pages
        with conn.transaction():
            # 40 rows on a page or two: the tables would be read whole otherwise.
            conn.execute("SET LOCAL enable_seqscan = off")
            conn.execute("SET LOCAL enable_bitmapscan = off")
            return ("\n".join(r[0] for r in conn.execute(_KNN_PLAN, (block[0], "p"))),
                    "\n".join(r[0] for r in conn.execute(_POSTINGS_PLAN.replace("?", "%s"), ("deploy",))))

    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        knn, postings = plans(conn)  # a new store's indexes
        assert "Index Only Scan using memory_vectors_project" in knn and "Index Only Scan" in postings
        _undo_phrase_occurrences(conn)
        _undo_signs_index(conn)
        conn.execute("DELETE FROM schema_migrations WHERE version >= 12")
        knn, postings = plans(conn)  # positive control: schema 11 reads the tables
        assert "Index Only Scan" not in knn and "Index Only Scan" not in postings
    store = open_store(url)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            register_vector(conn)
            knn, postings = plans(conn)
            assert "Index Only Scan using memory_vectors_project" in knn and "Index Only Scan" in postings
        with store.read() as conn:
            nearest = vectors.knn(conn, "p", block[7], 5)
            found = memories.fts_search(conn, '"deploy" OR "7"', Scope(projects=("p",)), 3)
        assert store.schema_version == len(migrations.MIGRATIONS) and nearest[0][0] == ids[7]
        assert found[0][0] == ids[7] and len(found) == 3
    finally:
        store.close()


def _exact_nearest(conn, project: str, query: np.ndarray, wanted: int) -> list[int]:
    """The SQL scan of the stored signs, as KNN ran it before each connection kept a copy."""
    return [r[0] for r in conn.execute(
        f"SELECT row_id FROM memory_vectors WHERE project = ? ORDER BY signs <~> binary_quantize(?::vector)::bit({len(query)}), "
        "row_id LIMIT ?", (project, query, wanted))]


def test_each_connection_searches_its_copy_of_the_signs_and_follows_every_writer(url):
    """store/sign_index.py on PostgreSQL: the copy is read from the stored signs and draws the SQL
    scan's candidates; the table's triggers log every write, so another connection's inserts and
    deletes, a rolled-back write and a rebuilt table all reach the copy."""
    rng = np.random.default_rng(13)
    block = rng.normal(size=(260, 128)).astype(np.float32)
    store, other = open_store(url), open_store(url)
    try:
        with store.write() as conn:
            vectors.create(conn, 128)
            ids = [memories.insert(conn, _row("p" if n % 4 else "q")) for n in range(200)]
            for n, row in enumerate(ids):
                vectors.insert(conn, row, "p" if n % 4 else "q", block[n])
        with store.read() as conn:
            for query in block[200:210]:
                for project in ("p", "q"):
                    assert vectors._nearest_signs(conn, project, query, 30) == _exact_nearest(conn, project, query, 30)
            assert conn.sign_index is not None  # the copy, not the SQL scan
            copy = conn.sign_index
            copied = vectors.knn(conn, "p", block[5], 3)
        assert copied[0][0] == ids[5] and copied[0][1] == pytest.approx(1.0)
        with other.write() as conn:  # another machine's writes
            added = [memories.insert(conn, _row("p")) for _ in range(3)]
            for row, v in zip(added, block[200:203], strict=True):
                vectors.insert(conn, row, "p", v)
            conn.execute("DELETE FROM memories WHERE id = ?", (ids[5],))  # its vector goes by the cascade
        with pytest.raises(RuntimeError), other.write() as conn:
            ghost = memories.insert(conn, _row("p"))
            vectors.insert(conn, ghost, "p", block[210])
            raise RuntimeError("rolled back")
        with store.read() as conn:
            assert conn.sign_index is copy  # the same pooled connection, its copy followed the log
            assert vectors._nearest_signs(conn, "p", block[201], 1) == [added[1]]
            assert ids[5] not in vectors._nearest_signs(conn, "p", block[5], 200)
            assert ghost not in vectors._nearest_signs(conn, "p", block[210], 200)
            assert ids[9] in vectors._nearest_signs(conn, "p", block[9], 200)  # positive control
            for query in block[210:215]:
                assert vectors._nearest_signs(conn, "p", query, 40) == _exact_nearest(conn, "p", query, 40)
        with other.write() as conn:  # a reindex: the table rebuilt
            vectors.drop(conn)
            vectors.create(conn, 128)
            vectors.insert(conn, ids[1], "p", block[1])
        with store.read() as conn:
            assert vectors._nearest_signs(conn, "p", block[9], 10) == [ids[1]]
    finally:
        store.close()
        other.close()


def _undo_postings(conn) -> None:
    """Back to schema 6's layout: migration 7's table, triggers and functions gone."""
    for trigger in ("insert", "update", "delete"):
        conn.execute(f"DROP TRIGGER memories_postings_{trigger} ON memories")
    conn.execute("DROP FUNCTION cenotaph_postings_kept(), cenotaph_postings_rewritten(), cenotaph_postings(tsvector)")
    conn.execute("DROP TABLE memory_postings")


def test_a_words_documents_are_counted_from_its_postings_as_the_full_text_index_counts_them(url):
    """term_documents reads a word's rows as the postings' triggers keep them, a phrase's from its
    words' postings: the same counts as the index gives, after a rewrite and a delete too."""
    store = open_store(url)
    try:
        with store.write() as conn:
            ids = [memories.insert(conn, replace(_row("p"), content=text)) for text in
                   ("deploy the script", "deploy again", "a script", "Déploy the café")]
            conn.execute("UPDATE memories SET content = 'nothing here' WHERE id = ?", (ids[1],))
            conn.execute("DELETE FROM memories WHERE id = ?", (ids[2],))
        terms = ["deploy", "script", "the", "cafe", "the script", "absent", "?!"]
        with store.read() as conn:
            counts = memories.term_documents(conn, terms)
            by_index = {term: conn.execute("SELECT count(*) FROM memories WHERE fts @@ ?::tsquery",
                                           (" <-> ".join(f"'{w}'" for w in words),)).fetchone()[0]
                        for term in terms if (words := fulltext.words(term))}
        assert counts == {**by_index, "?!": 0}
        assert counts["deploy"] == 2 and counts["script"] == 1 and counts["the script"] == 1 and counts["absent"] == 0
    finally:
        store.close()


def test_a_phrases_rows_are_counted_from_its_postings_as_the_full_text_index_counts_them(url):
    """A phrase of several words, or a word in one column, is counted from its words' postings:
    the first word's first four occurrences tested one by one, the rest in a subquery. The same
    counts as the full-text index gives for each: a phrase starting only at its first word's
    fifth occurrence, in one column and across a column's end (no match), three words, a word
    longer than the covering index takes."""
    long_word = "y" * 450
    rows = [("go go go go go stop go", "", ""),                       # "go stop" from the fifth go only
            ("stop go", "go stop", "go go stop"),                       # in lemmas and context
            ("the staging database now", "", ""),
            ("staging", "database staging", "database"),                # "staging database" across ends only
            (f"{long_word} staging {long_word} database", "", ""),
            ("nothing", "", "")]
    phrases = [(("go", "stop"), "ABC"), (("go", "stop"), "A"), (("go", "stop"), "B"), (("go", "stop"), "C"),
               (("go", "go", "stop"), "ABC"), (("go", "go", "stop"), "A"), (("stop",), "A"), (("stop",), "C"),
               (("staging", "database"), "ABC"), (("database", "staging"), "B"), (("staging", "database", "now"), "A"),
               ((long_word, "staging"), "ABC"), (("staging", long_word), "A"), (("absent", "go"), "ABC")]
    store = open_store(url)
    try:
        with store.write() as conn:
            for content, lemmas, context in rows:
                memories.insert(conn, replace(_row("p"), content=content, lemmas=lemmas, context=context))
        with store.read() as conn:
            counted = pg_memories._row_counts(conn, [fulltext.Phrase(words, labels) for words, labels in phrases])
            by_index = [conn.execute("SELECT count(*) FROM memories WHERE fts @@ ?::tsquery",
                                     (fulltext.Phrase(words, labels).tsquery,)).fetchone()[0] for words, labels in phrases]
        assert counted == by_index
        assert counted[:6] == [2, 1, 1, 1, 2, 1]  # the control: the fifth go's phrase counted, each column apart
        assert counted[8:10] == [1, 1] and counted[11:] == [1, 1, 0]
    finally:
        store.close()


def test_each_content_pairs_rows_are_kept_as_rows_are_written_rewritten_and_deleted_and_read_for_its_count(url):
    """Migration 18: the rows holding each two-word phrase of the content are counted by the
    postings' triggers (on insert, a rewrite, a delete; and for the rows already there when the
    store is upgraded), as the full-text index counts the phrase: a pair repeated in a row counted
    once, none across the content's end, none with a word longer than the postings' index takes
    (such a phrase is counted from the postings). A two-word phrase's count reads them."""
    long_word = "y" * 450
    rows = [("deploy the staging database, the staging database", "", ""),   # a pair twice in one row
            ("staging database again", "", ""),
            ("old staging", "database staging", "staging database"),         # across the end, and elsewhere
            (f"staging {long_word} database", "", "")]

    def pairs(conn) -> dict[tuple[str, str], int]:
        return {(a, b): n for a, b, n in conn.execute("SELECT first, second, rows FROM content_pairs WHERE rows > 0")}

    def by_index(conn) -> dict[tuple[str, str], int]:
        """Every pair of adjacent words of each row's content, counted through the full-text index."""
        contents = [content for (content,) in conn.execute("SELECT content FROM memories")]
        adjacent = {pair for text in contents for pair in zip(fulltext.words(text), fulltext.words(text)[1:])
                    if long_word not in pair}
        counted = {pair: conn.execute("SELECT count(*) FROM memories WHERE fts @@ ?::tsquery",
                                      (fulltext.Phrase(pair, "A").tsquery,)).fetchone()[0] for pair in adjacent}
        return {pair: n for pair, n in counted.items() if n}

    store = open_store(url)
    try:
        with store.write() as conn:
            ids = [memories.insert(conn, replace(_row("p"), content=c, lemmas=lemmas, context=context))
                   for c, lemmas, context in rows]
        with store.read() as conn:
            first, truth = pairs(conn), by_index(conn)
            long_phrase = pg_memories._row_counts(conn, [fulltext.Phrase(("staging", long_word), "A")])
        assert first == truth and first[("staging", "database")] == 2  # the control: counted, once a row
        assert ("old", "staging") in first and long_phrase == [1]
        with store.write() as conn:
            conn.execute("UPDATE memories SET content = 'rollback the staging database' WHERE id = ?", (ids[1],))
            conn.execute("DELETE FROM memories WHERE id = ?", (ids[2],))
        with store.read() as conn:
            after, truth = pairs(conn), by_index(conn)
        assert after == truth and after[("staging", "database")] == 2 and ("old", "staging") not in after
        assert ("rollback", "the") in after and ("database", "again") not in after
        with psycopg.connect(url, autocommit=True) as conn:  # back to schema 17, the rows kept
            _undo_concept_links_added(conn)
            _undo_postings_scored_alone(conn)
            _undo_text_kept_by_trigger(conn)
            conn.execute("DROP TABLE content_pairs")
            conn.execute("DROP FUNCTION cenotaph_content_pairs(tsvector)")
            conn.execute("DELETE FROM schema_migrations WHERE version >= 18")
        store.close()
        store = open_store(url)
        with store.write() as conn:  # the upgrade's count, then read for a phrase's rows
            conn.execute("UPDATE content_pairs SET rows = 41 WHERE first = 'staging' AND second = 'database'")
        with store.read() as conn:
            upgraded = pairs(conn)
            counted = pg_memories._row_counts(conn, [fulltext.Phrase(("staging", "database"), "A"),
                                                     fulltext.Phrase(("staging", "database"), "ABC")])
        assert upgraded == {**truth, ("staging", "database"): 41}
        assert counted == [41, 2]  # read from the pairs; in every column, from the postings
    finally:
        store.close()


def test_a_rows_text_index_is_computed_when_its_text_is_written_and_not_when_its_counters_are(url):
    """Migration 19: `fts` and `fts_tokens` are computed by a trigger on an insert and on a write
    of the text, not at every UPDATE as generated columns were: a recall's counters leave them as
    they are (a tampered vector stays, where a generated one is computed again), a text rewrite
    computes them again (the control) and the totals' tokens follow it. A store made before the
    migration keeps its rows' values."""
    texts = ("deploy the staging database", "roll back the staging database twice")

    def indexed(conn, row_id: int) -> tuple[str, int]:
        return tuple(conn.execute("SELECT fts::text, fts_tokens FROM memories WHERE id = ?", (row_id,)).fetchone())

    def totals_in_step(conn) -> bool:
        return (conn.execute("SELECT rows, tokens FROM fts_totals").fetchone()
                == conn.execute("SELECT count(*), sum(fts_tokens) FROM memories").fetchone())

    store = open_store(url)
    try:
        with store.write() as conn:
            ids = [memories.insert(conn, replace(_row("p"), memory_id=n, content=text, lemmas="deploy stage"))
                   for n, text in enumerate(texts, start=1)]
            fresh, second = indexed(conn, ids[0]), indexed(conn, ids[1])
            conn.execute("UPDATE memories SET fts = 'tampered:1A'::tsvector, fts_tokens = 99 WHERE id = ?", (ids[0],))
            memories.bump_recalled(conn, [1], "2026-12-07")
        with store.read() as conn:
            counted = conn.execute("SELECT recall_count FROM memories WHERE id = ?", (ids[0],)).fetchone()[0]
            after_counters = indexed(conn, ids[0])
        assert counted == 1 and after_counters == ("'tampered':1A", 99)
        assert fresh[1] == 6 and "'staging':3A" in fresh[0]
        with store.write() as conn:  # the control: the text written, its index computed again
            conn.execute("UPDATE memories SET fts_tokens = ? WHERE id = ?", (fresh[1], ids[0]))  # the totals' count again
            conn.execute("UPDATE memories SET content = ? WHERE id = ?", (texts[0], ids[0]))
            conn.execute("UPDATE memories SET context = 'after the outage' WHERE id = ?", (ids[1],))
        with store.read() as conn:
            rewritten, other, in_step = indexed(conn, ids[0]), indexed(conn, ids[1]), totals_in_step(conn)
            found = memories.fts_search(conn, '"outage"', Scope(projects=("p",)), 5)
        assert rewritten == fresh and other[1] == 11 and in_step
        assert [row for row, _ in found] == [ids[1]]
        with psycopg.connect(url, autocommit=True) as conn:  # back to schema 18, the rows kept
            _undo_concept_links_added(conn)
            _undo_postings_scored_alone(conn)
            _undo_text_kept_by_trigger(conn)
            conn.execute("DELETE FROM schema_migrations WHERE version >= 19")
            generated = conn.execute("SELECT count(*) FROM pg_attribute WHERE attrelid = 'memories'::regclass "
                                     "AND attgenerated = 's'").fetchone()[0]
        assert generated == 2  # positive control: schema 18's generated columns
        store.close()
        store = open_store(url)
        with store.write() as conn:
            added = memories.insert(conn, replace(_row("p"), memory_id=3, content=texts[1], lemmas="deploy stage"))
        with store.read() as conn:
            generated = conn.execute("SELECT count(*) FROM pg_attribute WHERE attrelid = 'memories'::regclass "
                                     "AND attgenerated = 's'").fetchone()[0]
            kept, new, in_step = indexed(conn, ids[0]), indexed(conn, added), totals_in_step(conn)
        assert generated == 0 and kept == fresh and new == second and in_step
    finally:
        store.close()


def _undo_postings_scored_alone(conn) -> None:
    """Back to schema 19's layout: the postings without their row's length (the covering indexes
    as migration 14 made them, the triggers' bodies as migration 18 wrote them), sampled as the
    server's default."""
    for function in ("cenotaph_postings_kept", "cenotaph_postings_rewritten"):
        body = conn.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", (function,)).fetchone()[0]
        body = (body.replace("occurrences, tokens)", "occurrences)").replace(", a.fts_tokens", "")
                .replace(", NEW.fts_tokens", ""))
        conn.execute(f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $body${body}$body$")
    conn.execute("ALTER TABLE memory_postings DROP COLUMN tokens")  # the covering indexes with it
    conn.execute("CREATE INDEX memory_postings_words ON memory_postings (lexeme, row_id) INCLUDE (frequency, occurrences) "
                 "WHERE octet_length(lexeme) <= 400")
    conn.execute("CREATE INDEX memory_postings_long_words ON memory_postings (lexeme, row_id) INCLUDE (frequency) "
                 "WHERE octet_length(lexeme) > 400")
    conn.execute("ALTER TABLE memory_postings ALTER COLUMN lexeme SET STATISTICS DEFAULT")


def test_the_postings_carry_their_rows_length_and_their_words_are_sampled_widely(url):
    """Migration 20: each posting carries its row's length in tokens (an OR of phrases is scored
    from the postings alone), for the rows a store held before it (the table built again, then
    vacuumed), and for rows written and rewritten after; the planner samples the postings' words with a target of 1,000 (the
    control: the server's default before)."""
    def target(conn) -> int | None:
        return conn.execute("SELECT attstattarget FROM pg_attribute WHERE attrelid = 'memory_postings'::regclass "
                            "AND attname = 'lexeme'").fetchone()[0]

    store = open_store(url)
    with store.write() as conn:
        before = [memories.insert(conn, replace(_row("p"), memory_id=n, content=text))
                  for n, text in enumerate(("deploy the staging database", "deploy"), start=1)]
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:  # back to schema 19, the rows kept
        _undo_concept_links_added(conn)
        _undo_postings_scored_alone(conn)
        conn.execute("DELETE FROM schema_migrations WHERE version >= 20")
        default = target(conn)
    store = open_store(url)
    with psycopg.connect(url, autocommit=True) as conn:  # built again, then vacuumed: index-only scans read no rows
        pages, visible = conn.execute("SELECT relpages, relallvisible FROM pg_class WHERE relname = 'memory_postings'"
                                      ).fetchone()
    try:
        with store.write() as conn:
            memories.insert(conn, replace(_row("p"), memory_id=3, content="deploy it", context="after the outage"))
            conn.execute("UPDATE memories SET content = 'deploy the staging database again' WHERE id = ?", (before[1],))
        with store.read() as conn:
            lengths = conn.execute("SELECT m.id, p.tokens, m.fts_tokens FROM memory_postings p "
                                   "JOIN memories m ON m.id = p.row_id WHERE p.lexeme = 'deploy' ORDER BY m.id").fetchall()
            sampled = target(conn)
            found = memories.fts_search(conn, '"outage" OR "staging database"', Scope(projects=("p",)), 5)
    finally:
        store.close()
    assert [(tokens, length) for _, tokens, length in lengths] == [(4, 4), (5, 5), (5, 5)]  # the second rewritten from 1
    assert default is None and sampled == 1000 and visible == pages > 0
    assert sorted(row for row, _ in found) == sorted(row for row, _, _ in lengths)


def test_the_best_rows_in_scope_fill_the_limit_when_better_ones_are_out_of_it(url, tmp_path):
    """An OR of phrases scores rows from the postings and checks the scope of the best first (its
    rows are probed in score order until the limit is filled): rows scoring higher in another
    project, superseded or refuted are passed over, and the rows given are SQLite's, in its order."""
    texts = [("q", "outage: staging database outage", None, "confirmed"),   # better, other project
             ("p", "outage: staging database outage", "2026-02", "confirmed"),  # better, superseded
             ("p", "outage, staging database, outage", None, "refuted"),   # better, refuted
             ("p", "the staging database", None, "confirmed"),
             ("p", "staging database notes for the outage", None, "confirmed"),
             ("p", "an outage", None, "confirmed"),
             ("p", "nothing here", None, "confirmed")]
    sqlite, store = open_store(tmp_path / "s.db"), open_store(url)
    try:
        found = {}
        for name, target in (("sqlite", sqlite), ("postgres", store)):
            with target.write() as conn:
                for n, (project, text, superseded, trust) in enumerate(texts, start=1):
                    memories.insert(conn, replace(_row(project), memory_id=n, content=text, superseded_at=superseded,
                                                  trust=trust))
            with target.read() as conn:
                found[name] = [[row for row, _ in memories.fts_search(conn, '"outage" OR "staging database"', scope, limit)]
                               for scope, limit in ((Scope(projects=("p",)), 2), (Scope(projects=("p",)), 10),
                                                    (Scope(projects=("p", "q")), 1))]
    finally:
        store.close()
        sqlite.close()
    assert found["postgres"] == found["sqlite"]
    assert found["postgres"][0] == found["postgres"][1][:2] and sorted(found["postgres"][1]) == [4, 5, 6]
    assert found["postgres"][2] == [1]  # the control: a row out of scope scores above them


def test_a_statements_new_links_are_counted_once_each_and_those_it_left_out_not_at_all(url):
    """Migration 21: a memory's links are counted in once for the statement that adds them; a link
    already there (`ON CONFLICT DO NOTHING`) is not counted again, a second memory's is (the
    control), a superseded row's is not."""
    from cenotaph.store import concepts

    store = open_store(url)
    try:
        with store.write() as conn:
            first, second, old = (memories.insert(conn, replace(_row("p"), memory_id=n, superseded_at=at))
                                  for n, at in ((1, None), (2, None), (3, "2026-02")))
            concepts.link(conn, first, [("kafka", "package")], [])
            conn.execute("INSERT INTO memory_concepts (memory_row, concept, kind) VALUES (?, 'kafka', 'package'), "
                         "(?, 'redis', 'package') ON CONFLICT DO NOTHING", (first, first))
            concepts.link(conn, second, [("kafka", "package"), ("pool", "phrase")], [])
            concepts.link(conn, old, [("kafka", "package"), ("celery", "package")], [])
        with store.read() as conn:
            counts = dict(((concept, kind), n) for concept, kind, n in
                          conn.execute("SELECT concept, kind, memories FROM concept_counts WHERE project = 'p'"))
            triggers = {name for (name,) in conn.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = 'memory_concepts'::regclass AND NOT tgisinternal")}
    finally:
        store.close()
    assert counts == {("kafka", "package"): 2, ("redis", "package"): 1, ("pool", "phrase"): 1}
    assert triggers == {"concept_counts_links", "concept_counts_links_added"}


def test_a_needle_holding_punctuation_is_found_through_the_marked_trigrams_as_sqlite_finds_it(url, tmp_path):
    """Migration 17: a needle with punctuation is looked for through the index whose trigrams hold
    the marks (a rune standing for each), the plain LIKE beside it; the rows found are SQLite's for
    needles with and without marks, LIKE's own wildcards and a rune in a memory."""
    texts = ["the staging_database.py script", "the staging database py notes", "mystaging_database.pyc cache",
             "staging-database.py", "100% of runs: a\\b", "ᚪ rune and staging_database", "stagingᚺdatabase.py, runes for marks",
             "nothing here"]
    needles = ["staging_database.py", "staging_database", "staging database", "-database.", "100%", "a\\b",
               "ᚪ", "_", "absent_file.py"]
    sqlite, store = open_store(tmp_path / "s.db"), open_store(url)
    try:
        for target in (sqlite, store):
            with target.write() as conn:
                for text in texts:
                    memories.insert(conn, replace(_row("p"), content=text))
        scope = Scope(projects=("p",))
        with sqlite.read() as lite, store.read() as conn:
            found = {n: sorted(memories.substring_search(conn, n, scope, 10)) for n in needles}
            expected = {n: sorted(memories.substring_search(lite, n, scope, 10)) for n in needles}
            marked_in_sql = conn.execute("SELECT cenotaph_marked(?)", (fulltext.PUNCTUATION + " a_b ᚠ",)).fetchone()[0]
        assert found == expected
        assert [len(found[n]) for n in ("staging_database.py", "staging_database", "_", "absent_file.py")] == [2, 3, 3, 0]
        assert marked_in_sql == fulltext.marked(fulltext.PUNCTUATION + " a_b ᚠ") == fulltext.PUNCTUATION_MARKS + " aᚺb ᚠ"
        with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            plans = {needle: "\n".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT id FROM memories m WHERE " + condition, patterns))
                for needle, condition, patterns in (
                    ("marked", "cenotaph_marked(m.content) LIKE %s AND m.content LIKE %s",
                     [f"%{fulltext.marked('staging_database.py')}%", "%staging\\_database.py%"]),
                    ("plain", "m.content LIKE %s", ["%staging database%"]))}
        assert "memories_marked_substrings" in plans["marked"], plans["marked"]
        assert "memories_substrings" in plans["plain"] and "marked" not in plans["plain"], plans["plain"]
    finally:
        store.close()
        sqlite.close()


def test_a_schema_6_store_gets_postings_that_writes_keep_and_the_search_reads(url):
    """Migration 7 on a store as schema 6 left it: the rows already there get their postings, each
    word's weighted count over the three columns in position order; an insert, a rewrite and a
    delete keep them, an update leaving the text alone does not touch them; the search ranks
    alike before and after."""
    store = open_store(url)
    with store.write() as conn:
        ids = [memories.insert(conn, replace(_row("p"), content=text, lemmas=lemma, context="deploy"))
               for text, lemma in (("deploy the deploy script", "deploy"), ("a script", ""), ("nothing", ""))]
    scope = Scope(projects=("p",))
    with store.read() as conn:
        before = memories.fts_search(conn, '"deploy" OR "script"', scope, 5)
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        _undo_phrase_occurrences(conn)  # the migrations after 7
        _undo_postings(conn)
        _undo_anchors_and_roles(conn)
        conn.execute("DELETE FROM schema_migrations WHERE version >= 7")
    store = open_store(url)
    try:
        postings = "SELECT lexeme, frequency FROM memory_postings WHERE row_id = ? ORDER BY lexeme"
        with store.read() as conn:
            assert conn.execute(postings, (ids[0],)).fetchall() == [("deploy", 1.0 + 1.0 + 0.6 + 0.25),
                                                                   ("script", 1.0), ("the", 1.0)]
            after = memories.fts_search(conn, '"deploy" OR "script"', scope, 5)
        assert store.schema_version == len(migrations.MIGRATIONS) and after == before and [r for r, _ in after][:2] == ids[:2]
        with store.write() as conn:
            conn.execute("UPDATE memories SET content = 'a script script' WHERE id = ?", (ids[1],))
            conn.execute("UPDATE memories SET recall_count = 3 WHERE id = ?", (ids[0],))
            conn.execute("DELETE FROM memories WHERE id = ?", (ids[2],))
            fresh = memories.insert(conn, replace(_row("p"), content="deploy"))
        with store.read() as conn:
            assert conn.execute(postings, (ids[1],)).fetchall() == [("a", 1.0), ("deploy", 0.25), ("script", 2.0)]
            assert conn.execute(postings, (ids[0],)).fetchall()[0] == ("deploy", 2.85)  # untouched
            assert conn.execute(postings, (ids[2],)).fetchall() == []
            assert conn.execute(postings, (fresh,)).fetchall() == [("deploy", 1.0)]
    finally:
        store.close()


# Rows whose phrases stand in one column, across two, twice in a row, with a word repeated.
_PHRASED = [("deploy the staging database now", "deploy stage database", "staging"),
            ("staging database staging database", "", "the staging database"),
            ("the staging", "database staging", "database note"),  # "staging database" across columns only
            ("database staging deploy deploy deploy", "deploy", "deploy deploy"),
            ("nothing here", "", "")]
_PHRASES = ['"staging database"', '"staging database" OR "deploy"', 'content : "staging database"',
            'context : "staging database"', '"deploy deploy"', 'content : "deploy"',
            '"staging database" AND "now"', '"the staging database"', 'context : "staging" OR "nothing"',
            'content : ("staging_database" "deploy")', '"staging database" "now" OR "deploy"']


def test_a_schema_13_store_gets_each_words_occurrences_and_phrases_score_as_fts5_scores_them(url, tmp_path):
    """Migration 14: each posting keeps its word's occurrences (position × 4 + column), from which a
    phrase's count in a row is found: phrases in one column, in some columns only, across a column's
    end (no match) and repeated words rank and score as FTS5's bm25() does on SQLite, after the
    migration and after a rewrite; so do expressions whose rows are found from the postings alone
    (phrases OR-ed, or AND-ed in one branch: migration 15) and one mixing both (the full-text index)."""
    sqlite, store = open_store(tmp_path / "s.db"), open_store(url)

    def insert(target) -> list[int]:
        with target.write() as conn:
            return [memories.insert(conn, replace(_row("p"), content=c, lemmas=lemma, context=context))
                    for c, lemma, context in _PHRASED]

    def searched(target) -> dict[str, list[tuple[int, float]]]:
        with target.read() as conn:
            return {phrase: memories.fts_search(conn, phrase, Scope(projects=("p",)), 10) for phrase in _PHRASES}

    def alike(ours, theirs) -> None:
        for phrase in _PHRASES:
            assert [rid for rid, _ in ours[phrase]] == [rid for rid, _ in theirs[phrase]], phrase
            assert [score for _, score in ours[phrase]] == pytest.approx([score for _, score in theirs[phrase]]), phrase

    try:
        ids = insert(store)
        assert insert(sqlite) == ids
        on_sqlite = searched(sqlite)
        assert [rid for rid, _ in on_sqlite['"staging database"']] == [ids[1], ids[0]]  # the control: two matches
        assert on_sqlite['content : "staging database"'] and on_sqlite['context : "staging database"']
        assert on_sqlite['content : ("staging_database" "deploy")'] and on_sqlite['"staging database" "now" OR "deploy"']
        alike(searched(store), on_sqlite)
        store.close()
        with psycopg.connect(url, autocommit=True) as conn:  # back to schema 13's layout
            _undo_phrase_occurrences(conn)
            conn.execute("DELETE FROM schema_migrations WHERE version >= 14")
            across = conn.execute("SELECT id FROM memories WHERE fts @@ 'staging <-> database'::tsquery ORDER BY id")
            assert [r[0] for r in across] == sorted(ids[:3])  # the control: schema 13 matched across columns
        store = open_store(url)
        assert store.schema_version == len(migrations.MIGRATIONS)
        occurrences = "SELECT occurrences FROM memory_postings WHERE row_id = ? AND lexeme = ?"
        with store.read() as conn:
            # deploy at content positions 3, 4 and 5 (A), lemmas 7 (B), context 9 and 10 (C): each column
            # a position after the previous one's last word
            assert conn.execute(occurrences, (ids[3], "deploy")).fetchone()[0] == [12, 16, 20, 29, 38, 42]
        alike(searched(store), on_sqlite)
        for target in (store, sqlite):
            with target.write() as conn:
                conn.execute("UPDATE memories SET content = 'nothing', context = 'the staging database' WHERE id = ?",
                             (ids[4],))
        alike(searched(store), searched(sqlite))
        assert ids[4] in [rid for rid, _ in searched(store)['context : "staging database"']]
        long_word = "x" * 500  # beyond the covering index's words: found through the other one
        for target in (store, sqlite):
            with target.write() as conn:
                memories.insert(conn, replace(_row("p"), content=f"{long_word} staging {long_word} database"))
        for phrase in (f'"{long_word}"', f'"staging {long_word}"', f'"{long_word} database"'):
            with store.read() as conn, sqlite.read() as lite:
                ours, theirs = (memories.fts_search(c, phrase, Scope(projects=("p",)), 5) for c in (conn, lite))
            assert len(ours) == 1 and [r for r, _ in ours] == [r for r, _ in theirs], phrase
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) memory_postings")  # index-only scans need all-visible pages
            with conn.transaction():
                conn.execute("SET LOCAL enable_seqscan = off")
                conn.execute("SET LOCAL enable_bitmapscan = off")
                query = fulltext.read('"staging database"')
                sql, params = pg_memories._scored(query, [1.0], (10, 5.0), *Scope(projects=("p",)).where())
                plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql.replace("?", "%s"), params))
        assert plan.count("Index Only Scan using memory_postings_words") == 2, plan
        assert "Index Only Scan using memories_live" in plan, plan  # one phrase: the rows' scope from migration 15's index
        with psycopg.connect(url, autocommit=True) as conn:
            # A query's rows are counted (or found at all) through the full-text index: migration 15's
            # functions plan without sequential scans, which the planner prefers for a common word (the
            # control: the same count planned plainly on this store).
            settings = dict(conn.execute("SELECT proname, proconfig FROM pg_proc WHERE proname IN "
                                         "('cenotaph_rows_matching', 'cenotaph_any_row_matching')").fetchall())
            plain = "\n".join(r[0] for r in conn.execute("EXPLAIN SELECT count(*) FROM memories WHERE fts @@ "
                                                          "'staging <-> database'::tsquery"))
        assert settings == {"cenotaph_rows_matching": ["enable_seqscan=off"],
                            "cenotaph_any_row_matching": ["enable_seqscan=off"]}
        assert "Seq Scan on memories" in plain, plain
    finally:
        store.close()
        sqlite.close()


def _row(project: str):
    from cenotaph.store.records import MemoryRow

    return MemoryRow(id=0, memory_id=1, version=1, project=project, kind="note", content="x", content_hash="h",
                     tags=[], source="human", actor="t", state="active", state_reason=None, reinstate_hints=[],
                     trust="confirmed", trust_reason=None, polarity=0, valid_from="2026", valid_to=None,
                     recorded_at="2026", superseded_at=None, effort=None, outcome=None, iterations=None,
                     breakthrough=None, gotchas=[], recall_count=0, last_recalled_at=None)


@pytest.mark.parametrize(("expression", "expected"), [
    ('content : ("onnx" "staging_db")', ("( ( 'onnx':A ) & ( 'staging':A <-> 'db':A ) )",)),
    ('"rare" OR "common" OR "!!"', ("'rare'", "'common'")),
    ('content : NEAR("left" "pad", 2)', ("( 'left':A ) & ( 'pad':A )",)),
])
def test_fts5_expressions_read_as_tsquery(expression, expected):
    assert fulltext.read(expression).branches == expected
    assert fulltext.read('"!!"') is None  # a term with no words matches nothing, as in FTS5


def test_the_index_and_a_querys_words_fold_diacritics_alike(url):
    """The `fts` column's fold (migration 3) and fulltext.words, which reads a query's terms:
    every accented Latin letter either knows, in upper and lower case."""
    letters = "".join(chr(c) for c in range(0xC0, 0x250))
    text = f"Crème brûlée at the Café in Zürich; ÉCOLE, Ørsted, naïve {letters}"
    with closing(psycopg.connect(url)) as conn:
        indexed = conn.execute("SELECT cenotaph_folded_words(%s)", (text,)).fetchone()[0].split()
    assert indexed == fulltext.words(text)
    assert fulltext.words("Crème brûlée Café ÉCOLE")[:4] == ["creme", "brulee", "cafe", "ecole"]
    assert "ørsted" in indexed  # a letter that does not decompose stays as it is, as in FTS5


def test_words_with_no_accented_letter_are_folded_as_they_are_and_the_same_as_by_the_table(url):
    """Migration 22: ASCII words skip the table's lookup; every text folds as migration 3's
    `translate` of the whole table folded it: plain, with marks that leave no word (an em dash, an
    arrow), with accents (the control: folded), with a sign whose lower case is an accented letter."""
    texts = ["deploy the staging database", "retry — then roll back → done", "Crème brûlée at the Café",
             "ångström \u212b and ÉCOLE", "Straße, Ørsted, naïve", ""]
    with closing(psycopg.connect(url)) as conn:
        language = conn.execute("SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
                                "WHERE p.proname = 'cenotaph_folded_words'").fetchone()[0]
        folded = [conn.execute("SELECT cenotaph_folded_words(%s), translate(cenotaph_words(%s), %s, %s), "
                               "cenotaph_words(%s)", (t, t, fulltext.DIACRITICS, fulltext.DIACRITICS_FOLDED, t)
                               ).fetchone() for t in texts]
    assert language == "plpgsql"
    assert [new for new, _, _ in folded] == [by_table for _, by_table, _ in folded]
    assert folded[2][0] == "creme brulee at the cafe" != folded[2][2]  # the control: the table folds
    assert folded[3][0].split()[:2] == ["angstrom", "a"]
    assert folded[1][0].split() == ["retry", "then", "roll", "back", "done"]


def test_a_sqlite_backup_restores_into_a_postgresql_store_which_leaves_its_own_backups_to_pg_dump(
        url, tmp_path, embedder, analyzer):
    local = Memory(Context(store=open_store(tmp_path / "local.db"), embedder=embedder, analyzer=analyzer))
    team = Memory(Context(store=open_store(url), embedder=embedder, analyzer=analyzer))
    try:
        text = "The deploy key lives in the team vault, not in CI variables"
        local.remember(HUMAN, text, project="p")
        local.abandon(HUMAN, "left-pad", reason="unpublished from the registry", project="p")
        backup = local.backup(HUMAN, tmp_path / "local.bak").path
        assert team.recall(HUMAN, "where is the deploy key", project="p").results == []  # the control
        team.restore(HUMAN, backup)
        (found, *_) = team.recall(HUMAN, "where is the deploy key", project="p").results
        assert found.content == text
        with team.ctx.store.read() as conn:
            assert [a.name for a in approaches.all_rows(conn)] == ["left-pad"]
        assert team.audit_verify().ok
        with pytest.raises(Conflict, match="pg_dump"):
            team.backup(HUMAN, tmp_path / "team.bak")
        assert not (tmp_path / "team.bak").exists()
    finally:
        local.ctx.store.close()
        team.ctx.store.close()


def test_repair_finds_and_adds_a_missing_vector(url, embedder, analyzer):
    memory = Memory(Context(store=open_store(url), embedder=embedder, analyzer=analyzer))
    try:
        memory.remember(HUMAN, "The staging database needs the VPN", project="p")
        assert memory.check_store().ok  # the control
        memory.ctx.store.conn.execute("DELETE FROM memory_vectors")
        check = memory.check_store()
        assert not check.ok and len(check.vectors_missing) == 1
        report = memory.repair(HUMAN)
        assert report.after.ok and memory.recall(HUMAN, "staging VPN", project="p").results
    finally:
        memory.ctx.store.close()


def test_terms_ored_together_are_weighed_as_fts5_weighs_them(url, tmp_path, embedder, analyzer):
    """PostgreSQL's full-text lane weighs each OR-ed term by FTS5's IDF over the whole index:
    the same rows in the same order as SQLite's bm25(), with the caller's counts or its own, and
    with a phrase weighed by its own rows, not its words' (which recall's counts add up)."""
    texts = [
        "the timeout hit the staging database while billing ran",  # timeout + phrase + billing
        "the timeout came back when billing ran late again",  # timeout + billing
        "the staging database slowed down while billing ran",  # phrase + billing
        "the staging database was moved to another zone",  # phrase alone, above billing alone
        *(f"billing ran late on the {day} batch again" for day in ("monday", "tuesday")),
        *(f"the staging server {verb} again this week" for verb in ("restarted", "failed")),
        *(f"the database backup {verb} again this week" for verb in ("restarted", "failed")),
        *(f"nothing of note happened on day {n} here" for n in range(10)),
    ]
    stores = {"sqlite": Memory(Context(store=open_store(tmp_path / "s.db"), embedder=embedder, analyzer=analyzer)),
              "postgres": Memory(Context(store=open_store(url), embedder=embedder, analyzer=analyzer))}
    ranked = {}
    try:
        for name, memory in stores.items():
            for text in texts:
                memory.remember(HUMAN, text, project="p", force=True)
            scope = memories.Scope(projects=("p",))
            with memory.ctx.store.read() as conn:
                counts = memories.term_documents(conn, ["timeout", "staging", "database", "billing"])
                documents = [counts["timeout"], counts["staging"] + counts["database"], counts["billing"]]
                expression = '"timeout" OR "staging_database" OR "billing"'
                hits = memories.fts_search(conn, expression, scope, 10, documents=documents)
                rows = memories.by_row_ids(conn, [rid for rid, _ in hits])
                ranked[name] = [rows[rid].content for rid, _ in hits][:4]
                if name == "postgres":
                    counted_here = memories.fts_search(conn, expression, scope, 10)
                    assert [rid for rid, _ in counted_here] == [rid for rid, _ in hits]
    finally:
        for memory in stores.values():
            memory.ctx.store.close()
    assert ranked["sqlite"] == texts[:4]  # the control: rarer terms outrank, the phrase by its own rows
    assert ranked["postgres"] == ranked["sqlite"]


def test_a_recall_reads_in_one_transaction_on_one_pooled_connection(url, embedder, analyzer):
    """Each pooled read costs a checkout, its check and a BEGIN … COMMIT: a recall's steps share
    one, which is also one snapshot. Its log is a write of its own, after the read."""
    memory = Memory(Context(store=open_store(url), embedder=embedder, analyzer=analyzer))
    store = memory.ctx.store
    checkouts = []
    real = store._pool.connection

    def counted(*args, **kwargs):
        checkouts.append(1)
        return real(*args, **kwargs)

    try:
        memory.remember(HUMAN, "The staging database needs the VPN", project="p")
        memory.remember(HUMAN, "Why does the staging deploy fail? The VPN was down", project="p")
        store._pool.connection = counted
        response = memory.recall(HUMAN, "staging VPN", project="p", log=False)
        assert response.results and len(checkouts) == 1
        memory.recall(HUMAN, "staging VPN", project="p")
        assert memory.recaller.recorder.flush(10)  # the log is written after the answer, by the recorder
        assert len(checkouts) == 3  # the control: the read, then the log's write
    finally:
        memory.close()


@contextmanager
def _statements_sent() -> Iterator[list[str]]:
    """The statements the store's connections send inside the block, as they are written."""
    sent: list[str] = []
    execute = PgCursor.execute

    def counted(self, query, params=None, **kwargs):
        sent.append(str(query))
        return execute(self, query, params, **kwargs)

    PgCursor.execute = counted
    try:
        yield sent
    finally:
        PgCursor.execute = execute


def test_a_read_reads_the_logs_head_once_and_the_next_read_sees_a_write(url):
    """The log's head is read once per read transaction (its snapshot holds still); a write after
    it is seen by the next read, and a write opened inside a read reads the head again."""
    store = open_store(url)
    try:
        with store.write() as conn:
            first = _event(conn, 1)
        with _statements_sent() as sent, store.read() as conn:
            heads = [events.last_seq(conn), events.last_seq(conn), events.last_seq(conn)]
        assert heads == [first] * 3 and sum("MAX(seq)" in q for q in sent) == 1
        with store.write() as conn:
            second = _event(conn, 2)
        with store.read() as conn:
            assert events.last_seq(conn) == second > first  # a new read, a new snapshot
            with store.write() as inner:  # the read's own connection, writing now: read again
                third = _event(inner, 3)
                assert events.last_seq(inner) == third
    finally:
        store.close()


def test_a_reads_snapshot_values_come_in_one_statement_and_its_signs_are_followed_once(url):
    """The values a read asks for once (the log's head, the full-text totals, the store's model)
    come in the one statement sent for the first of them, each the value read alone; the vectors'
    signs are followed once a read, however many projects it searches, and the next read sees a
    vector written in between. The vectors a search rescores are read in one row, as stored."""
    store = open_store(url)
    rng = np.random.default_rng(3)
    block = rng.normal(size=(6, 384)).astype(np.float32)
    try:
        with store.write() as conn:
            vectors.create(conn, 384)
            _event(conn, 1)
            store.set_meta(conn, "embedding_model", "a-model")
            ids = [memories.insert(conn, replace(_row(project), content=f"deploy note {n}"))
                   for n, project in enumerate("ppqqpq")]
            for row, project, v in zip(ids[:5], "ppqqp", block, strict=False):
                vectors.insert(conn, row, project, v)
        with store.read() as conn:
            alone = (conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0],
                     tuple(conn.execute("SELECT rows, tokens FROM fts_totals").fetchone()))
        with _statements_sent() as sent, store.read() as conn:
            together = (events.last_seq(conn), pg_memories._totals(conn), store.get_meta("embedding_model"))
            asked = len(sent)
            nearest = [vectors.knn(conn, project, block[0], 3) for project in ("p", "q")]
        assert asked == 1 and together == (alone[0], (alone[1][0], alone[1][1] / alone[1][0]), "a-model")
        assert sum("vector_log" in q for q in sent) == 1 and nearest[0][0][0] == ids[0]
        with store.write() as conn:
            vectors.insert(conn, ids[5], "q", block[0])
        with _statements_sent() as sent, store.read() as conn:
            nearest = [vectors.knn(conn, project, block[0], 3) for project in ("q", "p")]
        assert sum("vector_log" in q for q in sent) == 1 and nearest[0][0][0] == ids[5]  # followed: the new one
        assert not any("WHERE row_id = ?" in q for q in sent)  # its signs came with the log's row
        with store.read() as conn:  # read in one row; the statement's own placeholders, its % as written
            read = vectors.embeddings(conn, [ids[3], 10**9, ids[0]])
            placeholders = conn.execute("SELECT '100%' || ?, ? LIKE '%s%', ?::int + 1", ("x", "is", 41)).fetchone()
        assert sorted(read) == sorted([ids[0], ids[3]]) and placeholders == ("100%x", True, 42)
        assert np.array_equal(read[ids[0]], block[0]) and np.array_equal(read[ids[3]], block[3])
        assert read[ids[0]].dtype == np.float32
    finally:
        store.close()


def test_an_or_of_phrases_found_from_the_postings_keeps_each_scope_as_sqlite_does(url, tmp_path):
    """The rows an OR of phrases finds from the postings (migration 15) are narrowed by the read's
    scope as the full-text index's rows are: record time (an old version), valid time, kinds,
    refuted trust and projects rank and score alike on both stores."""
    sqlite, store = open_store(tmp_path / "s.db"), open_store(url)
    rows = [replace(_row("p"), content="deploy the staging database", kind="note", recorded_at="2026-01-01",
                    superseded_at="2026-03-01", valid_from="2026-01-01"),
            replace(_row("p"), content="deploy staging", kind="decision", recorded_at="2026-03-01",
                    valid_from="2026-03-01", valid_to="2026-06-01"),
            replace(_row("q"), content="staging database deploy", recorded_at="2026-03-01"),
            replace(_row("p"), content="deploy deploy", trust="refuted", recorded_at="2026-03-01"),
            replace(_row("p"), content="the staging database again", recorded_at="2026-04-01", valid_from="2026-05-15")]
    scopes = {"now": Scope(projects=("p",)), "as of February": Scope(projects=("p",), as_of="2026-02-01"),
              "valid in May": Scope(projects=("p",), valid_at="2026-05-01"),
              "decisions": Scope(projects=("p",), kinds=("decision",)),
              "refuted too": Scope(projects=("p", "q"), include_refuted=True)}
    expression = '"deploy" OR "staging database"'
    try:
        found = {}
        for target in (sqlite, store):
            with target.write() as conn:
                ids = [memories.insert(conn, row) for row in rows]
            with target.read() as conn:
                found[target] = {name: memories.fts_search(conn, expression, scope, 10) for name, scope in scopes.items()}
        on_sqlite, on_postgres = found[sqlite], found[store]
        # The controls: each scope keeps and drops what it should on SQLite.
        assert [r for r, _ in on_sqlite["as of February"]] == [ids[0]]
        assert ids[0] not in [r for r, _ in on_sqlite["now"]] and ids[4] in [r for r, _ in on_sqlite["now"]]
        assert [r for r, _ in on_sqlite["decisions"]] == [ids[1]]
        assert {ids[2], ids[3]} <= {r for r, _ in on_sqlite["refuted too"]}
        assert ids[1] in [r for r, _ in on_sqlite["valid in May"]] and ids[4] not in [r for r, _ in on_sqlite["valid in May"]]
        for name in scopes:
            assert [r for r, _ in on_postgres[name]] == [r for r, _ in on_sqlite[name]], name
            assert [s for _, s in on_postgres[name]] == pytest.approx([s for _, s in on_sqlite[name]]), name
    finally:
        store.close()
        sqlite.close()


def test_each_words_rows_are_counted_as_rows_are_written_rewritten_and_deleted(url):
    """Migration 16: the rows holding each word are counted by the postings' triggers, on insert, on
    a rewrite of a row's text and on delete, and agree with the postings themselves; a word's
    document count for its IDF reads them."""
    store = open_store(url)
    counted = "SELECT lexeme, rows FROM word_rows WHERE rows > 0 ORDER BY lexeme"
    truth = "SELECT lexeme, count(*) FROM memory_postings GROUP BY lexeme ORDER BY lexeme"
    try:
        with store.write() as conn:
            ids = [memories.insert(conn, replace(_row("p"), content=text, lemmas="", context=""))
                   for text in ("deploy the staging database", "deploy again", "staging only")]
        with store.read() as conn:
            first = conn.execute(counted).fetchall()
        assert dict(first)["deploy"] == 2 and dict(first)["staging"] == 2  # the control: counted at all
        with store.write() as conn:
            conn.execute("UPDATE memories SET content = 'rollback the database' WHERE id = ?", (ids[1],))
            conn.execute("DELETE FROM memories WHERE id = ?", (ids[2],))
        with store.read() as conn:
            after, postings = conn.execute(counted).fetchall(), conn.execute(truth).fetchall()
            documents = memories.term_documents(conn, ["deploy", "database", "only", "staging database"])
        assert after == postings and dict(after)["deploy"] == 1 and dict(after)["rollback"] == 1
        assert "only" not in dict(after)  # its only row deleted
        assert documents == {"deploy": 1, "database": 2, "only": 0, "staging database": 1}
    finally:
        store.close()


def test_after_a_bulk_load_the_counters_kept_by_trigger_are_written_again_to_their_live_rows(url):
    """`settle` (after migrate-store): one transaction of many writes leaves every version of the
    log's head and the full-text totals behind their one row; settled, each takes one page again and
    still holds the counts (the control: before, many pages)."""
    def pages(conn) -> dict[str, int]:
        return {table: conn.execute("SELECT pg_relation_size(%s::regclass) / current_setting('block_size')::int",
                                    (table,)).fetchone()[0] for table in ("event_head", "fts_totals")}

    store = open_store(url)
    try:
        with store.write() as conn:
            for n in range(1, 1201):
                memories.insert(conn, replace(_row("p"), memory_id=n, content=f"deploy the staging database {n}"))
                _event(conn, n % 60)
        with closing(psycopg.connect(url, autocommit=True)) as conn:
            loaded = pages(conn)
        store.settle()
        with closing(psycopg.connect(url, autocommit=True)) as conn:
            settled = pages(conn)
            counted = conn.execute("SELECT (SELECT seq FROM event_head), (SELECT rows FROM fts_totals)").fetchone()
    finally:
        store.close()
    assert min(loaded.values()) > 1  # the control: a page holds ≈ 150 versions
    assert settled == {"event_head": 1, "fts_totals": 1} and counted == (1200, 1200)


def test_a_rows_postings_go_by_its_words_the_long_ones_too_with_no_index_by_row(url):
    """Migration 24: a rewritten or deleted row's postings are found by the words its own
    `tsvector` lists, a word longer than the postings' main index takes as well, and its words'
    counts follow; no index by row is kept. The row left alone keeps its postings (the control)."""
    long_word = "z" * 450

    def state(conn) -> tuple[set, set, dict[str, int]]:
        posted = set(conn.execute("SELECT lexeme, row_id FROM memory_postings").fetchall())
        truth = set(conn.execute("SELECT w.lexeme, m.id FROM memories m, unnest(m.fts) AS w").fetchall())
        return posted, truth, dict(conn.execute("SELECT lexeme, rows FROM word_rows").fetchall())

    store = open_store(url)
    try:
        with store.write() as conn:
            ids = [memories.insert(conn, replace(_row("p"), memory_id=n, content=text)) for n, text in
                   enumerate((f"deploy the {long_word} script", "deploy again", f"keep {long_word} here"), 1)]
        with store.read() as conn:
            posted, truth, counts = state(conn)
        assert posted == truth and (long_word, ids[0]) in posted and counts[long_word] == 2 and counts["deploy"] == 2
        with store.write() as conn:
            conn.execute("UPDATE memories SET content = 'rollback script' WHERE id = ?", (ids[0],))
            conn.execute("DELETE FROM memories WHERE id = ?", (ids[1],))
        with store.read() as conn:
            posted, truth, counts = state(conn)
            row_index = conn.execute("SELECT to_regclass('memory_postings_row')").fetchone()[0]
    finally:
        store.close()
    assert posted == truth and (long_word, ids[2]) in posted and (long_word, ids[0]) not in posted
    assert counts[long_word] == 1 and counts["deploy"] == 0 and counts["again"] == 0 and counts["rollback"] == 1
    assert row_index is None


def test_the_vector_log_keeps_its_newest_rows_trimmed_at_each_write_of_a_vector(url):
    """Migration 23: a write of a vector trims the log to its newest 4,096 rows (the control: rows
    written to the log alone are not trimmed)."""
    store = open_store(url)
    try:
        with store.write() as conn:
            vectors.create(conn, 384)
            started = conn.execute("SELECT count(*) FROM vector_log").fetchone()[0]
            conn.execute("INSERT INTO vector_log (row_id) SELECT 0 FROM generate_series(1, 4200)")
            before = conn.execute("SELECT count(*) FROM vector_log").fetchone()[0]
            row = memories.insert(conn, _row("p"))
            vectors.insert(conn, row, "p", np.ones(384, dtype=np.float32))
            kept, oldest, newest, last_row = conn.execute(
                "SELECT count(*), min(seq), max(seq), (SELECT row_id FROM vector_log ORDER BY seq DESC LIMIT 1) "
                "FROM vector_log").fetchone()
    finally:
        store.close()
    assert before == started + 4200 and kept == 4096 and oldest == newest - 4095 and last_row == row


def test_a_read_of_one_statement_runs_in_no_transaction_and_inside_a_write_in_the_writes(url):
    """`read_one` (the graveyard's check): its statement runs in no transaction on PostgreSQL, where
    the statement is its own snapshot and a BEGIN and a COMMIT would be a round trip more; `read`
    opens one (the control); inside a write it is the write's connection."""
    store = open_store(url)
    try:
        with store.read_one() as conn:
            alone = (conn.execute("SELECT 1").fetchone()[0], conn.info.transaction_status)
        with store.read() as conn:
            read = (conn.execute("SELECT 1").fetchone()[0], conn.info.transaction_status)
        with store.write() as outer, store.read_one() as conn:
            inner = conn is outer
    finally:
        store.close()
    assert alone == (1, psycopg.pq.TransactionStatus.IDLE) and read == (1, psycopg.pq.TransactionStatus.INTRANS)
    assert inner


def test_a_write_reads_the_stores_model_with_its_lock_and_again_once_it_wrote_it(url):
    """A write transaction reads the store's model in the round trip that takes its lock, and
    answers it from there until it writes the model itself (then it reads it again: the control)."""
    store = open_store(url)
    try:
        with store.write() as conn:
            store.set_meta(conn, "embedding_model", "a-model")
        with _statements_sent() as sent, store.write() as conn:
            first, again = store.get_meta("embedding_model"), store.get_meta("embedding_model")
            store.set_meta(conn, "embedding_model", "b-model")
            after = store.get_meta("embedding_model")
        with store.read():
            committed = store.get_meta("embedding_model")
    finally:
        store.close()
    assert first == again == "a-model" and after == committed == "b-model"
    assert sum("FROM meta" in statement for statement in sent) == 2  # with the lock, and after its own write


def test_a_batch_inside_a_batch_joins_it_and_ends_with_one_sync(url, tmp_path):
    """`batched` inside another batch adds its statements to it: psycopg ends a nested pipeline
    with a sync (a round trip) of its own. Two batches one after the other sync twice (the
    control)."""
    from cenotaph.store.dialect import batched

    def syncs_of(block) -> tuple[int, int]:
        trace = tmp_path / f"trace-{block.__name__}"
        store = open_store(url)
        try:
            with store.write() as conn:
                conn.execute("CREATE TEMP TABLE t (x int)")
                with open(trace, "w") as out:
                    conn.pgconn.trace(out.fileno())
                    conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
                    block(conn)
                    conn.pgconn.untrace()
                rows = conn.execute("SELECT count(*) FROM t").fetchone()[0]
        finally:
            store.close()
        return rows, sum(line.split("\t")[:1] == ["F"] and "\tSync" in line for line in trace.read_text().splitlines())

    def nested(conn) -> None:
        with batched(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            with batched(conn):
                conn.execute("INSERT INTO t VALUES (2)")
            conn.execute("INSERT INTO t VALUES (3)")

    def one_after_the_other(conn) -> None:
        for value in (1, 2):
            with batched(conn):
                conn.execute("INSERT INTO t VALUES (?)", (value,))

    assert syncs_of(nested) == (3, 1)
    assert syncs_of(one_after_the_other) == (2, 2)

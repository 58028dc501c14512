"""Each connection's copy of the vectors' signs (store/sign_index.py): the same candidates as vec0's
own search, kept current through the vector log whoever wrote, and started over when the log does
not run on from what the copy saw."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cenotaph.memory.models import Actor
from cenotaph.store import migrations, sign_index, vectors
from cenotaph.store.connect import open_connection
from cenotaph.store.db import Store

DIM = 128


def _unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _vec0_nearest(conn, project: str, query: np.ndarray, wanted: int) -> list[int]:
    """vec0's own search, every tie at the cut drawn, ordered as the copy orders: (distance, row id)."""
    rows = conn.execute(
        "SELECT row_id, distance FROM memory_vectors WHERE bits MATCH vec_quantize_binary(?) AND k = ? AND project = ?",
        (query.tobytes(), 4 * wanted, project)).fetchall()
    return [r[0] for r in sorted(rows, key=lambda r: (r[1], r[0]))[:wanted]]


def _fill(store: Store, data: np.ndarray, first: int = 1, project=lambda i: "p" if i % 3 else "q") -> None:
    with store.write() as conn:
        if vectors.dimension(conn) is None:
            vectors.create(conn, data.shape[1])
        for i, v in enumerate(data, start=first):
            vectors.insert(conn, i, project(i), v)


def test_the_copy_draws_vec0s_candidates_across_chunks_and_projects(tmp_path: Path):
    rng = np.random.default_rng(11)
    store = Store(tmp_path / "s.db")
    _fill(store, _unit(rng, 2600))  # "p" spans two of vec0's 1,024-row chunks, "q" one
    for query in _unit(rng, 12):
        for project in ("p", "q"):
            assert vectors._nearest_signs(store.conn, project, query, 40) == _vec0_nearest(store.conn, project, query, 40)
    assert isinstance(store.conn.sign_index, sign_index.SignIndex)  # searched from the copy, not vec0
    # A project with no vectors yet has no neighbours, and gets them once written.
    query = _unit(rng, 1)[0]
    assert vectors.knn(store.conn, "empty", query, 5) == []
    _fill(store, _unit(rng, 3), first=5000, project=lambda i: "empty")
    assert {i for i, _ in vectors.knn(store.conn, "empty", query, 5)} == {5000, 5001, 5002}


def test_the_query_is_quantized_as_vec0_quantizes_it(tmp_path: Path):
    store = Store(tmp_path / "s.db")
    query = np.array([0.5, 0.0, -0.0, -1.0, 2.0, 1e-30, -1e-30, 0.0] * 8, dtype=np.float32)
    ours = np.packbits(query > 0, bitorder="little").tobytes()
    assert store.conn.execute("SELECT vec_quantize_binary(?)", (query.tobytes(),)).fetchone()[0] == ours


def test_knn_rescores_the_copys_candidates_exactly(tmp_path: Path):
    rng = np.random.default_rng(3)
    data = _unit(rng, 30)
    store = Store(tmp_path / "s.db")
    _fill(store, data, project=lambda i: "p")
    query = _unit(rng, 1)[0]
    exact = sorted(((i, float(data[i - 1] @ query)) for i in range(1, 31)), key=lambda p: -p[1])[:5]
    got = vectors.knn(store.conn, "p", query, 5)
    assert [i for i, _ in got] == [i for i, _ in exact]
    assert np.allclose([s for _, s in got], [s for _, s in exact], atol=1e-5)
    assert store.conn.sign_index is not None
    found = vectors.embeddings(store.conn, [3, 7, 999])
    assert set(found) == {3, 7} and np.array_equal(found[7], data[6])


def test_a_dimension_not_a_multiple_of_64_searches_vec0_itself(tmp_path: Path):
    rng = np.random.default_rng(4)
    data = _unit(rng, 20, dim=16)
    store = Store(tmp_path / "s.db")
    _fill(store, data, project=lambda i: "p")
    query = _unit(rng, 1, dim=16)[0]
    assert [i for i, _ in vectors.knn(store.conn, "p", query, 3)][0] == int(np.argmax(data @ query)) + 1
    assert store.conn.sign_index is None
    # Positive control: the same store shape at 64 dimensions keeps a copy.
    other = Store(tmp_path / "t.db")
    _fill(other, _unit(rng, 20, dim=64), project=lambda i: "p")
    vectors.knn(other.conn, "p", _unit(rng, 1, dim=64)[0], 3)
    assert isinstance(other.conn.sign_index, sign_index.SignIndex)


def test_the_copy_follows_its_own_and_another_connections_writes(tmp_path: Path):
    rng = np.random.default_rng(5)
    data = _unit(rng, 300)
    reader = Store(tmp_path / "s.db")
    _fill(reader, data[:200])
    query = data[250]
    assert 251 not in vectors._nearest_signs(reader.conn, "p", query, 10)  # the copy is read now
    writer = Store(tmp_path / "s.db")
    _fill(writer, data[200:], first=201)
    with writer.write() as conn:
        vectors.delete(conn, 5)
        vectors.delete(conn, 251 - 1)  # q's row 250 goes
    nearest = vectors._nearest_signs(reader.conn, "p", query, 10)
    assert nearest[0] == 251 and nearest == _vec0_nearest(reader.conn, "p", query, 10)
    assert 5 not in vectors._nearest_signs(reader.conn, "p", data[4], 300)
    assert 250 not in vectors._nearest_signs(reader.conn, "q", data[249], 300)
    assert 7 in vectors._nearest_signs(reader.conn, "p", data[6], 300)  # positive control
    # Its own writes, seen inside the transaction that makes them.
    with reader.write() as conn:
        vectors.insert(conn, 400, "p", data[0])
        assert vectors._nearest_signs(conn, "p", data[0], 2) == [1, 400]


def test_a_rolled_back_write_leaves_no_trace_in_the_copy(tmp_path: Path):
    rng = np.random.default_rng(6)
    data = _unit(rng, 60)
    store = Store(tmp_path / "s.db")
    _fill(store, data[:50], project=lambda i: "p")
    with pytest.raises(RuntimeError), store.write() as conn:
        vectors.insert(conn, 51, "p", data[50])
        assert vectors._nearest_signs(conn, "p", data[50], 1) == [51]  # the copy saw it
        raise RuntimeError("abandon the transaction")
    # The log's row the copy last applied was rolled back; another write takes its number.
    _fill(store, data[51:52], first=52, project=lambda i: "p")
    assert vectors._nearest_signs(store.conn, "p", data[50], 60) == _vec0_nearest(store.conn, "p", data[50], 60)
    assert 51 not in vectors._nearest_signs(store.conn, "p", data[50], 60)
    assert 52 in vectors._nearest_signs(store.conn, "p", data[51], 60)


def test_a_copy_older_than_the_log_or_the_table_starts_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sign_index, "LOG_KEPT", 8)
    rng = np.random.default_rng(7)
    data = _unit(rng, 100)
    reader = Store(tmp_path / "s.db")
    _fill(reader, data[:40], project=lambda i: "p")
    vectors._nearest_signs(reader.conn, "p", data[0], 5)
    writer = Store(tmp_path / "s.db")
    _fill(writer, data[40:70], first=41, project=lambda i: "p")  # 30 writes: the log was pruned
    assert reader.conn.execute("SELECT COUNT(*) FROM vector_log").fetchone()[0] <= 2 * 8
    for i in (0, 45, 69):
        assert vectors._nearest_signs(reader.conn, "p", data[i], 70) == _vec0_nearest(reader.conn, "p", data[i], 70)
    # The table rebuilt (a reindex): the copy reads the new one.
    with writer.write() as conn:
        vectors.drop(conn)
        vectors.create(conn, DIM)
        for i, v in enumerate(data[70:], start=71):
            vectors.insert(conn, i, "p", v)
    assert sorted(vectors._nearest_signs(reader.conn, "p", data[80], 100)) == list(range(71, 101))


def test_a_deleted_memory_row_takes_its_vector_out_of_the_copy(tmp_path: Path, embedder, analyzer, clock):
    from cenotaph.memory.context import Context
    from cenotaph.memory.service import Memory

    store = Store(tmp_path / "s.db")
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
    actor = Actor("ana", "human")
    texts = ["Nightly snapshots restore the staging database", "The billing job retries three times",
             "Blue-green deploys switch the load balancer"]
    for text in texts:
        memory.remember(actor, text, project="p")
    rows = dict(store.conn.execute("SELECT content, id FROM memories").fetchall())
    query = embedder.embed_one(texts[0])
    assert sorted(vectors._nearest_signs(store.conn, "p", query, 10)) == sorted(rows.values())
    with store.write() as conn:  # no command deletes a memory row; the trigger keeps the vectors right if one does
        conn.execute("DELETE FROM memories WHERE id = ?", (rows[texts[0]],))
    assert sorted(vectors._nearest_signs(store.conn, "p", query, 10)) == sorted([rows[texts[1]], rows[texts[2]]])


def test_a_forgotten_memory_is_no_longer_a_neighbour(tmp_path: Path, embedder, analyzer, clock):
    from cenotaph.memory.context import Context
    from cenotaph.memory.service import Memory

    store = Store(tmp_path / "s.db")
    memory = Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
    actor = Actor("ana", "human")
    kept_text, gone_text = ("The staging database is restored from the nightly snapshot",
                            "Deploys to staging run through the blue-green script")
    kept = memory.remember(actor, kept_text, project="p").id
    gone = memory.remember(actor, gone_text, project="p").id
    row_of = dict(store.conn.execute("SELECT memory_id, id FROM memories").fetchall())
    query = embedder.embed_one(gone_text)
    assert vectors._nearest_signs(store.conn, "p", query, 10)[0] == row_of[gone]
    memory.forget(actor, gone, reason="wrong", confirm=True)
    assert vectors._nearest_signs(store.conn, "p", query, 10) == [row_of[kept]]


def test_migration_13_logs_a_schema_12_stores_deletes(tmp_path: Path):
    rng = np.random.default_rng(9)
    path = tmp_path / "old.db"
    conn = open_connection(path)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for number, migration in enumerate(migrations.MIGRATIONS[:12], start=1):
        migration(conn)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, 'then')", (number, migration.__name__))
    conn.execute("CREATE VIRTUAL TABLE memory_vectors USING vec0 (row_id INTEGER PRIMARY KEY, project TEXT PARTITION KEY, "
                 f"bits bit[{DIM}], +embedding BLOB)")
    conn.execute("CREATE TRIGGER memories_vec_delete AFTER DELETE ON memories BEGIN "
                 "DELETE FROM memory_vectors WHERE row_id = old.id; END")
    for i, v in enumerate(_unit(rng, 5), start=1):
        conn.execute("INSERT INTO memory_vectors (row_id, project, bits, embedding) VALUES (?, 'p', vec_quantize_binary(?), ?)",
                     (i, v.tobytes(), v.tobytes()))
    conn.execute("COMMIT")
    conn.close()

    store = Store(path)
    assert store.schema_version == len(migrations.MIGRATIONS) == 13
    assert store.conn.execute("SELECT row_id FROM vector_log").fetchall() == [(0,)]
    trigger = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories_vec_delete'").fetchone()[0]
    assert "INSERT INTO vector_log (row_id) VALUES (old.id)" in trigger
    assert sorted(vectors._nearest_signs(store.conn, "p", _unit(rng, 1)[0], 10)) == [1, 2, 3, 4, 5]


def test_without_a_vector_log_vec0_is_searched_itself(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    rng = np.random.default_rng(10)
    data = _unit(rng, 20)
    store = Store(tmp_path / "s.db")
    _fill(store, data, project=lambda i: "p")
    assert vectors.knn(store.conn, "p", data[4], 1)[0][0] == 5 and store.conn.sign_index  # positive control
    other = Store(tmp_path / "s.db")
    other.conn.execute("DROP TABLE vector_log")  # as a store opened without its migrations has none
    assert vectors.knn(other.conn, "p", data[4], 1)[0][0] == 5
    assert other.conn.sign_index is False and "no copy of its signs can be kept" in caplog.text

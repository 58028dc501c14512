"""The vector table: a binary index searched by Hamming distance, candidates rescored by cosine
with the float vector kept beside it; migration 2 moves a schema-1 store's vectors into it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cenotaph.store import migrations, vectors
from cenotaph.store.connect import open_connection
from cenotaph.store.db import Store


def _unit(rng: np.random.Generator, n: int, dim: int = 16) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_knn_returns_exact_cosine_order_and_values_per_project(tmp_path: Path):
    rng = np.random.default_rng(3)
    data = _unit(rng, 30)
    store = Store(tmp_path / "s.db")
    with store.write() as conn:
        vectors.create(conn, 16)
        for i, v in enumerate(data, start=1):
            vectors.insert(conn, i, "p" if i <= 20 else "other", v)
    query = _unit(rng, 1)[0]
    # 20 vectors in "p", fewer than the binary index's candidates: the answer is exact.
    exact = sorted(((i, float(data[i - 1] @ query)) for i in range(1, 21)), key=lambda p: -p[1])[:5]
    got = vectors.knn(store.conn, "p", query, 5)
    assert [i for i, _ in got] == [i for i, _ in exact]
    assert np.allclose([s for _, s in got], [s for _, s in exact], atol=1e-5)
    assert {i for i, _ in vectors.knn(store.conn, "other", query, 50)} == set(range(21, 31))
    assert np.array_equal(vectors.get(store.conn, 7), data[6])
    assert vectors.dimension(store.conn) == 16


def test_migration_2_moves_schema_1_vectors_into_the_binary_index(tmp_path: Path):
    rng = np.random.default_rng(5)
    data = _unit(rng, 12)
    path = tmp_path / "old.db"
    conn = open_connection(path)  # a store as schema 1 left it, with its float vec0 table
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    migrations.MIGRATIONS[0](conn)
    conn.execute("INSERT INTO schema_migrations VALUES (1, 'm0001_initial', 'then')")
    conn.execute("CREATE VIRTUAL TABLE memory_vec USING vec0 (row_id INTEGER PRIMARY KEY, project TEXT PARTITION KEY, "
                 "embedding float[16] distance_metric=cosine)")
    conn.executemany("INSERT INTO memory_vec (row_id, project, embedding) VALUES (?, 'p', ?)",
                     [(i, v.tobytes()) for i, v in enumerate(data, start=1)])
    conn.execute("COMMIT")
    conn.close()

    store = Store(path)
    assert store.schema_version == len(migrations.MIGRATIONS)
    assert store.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memory_vec'").fetchone() is None
    assert vectors.row_ids(store.conn) == set(range(1, 13)) and vectors.dimension(store.conn) == 16
    assert np.array_equal(vectors.get(store.conn, 4), data[3])
    assert vectors.knn(store.conn, "p", data[3], 1)[0][0] == 4
    # The delete trigger follows the new table.
    with store.write() as tx:
        tx.execute("INSERT INTO memories (id, memory_id, project, kind, content, content_hash, source, actor, trust, "
                   "valid_from, recorded_at) VALUES (4, 4, 'p', 'note', 'x', 'h', 'human', 'a', 'confirmed', 't', 't')")
        tx.execute("DELETE FROM memories WHERE id = 4")
    assert 4 not in vectors.row_ids(store.conn)

"""SQL for the sqlite-vec table: one vector per memory row, partitioned by project so that a KNN
query only walks the project it asks about.

Search runs on a binary quantization of each vector (one bit a dimension, Hamming distance) and
the candidates are rescored by cosine with the float vector, kept in the same row as an auxiliary
column. With sqlite-vec 0.1.9 (its wheel is built without SIMD) an exact cosine scan of 100,000
vectors took ≈ 90 ms a query here, L2 and int8 scans not much less; the binary search with
rescoring ≈ 10 ms. docs/benchmarks-history.md
("Vector search") gives both and the overlap with exact KNN."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cenotaph.store import sign_index
from cenotaph.store.dialect import per_dialect

# numpy is imported by the functions that handle vectors: a command that reads the graveyard
# alone (an agent's hook on every tool call) never pays for it.
if TYPE_CHECKING:
    import numpy as np

TABLE = "memory_vectors"
# Candidates drawn from the binary index for each neighbour asked for, and at least this many:
# rescoring them by cosine recovers the exact order (overlap figures in docs/benchmarks-history.md).
OVERSAMPLE = 3
MIN_CANDIDATES = 40
VEC0_MAX_K = 4096  # sqlite-vec refuses a KNN query for more neighbours


@per_dialect
def dimension(conn: Any) -> int | None:
    """The dimension the vec0 table was created with, or None if there is none yet."""
    found = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone()
    if not found:
        return None
    sql: str = found[0]
    start = sql.index("bit[") + len("bit[")
    return int(sql[start : sql.index("]", start)])


@per_dialect
def create(conn: Any, dim: int) -> None:
    if dim % 8:  # every model fastembed offers qualifies (384, 512, 768, 1024, …)
        raise ValueError(f"the binary vector index needs a dimension divisible by 8, not {dim}")
    conn.execute(
        f"""CREATE VIRTUAL TABLE {TABLE} USING vec0 (
                row_id INTEGER PRIMARY KEY,
                project TEXT PARTITION KEY,
                bits bit[{dim}],
                +embedding BLOB
            )"""
    )
    # Keep vectors in step with their rows: a memory row that goes takes its vector with it (and
    # says so in the log the connections' copies of the signs follow: store/sign_index.py).
    conn.execute(
        f"CREATE TRIGGER IF NOT EXISTS memories_vec_delete AFTER DELETE ON memories BEGIN "
        f"DELETE FROM {TABLE} WHERE row_id = old.id; "
        f"INSERT INTO {sign_index.LOG} (row_id) VALUES (old.id); END"
    )
    log_change(conn, 0)  # the new table's first row: every copy of the old one starts over


@per_dialect
def drop(conn: Any) -> None:
    conn.execute("DROP TRIGGER IF EXISTS memories_vec_delete")
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
    conn.execute(f"DELETE FROM {sign_index.LOG}")


@per_dialect
def log_change(conn: Any, row_id: int) -> None:
    """Note that `row_id`'s vector was written or deleted, for the connections' copies of the signs;
    the log keeps its newest `sign_index.LOG_KEPT` rows."""
    seq = conn.execute(f"INSERT INTO {sign_index.LOG} (row_id) VALUES (?)", (row_id,)).lastrowid
    if seq % sign_index.LOG_KEPT == 0:
        conn.execute(f"DELETE FROM {sign_index.LOG} WHERE seq <= ?", (seq - sign_index.LOG_KEPT,))


def _blob(vector: np.ndarray) -> bytes:
    import numpy as np
    return np.asarray(vector, dtype=np.float32).tobytes()


@per_dialect
def insert(conn: Any, row_id: int, project: str, vector: np.ndarray) -> None:
    blob = _blob(vector)
    conn.execute(f"INSERT INTO {TABLE} (row_id, project, bits, embedding) VALUES (?, ?, vec_quantize_binary(?), ?)",
                 (row_id, project, blob, blob))
    log_change(conn, row_id)


@per_dialect
def insert_batch(conn: Any, rows: list[tuple[int, str, np.ndarray]]) -> None:
    """(row id, project, vector) rows, as `insert` writes each."""
    for row_id, project, vector in rows:
        insert(conn, row_id, project, vector)


def delete(conn: Any, row_id: int) -> None:
    conn.execute(f"DELETE FROM {TABLE} WHERE row_id = ?", (row_id,))
    log_change(conn, row_id)


def candidates(k: int, least: int = MIN_CANDIDATES) -> int:
    """How many of the binary index's nearest rows are rescored for `k` neighbours: on both stores
    at most half of vec0's largest k, as SQLite's query draws twice as many (`knn`)."""
    return min(max(k * OVERSAMPLE, least), VEC0_MAX_K // 2)


def rescore(query: np.ndarray, rows: list[tuple[int, bytes | np.ndarray]], k: int) -> list[tuple[int, float]]:
    """(row id, cosine) of the k rows nearest `query` by cosine, ties to the older row: the one
    computation both stores' candidates go through (float32, numpy), so a score and its order do
    not depend on which store's arithmetic computed it."""
    import numpy as np
    if not rows:
        return []
    rows = sorted(rows, key=lambda r: r[0])
    matrix = np.stack([np.frombuffer(v, dtype=np.float32) if isinstance(v, bytes) else np.asarray(v, dtype=np.float32)
                       for _, v in rows])
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    similarity = matrix @ query / np.where(norms == 0, 1, norms)
    order = np.argsort(-similarity, kind="stable")[:k]
    return [(rows[i][0], float(similarity[i])) for i in order]


@per_dialect
def knn(conn: Any, project: str, vector: np.ndarray, k: int, *, least: int = MIN_CANDIDATES) -> list[tuple[int, float]]:
    """(row id, cosine similarity) of the k nearest rows in one project, nearest first: the
    binary index's `candidates(k, least)` nearest (Hamming distance, ties to the older row),
    rescored by cosine. PostgreSQL draws the same candidates (store/postgres/vectors.py). They come
    from the connection's copy of the signs (store/sign_index.py), or from vec0's own search on a
    connection that keeps none."""
    import numpy as np
    query = np.asarray(vector, dtype=np.float32)
    copied = from_copy(conn, project, query, k, least)
    if copied is not None:
        return copied
    wanted = candidates(k, least)
    # Twice as many as wanted, cut by (distance, row id): vec0 returns rows tied at the cut in an
    # order of its own, and the two stores must keep the same ones. Its scan grows with the
    # candidates drawn (at 100,000 vectors 9.5 ms for 80, 4.4 ms for 20).
    rows = conn.execute(
        f"SELECT row_id, distance, embedding FROM {TABLE} WHERE bits MATCH vec_quantize_binary(?) AND k = ? "
        "AND project = ?", (query.tobytes(), 2 * wanted, project),
    ).fetchall()
    kept = sorted(rows, key=lambda r: (r[1], r[0]))[:wanted]
    return rescore(query, [(r[0], r[2]) for r in kept], k)


def from_copy(conn: Any, project: str, query: np.ndarray, k: int, least: int) -> list[tuple[int, float]] | None:
    """`knn` from the connection's copy of the signs, or None where it keeps none."""
    nearest = _nearest_signs(conn, project, query, candidates(k, least))
    if nearest is None:
        return None
    found = embeddings(conn, nearest)
    return rescore(query, [(row_id, found[row_id]) for row_id in nearest if row_id in found], k)


def _nearest_signs(conn: Any, project: str, query: np.ndarray, wanted: int) -> list[int] | None:
    """The connection's copy of the signs' `wanted` nearest, or None where it keeps no copy (a
    connection opened elsewhere, a dimension not a multiple of 64, `CopyUnavailable`)."""
    if not hasattr(conn, "sign_index") or query.shape[0] % 64:
        return None
    index = conn.sign_index
    if index is False:
        return None
    if index is None or index.words * 64 != query.shape[0]:
        index = conn.sign_index = sign_index.SignIndex(TABLE, query.shape[0])
    try:
        return index.nearest(conn, project, query, wanted)
    except sign_index.CopyUnavailable as exc:
        import logging  # here only: an agent's hook imports this module and never searches
        logging.getLogger(__name__).warning("searching vec0 itself: no copy of its signs can be kept (%s)", exc)
        conn.sign_index = False
        return None


@per_dialect
def get(conn: Any, row_id: int) -> np.ndarray | None:
    import numpy as np
    found = conn.execute(f"SELECT embedding FROM {TABLE} WHERE row_id = ?", (row_id,)).fetchone()
    return np.frombuffer(found[0], dtype=np.float32) if found else None


def row_ids(conn: Any) -> set[int]:
    return {r[0] for r in conn.execute(f"SELECT row_id FROM {TABLE}")}


@per_dialect
def embeddings(conn: Any, row_ids: list[int], batch: int = 500) -> dict[int, np.ndarray]:
    """The float vectors of `row_ids` (those that have one), read in batches of bound parameters
    from vec0's table of auxiliary columns: through the virtual table, `row_id IN (…)` scans every
    row (29 ms for 30 ids at 100,000 vectors, against 0.02 ms)."""
    import numpy as np
    found: dict[int, np.ndarray] = {}
    for start in range(0, len(row_ids), batch):
        chunk = row_ids[start:start + batch]
        marks = ",".join("?" * len(chunk))
        try:
            rows = conn.execute(f"SELECT rowid, value00 FROM {TABLE}_auxiliary WHERE rowid IN ({marks})", chunk).fetchall()
        except Exception:  # noqa: BLE001 - the binding's OperationalError: vec0 lays its tables out otherwise
            rows = conn.execute(f"SELECT row_id, embedding FROM {TABLE} WHERE row_id IN ({marks})", chunk).fetchall()
        for row_id, blob in rows:
            found[row_id] = np.frombuffer(blob, dtype=np.float32)
    return found


@per_dialect
def all_rows(conn: Any, batch: int = 1000):
    """Every (row id, project, vector), in batches: a whole store's vectors, to copy them."""
    import numpy as np
    cursor = conn.execute(f"SELECT row_id, project, embedding FROM {TABLE}")
    while rows := cursor.fetchmany(batch):
        yield [(row_id, project, np.frombuffer(blob, dtype=np.float32)) for row_id, project, blob in rows]


def count(conn: Any) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0] if dimension(conn) is not None else 0

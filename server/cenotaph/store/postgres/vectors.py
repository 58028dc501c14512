"""Vectors on PostgreSQL: pgvector's `vector(dim)` beside its stored signs (`bit(dim)`), filtered by
project. KNN draws the same candidates as SQLite's binary index and rescores them with the same
code (`knn`); an HNSW index is not used, as its approximate order drew other candidates."""

from __future__ import annotations

from typing import Any

import numpy as np

from cenotaph.store import vectors

TABLE = "memory_vectors"


def _binary(conn: Any) -> Any:
    """A cursor that reads vectors in PostgreSQL's binary format: pgvector's text form, parsed
    number by number, took 22 ms for 240 vectors of 384 dimensions, the binary one 1.3 ms."""
    return conn.cursor(binary=True)


def dimension(conn: Any) -> int | None:
    found = conn.execute(
        "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(?) AND attname = 'embedding'", (TABLE,)
    ).fetchone()
    return found[0] if found else None


def create(conn: Any, dim: int) -> None:
    conn.execute(f"""CREATE TABLE {TABLE} (
                         row_id    BIGINT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
                         project   TEXT NOT NULL,
                         embedding vector({int(dim)}) NOT NULL,
                         {signs_column(dim)}
                     )""")
    # Row ids and signs in the project's index: KNN scans the index alone (migration 12).
    conn.execute(f"CREATE INDEX {TABLE}_project ON {TABLE} (project) INCLUDE (row_id, signs)")
    # Every write noted for the connections' copies of the signs (migration 13 made the function).
    for event, tables in (("INSERT", "NEW TABLE AS added"), ("DELETE", "OLD TABLE AS removed"),
                          ("UPDATE", "OLD TABLE AS removed NEW TABLE AS added")):
        conn.execute(f"CREATE TRIGGER {TABLE}_logged_{event.lower()} AFTER {event} ON {TABLE} REFERENCING {tables} "
                     "FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_vector_log()")
    conn.execute("INSERT INTO vector_log (row_id) VALUES (0)")  # every copy of a former table starts over


def signs_column(dim: int) -> str:
    """Each vector's signs, stored: the binary copy KNN scans (SQLite's vec0 keeps its own)."""
    return f"signs bit({int(dim)}) GENERATED ALWAYS AS (binary_quantize(embedding)::bit({int(dim)})) STORED"


def drop(conn: Any) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
    conn.execute("DELETE FROM vector_log")


def log_change(conn: Any, row_id: int) -> None:
    """Nothing to do: the table's triggers write the log (`create`)."""


def insert(conn: Any, row_id: int, project: str, vector: np.ndarray) -> None:
    conn.execute(f"INSERT INTO {TABLE} (row_id, project, embedding) VALUES (?, ?, ?)",
                 (row_id, project, np.asarray(vector, dtype=np.float32)))


def insert_batch(conn: Any, rows: list[tuple[int, str, np.ndarray]]) -> None:
    """The rows in one COPY: the vector log's statement trigger runs once for them. Row by row, in
    `migrate-store`'s one transaction, each trigger's trim of the log scanned every entry the
    transaction had trimmed before (100,000 vectors: hours)."""
    if rows:
        conn.copy_rows(TABLE, ["row_id", "project", "embedding"],
                       ((row_id, project, np.asarray(vector, dtype=np.float32)) for row_id, project, vector in rows))


def knn(conn: Any, project: str, vector: np.ndarray, k: int, *,
        least: int = vectors.MIN_CANDIDATES) -> list[tuple[int, float]]:
    """(row id, cosine similarity) of the k nearest rows in one project, nearest first: the same
    candidates as SQLite's binary index (each vector's signs, nearest by Hamming distance, ties to
    the older row: the connection's copy of the signs, else an exact scan of the project) rescored
    by the same code, so that both stores give one answer (bench/store_agreement.py)."""
    query = np.asarray(vector, dtype=np.float32)
    copied = vectors.from_copy(conn, project, query, k, least)
    if copied is not None:
        return copied
    # The nearest ids first, then their vectors: sorting the whole project with each row's vector
    # (1.5 kB) in tow took twice as long.
    rows = _binary(conn).execute(
        f"SELECT v.row_id, v.embedding FROM (SELECT row_id, signs <~> binary_quantize(?::vector)::bit({len(query)}) "
        f"AS distance FROM {TABLE} WHERE project = ? ORDER BY distance, row_id LIMIT ?) AS nearest "
        f"JOIN {TABLE} v USING (row_id) ORDER BY nearest.distance, nearest.row_id",
        (query, project, vectors.candidates(k, least)),
    ).fetchall()
    return vectors.rescore(query, [(r[0], r[1].to_numpy()) for r in rows], k)


def get(conn: Any, row_id: int) -> np.ndarray | None:
    found = _binary(conn).execute(f"SELECT embedding FROM {TABLE} WHERE row_id = ?", (row_id,)).fetchone()
    if not found:
        return None
    stored = found[0]  # pgvector's Vector
    return np.asarray(stored.to_numpy() if hasattr(stored, "to_numpy") else stored, dtype=np.float32)


def all_rows(conn: Any, batch: int = 1000):
    cursor = _binary(conn).execute(f"SELECT row_id, project, embedding FROM {TABLE}")
    while rows := cursor.fetchmany(batch):
        yield [(row_id, project, vector.to_numpy().astype(np.float32, copy=False)) for row_id, project, vector in rows]


def embeddings(conn: Any, row_ids: list[int], batch: int = 500) -> dict[int, np.ndarray]:
    """The vectors of `row_ids` (those stored), read in one row: their ids, and their binary forms
    end to end (pgvector's `vector_send`: a 4-byte header, then each dimension a big-endian float4)
    read by one numpy call. Row by row, each vector's loader and the row's cost ≈ 5 µs (a recall
    reads 240 of them: 1 ms of an exact-lane recall's 10 at 100,000 memories). The two aggregates
    read the rows in the same order, whichever it is: an `ORDER BY` in each sorted them apart
    (0.32 ms for a write's 15 candidates, 0.10 without)."""
    found: dict[int, np.ndarray] = {}
    for start in range(0, len(row_ids), batch):
        ids, packed = _binary(conn).execute(
            f"SELECT array_agg(row_id), string_agg(vector_send(embedding), ''::bytea) "
            f"FROM {TABLE} WHERE row_id = ANY(?)", (row_ids[start:start + batch],)).fetchone()
        if ids:
            vectors_read = np.frombuffer(packed, dtype=">f4").reshape(len(ids), -1)[:, 1:].astype(np.float32)
            found.update(zip(ids, vectors_read, strict=True))
    return found

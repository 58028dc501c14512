"""SQL for the sqlite-vec table: one cosine vector per memory row, partitioned by project so
that a KNN query only walks the project it asks about."""

from __future__ import annotations

from typing import Any

import numpy as np

TABLE = "memory_vec"


def dimension(conn: Any) -> int | None:
    """The dimension the vec0 table was created with, or None if there is none yet."""
    found = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone()
    if not found:
        return None
    sql: str = found[0]
    start = sql.index("float[") + len("float[")
    return int(sql[start : sql.index("]", start)])


def create(conn: Any, dim: int) -> None:
    conn.execute(
        f"""CREATE VIRTUAL TABLE {TABLE} USING vec0 (
                row_id INTEGER PRIMARY KEY,
                project TEXT PARTITION KEY,
                embedding float[{dim}] distance_metric=cosine
            )"""
    )
    # Keep vectors in step with their rows: a memory row that goes takes its vector with it.
    conn.execute(
        f"CREATE TRIGGER IF NOT EXISTS memories_vec_delete AFTER DELETE ON memories BEGIN "
        f"DELETE FROM {TABLE} WHERE row_id = old.id; END"
    )


def drop(conn: Any) -> None:
    conn.execute("DROP TRIGGER IF EXISTS memories_vec_delete")
    conn.execute(f"DROP TABLE IF EXISTS {TABLE}")


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def insert(conn: Any, row_id: int, project: str, vector: np.ndarray) -> None:
    conn.execute(f"INSERT INTO {TABLE} (row_id, project, embedding) VALUES (?, ?, ?)", (row_id, project, _blob(vector)))


def delete(conn: Any, row_id: int) -> None:
    conn.execute(f"DELETE FROM {TABLE} WHERE row_id = ?", (row_id,))


def knn(conn: Any, project: str, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(row id, cosine similarity) of the k nearest rows in one project, nearest first."""
    rows = conn.execute(
        f"SELECT row_id, distance FROM {TABLE} WHERE embedding MATCH ? AND k = ? AND project = ?",
        (_blob(vector), k, project),
    )
    return [(r[0], 1.0 - r[1]) for r in rows]


def get(conn: Any, row_id: int) -> np.ndarray | None:
    found = conn.execute(f"SELECT embedding FROM {TABLE} WHERE row_id = ?", (row_id,)).fetchone()
    return np.frombuffer(found[0], dtype=np.float32) if found else None


def row_ids(conn: Any) -> set[int]:
    return {r[0] for r in conn.execute(f"SELECT row_id FROM {TABLE}")}

"""The signs of PostgreSQL's vectors for a connection's copy (store/sign_index.py): read from the
stored `signs` column (the KNN index holds it: an index-only scan) in its wire format, whose bytes
hold the first dimension in their high bit; the copy holds it in the low bit, as vec0 does."""

from __future__ import annotations

from typing import Any

import numpy as np

# Each byte with its bits in the opposite order.
_REVERSED = np.array([int(f"{byte:08b}"[::-1], 2) for byte in range(256)], dtype=np.uint8)
# `bit_send` writes a 4-byte length, then the bits.
_SIGNS = "substring(bit_send(signs) from 5)"


def row_signs(conn: Any, table: str, row_id: int) -> tuple[str, bytes] | None:
    found = conn.execute(f"SELECT project, {_SIGNS} FROM {table} WHERE row_id = ?", (row_id,)).fetchone()
    return (found[0], _REVERSED[np.frombuffer(found[1], dtype=np.uint8)].tobytes()) if found else None


def project_signs(conn: Any, table: str, project: str, words: int) -> tuple[np.ndarray, np.ndarray]:
    rows = conn.execute(f"SELECT row_id, {_SIGNS} FROM {table} WHERE project = ?", (project,)).fetchall()
    ids = np.fromiter((row_id for row_id, _ in rows), dtype=np.int64, count=len(rows))
    packed = _REVERSED[np.frombuffer(b"".join(signs for _, signs in rows), dtype=np.uint8)]
    return ids, packed.view(np.uint64).reshape(len(rows), words)

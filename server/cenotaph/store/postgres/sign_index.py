"""The signs of PostgreSQL's vectors for a connection's copy (store/sign_index.py): read from the
stored `signs` column (the KNN index holds it: an index-only scan) in its wire format, whose bytes
hold the first dimension in their high bit; the copy holds it in the low bit, as vec0 does."""

from __future__ import annotations

from typing import Any

import numpy as np

from cenotaph.store.sign_index import LOG

# Each byte with its bits in the opposite order.
_REVERSED = np.array([int(f"{byte:08b}"[::-1], 2) for byte in range(256)], dtype=np.uint8)


def _signs(column: str) -> str:
    """The bits of the `bit` column `column` (`bit_send` writes a 4-byte length first)."""
    return f"substring(bit_send({column}) from 5)"


def changed_since(conn: Any, table: str, seq: int, limit: int
                  ) -> tuple[list[tuple[int, int, int]], dict[int, tuple[str, bytes] | None] | None]:
    """The log's rows with each one's vector signs beside it, in one statement: a write's duplicate
    check read them in two (the log, then the row the last write added)."""
    rows = conn.execute(f"SELECT l.seq, l.row_id, l.token, v.project, {_signs('v.signs')} "
                        f"FROM {LOG} l LEFT JOIN {table} v ON v.row_id = l.row_id WHERE l.seq >= ? ORDER BY l.seq",
                        (seq,)).fetchall()
    tail = [(seq_, row_id, token) for seq_, row_id, token, _, _ in rows]
    changed = {row_id: None if project is None else (project, _REVERSED[np.frombuffer(signs, dtype=np.uint8)].tobytes())
               for _, row_id, _, project, signs in rows[1:]}
    return tail, None if len(changed) > limit else changed


def project_signs(conn: Any, table: str, project: str, words: int) -> tuple[np.ndarray, np.ndarray]:
    rows = conn.execute(f"SELECT row_id, {_signs('signs')} FROM {table} WHERE project = ?", (project,)).fetchall()
    ids = np.fromiter((row_id for row_id, _ in rows), dtype=np.int64, count=len(rows))
    packed = _REVERSED[np.frombuffer(b"".join(signs for _, signs in rows), dtype=np.uint8)]
    return ids, packed.view(np.uint64).reshape(len(rows), words)

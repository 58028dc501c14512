"""A connection's own copy of the binary index (one sign bit a dimension) of each project's vectors,
searched with numpy and brought up to date from the vector log before each search.

vec0's binary KNN (sqlite-vec 0.1.9, built without SIMD) walks every chunk and then picks its k
nearest by scanning the chunk again for each one: at 100,000 vectors 2.3 ms for 5 neighbours,
4.3 ms for 30, 15 ms for 160. The same scan as numpy popcounts over the signs held in memory takes
0.9 ms whatever k is (docs/benchmarks-history.md, "The vector scan in memory").

The copy is read once — on SQLite from vec0's own chunk tables (≈ 2 ms at 100,000; `SELECT bits`
through the virtual table takes 880 ms), on PostgreSQL from the signs its KNN index holds
(store/postgres/sign_index.py) — and then follows `vector_log`: every write to the vector table adds
a row naming the row id it touched (SQLite: store/vectors.py and the `memories` delete trigger;
PostgreSQL: triggers on the table), with a random token. Before a search the copy reads the log from the last row it applied; if that row is gone or
holds another token (a transaction it saw rolled back, the log pruned, the table rebuilt, another
database behind a reused connection) it reads everything again, else it refetches the rows named
since. A connection searches its own snapshot, uncommitted writes of its transaction included."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cenotaph.store.dialect import in_snapshot, per_dialect

if TYPE_CHECKING:
    import numpy as np

LOG = "vector_log"
# Past this many changed rows, reading every chunk again is cheaper than fetching them one by one.
REFETCH_LIMIT = 256
# The log keeps this many rows; a copy older than them reads everything again.
LOG_KEPT = 4096
_ROW_ID_BITS = 40  # row ids below 2**40 sort under their distance in one 64-bit key


class CopyUnavailable(RuntimeError):
    """No copy can be kept: vec0's chunk tables are not laid out as sqlite-vec 0.1.9 lays them out,
    or the store has no vector log (a store opened without its migrations, as tests do)."""


class _ProjectSigns:
    """One project's row ids and signs, packed in 64-bit words, one array a word (column-wise: each
    word's XOR and popcount runs over contiguous memory)."""

    def __init__(self, ids: np.ndarray, words: np.ndarray) -> None:
        """`words`: one row a row id, one column a 64-bit word."""
        import numpy as np

        self.count = len(ids)
        capacity = max(64, self.count + self.count // 2)
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.ids[:self.count] = ids
        self.words = np.zeros((words.shape[1], capacity), dtype=np.uint64)
        self.words[:, :self.count] = words.T

    def _slot(self, row_id: int) -> int | None:
        import numpy as np

        found = np.flatnonzero(self.ids[:self.count] == row_id)
        return int(found[0]) if len(found) else None

    def put(self, row_id: int, words: np.ndarray) -> None:
        import numpy as np

        slot = self._slot(row_id)
        if slot is None:
            if self.count == len(self.ids):
                grown = self.count + self.count // 2
                self.ids = np.resize(self.ids, grown)
                self.words = np.concatenate([self.words, np.zeros((self.words.shape[0], grown - self.count),
                                                                  dtype=np.uint64)], axis=1)
            slot, self.count = self.count, self.count + 1
        self.ids[slot] = row_id
        self.words[:, slot] = words

    def remove(self, row_id: int) -> None:
        slot = self._slot(row_id)
        if slot is not None:  # the last row takes its place: the arrays stay dense
            last = self.count - 1
            self.ids[slot] = self.ids[last]
            self.words[:, slot] = self.words[:, last]
            self.count = last

    def nearest(self, query: np.ndarray, wanted: int) -> list[int]:
        """Row ids of the `wanted` nearest by Hamming distance, ties to the older row."""
        import numpy as np

        n = self.count
        if n == 0 or wanted <= 0:
            return []
        scratch = np.empty(n, dtype=np.uint64)
        distance = np.zeros(n, dtype=np.uint16)
        for word, bits in zip(self.words, query, strict=True):
            distance += np.bitwise_count(np.bitwise_xor(word[:n], bits, out=scratch))
        within = np.arange(n) if wanted >= n else np.flatnonzero(distance <= np.partition(distance, wanted - 1)[wanted - 1])
        key = (distance[within].astype(np.int64) << _ROW_ID_BITS) | self.ids[within]
        return self.ids[within[np.argsort(key)[:wanted]]].tolist()


class SignIndex:
    """Kept on a connection (store/connect.py) for the vector table `table` of `dim` dimensions, a
    multiple of 64 (every model offered: 384, 512, 768, 1024)."""

    def __init__(self, table: str, dim: int) -> None:
        self.table = table
        self.words = dim // 64
        self._seq: int | None = None
        self._token: int | None = None
        self._projects: dict[str, _ProjectSigns] = {}

    def nearest(self, conn: Any, project: str, query: np.ndarray, wanted: int) -> list[int]:
        """The `wanted` nearest row ids of `project` to the float vector `query` (its signs)."""
        import numpy as np

        try:
            # Once a read transaction: its snapshot holds still (a recall searches each project).
            in_snapshot(conn, f"signs followed: {self.table}", lambda: self._follow(conn))
            signs = self._projects.get(project)
            if signs is None:
                signs = self._projects[project] = _ProjectSigns(*project_signs(conn, self.table, project, self.words))
        except CopyUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - the driver's OperationalError, whichever driver
            raise CopyUnavailable(str(exc)) from exc
        query_words = np.packbits(np.asarray(query) > 0, bitorder="little").view(np.uint64)
        return signs.nearest(query_words, wanted)

    def _follow(self, conn: Any) -> None:
        if self._seq is not None:
            tail, changed = changed_since(conn, self.table, self._seq, REFETCH_LIMIT)
            if tail and tail[0][0] == self._seq and tail[0][2] == self._token and changed is not None:
                self._apply(changed)
                self._seq, self._token = tail[-1][0], tail[-1][2]
                return
        # First use, or the log no longer runs on from what this copy saw: start over. The log's
        # head is read before the signs, so a write between the two is applied again, not lost.
        head = conn.execute(f"SELECT seq, token FROM {LOG} ORDER BY seq DESC LIMIT 1").fetchone()
        self._seq, self._token = head if head else (None, None)
        self._projects.clear()

    def _apply(self, changed: dict[int, tuple[str, bytes] | None]) -> None:
        import numpy as np

        for row_id, found in changed.items():
            for project, signs in self._projects.items():
                if found is not None and project == found[0]:
                    signs.put(row_id, np.frombuffer(found[1], dtype=np.uint64))
                else:
                    signs.remove(row_id)


@per_dialect
def changed_since(conn: Any, table: str, seq: int, limit: int
                  ) -> tuple[list[tuple[int, int, int]], dict[int, tuple[str, bytes] | None] | None]:
    """The log's rows (seq, row id, token) from `seq` on, and each row id changed after the first
    of them with its (project, packed signs: dimension i is bit i % 8 of byte i // 8), or None if
    it is gone; None for them all when more than `limit` changed."""
    tail = conn.execute(f"SELECT seq, row_id, token FROM {LOG} WHERE seq >= ? ORDER BY seq", (seq,)).fetchall()
    changed = list(dict.fromkeys(row_id for _, row_id, _ in tail[1:]))
    if len(changed) > limit:
        return tail, None
    return tail, {row_id: conn.execute(f"SELECT project, bits FROM {table} WHERE row_id = ?", (row_id,)).fetchone()
                  for row_id in changed}


@per_dialect
def project_signs(conn: Any, table: str, project: str, words: int) -> tuple[np.ndarray, np.ndarray]:
    """(row ids, signs: one row a row id, `words` 64-bit words each) of every live row of one
    partition, from vec0's chunk tables (each chunk's validity bitmap, row ids and packed signs, up
    to 1,024 rows a chunk)."""
    import numpy as np

    chunks = conn.execute(
        f"SELECT c.validity, c.rowids, v.vectors FROM {table}_chunks c "
        f"JOIN {table}_vector_chunks00 v ON v.rowid = c.chunk_id WHERE c.partition00 = ? "
        "ORDER BY c.chunk_id", (project,)).fetchall()
    ids: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    signs: list[np.ndarray] = [np.zeros((0, words), dtype=np.uint64)]
    for validity, rowids, vectors in chunks:
        slots = np.frombuffer(rowids, dtype=np.int64)
        if len(validity) * 8 != slots.size or len(vectors) != slots.size * words * 8:
            raise CopyUnavailable("a chunk's sizes do not agree")
        live = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little").astype(bool)
        ids.append(slots[live])
        signs.append(np.frombuffer(vectors, dtype=np.uint64).reshape(slots.size, words)[live])
    return np.concatenate(ids), np.concatenate(signs)

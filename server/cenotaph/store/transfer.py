"""SQL for copying a whole store into another (`cenotaph migrate-store`): every table that holds
records, row by row with its own keys, so the copy is the same store (ids, versions, the event
chain) and not a re-import. The derived indexes (full text, substrings) fill themselves from the
rows on the target; vectors go through `store/vectors.py`, whose layout is the store's own."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cenotaph.store.dialect import per_dialect

BATCH = 1000


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    key: tuple[str, ...]
    # An append-only table (the event log, its scrub list) is only ever extended on the target:
    # its rows never change, and its triggers refuse an UPDATE or DELETE.
    append_only: bool = False


# Every table that holds records, parents before children (the foreign keys). A table a migration
# adds must be listed here or in DERIVED: tests/memory/test_migrate_store.py fails otherwise.
TABLES: tuple[Table, ...] = (
    Table("meta", ("key",)),
    Table("memories", ("id",)),
    Table("memory_entities", ("memory_row", "value")),
    Table("transitions", ("id",)),
    Table("tombstones", ("memory_id",)),
    Table("approaches", ("id",)),
    Table("approach_aliases", ("approach_id", "alias")),
    Table("suppressions", ("id",)),
    Table("contradictions", ("id",)),
    Table("dismissals", ("hash_low", "hash_high")),
    Table("proposals", ("id",)),
    Table("recall_log", ("id",)),
    Table("events", ("seq",), append_only=True),
    Table("event_scrubs", ("seq",), append_only=True),
    Table("mining_cursors", ("project", "source", "key")),
    Table("candidate_dismissals", ("project", "ecosystem", "name")),
    Table("document_chunks", ("memory_id",)),
    Table("feeds", ("id",)),
    Table("feed_entries", ("memory_id",)),
    Table("blessings", ("memory_id",)),
    Table("anchors", ("memory_id",)),
    Table("summary_sources", ("summary_id", "source_id")),
    Table("memory_concepts", ("memory_row", "concept")),
    Table("concept_pairs", ("memory_row", "low", "high")),
    Table("concept_aliases", ("alias",)),
    Table("concept_removals", ("concept",)),
    Table("concept_dismissals", ("low", "high")),
)
# Not copied as rows: the schema's own record (each side migrates itself with its own numbered
# migrations), what the target's triggers fill from the rows (SQLite's full-text and substring
# indexes, PostgreSQL's `event_head`, the highest event number, and `fts_totals`, its full-text
# index's row and token counts, and both stores' `concept_counts`), and the vectors (copied apart,
# with SQLite's `vector_log` of their writes).
SCHEMA_TABLE = "schema_migrations"
DERIVED = frozenset({"memory_fts", "memory_substrings", "memory_vectors", "event_head", "fts_totals", "concept_counts",
                     "vector_log"})


@per_dialect
def columns(conn: Any, table: str) -> list[str]:
    """The columns a copy writes (not those the database computes from the others)."""
    cursor = conn.execute(f"SELECT * FROM {table} LIMIT 0")
    return [d[0] for d in cursor.description]


@per_dialect
def snapshot(conn: Any) -> None:
    """Make the read transaction just begun on `conn` one snapshot (SQLite's reads already are)."""


@per_dialect
def after_copy(conn: Any) -> None:
    """Whatever the database must learn after rows were written with their own keys."""


def count(conn: Any, table: str) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def rows(conn: Any, table: str, names: list[str]) -> Iterator[list[tuple]]:
    """Every row of `table` (the columns `names`), in batches."""
    cursor = conn.execute(f"SELECT {', '.join(names)} FROM {table}")
    while batch := cursor.fetchmany(BATCH):
        yield [tuple(r) for r in batch]


def digest(row: tuple) -> bytes:
    """A short fingerprint of a row's values: what the target holds is compared by it, so a rerun
    keeps only keys and fingerprints in memory, not a second copy of the store."""
    return hashlib.blake2b(repr(row).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def key_of(table: Table, names: list[str]):
    """A function from a row (the columns `names`) to its key."""
    where = [names.index(k) for k in table.key]
    return lambda row: tuple(row[i] for i in where)


def fingerprints(conn: Any, table: Table, names: list[str]) -> dict[tuple, bytes]:
    """Key → fingerprint of every row the target holds in `table`."""
    key = key_of(table, names)
    return {key(row): digest(row) for batch in rows(conn, table.name, names) for row in batch}


@per_dialect
def insert(conn: Any, table: str, names: list[str], values: list[tuple]) -> None:
    marks = ", ".join("?" for _ in names)
    conn.executemany(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", values)


def update(conn: Any, table: Table, names: list[str], values: list[tuple]) -> None:
    """Rewrite rows in place (each value tuple: `names`' values, then the key's)."""
    settable = ", ".join(f"{n} = ?" for n in names)
    where = " AND ".join(f"{k} = ?" for k in table.key)
    conn.executemany(f"UPDATE {table.name} SET {settable} WHERE {where}", values)


def delete(conn: Any, table: Table, keys: list[tuple]) -> None:
    where = " AND ".join(f"{k} = ?" for k in table.key)
    conn.executemany(f"DELETE FROM {table.name} WHERE {where}", keys)


def event_hashes(conn: Any) -> Iterator[tuple[int, str]]:
    """(seq, hash) of the event log in order: whether one log is the start of another."""
    cursor = conn.execute("SELECT seq, hash FROM events ORDER BY seq")
    while batch := cursor.fetchmany(BATCH * 5):
        yield from ((seq, digest_) for seq, digest_ in batch)


def schema_version(conn: Any) -> int:
    return conn.execute(f"SELECT COALESCE(MAX(version), 0) FROM {SCHEMA_TABLE}").fetchone()[0]

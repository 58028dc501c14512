"""`migrate-store`'s statements that differ on PostgreSQL (store/transfer.py)."""

from __future__ import annotations

from typing import Any

from cenotaph.store.postgres.connection import GENERATED_KEYS


# Columns the database computes from a row's others, by trigger (migration 19).
_COMPUTED = {"memories": ("fts", "fts_tokens")}


def columns(conn: Any, table: str) -> list[str]:
    """The table's columns but those the target computes (generated, or kept by a trigger)."""
    rows = conn.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                        "AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,))
    return [name for (name,) in rows if name not in _COMPUTED.get(table, ())]


def snapshot(conn: Any) -> None:
    # Must be the transaction's first statement: every table is then read as of the same moment.
    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")


def insert(conn: Any, table: str, names: list[str], values: list[tuple]) -> None:
    """A batch of rows in one COPY: a statement's triggers (the postings, the words' and pairs'
    counts, the full-text totals) run once for the batch, not once a row. Row by row, in the copy's
    one transaction, each common word's counter and the totals' row took a new version with every
    memory, and each update walked the versions before it: 10,000 memories took 313 s."""
    if values:
        conn.copy_rows(table, names, values)


def after_copy(conn: Any) -> None:
    """Rows came with their own keys: each identity column's sequence moves past the largest, so
    the next row the store adds takes a new one. (The event log numbers itself from its head.)"""
    for table, column in GENERATED_KEYS.items():
        if table == "events":
            continue
        conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                     f"GREATEST((SELECT MAX({column}) FROM {table}), 1), (SELECT MAX({column}) FROM {table}) IS NOT NULL)")

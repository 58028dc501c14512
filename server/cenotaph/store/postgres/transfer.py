"""`migrate-store`'s statements that differ on PostgreSQL (store/transfer.py)."""

from __future__ import annotations

from typing import Any

from cenotaph.store.postgres.connection import GENERATED_KEYS


def columns(conn: Any, table: str) -> list[str]:
    """The table's columns but the generated ones (`memories.fts`): the target computes those."""
    rows = conn.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                        "AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position", (table,))
    return [name for (name,) in rows]


def snapshot(conn: Any) -> None:
    # Must be the transaction's first statement: every table is then read as of the same moment.
    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")


def after_copy(conn: Any) -> None:
    """Rows came with their own keys: each identity column's sequence moves past the largest, so
    the next row the store adds takes a new one. (The event log numbers itself from its head.)"""
    for table, column in GENERATED_KEYS.items():
        if table == "events":
            continue
        conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                     f"GREATEST((SELECT MAX({column}) FROM {table}), 1), (SELECT MAX({column}) FROM {table}) IS NOT NULL)")

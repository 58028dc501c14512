"""Checks of the derived indexes on PostgreSQL. The full-text vector is computed by a trigger
whenever a row's text is written and the trigram index is a plain index: the server keeps both in
step with the rows, so there is nothing to find out of step or to rewrite; the server's own checks
(amcheck, `pg_dump`) cover its files."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def integrity_problems(conn: Any) -> list[str]:
    return []


def substrings_in_step(conn: Any) -> bool:
    return True


def substrings_rebuild(conn: Any) -> None:
    conn.execute("REINDEX INDEX memories_substrings")


def fts_out_of_step(conn: Any) -> tuple[list[int], list[int], list[int]]:
    return [], [], []


def fts_rewrite(conn: Any, row_ids: Iterable[int]) -> None:
    """Nothing to rewrite: a row's full-text vector is computed from the row itself."""

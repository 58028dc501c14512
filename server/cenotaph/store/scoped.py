"""SQL shared by tables whose rows belong to a project (or to every project, as `""`) and
carry a status."""

from __future__ import annotations

from typing import Any


def rows_in_scope(conn: Any, table: str, columns: str, *, project: str | None, status: str | None) -> list[tuple]:
    """Rows of `table` visible from `project` (its own and the global ones; all when None),
    with `status` if given, oldest first."""
    clauses, params = ["TRUE"], []
    if project is not None:
        clauses.append("project IN (?, '')")
        params.append(project)
    if status is not None:
        clauses.append("status = ?")
        params.append(status)
    return conn.execute(f"SELECT {columns} FROM {table} WHERE {' AND '.join(clauses)} ORDER BY id", params).fetchall()

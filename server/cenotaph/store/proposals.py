"""SQL for proposals: agent verbs a person accepts or rejects."""

from __future__ import annotations

import json
from typing import Any

from cenotaph.store import scoped
from cenotaph.store.records import ProposalRow

_COLUMNS = ("id, project, action, target, arguments, reason, actor, status, created_at, decided_at, decided_by, "
            "decision_reason")


def _row(values: tuple) -> ProposalRow:
    row = ProposalRow(*values)
    row.arguments = json.loads(row.arguments)
    return row


def add(conn: Any, *, project: str, action: str, target: str, arguments: dict, reason: str, actor: str,
        at: str) -> int:
    cur = conn.execute(
        "INSERT INTO proposals (project, action, target, arguments, reason, actor, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (project, action, target, json.dumps(arguments, ensure_ascii=False, sort_keys=True), reason, actor, at),
    )
    return cur.lastrowid


def find_pending(conn: Any, *, action: str, target: str, arguments: dict) -> ProposalRow | None:
    found = conn.execute(
        f"SELECT {_COLUMNS} FROM proposals WHERE status = 'pending' AND action = ? AND target = ? AND arguments = ?",
        (action, target, json.dumps(arguments, ensure_ascii=False, sort_keys=True)),
    ).fetchone()
    return _row(found) if found else None


def get(conn: Any, proposal_id: int) -> ProposalRow | None:
    found = conn.execute(f"SELECT {_COLUMNS} FROM proposals WHERE id = ?", (proposal_id,)).fetchone()
    return _row(found) if found else None


def decide(conn: Any, proposal_id: int, *, status: str, actor: str, at: str, reason: str | None) -> None:
    conn.execute(
        "UPDATE proposals SET status = ?, decided_at = ?, decided_by = ?, decision_reason = ? WHERE id = ?",
        (status, at, actor, reason, proposal_id),
    )


def reopen(conn: Any, proposal_id: int) -> None:
    """A decided proposal pending again, as it was before the decision."""
    conn.execute("UPDATE proposals SET status = 'pending', decided_at = NULL, decided_by = NULL, "
                 "decision_reason = NULL WHERE id = ?", (proposal_id,))


def listing(conn: Any, *, project: str | None, status: str | None) -> list[ProposalRow]:
    rows = scoped.rows_in_scope(conn, "proposals", _COLUMNS, project=project, status=status)
    return [_row(r) for r in rows]


def all_rows(conn: Any) -> list[ProposalRow]:
    return [_row(r) for r in conn.execute(f"SELECT {_COLUMNS} FROM proposals ORDER BY id")]


def pending_targets(conn: Any, action: str, project: str) -> set[str]:
    rows = conn.execute("SELECT target FROM proposals WHERE status = 'pending' AND action = ? AND project = ?",
                        (action, project))
    return {target for (target,) in rows}

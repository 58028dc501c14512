"""What the reliability tests share: the run's size, its figures, and the store checks. (Not in
conftest.py: pytest imports that under another module name, and the figures must be one dict.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.service import Memory

FULL = os.environ.get("CENOTAPH_RELIABILITY", "").lower() == "full"
PROJECT = "acme/app"

FIGURES: dict[str, dict[str, Any]] = {}


def scale(default: int, full: int) -> int:
    return full if FULL else default


def record(prop: str, **figures: Any) -> None:
    """Add figures for a property to the run's summary."""
    FIGURES.setdefault(prop, {}).update(figures)


def count(prop: str, figure: str, by: int = 1) -> None:
    """Add to a running figure (e.g. one more hypothesis example tried)."""
    figures = FIGURES.setdefault(prop, {})
    figures[figure] = figures.get(figure, 0) + by


def open_memory_on(db_path: Path, embedder, analyzer) -> Memory:
    """The domain on a store (a file, or a PostgreSQL URL), with the session's models and the real clock."""
    return Memory(Context(store=open_store(db_path), embedder=embedder, analyzer=analyzer))


def assert_in_step(memory: Memory) -> None:
    """The file is sound, its full-text rows and vectors agree with the memories, the chain verifies."""
    check = memory.check_store()
    assert check.integrity == [], check.integrity
    assert (check.fts_missing, check.fts_orphans, check.fts_stale) == ([], [], []), check
    assert check.vectors_checked and check.vector_model == memory.ctx.embedder.model_name, check
    assert (check.vectors_missing, check.vectors_orphans) == ([], []), check
    assert check.audit.ok, check.audit
    assert check.ok

"""The one place that wires the store, the models and the domain together."""

from __future__ import annotations

from pathlib import Path

from cenotaph import config
from cenotaph.memory.context import Context
from cenotaph.memory.service import Memory
from cenotaph.nlp.analysis import Analyzer
from cenotaph.nlp.embedder import Embedder
from cenotaph.paths import default_db_path
from cenotaph.store.db import Store


def open_memory(db: Path | str | None = None, *, settings: config.Settings | None = None) -> Memory:
    settings = settings or config.load()
    store = Store(db if db is not None else default_db_path())
    ctx = Context(store=store, embedder=Embedder(settings.model), analyzer=Analyzer())
    return Memory(ctx, settings)

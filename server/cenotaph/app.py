"""The one place that wires the store, the models and the domain together."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cenotaph.paths import default_db_path
from cenotaph.store.db import Store

if TYPE_CHECKING:
    from cenotaph import config
    from cenotaph.memory.service import Memory


def open_store(db: Path | str | None = None) -> Store:
    return Store(db if db is not None else default_db_path())


def open_memory(db: Path | str | None = None, *, settings: config.Settings | None = None) -> Memory:
    return memory_for(open_store(db), settings=settings)


def memory_for(store: Store, *, settings: config.Settings | None = None) -> Memory:
    # The domain stack (numpy and the model's settings among it) is imported here, not with this
    # module: the language server opens its store first and answers `initialize` before this.
    from cenotaph import config
    from cenotaph.memory.context import Context
    from cenotaph.memory.service import Memory
    from cenotaph.nlp.analysis import Analyzer
    from cenotaph.nlp.embedder import Embedder

    settings = settings or config.load()
    ctx = Context(store=store, embedder=Embedder(settings.model, threads=settings.model_threads), analyzer=Analyzer())
    return Memory(ctx, settings)

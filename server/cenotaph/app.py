"""The one place that wires the store, the models and the domain together."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cenotaph.paths import default_db_path

if TYPE_CHECKING:
    from cenotaph import config
    from cenotaph.memory.graveyard.approaches import Graveyard
    from cenotaph.memory.graveyard.enforce import Enforcer
    from cenotaph.memory.service import Memory
    from cenotaph.store.db import Store


def store_location(db: Path | str | None = None) -> Path | str:
    """`db` (a file, or a `postgresql://` URL), else where the environment or the configuration
    says (`CENOTAPH_STORE`, `store = …` in config.toml), else the default file."""
    if db is not None:
        return db
    from cenotaph import config

    return config.store_location() or default_db_path()


def open_store(db: Path | str | None = None) -> Store:
    """The store `store_location(db)` names: a PostgreSQL URL, else a SQLite file (only the
    default one's folder is created; any other URL scheme is refused)."""
    from cenotaph.store.connect import check_address
    from cenotaph.store.db import Store  # here, not with this module: an agent's hook may never open the store
    from cenotaph.store.dialect import is_postgres_url

    location = store_location(db)
    check_address(location)
    if is_postgres_url(location):
        # Imported only here: psycopg stays out of a SQLite user's start-up.
        from cenotaph.store.postgres.db import PostgresStore

        return PostgresStore(str(location))  # type: ignore[return-value] - the same interface
    return Store(location, create_folder=Path(location) == default_db_path())


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


def open_enforcer(start: Path, *, db: Path | str | None = None, project: str | None = None) -> Enforcer:
    """The graveyard alone, for the project at `start` (its repository's `.cenotaph/` folder
    taking part): what an agent's hook or `cenotaph lint` asks, without the domain stack behind
    `Memory`. Its verdicts come from the graveyard's file beside a SQLite store while that file is
    current (store/graveyard_file.py): the store then opens only if asked for more than verdicts.
    Otherwise they come from the store, which rewrites the file for the next hook."""
    from cenotaph import project as project_resolution
    from cenotaph.memory.graveyard.enforce import Enforcer
    from cenotaph.store.dialect import is_postgres_url

    resolved = project_resolution.resolve(project, start)
    shared = None
    root = project_resolution.repository_root(start)
    # memory/team/folder.py's FOLDER: the folder module loads only for a repository that has one.
    if root is not None and (root / ".cenotaph").is_dir():
        from cenotaph.memory.team.folder import SharedFolders

        shared = SharedFolders()
        shared.attach([(root, resolved)])
    location = store_location(db)
    index = None
    if not is_postgres_url(location):  # a team's database has no file beside it: it answers itself
        from cenotaph.memory.graveyard.verdicts import from_file

        index = from_file(Path(location), shared)

    def graveyard() -> Graveyard:
        from cenotaph.memory.context import Context
        from cenotaph.memory.graveyard.approaches import Graveyard
        from cenotaph.nlp.analysis import Analyzer
        from cenotaph.nlp.embedder import Embedder

        store = open_store(db)
        if index is None and not is_postgres_url(location):
            store.write_graveyard_file()
        # The embedder and the analyzer are built but never loaded.
        return Graveyard(Context(store=store, embedder=Embedder(), analyzer=Analyzer()), shared)

    return Enforcer(graveyard, resolved, index=index) if index is not None else Enforcer(graveyard(), resolved)

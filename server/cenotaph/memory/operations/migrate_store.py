"""Moving a whole store to another (`cenotaph migrate-store --to …`): SQLite to PostgreSQL for a
team, and back. Unlike `restore`, which merges a backup into a store with a life of its own, this
makes the target the same store: every row with its own ids, every version, the event log with its
hashes (verified again on the target), the vectors as they are (not re-embedded). The source is
read in one snapshot and only read; the target is written in one transaction, so a failed copy
leaves it as it was.

Running it again brings a previous copy up to date (new rows inserted, changed ones rewritten,
gone ones removed; nothing copied twice); a target that holds anything else is refused. A previous
copy is recognised by its event log: the target's must be the start of the source's, since every
change to a store appends an event."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.core import audit
from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.models import MigrateStoreReport, TableCopy
from cenotaph.store import backup as files
from cenotaph.store import transfer, vectors
from cenotaph.store.db import Store

Progress = Callable[[int, int], None]
_MODEL = "embedding_model"


def target_path(to: str) -> str:
    """The `--to` a caller gave, checked: a URL passes as it is (its store checks it on opening); a
    path must be new, empty, or a Cenotaph store, so that no other database gets Cenotaph's tables."""
    to = validate.text(to, "to", max_length=4096).strip()
    if "://" in to:
        return to
    path = Path(to).expanduser()
    if path.is_dir():
        raise InvalidInput(f"{path} is a directory; give a file for the SQLite store", field="to")
    if path.exists() and path.stat().st_size and not files.is_sqlite(path):
        raise InvalidInput(f"{path} is not an SQLite database", field="to")
    if path.exists() and path.stat().st_size:
        conn = files.read_only(path)
        try:
            held = files.tables(conn)
        finally:
            conn.close()
        if held and transfer.SCHEMA_TABLE not in held:
            raise InvalidInput(f"{path} is an SQLite database of something else, not a Cenotaph store", field="to")
    return str(path)


def _same_store(a: Store, b: Store) -> bool:
    if isinstance(a.path, Path) and isinstance(b.path, Path):
        return a.path.resolve() == b.path.resolve()
    return str(a.path) == str(b.path)


def migrate_store(ctx: Context, target: Store, progress: Progress | None = None) -> MigrateStoreReport:
    if _same_store(ctx.store, target):
        raise Conflict("the target is the store in use; give another one", field="to")
    with ctx.store.read() as src, target.write() as dst:
        transfer.snapshot(src)
        copy = _Copy(src, dst, progress)
        copy.refuse_foreign()
        copy.run()
        tables = copy.check_counts()
        # The chain verified where it now lives, before the copy commits.
        target_ctx = Context(store=target, embedder=ctx.embedder, analyzer=ctx.analyzer)
        chain = audit.verify(target_ctx)
        if not chain.ok:
            raise Conflict(f"the copied event log does not verify on the target: {chain.problem}", field="to")
        model = files.meta(src, _MODEL)
        report = MigrateStoreReport(target=str(target.path), schema_version=transfer.schema_version(dst),
                                    tables=tables, events_verified=chain.checked, embedding_model=model,
                                    model_matches=model in (None, ctx.embedder.model_name))
    target.settle()
    return report


class _Copy:
    def __init__(self, src: Any, dst: Any, progress: Progress | None) -> None:
        self.src, self.dst, self.progress = src, dst, progress
        self.copies: dict[str, TableCopy] = {}
        self.done = 0
        self.total = sum(transfer.count(src, t.name) for t in transfer.TABLES) + vectors.count(src)

    def _advance(self, rows: int) -> None:
        self.done += rows
        if self.progress:
            self.progress(self.done, self.total)

    def refuse_foreign(self) -> None:
        """A target with anything in it must be a previous copy of this store: its event log the
        start of this one's."""
        held = any(transfer.count(self.dst, t.name) for t in transfer.TABLES if t.name != "meta")
        if not held and not vectors.count(self.dst):
            return
        ours = transfer.event_hashes(self.src)
        copied = 0
        for seq, digest in transfer.event_hashes(self.dst):
            if next(ours, None) != (seq, digest):
                raise Conflict(f"the target holds another store (its event #{seq} is not this store's); "
                               "give an empty target", field="to")
            copied += 1
        if not copied:
            raise Conflict("the target is not empty and has no events: it is not a copy of this store", field="to")

    def run(self) -> None:
        stale_vectors = (files.meta(self.dst, _MODEL) != files.meta(self.src, _MODEL)
                         or vectors.dimension(self.dst) != vectors.dimension(self.src))
        for table in transfer.TABLES:
            self._table(table)
        self._vectors(rebuild=stale_vectors)
        transfer.after_copy(self.dst)

    def _table(self, table: transfer.Table) -> None:
        names = transfer.columns(self.src, table.name)
        missing = set(names) - set(transfer.columns(self.dst, table.name))
        if missing:  # each side migrated itself on opening: the same program knows the same columns
            raise Conflict(f"the target's {table.name} lacks {', '.join(sorted(missing))}: upgrade cenotaph there",
                           field="to")
        key = transfer.key_of(table, names)
        theirs = transfer.fingerprints(self.dst, table, names)
        copy = self.copies[table.name] = TableCopy(table.name, 0, 0)
        for batch in transfer.rows(self.src, table.name, names):
            fresh, changed = [], []
            for row in batch:
                held = theirs.pop(key(row), None)
                if held is None:
                    fresh.append(row)
                elif held != transfer.digest(row):
                    if table.append_only:
                        raise Conflict(f"the target's {table.name} differ from this store's", field="to")
                    changed.append((*row, *key(row)))
            transfer.insert(self.dst, table.name, names, fresh)
            transfer.update(self.dst, table, names, changed)
            copy.inserted += len(fresh)
            copy.updated += len(changed)
            self._advance(len(batch))
        if theirs and table.append_only:
            raise Conflict(f"the target's {table.name} hold rows this store does not", field="to")
        transfer.delete(self.dst, table, list(theirs))
        copy.deleted = len(theirs)

    def _vectors(self, *, rebuild: bool) -> None:
        copy = self.copies[vectors.TABLE] = TableCopy(vectors.TABLE, 0, 0)
        dim = vectors.dimension(self.src)
        if rebuild and vectors.dimension(self.dst) is not None:  # the source was re-embedded since
            copy.deleted = vectors.count(self.dst)
            vectors.drop(self.dst)
        if dim is None:
            return
        if vectors.dimension(self.dst) is None:
            vectors.create(self.dst, dim)
        theirs = vectors.row_ids(self.dst)
        for batch in vectors.all_rows(self.src):
            fresh = [row for row in batch if row[0] not in theirs]
            theirs.difference_update(row_id for row_id, _, _ in batch)
            vectors.insert_batch(self.dst, fresh)
            copy.inserted += len(fresh)
            self._advance(len(batch))
        for row_id in theirs:
            vectors.delete(self.dst, row_id)
        copy.deleted += len(theirs)

    def check_counts(self) -> list[TableCopy]:
        """Each table counted on both sides: the copy is refused (rolled back) unless they agree."""
        for table in transfer.TABLES:
            copy = self.copies[table.name]
            copy.source, copy.target = transfer.count(self.src, table.name), transfer.count(self.dst, table.name)
        copy = self.copies[vectors.TABLE]
        copy.source, copy.target = vectors.count(self.src), vectors.count(self.dst)
        wrong = [c for c in self.copies.values() if c.source != c.target]
        if wrong:
            raise Conflict("the copy does not hold what the store in use holds: "
                           + ", ".join(f"{c.table} {c.source} here, {c.target} there" for c in wrong), field="to")
        return list(self.copies.values())

"""Backup (SQLite's online backup API) and restore. Restore merges: per memory, newer versions
and later transitions win; it never brings back a forgotten memory (tombstones are final, from
either side) nor a lifted suppression; human verdicts (aliases, suppressions, dismissals, rejected
candidates, blessings, concept verdicts) are united. A file that is not a Cenotaph store, or one from a newer schema,
is refused before
anything changes."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from cenotaph.memory import validate
from cenotaph.memory.context import Context, content_hash
from cenotaph.memory.core import pruning
from cenotaph.memory.core.concepts import derive
from cenotaph.memory.errors import Conflict, InvalidInput, NotFound
from cenotaph.memory.models import Actor, BackupReport, RestoreReport
from cenotaph.store import (
    approaches,
    blessings,
    concepts,
    contradictions,
    events,
    health,
    memories,
    migrations,
    mining,
    summaries,
    suppressions,
    transitions,
    vectors,
)
from cenotaph.store import backup as files
from cenotaph.store.connect import binding, open_connection
from cenotaph.store.records import MemoryRow

_CENOTAPH_TABLES = {"schema_migrations", "meta", "memories", "events", "tombstones", "suppressions"}
_MAX_PATH = 4096


def _path(path: str | Path) -> Path:
    """A file name a caller gave: text the file system can take (no NUL, no lone surrogate)."""
    return Path(validate.text(str(path), "path", max_length=_MAX_PATH)).expanduser()


def backup(ctx: Context, actor: Actor, path: str | Path) -> BackupReport:
    target = _path(path)
    store_path = ctx.store.path
    own_tools = getattr(ctx.store, "backed_up_by", None)
    if own_tools:  # a database server's store: its own tools copy it consistently, not a file copy
        raise Conflict(f"this store is backed up by its server's own tools: {own_tools}; "
                       "`cenotaph restore` merges a SQLite backup into it", field="path")
    if not isinstance(store_path, Path):
        raise Conflict("an in-memory store cannot be backed up", field="path")
    try:
        if target.exists():
            raise Conflict(f"{target} already exists; choose a new file", field="path")
        if not target.parent.is_dir():
            raise NotFound(f"no directory {target.parent}", field="path")
        files.copy(store_path, target)
    except (OSError, files.NotADatabase) as exc:  # not writable there, a name too long, …
        raise InvalidInput(f"cannot write a backup to {target}: {exc}", field="path") from None
    conn = files.read_only(target)  # open_connection would turn the copy into a WAL file
    try:
        head = events.last_seq(conn)
        schema = migrations.schema_version(conn)
    finally:
        conn.close()
    with ctx.store.write() as tx:
        ctx.event(tx, actor=actor.name, action="backup", target="store", project="",
                  after={"path": str(target), "events": head, "schema": schema})
    return BackupReport(path=str(target), schema_version=schema, events=head, bytes=target.stat().st_size)


def _open_backup(path: Path, scratch: Path) -> Any:
    """A migrated private copy of the backup at `path`, or a clear refusal."""
    if not path.is_file():
        raise NotFound(f"no file {path}", field="path")
    if not files.is_sqlite(path):
        raise InvalidInput(f"{path} is not a Cenotaph backup (not an SQLite database)", field="path")
    copy = scratch / "restore.db"
    try:
        files.copy(path, copy, readonly_source=True)
    except files.NotADatabase as exc:
        raise InvalidInput(f"{path} is not a Cenotaph backup ({exc})", field="path") from None
    conn = open_connection(copy)
    if not _CENOTAPH_TABLES <= files.tables(conn):
        conn.close()
        raise InvalidInput(f"{path} is not a Cenotaph backup (an SQLite database without Cenotaph's tables)",
                           field="path")
    version = migrations.schema_version(conn)
    if version > len(migrations.MIGRATIONS):
        conn.close()
        raise Conflict(f"{path} was written by a newer Cenotaph (schema {version}; this one knows up to "
                       f"{len(migrations.MIGRATIONS)}): upgrade cenotaph to restore it", field="path")
    problems = health.integrity_problems(conn)
    if problems:  # e.g. truncated: readable pages, missing ones
        conn.close()
        raise InvalidInput(f"{path} is damaged ({'; '.join(problems[:3])})", field="path")
    migrations.migrate(conn)
    return conn


def restore(ctx: Context, actor: Actor, path: str | Path) -> RestoreReport:
    source = _path(path)
    report = RestoreReport(path=str(source))
    with tempfile.TemporaryDirectory(prefix="cenotaph-restore-") as scratch:
        try:
            src = _open_backup(source, Path(scratch))
        except (OSError, binding().module.DatabaseError) as exc:
            raise InvalidInput(f"{source} is not a Cenotaph backup that can be read ({exc})", field="path") from None
        try:
            ctx.ensure_vectors()
            with ctx.store.write() as tx:
                merge = _Merge(ctx, actor, src, tx, report)
                merge.run()
                after = {k: v for k, v in dataclasses.asdict(report).items() if k != "path"}
                ctx.event(tx, actor=actor.name, action="restore", target="store", project="",
                          after={**after, "memory_ids": merge.touched}, reason=f"restored from {source}")
        except binding().module.DatabaseError as exc:  # a page the checks above could not see (rolled back)
            raise InvalidInput(f"{source} is damaged: {exc}", field="path") from None
        finally:
            src.close()
    return report


class _Merge:
    def __init__(self, ctx: Context, actor: Actor, src: Any, tx: Any, report: RestoreReport) -> None:
        self.ctx, self.actor, self.src, self.tx, self.report = ctx, actor, src, tx, report
        self.ids: dict[int, int] = {}  # backup memory id → this store's
        self.touched: list[int] = []  # memories added, updated or forgotten here
        self.copy_vectors = (ctx.vectors_current() and vectors.dimension(src) == vectors.dimension(tx)
                             and files.meta(src, "embedding_model") == ctx.embedder.model_name)

    def run(self) -> None:
        forgotten = memories.forgotten_hashes(self.tx)
        backup_tombstones = {t.memory_id: t for t in transitions.tombstones(self.src)}
        for memory_id in memories.memory_ids(self.src):
            self._memory(memory_id, forgotten, backup_tombstones)
        for memory_id in self.touched:
            row = memories.current(self.tx, memory_id)
            assert row is not None
            self._event(f"memory:{memory_id}", row.project, {"version": row.version, "state": row.state,
                                                             "trust": row.trust, "content_hash": row.content_hash})
        self._contradictions()
        self._summary_links()
        for low, high, reason, actor, at in contradictions.dismissals(self.src):
            if not contradictions.is_dismissed(self.tx, low, high):
                contradictions.dismiss_pair(self.tx, low, high, reason=reason, actor=actor, at=at)
                self.report.dismissals += 1
        for row in mining.all_dismissals(self.src):
            self.report.candidate_dismissals += mining.keep_dismissal(self.tx, *row)
        self._approaches()
        self._suppressions()
        self._blessings()
        concepts.unite_verdicts(self.src, self.tx)

    def _event(self, target: str, project: str, after: dict[str, Any]) -> None:
        """One event per restored record: the audit trail, and how other processes (and the
        graveyard's cache) learn of the change."""
        self.ctx.event(self.tx, actor=self.actor.name, action="restore", target=target, project=project, after=after)

    # --- memories --------------------------------------------------------------------------------

    def _memory(self, memory_id: int, forgotten: set[str], backup_tombstones: dict) -> None:
        theirs = memories.versions(self.src, memory_id)
        for version in theirs:  # a forgotten version keeps its hash, not its content
            if version.content and content_hash(version.content) != version.content_hash:
                raise InvalidInput(f"the backup is damaged: memory #{memory_id} v{version.version} does not match "
                                   "its content hash", field="path")
        ours_id = memories.find_lineage(self.tx, theirs[0].content_hash, theirs[0].recorded_at)
        ours = memories.versions(self.tx, ours_id) if ours_id is not None else []
        if ours and ours[-1].state == "deleted" or any(v.content_hash in forgotten for v in theirs):
            self.report.skipped_forgotten += 1
            if ours_id is not None:
                self.ids[memory_id] = ours_id
            return
        if memory_id in backup_tombstones:
            # Forgotten in the backup: forgotten here too, and for good.
            if ours_id is not None:
                self.ids[memory_id] = ours_id
                tomb = backup_tombstones[memory_id]
                pruning.forget(self.ctx, self.actor, ours_id, reason=f"forgotten in the backup: {tomb.reason}")
                self.report.forgotten += 1
                self.touched.append(ours_id)
            else:
                self._insert_lineage(memory_id, theirs)
                t = backup_tombstones[memory_id]
                transitions.add_tombstone(self.tx, memory_id=self.ids[memory_id], content_hash=t.content_hash,
                                          reason=t.reason, actor=t.actor, at=t.at)
                self.touched.append(self.ids[memory_id])
            return
        if ours_id is None:
            self._insert_lineage(memory_id, theirs)
            self.report.memories_added += 1
            self.touched.append(self.ids[memory_id])
            return
        self.ids[memory_id] = ours_id
        changed = False
        if theirs[-1].version > ours[-1].version:
            # The backup holds later versions: close ours where the backup closed it, add the rest.
            closing = next(v for v in theirs if v.version == ours[-1].version)
            memories.set_fields(self.tx, ours[-1].id, superseded_at=closing.superseded_at)
            for version in theirs:
                if version.version > ours[-1].version:
                    self._insert_row(version, ours_id)
            changed = True
        changed |= self._merge_transitions(memory_id, ours_id)
        if changed:
            self.report.memories_updated += 1
            self.touched.append(ours_id)

    def _insert_lineage(self, memory_id: int, versions: list[MemoryRow]) -> None:
        taken = memories.versions(self.tx, memory_id)
        new_id = memory_id if not taken else memories.next_memory_id(self.tx)
        self.ids[memory_id] = new_id
        for version in versions:
            self._insert_row(version, new_id)
        for t in transitions.history(self.src, memory_id):
            transitions.add(self.tx, memory_id=new_id, field=t.field, from_value=t.from_value, to_value=t.to_value,
                            reason=t.reason, actor=t.actor, at=t.at)

    def _insert_row(self, row: MemoryRow, memory_id: int) -> None:
        copy = dataclasses.replace(row, id=0, memory_id=memory_id)
        copy.id = memories.insert(self.tx, copy)
        if row.state == "deleted":
            return
        memories.insert_entities(self.tx, copy.id, memories.entities_of(self.src, row.id))
        # The backup's links, through this store's verdicts (a concept removed here stays removed).
        concepts.link(self.tx, copy.id, *derive(self.tx, concepts.links_of(self.src, row.id)))
        if not self.ctx.vectors_current():
            return
        vector = vectors.get(self.src, row.id) if self.copy_vectors else None
        if vector is None and row.content:
            vector = self.ctx.embed(row.content)
        if vector is not None:
            vectors.insert(self.tx, copy.id, copy.project, vector)

    def _merge_transitions(self, memory_id: int, ours_id: int) -> bool:
        """Add the backup's transitions this store lacks; where the latest of a field came from the
        backup, the memory takes that value."""
        ours = transitions.history(self.tx, ours_id)
        seen = {(t.field, t.from_value, t.to_value, t.at, t.actor) for t in ours}
        added = [t for t in transitions.history(self.src, memory_id)
                 if (t.field, t.from_value, t.to_value, t.at, t.actor) not in seen]
        if not added:
            return False
        for t in added:
            transitions.add(self.tx, memory_id=ours_id, field=t.field, from_value=t.from_value, to_value=t.to_value,
                            reason=t.reason, actor=t.actor, at=t.at)
        current = memories.current(self.tx, ours_id)
        assert current is not None
        for field_name in ("state", "trust"):
            latest = max((t for t in [*ours, *added] if t.field == field_name), key=lambda t: t.at, default=None)
            if latest is not None and any(latest is t for t in added) and latest.to_value != "deleted":
                fields: dict[str, Any] = {field_name: latest.to_value, f"{field_name}_reason": latest.reason}
                if field_name == "state":
                    theirs = memories.current(self.src, memory_id)
                    fields["reinstate_hints"] = theirs.reinstate_hints if theirs else []
                memories.set_fields(self.tx, current.id, **fields)
        return True

    # --- links and verdicts ----------------------------------------------------------------------

    def _contradictions(self) -> None:
        ours = {(c.memory_a, c.memory_b, c.created_at): c for c in contradictions.all_rows(self.tx)}
        for link in contradictions.all_rows(self.src):
            a, b = self.ids.get(link.memory_a), self.ids.get(link.memory_b)
            if a is None or b is None:
                continue
            mine = ours.get((a, b, link.created_at))
            if mine is None:
                link_id = contradictions.insert_row(self.tx, dataclasses.replace(link, memory_a=a, memory_b=b))
            elif mine.status == "open" and link.status != "open":
                link_id = mine.id
                contradictions.decide(self.tx, link_id, status=link.status, resolution=link.resolution,
                                      reason=link.reason or "", actor=link.decided_by or link.actor,
                                      at=link.decided_at or link.created_at)
            else:
                continue
            self.report.contradictions += 1
            self._event(f"contradiction:{link_id}", link.project,
                        {"status": link.status, "resolution": link.resolution})

    def _summary_links(self) -> None:
        """Which summary stands for which superseded memory (compaction), in this store's ids."""
        for summary_id, source_id, *rest in summaries.all_links(self.src):
            ours = self.ids.get(summary_id), self.ids.get(source_id)
            if None not in ours:
                summaries.keep_link(self.tx, (*ours, *rest))

    def _approaches(self) -> None:
        for theirs in approaches.all_rows(self.src):
            mine = approaches.find(self.tx, theirs.project, theirs.name)
            memory_id = self.ids.get(theirs.memory_id) if theirs.memory_id is not None else None
            if mine is None or theirs.updated_at > mine.updated_at:
                approach_id = approaches.put(self.tx, dataclasses.replace(theirs, memory_id=memory_id))
            elif set(theirs.aliases) - set(mine.aliases):
                approaches.add_aliases(self.tx, mine.id, theirs.aliases)
                approach_id = mine.id
            else:
                continue
            self.report.approaches += 1
            self._event(f"approach:{approach_id}", theirs.project, {"name": theirs.name, "status": theirs.status})

    def _blessings(self) -> None:
        """A person's blessing comes back with its memory; the first blessing stands."""
        for theirs in blessings.all_rows(self.src):
            memory_id = self.ids.get(theirs.memory_id)
            current = memories.current(self.tx, memory_id) if memory_id is not None else None
            if current is None or current.state == "deleted":
                continue
            if blessings.add(self.tx, memory_id=memory_id, project=theirs.project, reason=theirs.reason,
                             actor=theirs.actor, at=theirs.at):
                self.report.blessings += 1
                self._event(f"memory:{memory_id}", theirs.project, {"blessed": True})

    def _suppressions(self) -> None:
        """A suppression the backup has and this store does not comes back, unless this store lifted
        one on the same name after it was made; a lift on either side stays lifted."""
        ours = suppressions.all_rows(self.tx)
        for theirs in suppressions.all_rows(self.src):
            same = [s for s in ours if (s.project, s.kind, s.value) == (theirs.project, theirs.kind, theirs.value)]
            twin = next((s for s in same if s.created_at == theirs.created_at), None)
            if twin is not None:
                if twin.lifted_at is None and theirs.lifted_at is not None:
                    suppressions.lift(self.tx, twin.id, reason=theirs.lifted_reason or "", actor=theirs.lifted_by or "",
                                      at=theirs.lifted_at)
                    self.report.suppressions += 1
                    self._event(f"suppression:{twin.value}", twin.project, {"id": twin.id, "kind": twin.kind,
                                                                             "lifted": True})
                continue
            if any(s.lifted_at is not None and s.lifted_at >= theirs.created_at for s in same):
                continue
            if theirs.lifted_at is None and any(s.lifted_at is None for s in same):
                continue
            suppression_id = suppressions.insert_row(self.tx, theirs)
            self.report.suppressions += 1
            self._event(f"suppression:{theirs.value}", theirs.project,
                        {"id": suppression_id, "kind": theirs.kind, "lifted": theirs.lifted_at is not None})

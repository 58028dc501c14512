"""Backup and restore (issue 3): a consistent copy while another process writes; restore merges by
version with the newer winning, never brings back a forgotten memory or a lifted suppression, and
refuses a file that is not a Cenotaph backup (or is from a newer schema) without changing anything."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from cenotaph.memory.context import Context
from cenotaph.memory.core import audit
from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.service import Memory
from cenotaph.store import blessings
from cenotaph.store.connect import open_connection
from cenotaph.store.db import Store

from tests.conftest import HUMAN

P = "github.com/acme/app"
# `backup` copies the SQLite file with SQLite's backup API; a PostgreSQL store refuses it and names
# pg_dump, and restores from a SQLite backup (tests/store/test_postgres.py).
pytestmark = pytest.mark.sqlite_only("file backups of the SQLite store")


@pytest.fixture
def fresh(tmp_path, embedder, analyzer, clock):
    """A second, empty store in the same test."""
    stores = []

    def make(name="fresh.db"):
        store = Store(tmp_path / name)
        stores.append(store)
        return Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))

    yield make
    for store in stores:
        store.close()


def found(memory, query, **options):
    return [r.id for r in memory.recall(HUMAN, query, project=P, **options).results if r.result_type == "memory"]


def counts(memory):
    conn = memory.ctx.store.conn
    return tuple(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                 for t in ("memories", "events", "suppressions", "transitions", "tombstones", "approaches"))


def test_restore_into_an_empty_store_brings_everything_back(memory, fresh, tmp_path):
    memory.abandon(HUMAN, "opencv-python", reason="GPL trouble", project=P, effort=2, aliases=["cv2"])
    kept = memory.remember(HUMAN, "Thumbnails are resized in the upload worker", project=P)
    archived = memory.remember(HUMAN, "Uploads are scanned by ClamAV before storage", project=P)
    memory.archive(HUMAN, archived.id, reason="scanning moved to the CDN")
    memory.suppress(HUMAN, "clamav", kind="recall", project=P, reason="not ours any more")
    a = memory.remember(HUMAN, "Prefer SQLAlchemy for database access in the billing service.", project=P)
    b = memory.remember(HUMAN, "SQLAlchemy sessions leak connections in the billing service; drop it.", project=P)
    memory.dismiss_contradiction(HUMAN, b.contradictions[0].contradiction_id, reason="different services")
    backup = memory.backup(HUMAN, str(tmp_path / "cenotaph.bak"))
    assert backup.schema_version >= 1 and backup.bytes > 0

    target = fresh()
    report = target.restore(HUMAN, backup.path)
    assert report.memories_added == 5 and report.suppressions == 1 and report.dismissals == 1
    assert found(target, "thumbnails upload worker")[0] == kept.id
    assert target.get(archived.id).state == "archived"
    assert target.get(archived.id).state_reason == "scanning moved to the CDN"
    assert target.check_approaches(["cv2"], project=P)[0].status == "abandoned"
    assert target.contradictions(P, status="dismissed")[0].memory_a.memory_id == a.id
    assert target.scan_contradictions(HUMAN, P).found == []
    assert [t.to_value for t in target.history(archived.id).transitions] == ["archived"]
    assert target.audit_verify().ok
    # Restoring the same file again adds nothing.
    before = counts(target)
    again = target.restore(HUMAN, backup.path)
    assert (again.memories_added, again.memories_updated, again.suppressions) == (0, 0, 0)
    assert counts(target)[0] == before[0]


def test_blessings_come_back_with_their_memories_but_not_with_forgotten_ones(memory, fresh, tmp_path):
    kept = memory.remember(HUMAN, "Run migrations before the workers start, or they crash on boot", project=P)
    gone = memory.remember(HUMAN, "The nightly export writes to the shared drive", project=P)
    memory.bless(HUMAN, kept.id, reason="bit us twice")
    memory.bless(HUMAN, gone.id, reason="worth knowing")
    memory.forget(HUMAN, gone.id, reason="the export is gone", confirm=True)
    backup = memory.backup(HUMAN, str(tmp_path / "cenotaph.bak"))
    target = fresh()
    report = target.restore(HUMAN, backup.path)
    assert report.blessings == 1
    rows = blessings.all_rows(target.ctx.store.conn)
    assert [(r.memory_id, r.reason, r.actor) for r in rows] == [(kept.id, "bit us twice", HUMAN.name)]
    assert target.restore(HUMAN, backup.path).blessings == 0
    assert target.audit_verify().ok


def test_forgotten_after_the_backup_stays_forgotten_after_restore(memory, fresh, tmp_path):
    secret = memory.remember(HUMAN, "The staging root password is taped under the rack in room 4", project=P)
    other = memory.remember(HUMAN, "The staging rack is in room 4 next to the UPS", project=P)
    backup = memory.backup(HUMAN, str(tmp_path / "before-forget.bak")).path
    memory.forget(HUMAN, secret.id, reason="a credential", confirm=True)

    report = memory.restore(HUMAN, backup)
    assert report.skipped_forgotten == 1 and report.memories_added == 0
    row = memory.get(secret.id)
    assert row.state == "deleted" and row.content == ""
    assert memory.ctx.store.conn.execute("SELECT COUNT(*) FROM memories WHERE content LIKE '%taped%'").fetchone()[0] == 0
    assert secret.id not in found(memory, "staging root password rack") and other.id in found(memory, "staging rack")
    # Positive control: the same backup restored where nothing was forgotten does bring it.
    assert fresh().restore(HUMAN, backup).memories_added == 2


def test_another_stores_backup_holding_forgotten_text_does_not_bring_it_back(memory, fresh, tmp_path, clock):
    """A tombstone keeps the forgotten content's hash: a backup of ANOTHER store (its own lineage,
    its own record time) holding the same text is refused by that hash, not by the lineage."""
    text = "The staging root password is taped under the rack in room 4"
    secret = memory.remember(HUMAN, text, project=P)
    memory.forget(HUMAN, secret.id, reason="a credential", confirm=True)
    clock.advance(hours=1)
    elsewhere = fresh("elsewhere.db")
    elsewhere.remember(HUMAN, text, project=P)
    elsewhere.remember(HUMAN, "The staging rack is in room 4 next to the UPS", project=P)
    backup = elsewhere.backup(HUMAN, str(tmp_path / "elsewhere.bak")).path

    report = memory.restore(HUMAN, backup)
    assert report.skipped_forgotten == 1
    assert memory.ctx.store.conn.execute("SELECT COUNT(*) FROM memories WHERE content LIKE '%taped%'").fetchone()[0] == 0
    # Positive control: the other memory of that backup does come in, and so does the forgotten
    # text where nothing was forgotten.
    assert report.memories_added == 1 and found(memory, "staging rack next to the UPS")
    assert fresh("third.db").restore(HUMAN, backup).memories_added == 2


def test_a_backup_taken_after_forgetting_carries_the_tombstone(memory, fresh, tmp_path):
    secret = memory.remember(HUMAN, "The deploy token is stored in the team chat pinned message", project=P)
    early = memory.backup(HUMAN, str(tmp_path / "early.bak")).path
    memory.forget(HUMAN, secret.id, reason="a credential", confirm=True)
    late = memory.backup(HUMAN, str(tmp_path / "late.bak")).path
    target = fresh()
    target.restore(HUMAN, early)
    assert target.get(secret.id).content.startswith("The deploy token")  # positive control
    report = target.restore(HUMAN, late)
    assert report.forgotten == 1
    assert target.get(secret.id).state == "deleted" and target.get(secret.id).content == ""
    assert target.history(secret.id).tombstone is not None
    target.restore(HUMAN, early)
    assert target.get(secret.id).state == "deleted"


def test_a_lifted_suppression_is_not_brought_back(memory, fresh, tmp_path):
    stored = memory.remember(HUMAN, "The frontend bundles with webpack and babel", project=P)
    memory.suppress(HUMAN, "webpack", kind="recall", project=P, reason="migrating off it")
    backup = memory.backup(HUMAN, str(tmp_path / "suppressed.bak")).path
    memory.unsuppress(HUMAN, "webpack", kind="recall", project=P, reason="migration cancelled")
    memory.restore(HUMAN, backup)
    assert stored.id in found(memory, "frontend bundler")
    assert "webpack" not in memory.graveyard.recall_suppressed_values(P)
    # Positive control: restored into a store that never lifted it, the suppression is active,
    # and a graveyard index built before the restore sees it.
    target = fresh()
    assert "webpack" not in target.graveyard.recall_suppressed_values(P)
    target.restore(HUMAN, backup)
    assert "webpack" in target.graveyard.recall_suppressed_values(P)
    assert [e.action for e in target.audit_log(target="suppression:webpack")] == ["restore"]


def test_newer_versions_and_transitions_win(memory, fresh, tmp_path, clock):
    stored = memory.remember(HUMAN, "The API rate limit is 100 requests per minute", project=P)
    v1 = memory.backup(HUMAN, str(tmp_path / "v1.bak")).path
    clock.advance(hours=1)
    memory.update(HUMAN, stored.id, content="The API rate limit is 300 requests per minute")
    memory.deprioritise(HUMAN, stored.id, reason="rarely asked", hints=["rate limit"])
    v2 = memory.backup(HUMAN, str(tmp_path / "v2.bak")).path

    target = fresh()
    target.restore(HUMAN, v1)
    assert target.get(stored.id).content.endswith("100 requests per minute")
    report = target.restore(HUMAN, v2)
    assert report.memories_updated == 1
    row = target.get(stored.id)
    assert (row.version, row.state, row.reinstate_hints) == (2, "deprioritised", ["rate limit"])
    assert row.content.endswith("300 requests per minute")
    assert [v.superseded_at is None for v in target.history(stored.id).versions] == [False, True]
    target.restore(HUMAN, v1)  # the older backup changes nothing
    assert target.get(stored.id).version == 2 and target.get(stored.id).state == "deprioritised"


def test_refusals_change_nothing(memory, tmp_path):
    memory.remember(HUMAN, "The monorepo uses pnpm workspaces", project=P)
    before = counts(memory)
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    with pytest.raises(InvalidInput, match="not a Cenotaph backup"):
        memory.restore(HUMAN, str(text))
    other = tmp_path / "other.sqlite"
    conn = open_connection(other)
    conn.execute("CREATE TABLE todo (id INTEGER PRIMARY KEY, item TEXT)")
    conn.close()
    with pytest.raises(InvalidInput, match="without Cenotaph's tables"):
        memory.restore(HUMAN, str(other))
    newer = memory.backup(HUMAN, str(tmp_path / "newer.bak")).path
    conn = open_connection(newer)
    conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'then')")
    conn.close()
    with pytest.raises(Conflict, match="newer Cenotaph"):
        memory.restore(HUMAN, newer)
    assert counts(memory)[0] == before[0] and counts(memory)[1] == before[1] + 1  # only the backup's own event
    with pytest.raises(Conflict, match="already exists"):
        memory.backup(HUMAN, newer)


WRITER = textwrap.dedent("""
    import sys
    from cenotaph.store import events
    from cenotaph.store.db import Store
    store = Store(sys.argv[1])
    for i in range(int(sys.argv[2])):
        with store.write() as conn:
            events.append(conn, at="2026-03-01T12:00:00.000000Z", actor="writer", action="ping", target="store",
                          project="", after={"i": i})
        if i == 0:
            print("ready", flush=True)
""")


def test_backup_is_consistent_while_another_process_writes(memory, tmp_path, embedder, analyzer):
    memory.remember(HUMAN, "The backup runs while the agent keeps writing", project=P)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(memory.ctx.store.path), "3000"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        heads = []
        for i in range(4):
            path = memory.backup(HUMAN, str(tmp_path / f"live-{i}.bak")).path
            store = Store(path)
            try:
                report = audit.verify(Context(store=store, embedder=embedder, analyzer=analyzer))
            finally:
                store.close()
            assert report.ok, report.problem
            heads.append(report.head)
    finally:
        assert writer.wait(timeout=120) == 0
    assert heads == sorted(heads) and heads[0] >= 2
    assert memory.audit_verify().ok


def test_restore_brings_concept_verdicts_and_links_through_this_stores_verdicts(memory, fresh, tmp_path):
    memory.remember(HUMAN, "The pg dump runs nightly", project=P)
    memory.remember(HUMAN, "Redis connection pool size is 50", project=P)
    memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=P)
    backup = memory.backup(HUMAN, str(tmp_path / "concepts.bak")).path
    target = fresh()
    target.concept_verdict(HUMAN, "remove", "redis", project=P)  # this store's verdict stands
    target.restore(HUMAN, backup)
    listed = {c.name: c for c in target.concepts(P)}
    assert listed["postgresql"].aliases == ["pg"] and listed["postgresql"].count == 1
    assert "redis" not in listed and listed["pool"].count == 1  # positive control: the other links came
    target.concepts_rebuild(HUMAN)
    assert {c.name: c.aliases for c in target.concepts(P)}["postgresql"] == ["pg"]

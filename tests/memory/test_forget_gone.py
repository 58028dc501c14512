"""Forgotten means gone: after `forget --confirm` no byte of a memory's content or tags is in the
store file, its WAL, a backup taken afterwards, or any answer; the event chain still verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.store import events

HUMAN = Actor(name="cli", kind="human")
TOKEN = "zqxjvorblefumph"
TAG = "tagwvzzkplunder"
OTHER = "keepmequokkabrine"


def raw_bytes(db_path: Path) -> bytes:
    """The store file and its WAL, as they are on disk."""
    wal = db_path.with_name(db_path.name + "-wal")
    return db_path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def _write_the_story(memory: Memory) -> int:
    """A memory that reaches every place text goes: versions, tags, the next memory's context,
    the recall log, a contradiction, the indexes and the vectors."""
    first = memory.remember(HUMAN, f"Always run the {TOKEN} script before a staging deploy", project="p",
                            tags=[TAG], kind="decision")
    memory.remember(HUMAN, f"The {OTHER} cache is warmed after every staging deploy", project="p")
    memory.update(HUMAN, first.id, content=f"Always run the {TOKEN} script before any staging deploy",
                  reason="wording")
    memory.remember(HUMAN, f"Never run the {TOKEN} script before a staging deploy", project="p", kind="decision")
    memory.recall(HUMAN, f"{TOKEN} script", project="p")
    memory.recall(HUMAN, "staging deploy", project="p")
    return first.id


@pytest.mark.sqlite_only("reads the bytes of the SQLite file and its WAL")
def test_forget_leaves_no_byte_of_content_or_tags_in_the_file_and_its_wal(memory: Memory, db_path: Path):
    target = _write_the_story(memory)
    later = memory.recent("p", limit=10)
    contradicting = next(m.memory_id for m in later if m.content.startswith("Never"))
    before = raw_bytes(db_path)
    assert TOKEN.encode() in before and TAG.encode() in before  # the positive control
    wal = db_path.with_name(db_path.name + "-wal")
    assert wal.exists() and TOKEN.encode() in wal.read_bytes()  # the WAL is part of what is grepped

    memory.forget(HUMAN, target, reason="named an internal script", confirm=True)
    memory.forget(HUMAN, contradicting, reason="same script", confirm=True)

    after = raw_bytes(db_path)
    assert TOKEN.encode() not in after
    assert TAG.encode() not in after
    assert OTHER.encode() in after  # the memory written beside it stays, words and all
    assert memory.audit_verify().ok


@pytest.mark.sqlite_only("ends with a file backup, which a PostgreSQL store leaves to pg_dump")
def test_nothing_forgotten_is_in_any_answer_or_a_later_backup(memory: Memory, db_path: Path, tmp_path: Path):
    target = _write_the_story(memory)
    links = memory.contradictions("p", status=None)
    assert links and any(TOKEN in (side.content if side else "") for c in links for side in (c.memory_a, c.memory_b))

    memory.forget(HUMAN, target, reason="named an internal script", confirm=True)

    answers = [
        memory.contradictions("p", status=None), memory.history(target), memory.recall(HUMAN, TOKEN, project="p"),
        memory.audit_log(), memory.why(TOKEN, project="p"), memory.recent("p", limit=50),
    ]
    text = json.dumps(answers, default=lambda o: getattr(o, "__dict__", None) or repr(o))
    assert TAG not in text
    # The other side of the contradiction still says it, in its own words: only the forgotten one's are gone.
    assert "Always run" not in text and "Never run" in text
    backup = tmp_path / "after.db"
    memory.backup(HUMAN, str(backup))
    assert b"Always run" not in backup.read_bytes() and TAG.encode() not in backup.read_bytes()
    assert b"Never run" in backup.read_bytes()


def test_events_keep_a_hash_of_the_tags_never_the_tags(memory: Memory, db_path: Path):
    stored = memory.remember(HUMAN, "The release checklist lives in the wiki", project="p", tags=[TAG])
    report = memory.import_jsonl(HUMAN, [json.dumps({"content": "Imported note about caches", "tags": [OTHER]})],
                                 project="p")
    assert report.imported == 1
    logged = memory.audit_log()
    remembered = next(e for e in logged if e.action == "remember" and e.target == f"memory:{stored.id}")
    imported = next(e for e in logged if e.action == "import")
    assert json.loads(remembered.after)["tags_hash"] == events.tags_hash([TAG])
    assert json.loads(imported.after)["tags_hash"] == events.tags_hash([OTHER])
    assert TAG not in remembered.after and OTHER not in imported.after


@pytest.mark.sqlite_only("upgrades a store made by SQLite's older migrations")
def test_upgrading_an_old_store_scrubs_what_its_forget_left_and_the_chain_still_verifies(
        db_path: Path, embedder, analyzer, clock, monkeypatch):
    from cenotaph.memory.context import Context
    from cenotaph.store import migrations
    from cenotaph.store.db import Store

    # An old store: the schema before this change, a forget that did not zero freed pages, and
    # `remember` events that quoted the tags (as events did then).
    with monkeypatch.context() as patched:
        patched.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:3])
        # Nor had it concepts, summaries or anchors: their tables came later.
        from cenotaph.memory.core import concepts, lifecycle
        from cenotaph.store import anchors as store_anchors
        from cenotaph.store import concepts as store_concepts
        patched.setattr(store_anchors, "of", lambda *_: {})
        patched.setattr(concepts, "attach", lambda *_: None)
        patched.setattr(concepts, "expansions", lambda *_: {})
        patched.setattr(store_concepts, "forget_memory", lambda *_: None)
        patched.setattr(lifecycle, "restore_summarised", lambda *_, **__: [])
        from cenotaph.store import vectors  # nor the vector log
        patched.setattr(vectors, "log_change", lambda *_: None)
        old = Store(db_path)
        old.conn.execute("PRAGMA secure_delete = OFF")
        memory = Memory(Context(store=old, embedder=embedder, analyzer=analyzer, clock=clock))
        gone = memory.remember(HUMAN, f"The {TOKEN} bucket holds the nightly dumps", project="p", tags=[TAG]).id
        kept = memory.remember(HUMAN, f"The {OTHER} bucket holds the logs", project="p", tags=["logs"]).id
        with old.write() as tx:
            for memory_id, tags in ((gone, [TAG]), (kept, ["logs"])):
                events.append(tx, at=memory.ctx.now(), actor="cli", action="remember", target=f"memory:{memory_id}",
                              project="p", after={"kind": "note", "content_hash": "0" * 64, "tags": tags})
        memory.recall(HUMAN, f"{TOKEN} bucket", project="p")
        memory.forget(HUMAN, gone, reason="old forget", confirm=True)
        old.close()
    assert TAG.encode() in raw_bytes(db_path)  # what the old forget left behind: the positive control

    store = Store(db_path)  # migrates, scrubs and rewrites the file
    upgraded = Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
    try:
        assert upgraded.audit_verify().ok
        after = raw_bytes(db_path)
        assert TAG.encode() not in after and TOKEN.encode() not in after
        assert OTHER.encode() in after
        rewritten = [e for e in upgraded.audit_log() if e.action == "remember" and e.target == f"memory:{kept}"]
        assert rewritten[-1].after is not None and "logs" not in rewritten[-1].after
        assert json.loads(rewritten[-1].after)["tags_hash"] == events.tags_hash(["logs"])
        assert upgraded.audit_log()[-1].action == events.SCRUB_ACTION

        # A rewritten event is still tamper-evident: changing it again breaks the chain's verification.
        with store.write() as tx:
            tx.execute("DROP TRIGGER events_no_update")
            tx.execute("UPDATE events SET actor = 'mallory' WHERE seq = ?", (rewritten[-1].seq,))
        report = upgraded.audit_verify()
        assert not report.ok and report.first_bad_seq == rewritten[-1].seq
    finally:
        store.close()

"""What the crash test relies on: `check_store` sees every kind of disagreement between the
memory rows and their full-text rows and vectors (the positive control), `repair` mends them
and finishes a reindex cut short, and writes that other processes make while a reindex runs
keep their vectors (and a memory forgotten meanwhile gets none back)."""

from __future__ import annotations

import json
import subprocess

import pytest

from cenotaph.store import vectors
from cenotaph.store.connect import open_connection
from tests.conftest import CENOTAPH, HUMAN
from tests.reliability.support import PROJECT, assert_in_step, open_memory_on, record


def _fill(memory, count: int) -> list[int]:
    return [memory.remember(HUMAN, f"Repair fixture {i}: the queue shard {i} drains at {i}:00.", project=PROJECT,
                            force=True).id for i in range(count)]


@pytest.mark.sqlite_only("damages SQLite's FTS5 table through a raw connection to the file")
def test_check_store_sees_each_disagreement_and_repair_mends_it(live_memory, db_path, in_process_cli):
    memory = live_memory
    ids = _fill(memory, 6)
    assert memory.check_store().ok  # the control: a store written by the domain is in step
    rows = {m: memory.ctx.store.conn.execute("SELECT id FROM memories WHERE memory_id = ?", (m,)).fetchone()[0]
            for m in ids}
    # Damage of every kind, behind the domain's back (as a crash or an outside tool could).
    raw = open_connection(db_path)
    raw.execute("DELETE FROM memory_fts WHERE rowid = ?", (rows[ids[0]],))
    raw.execute("UPDATE memory_fts SET content = 'stale words' WHERE rowid = ?", (rows[ids[1]],))
    raw.execute("INSERT INTO memory_fts (rowid, content, lemmas, context) VALUES (999999, 'orphan', '', '')")
    raw.execute(f"DELETE FROM {vectors.TABLE} WHERE row_id = ?", (rows[ids[2]],))
    raw.execute("UPDATE meta SET value = '' WHERE key = 'embedding_model'")  # as a reindex cut short leaves it
    memory.forget(HUMAN, ids[3], reason="gone", confirm=True)
    vectors.insert(raw, rows[ids[3]], PROJECT, memory.ctx.embed("a forgotten memory"))  # its vector back
    raw.close()

    check = memory.check_store()
    assert not check.ok and check.integrity == []
    assert (check.fts_missing, check.fts_stale, check.fts_orphans) == ([rows[ids[0]]], [rows[ids[1]]], [999999])
    assert (check.vectors_missing, check.vectors_orphans, check.vector_model) == ([rows[ids[2]]], [rows[ids[3]]], "")

    status, out, _ = in_process_cli(["repair", "--check", "--db", str(db_path), "--json"])
    assert status == 1 and json.loads(out)["vectors_missing"] == [rows[ids[2]]]  # --check changes nothing
    status, out, _ = in_process_cli(["repair", "--db", str(db_path), "--json"])
    report = json.loads(out)
    assert status == 0 and (report["fts_rewritten"], report["vectors_added"], report["vectors_removed"]) == (3, 1, 1)
    assert report["reindex_finished"] and report["after"]["vectors_missing"] == []
    assert_in_step(memory)
    assert in_process_cli(["repair", "--check", "--db", str(db_path)])[0] == 0
    assert memory.audit_log(target="store")[-1].action == "repair"
    assert memory.recall(HUMAN, "queue shard 0 drains", project=PROJECT, k=3).results[0].id == ids[0]
    record("repair", disagreements_planted=5, found=5, mended=5)


@pytest.mark.sqlite_only("deletes rows of SQLite's FTS5 and vec0 tables through a raw connection to the file")
def test_repair_says_what_it_mended_and_recall_finds_the_memory_again(live_memory, db_path, in_process_cli, cli_env):
    memory = live_memory
    ids = _fill(memory, 4)
    status, out, _ = in_process_cli(["repair", "--db", str(db_path)])
    assert (status, out.splitlines()[0]) == (0, "nothing to mend")  # the control: a clean store
    lost = memory.ctx.store.conn.execute("SELECT id FROM memories WHERE memory_id = ?", (ids[2],)).fetchone()[0]
    raw = open_connection(db_path)
    raw.execute("DELETE FROM memory_fts WHERE rowid = ?", (lost,))
    raw.execute(f"DELETE FROM {vectors.TABLE} WHERE row_id = ?", (lost,))
    raw.close()
    query = "queue shard 2 drains at 2:00"
    assert ids[2] not in [r.id for r in memory.recall(HUMAN, query, project=PROJECT, k=10).results]  # the damage

    done = subprocess.run([CENOTAPH, "repair", "--db", str(db_path)], env=cli_env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    mended = done.stdout.splitlines()
    assert mended[:2] == ["mended the full-text index: rewrote 1 rows (1 missing, 0 orphaned, 0 stale)",
                          "mended the vectors: embedded 1 missing"], done.stdout
    assert "nothing to mend" not in done.stdout and "event log: checked" in done.stdout
    assert memory.recall(HUMAN, query, project=PROJECT, k=3).results[0].id == ids[2]
    status, out, err = in_process_cli(["repair", "--db", str(db_path)])
    assert (status, out.splitlines()[:1]) == (0, ["nothing to mend"]), out + err


def test_writes_made_while_a_reindex_runs_keep_their_vectors(live_memory, db_path, embedder, analyzer):
    """Another process remembers, edits and forgets while `reindex` re-embeds in batches."""
    memory = live_memory
    ids = _fill(memory, 140)  # three batches of 64
    other = open_memory_on(db_path, embedder, analyzer)  # another process's connection
    written = []

    def meanwhile(done: int, total: int) -> None:
        if done < total:
            written.append(other.remember(HUMAN, f"Written during the reindex at {done}/{total}: node {done} "
                                                 "rejoins the ring.", project=PROJECT, force=True).id)
            other.update(HUMAN, ids[done], content=f"Repair fixture {done}, edited during the reindex.")
            other.forget(HUMAN, ids[-1 - len(written)], reason="forgotten during the reindex", confirm=True)

    try:
        memory.reindex(progress=meanwhile)
        assert len(written) == 2
        assert_in_step(memory)
    finally:
        other.ctx.store.close()

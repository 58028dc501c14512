"""`migrate-store` (issue 16): a whole store copied into another, every table with its own ids,
the vectors as they are and the event chain verified on the target; rerunning it copies nothing
twice and brings a previous copy up to date; a target holding anything else is refused untouched."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.operations.migrate_store import target_path
from cenotaph.memory.service import Memory
from cenotaph.store import anchors, events, feeds, mining, summaries, transfer, vectors
from cenotaph.store.connect import open_connection
from cenotaph.store.db import Store
from cenotaph.store.records import AnchorRow

from tests.conftest import AGENT, CENOTAPH, HUMAN
from tests.memory.test_backup import fresh  # noqa: F401 - a second SQLite store in the same test

P = "github.com/acme/app"


def populate(memory: Memory, tmp_path) -> dict[str, int]:
    """A store with at least one row in every table `migrate-store` copies."""
    memory.abandon(HUMAN, "opencv-python", reason="GPL trouble with the contrib build", project=P, effort=2,
                   aliases=["cv2"])
    kept = memory.remember(HUMAN, "Thumbnails are resized with Pillow in the upload worker", project=P)
    edited = memory.remember(HUMAN, "The API rate limit is 100 requests per minute", project=P)
    memory.update(HUMAN, edited.id, content="The API rate limit is 300 requests per minute")
    archived = memory.remember(HUMAN, "Uploads are scanned by ClamAV before storage", project=P)
    memory.archive(HUMAN, archived.id, reason="scanning moved to the CDN")
    secret = memory.remember(HUMAN, "The staging root password is taped under the rack in room 4", project=P)
    memory.forget(HUMAN, secret.id, reason="a credential", confirm=True)
    memory.suppress(HUMAN, "clamav", kind="recall", project=P, reason="not ours any more")
    memory.remember(HUMAN, "Prefer SQLAlchemy for database access in the billing service.", project=P)
    b = memory.remember(HUMAN, "SQLAlchemy sessions leak connections in the billing service; drop it.", project=P)
    memory.dismiss_contradiction(HUMAN, b.contradictions[0].contradiction_id, reason="different services")
    memory.set_trust(AGENT, kept.id, "refuted", reason="the worker uses libvips now")  # a proposal
    memory.recall(HUMAN, "thumbnails upload worker", project=P)
    memory.bless(HUMAN, edited.id, reason="everyone trips on it")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "deploy.md").write_text("# Deploy\n\nDeploys run from the release branch with Ansible.\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs" / "deploy.md")], project=P, root=tmp_path)
    feed = memory.feed_add(HUMAN, "https://example.org/releases.atom", project=P)
    store = memory.ctx.store
    with store.write() as conn:
        feeds.put_entry(conn, feeds.EntryRow(memory_id=kept.id, feed_id=feed.id, entry_key="urn:1", link=None,
                                             title="release 1", expires_at=None, promoted_at=None))
        mining.set_cursor(conn, P, "git", "head", "0123abcd", at=memory.ctx.now())
        mining.dismiss(conn, project=P, ecosystem="pypi", name="requests", reason="we keep it", actor="test",
                       at=memory.ctx.now())
        first = events.since(conn, 0, 1)[0]
        events.attest_scrubs(conn, [(first.seq, first.hash)], at=memory.ctx.now(), reason="a scrub list to copy")
        summaries.link(conn, summary_id=edited.id, project=P, cluster_id="c-to-copy",
                       sources=[(archived.id, "active")], at=memory.ctx.now())
        anchors.put(conn, AnchorRow(memory_id=kept.id, project=P, path="worker/thumbs.py", start_line=3, end_line=4,
                                    text="img = Image.open(src)\nimg.thumbnail(SIZE)", lines_before="def resize(src):",
                                    lines_after="return img", revision="0123abcd", state="current",
                                    taken_at=memory.ctx.now(), checked_at=memory.ctx.now()))
    memory.concept_verdict(HUMAN, "merge", "pil", "pillow", project=P)
    memory.concept_verdict(HUMAN, "remove", "minute", project=P)
    memory.concept_verdict(HUMAN, "dismiss", "upload", "worker", project=P)
    assert memory.recaller.recorder.flush(10)  # the recall's log row is written after its answer
    return {"kept": kept.id, "edited": edited.id, "archived": archived.id}


def table_rows(store: Store) -> dict[str, list[tuple]]:
    with store.read() as conn:
        copied = {t.name: sorted(map(tuple, conn.execute(
            f"SELECT {', '.join(transfer.columns(conn, t.name))} FROM {t.name}")), key=repr) for t in transfer.TABLES}
        copied["vectors"] = sorted((r, p, v.tobytes()) for batch in vectors.all_rows(conn) for r, p, v in batch)
    return copied


def top(memory: Memory, query: str) -> list[tuple[str, int | str]]:
    return [(r.result_type, r.id) for r in memory.recall(HUMAN, query, project=P, k=5).results]


def same_answers(a: Memory, b: Memory, query: str) -> bool:
    """Whether recall answers alike on two stores holding the same rows and vectors: the same list
    on the same engine; across engines the same first answer and the same top results, whose order
    below the first may differ: each full-text lane scores by its own measure (tsvector rank,
    FTS5's bm25)."""
    ours, theirs = top(a, query), top(b, query)
    if getattr(a.ctx.store, "dialect", "sqlite") == getattr(b.ctx.store, "dialect", "sqlite"):
        return ours == theirs
    return ours[:1] == theirs[:1] and set(ours) == set(theirs)  # nothing matched on either: alike too


def test_every_table_of_the_schema_is_copied_or_derived(tmp_path, embedder):
    """A table a migration adds and nobody copies fails here: list it in store/transfer.py."""
    store = Store(tmp_path / "schema.db")
    try:
        with store.write() as conn:
            vectors.create(conn, embedder.dim)
        rows = store.conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        store.close()
    virtual = {name for name, sql in rows if sql.upper().startswith("CREATE VIRTUAL TABLE")}
    shadows = {name for name, _ in rows if any(name.startswith(v + "_") for v in virtual)}
    held = {name for name, _ in rows if not name.startswith("sqlite_")} - shadows
    assert "memories" in held and "memory_vectors" in virtual  # the listing sees the schema
    assert held == {t.name for t in transfer.TABLES} | (transfer.DERIVED - {"event_head", "fts_totals"}) | {transfer.SCHEMA_TABLE}


def test_a_whole_store_is_copied_with_its_ids_vectors_and_chain(memory, fresh, tmp_path):
    ids = populate(memory, tmp_path)
    source = table_rows(memory.ctx.store)
    empty = [name for name, rows in source.items() if not rows]
    assert empty == []  # every table takes part, so the copy below is checked on each

    target = fresh("copy.db")
    report = memory.migrate_store(target.ctx.store)
    assert {t.table: t.inserted for t in report.tables} == {name: len(rows) for name, rows in source.items()
                                                            if name != "vectors"} | {"memory_vectors":
                                                                                     len(source["vectors"])}
    assert all(t.source == t.target for t in report.tables) and report.model_matches
    assert table_rows(target.ctx.store) == source
    assert report.events_verified == len(source["events"]) and target.audit_verify().ok
    for query in ("thumbnails upload worker", "API rate limit", "opencv cv2", "deploy release branch"):
        assert same_answers(target, memory, query)
    assert target.get(ids["archived"]).state == "archived"
    assert target.history(ids["edited"]).versions[0].content.endswith("100 requests per minute")
    assert target.check_approaches(["cv2"], project=P)[0].status == "abandoned"
    # The copy is a working store: a new memory takes a new id and the chain goes on.
    added = target.remember(HUMAN, "Release notes are drafted by the on-call engineer", project=P)
    assert added.id not in {row[1] for row in source["memories"]} and target.audit_verify().ok


def test_a_rerun_copies_nothing_twice_and_brings_the_copy_up_to_date(memory, fresh, tmp_path, clock):
    ids = populate(memory, tmp_path)
    target = fresh("copy.db")
    first = memory.migrate_store(target.ctx.store)
    assert first.changed > 0
    again = memory.migrate_store(target.ctx.store)
    assert again.changed == 0 and all(t.source == t.target for t in again.tables)

    clock.advance(hours=1)
    memory.update(HUMAN, ids["kept"], content="Thumbnails are resized with libvips in the upload worker")
    memory.reinstate(HUMAN, ids["archived"], reason="scanning is ours again")
    memory.forget(HUMAN, ids["edited"], reason="wrong figure", confirm=True)
    memory.unsuppress(HUMAN, "clamav", kind="recall", project=P, reason="scanning is ours again")
    later = memory.migrate_store(target.ctx.store)
    changed = {t.table: (t.inserted, t.updated, t.deleted) for t in later.tables if t.inserted + t.updated + t.deleted}
    assert changed["events"][0] > 0 and changed["memories"][1] > 0 and changed["suppressions"] == (0, 1, 0)
    assert changed["tombstones"] == (1, 0, 0) and "approaches" not in changed  # untouched: not rewritten
    assert table_rows(target.ctx.store) == table_rows(memory.ctx.store)
    assert same_answers(target, memory, "thumbnails libvips") and target.audit_verify().ok


def test_a_target_holding_another_store_is_refused_untouched(memory, fresh, tmp_path):
    populate(memory, tmp_path)
    other = fresh("other.db")
    other.remember(HUMAN, "Another team's store: deploys go through Jenkins", project=P)
    before = table_rows(other.ctx.store)
    with pytest.raises(Conflict, match="another store") as refused:
        memory.migrate_store(other.ctx.store)
    assert refused.value.field == "to" and table_rows(other.ctx.store) == before

    # A previous copy written to on its own since is no longer a copy: refused too.
    copy = fresh("copy.db")
    memory.migrate_store(copy.ctx.store)  # positive control: an empty target is taken
    copy.remember(HUMAN, "Written on the copy only", project=P)
    diverged = table_rows(copy.ctx.store)
    with pytest.raises(Conflict, match="another store"):
        memory.migrate_store(copy.ctx.store)
    assert table_rows(copy.ctx.store) == diverged
    with pytest.raises(Conflict, match="store in use"):
        memory.migrate_store(memory.ctx.store)


def test_a_path_that_is_not_a_cenotaph_store_is_refused(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    with pytest.raises(InvalidInput, match="not an SQLite database") as refused:
        target_path(str(text))
    assert refused.value.field == "to"
    foreign = tmp_path / "other.sqlite"
    conn = open_connection(foreign)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    conn.close()
    with pytest.raises(InvalidInput, match="something else"):
        target_path(str(foreign))
    with pytest.raises(InvalidInput, match="directory"):
        target_path(str(tmp_path))
    # Positive controls: a new path, and a URL for its store to check.
    assert target_path(str(tmp_path / "new.db")) == str(tmp_path / "new.db")
    assert target_path("postgresql://team@db:5432/cenotaph") == "postgresql://team@db:5432/cenotaph"


@pytest.mark.sqlite_only("the command's stores are the files it names; both directions with PostgreSQL are "
                         "test_to_postgresql_and_back_is_the_same_store")
def test_the_command_copies_there_and_back_with_a_progress_bar_and_counts(tmp_path, cli_env):
    def run(db, verb, *args):
        return subprocess.run([CENOTAPH, verb, "--db", str(db), *args], env=cli_env, capture_output=True, text=True,
                              timeout=120, check=False)

    home = tmp_path / "home.db"
    assert run(home, "remember", "Builds are cached on the shared runner", "--project", P).returncode == 0
    assert run(home, "abandon", "onnxruntime", "--reason", "no wheels for our arm boxes",
               "--project", P).returncode == 0
    there = run(home, "migrate-store", "--to", str(tmp_path / "there.db"))
    assert there.returncode == 0, there.stderr
    assert "]" in there.stderr and "/" in there.stderr  # the bar, ending at its total
    memories_line = next(line for line in there.stdout.splitlines() if line.startswith("memories "))
    assert memories_line.split()[1:4] == ["2", "2", "2"]  # here, there, inserted
    assert "the event log verifies there" in there.stdout
    back = run(tmp_path / "there.db", "migrate-store", "--to", str(tmp_path / "back.db"))
    assert back.returncode == 0, back.stderr
    checked = run(tmp_path / "back.db", "check", "onnxruntime", "--project", P)
    assert "abandoned" in checked.stdout
    refused = run(home, "migrate-store", "--to", str(tmp_path / "home.db"))
    assert refused.returncode == 2 and "store in use" in refused.stderr


@pytest.fixture
def on_postgres(pg_url, embedder, analyzer, clock):
    store = open_store(pg_url)
    yield Memory(Context(store=store, embedder=embedder, analyzer=analyzer, clock=clock))
    store.close()


def test_every_table_of_the_postgresql_schema_is_copied_or_derived(on_postgres, embedder):
    with on_postgres.ctx.store.write() as conn:
        vectors.create(conn, embedder.dim)
        held = {name for (name,) in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    assert "memories" in held and "memory_vectors" in held
    # memory_postings, word_rows and content_pairs are PostgreSQL's own, kept by trigger from the
    # memories copied; vector_log is written by the target's own vector writes.
    assert held == {t.name for t in transfer.TABLES} | {vectors.TABLE, "event_head", "fts_totals", "memory_postings",
                                                        "word_rows", "content_pairs", "concept_counts", "vector_log",
                                                        transfer.SCHEMA_TABLE}


def test_to_postgresql_and_back_is_the_same_store(memory, fresh, on_postgres, tmp_path, clock):
    ids = populate(memory, tmp_path)
    source = table_rows(memory.ctx.store)
    report = memory.migrate_store(on_postgres.ctx.store)
    assert all(t.source == t.target for t in report.tables) and report.changed > 0
    assert table_rows(on_postgres.ctx.store) == source
    assert on_postgres.audit_verify().ok
    assert memory.migrate_store(on_postgres.ctx.store).changed == 0  # a rerun copies nothing twice
    queries = ("thumbnails upload worker", "API rate limit", "opencv cv2", "deploy release branch")
    for query in queries:
        assert same_answers(on_postgres, memory, query)

    # A change here reaches the copy on the next run; the copy's own new rows take new ids.
    clock.advance(hours=1)
    memory.archive(HUMAN, ids["kept"], reason="thumbnails moved to the CDN")
    assert on_postgres.recaller.recorder.flush(10)  # the copy's own recalls are in it, to be removed
    later = memory.migrate_store(on_postgres.ctx.store)
    copied = {t.table: t for t in later.tables}
    assert copied["transitions"].inserted == 1 and copied["memories"].updated >= 1
    assert table_rows(on_postgres.ctx.store) == table_rows(memory.ctx.store)  # the copy's own recalls gone too
    assert on_postgres.get(ids["kept"]).state == "archived"

    back = fresh("back.db")
    returned = on_postgres.migrate_store(back.ctx.store)
    assert all(t.source == t.target for t in returned.tables)
    assert table_rows(back.ctx.store) == table_rows(memory.ctx.store) and back.audit_verify().ok
    for query in queries:
        assert same_answers(back, memory, query)
    added = on_postgres.remember(HUMAN, "Release notes are drafted by the on-call engineer", project=P)
    assert added.id not in {row[1] for row in source["memories"]} and on_postgres.audit_verify().ok


def test_a_copy_into_postgresql_is_analysed_before_it_is_used(memory, on_postgres, tmp_path):
    """The planner's statistics and row count (the full-text IDF's N) are there at once, not at
    autovacuum's next round."""
    populate(memory, tmp_path)

    def planner_rows() -> float:
        with on_postgres.ctx.store.read() as conn:
            return conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass").fetchone()[0]

    assert planner_rows() == -1  # the control: a table never analysed
    memory.migrate_store(on_postgres.ctx.store)
    with memory.ctx.store.read() as conn:
        held = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    assert held > 0 and planner_rows() == held


def test_memories_go_into_postgresql_a_batch_at_a_copy_and_their_counts_are_derived(memory, on_postgres):
    """Memories and their vectors are copied into PostgreSQL a batch (`transfer.BATCH` rows) at a
    COPY, so that the postings' and the vector log's triggers run once a batch: row by row, in the
    copy's one transaction, each common word's counter took a new version with every memory (10,000
    memories took 313 s). The words', the content's pairs' and the totals' counts are then those of
    the rows copied, and the vectors the source's."""
    from dataclasses import replace

    from cenotaph.store import memories
    from cenotaph.store.postgres.connection import PgCursor

    from tests.store.test_postgres import _row

    rng = np.random.default_rng(9)
    block = rng.normal(size=(transfer.BATCH + 300, memory.ctx.embedder.dim)).astype(np.float32)
    memory.ctx.ensure_vectors()
    with memory.ctx.store.write() as conn:
        for n, vector in enumerate(block):
            row_id = memories.insert(conn, replace(_row(P), memory_id=n + 1, content=f"deploy the staging database {n % 7}"))
            vectors.insert(conn, row_id, P, vector)
    copies, inserts = [], []
    copy, executemany = PgCursor.copy, PgCursor.executemany

    def counted_copy(self, statement, *args, **kwargs):
        copies.append(str(statement))
        return copy(self, statement, *args, **kwargs)

    def counted_executemany(self, query, params_seq, **kwargs):
        inserts.append(str(query))
        return executemany(self, query, params_seq, **kwargs)

    PgCursor.copy, PgCursor.executemany = counted_copy, counted_executemany
    try:
        memory.migrate_store(on_postgres.ctx.store)
    finally:
        PgCursor.copy, PgCursor.executemany = copy, executemany
    assert sum(s.startswith("COPY memories ") for s in copies) == 2
    assert sum(s.startswith(f"COPY {vectors.TABLE} ") for s in copies) == 2
    assert not any("INSERT INTO memories" in q or f"INSERT INTO {vectors.TABLE}" in q for q in inserts)
    with on_postgres.ctx.store.read() as conn:
        words = conn.execute("SELECT count(*) FROM (SELECT lexeme, count(*) AS n FROM memory_postings GROUP BY lexeme) t "
                             "FULL JOIN word_rows w USING (lexeme) WHERE t.n IS DISTINCT FROM w.rows").fetchone()[0]
        pairs = conn.execute("SELECT count(*) FROM (SELECT first, second, count(*) AS n FROM memories m, "
                             "cenotaph_content_pairs(m.fts) GROUP BY 1, 2) t FULL JOIN content_pairs c "
                             "USING (first, second) WHERE t.n IS DISTINCT FROM c.rows").fetchone()[0]
        staging = conn.execute("SELECT rows FROM content_pairs WHERE first = 'staging' AND second = 'database'"
                               ).fetchone()[0]
        totals = conn.execute("SELECT rows, tokens FROM fts_totals").fetchone()
        held = conn.execute("SELECT count(*), sum(fts_tokens) FROM memories").fetchone()
    assert words == 0 and pairs == 0 and staging == transfer.BATCH + 300
    assert tuple(totals) == tuple(held) and held[0] == transfer.BATCH + 300
    with memory.ctx.store.read() as lite, on_postgres.ctx.store.read() as conn:
        ids = [row_id for (row_id,) in lite.execute("SELECT id FROM memories ORDER BY id")]
        source, copied = vectors.embeddings(lite, ids), vectors.embeddings(conn, ids)
    assert len(copied) == len(ids) and all(np.array_equal(copied[i], source[i]) for i in ids)

"""Numbered schema migrations, applied in order and recorded. A released migration is never
edited: a change to the schema is a new function appended to MIGRATIONS."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from cenotaph.store import events

Migration = Callable[[Any], None]


def _run_script(conn: Any, script: str) -> None:
    """Run statements one by one: `executescript` would commit the migration's transaction."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""


def _m0001_initial(conn: Any) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        -- One row per version of a memory. memory_id is the stable id a person or agent sees; a
        -- content edit closes the current row's record time and inserts a new row.
        CREATE TABLE memories (
            id               INTEGER PRIMARY KEY,
            memory_id        INTEGER NOT NULL,
            version          INTEGER NOT NULL DEFAULT 1,
            project          TEXT NOT NULL,
            kind             TEXT NOT NULL CHECK (kind IN ('note','experience','decision','preference','fact')),
            content          TEXT NOT NULL,
            content_hash     TEXT NOT NULL,
            lemmas           TEXT NOT NULL DEFAULT '',
            context          TEXT NOT NULL DEFAULT '',
            tags             TEXT NOT NULL DEFAULT '[]',
            source           TEXT NOT NULL CHECK (source IN ('human','agent','import')),
            actor            TEXT NOT NULL,
            state            TEXT NOT NULL DEFAULT 'active'
                             CHECK (state IN ('active','deprioritised','archived','deleted')),
            state_reason     TEXT,
            reinstate_hints  TEXT NOT NULL DEFAULT '[]',
            trust            TEXT NOT NULL CHECK (trust IN ('unverified','confirmed','disputed','refuted')),
            trust_reason     TEXT,
            polarity         INTEGER NOT NULL DEFAULT 0,
            valid_from       TEXT NOT NULL,
            valid_to         TEXT,
            recorded_at      TEXT NOT NULL,
            superseded_at    TEXT,
            effort           INTEGER CHECK (effort BETWEEN 1 AND 5),
            outcome          TEXT CHECK (outcome IN ('success','partial','abandoned','failed')),
            iterations       INTEGER,
            breakthrough     TEXT,
            gotchas          TEXT NOT NULL DEFAULT '[]',
            recall_count     INTEGER NOT NULL DEFAULT 0,
            last_recalled_at TEXT
        );
        CREATE INDEX memories_current ON memories (project, superseded_at, state);
        CREATE INDEX memories_lineage ON memories (memory_id, version);
        CREATE INDEX memories_hash ON memories (content_hash);

        -- Full text over content, its lemmas and its neighbouring context, kept in step by triggers.
        CREATE VIRTUAL TABLE memory_fts USING fts5 (
            content, lemmas, context, tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memory_fts (rowid, content, lemmas, context)
            VALUES (new.id, new.content, new.lemmas, new.context);
        END;
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
            DELETE FROM memory_fts WHERE rowid = old.id;
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, lemmas, context ON memories BEGIN
            DELETE FROM memory_fts WHERE rowid = old.id;
            INSERT INTO memory_fts (rowid, content, lemmas, context)
            VALUES (new.id, new.content, new.lemmas, new.context);
        END;

        -- Entities extracted from a memory (library and tool names): derived, rebuildable.
        CREATE TABLE memory_entities (
            memory_row INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
            value      TEXT NOT NULL,
            PRIMARY KEY (memory_row, value)
        ) WITHOUT ROWID;
        CREATE INDEX memory_entities_value ON memory_entities (value);

        -- State and trust transitions with their reasons: the as-of reads replay these.
        CREATE TABLE transitions (
            id         INTEGER PRIMARY KEY,
            memory_id  INTEGER NOT NULL,
            field      TEXT NOT NULL CHECK (field IN ('state','trust')),
            from_value TEXT,
            to_value   TEXT NOT NULL,
            reason     TEXT,
            actor      TEXT NOT NULL,
            at         TEXT NOT NULL
        );
        CREATE INDEX transitions_memory ON transitions (memory_id, at);

        -- Forgotten memories: content gone, this kept so no restore or import brings it back.
        CREATE TABLE tombstones (
            memory_id    INTEGER PRIMARY KEY,
            content_hash TEXT NOT NULL,
            reason       TEXT NOT NULL,
            actor        TEXT NOT NULL,
            at           TEXT NOT NULL
        );
        CREATE INDEX tombstones_hash ON tombstones (content_hash);

        -- The graveyard.
        CREATE TABLE approaches (
            id            INTEGER PRIMARY KEY,
            project       TEXT NOT NULL,
            name          TEXT NOT NULL,
            display_name  TEXT NOT NULL,
            ecosystem     TEXT NOT NULL,
            reason        TEXT NOT NULL,
            effort        INTEGER CHECK (effort BETWEEN 1 AND 5),
            outcome       TEXT NOT NULL DEFAULT 'abandoned',
            status        TEXT NOT NULL DEFAULT 'abandoned' CHECK (status IN ('abandoned','reinstated')),
            status_reason TEXT,
            memory_id     INTEGER,
            actor         TEXT NOT NULL,
            created_at    TEXT NOT NULL,
            updated_at    TEXT NOT NULL,
            UNIQUE (project, name)
        );

        -- Aliases are human verdicts (import name vs distribution name): no rebuild drops them.
        CREATE TABLE approach_aliases (
            approach_id INTEGER NOT NULL REFERENCES approaches (id) ON DELETE CASCADE,
            alias       TEXT NOT NULL,
            PRIMARY KEY (approach_id, alias)
        ) WITHOUT ROWID;

        CREATE TABLE suppressions (
            id            INTEGER PRIMARY KEY,
            project       TEXT NOT NULL,
            kind          TEXT NOT NULL CHECK (kind IN ('diagnostic','recall')),
            value         TEXT NOT NULL,
            reason        TEXT NOT NULL,
            actor         TEXT NOT NULL,
            created_at    TEXT NOT NULL,
            lifted_at     TEXT,
            lifted_reason TEXT,
            lifted_by     TEXT
        );
        CREATE INDEX suppressions_value ON suppressions (value, kind, project);

        CREATE TABLE contradictions (
            id          INTEGER PRIMARY KEY,
            project     TEXT NOT NULL,
            memory_a    INTEGER NOT NULL,
            memory_b    INTEGER NOT NULL,
            found_by    TEXT NOT NULL CHECK (found_by IN ('heuristic','person','agent')),
            explanation TEXT NOT NULL,
            status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved','dismissed')),
            resolution  TEXT CHECK (resolution IN ('keep_a','keep_b','both','neither')),
            reason      TEXT,
            actor       TEXT NOT NULL,
            created_at  TEXT NOT NULL,
            decided_at  TEXT,
            decided_by  TEXT
        );
        CREATE INDEX contradictions_status ON contradictions (project, status);

        -- "Not a contradiction", keyed on both content hashes (sorted) so the pair is never re-flagged.
        CREATE TABLE dismissals (
            hash_low  TEXT NOT NULL,
            hash_high TEXT NOT NULL,
            reason    TEXT NOT NULL,
            actor     TEXT NOT NULL,
            at        TEXT NOT NULL,
            PRIMARY KEY (hash_low, hash_high)
        ) WITHOUT ROWID;

        CREATE TABLE proposals (
            id              INTEGER PRIMARY KEY,
            project         TEXT NOT NULL,
            action          TEXT NOT NULL,
            target          TEXT NOT NULL,
            arguments       TEXT NOT NULL,
            reason          TEXT NOT NULL,
            actor           TEXT NOT NULL,
            status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','accepted','rejected')),
            created_at      TEXT NOT NULL,
            decided_at      TEXT,
            decided_by      TEXT,
            decision_reason TEXT
        );

        CREATE TABLE recall_log (
            id      INTEGER PRIMARY KEY,
            at      TEXT NOT NULL,
            actor   TEXT NOT NULL,
            project TEXT NOT NULL,
            query   TEXT NOT NULL,
            results TEXT NOT NULL
        );
        CREATE INDEX recall_log_at ON recall_log (at);

        -- The audit log and change feed: append-only, hash-chained.
        CREATE TABLE events (
            seq       INTEGER PRIMARY KEY AUTOINCREMENT,
            at        TEXT NOT NULL,
            actor     TEXT NOT NULL,
            action    TEXT NOT NULL,
            target    TEXT NOT NULL,
            project   TEXT NOT NULL,
            before    TEXT,
            after     TEXT,
            reason    TEXT,
            prev_hash TEXT NOT NULL,
            hash      TEXT NOT NULL
        );
        CREATE INDEX events_target ON events (target);
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN
            SELECT RAISE(ABORT, 'events are append-only');
        END;
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN
            SELECT RAISE(ABORT, 'events are append-only');
        END;
        """
    )


def _m0002_binary_vector_index(conn: Any) -> None:
    """Exact cosine KNN over float vectors costs ≈ 90 ms per query at 100,000 vectors with
    sqlite-vec 0.1.9 (no SIMD in its wheel): search a binary quantization instead (one bit a
    dimension, Hamming distance, ≈ 10× cheaper) and rescore its candidates with the float vectors,
    kept beside it as an auxiliary column. The vectors move from `memory_vec` to `memory_vectors`."""
    found = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_vec'").fetchone()
    if not found:
        return  # no vectors yet: the table is created with the model's dimension on first write
    start = found[0].index("float[") + len("float[")
    dim = int(found[0][start:found[0].index("]", start)])
    conn.execute(
        f"""CREATE VIRTUAL TABLE memory_vectors USING vec0 (
                row_id INTEGER PRIMARY KEY,
                project TEXT PARTITION KEY,
                bits bit[{dim}],
                +embedding BLOB
            )"""
    )
    conn.execute("INSERT INTO memory_vectors (row_id, project, bits, embedding) "
                 "SELECT row_id, project, vec_quantize_binary(embedding), embedding FROM memory_vec")
    conn.execute("DROP TRIGGER IF EXISTS memories_vec_delete")
    conn.execute("DROP TABLE memory_vec")
    conn.execute("CREATE TRIGGER memories_vec_delete AFTER DELETE ON memories BEGIN "
                 "DELETE FROM memory_vectors WHERE row_id = old.id; END")


def _m0003_substring_index(conn: Any) -> None:
    """The exact lane's last resort finds text inside words ("runtime.Infer" in
    "onnxruntime.InferenceSession"), which the word index cannot: an `instr` scan of every row,
    ≈ 160 ms at 100,000 memories. A trigram index over the content (external content: no second
    copy of the text) finds the rows holding every trigram of the needle first."""
    _run_script(
        conn,
        """
        CREATE VIRTUAL TABLE memory_substrings USING fts5 (
            content, content = 'memories', content_rowid = 'id', tokenize = 'trigram case_sensitive 1'
        );
        CREATE TRIGGER memories_substrings_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memory_substrings (rowid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER memories_substrings_delete AFTER DELETE ON memories BEGIN
            INSERT INTO memory_substrings (memory_substrings, rowid, content) VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER memories_substrings_update AFTER UPDATE OF content ON memories BEGIN
            INSERT INTO memory_substrings (memory_substrings, rowid, content) VALUES ('delete', old.id, old.content);
            INSERT INTO memory_substrings (rowid, content) VALUES (new.id, new.content);
        END;
        INSERT INTO memory_substrings (memory_substrings) VALUES ('rebuild');
        """
    )


def _m0004_mining(conn: Any) -> None:
    """Mining the repository's history and agent transcripts: where each source was last read up
    to (so a rerun reads only what is new), and the candidates a person rejected, keyed on the
    normalized name so that no later run proposes them again."""
    _run_script(
        conn,
        """
        CREATE TABLE mining_cursors (
            project    TEXT NOT NULL,
            source     TEXT NOT NULL,
            key        TEXT NOT NULL,
            value      TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (project, source, key)
        );
        CREATE TABLE candidate_dismissals (
            project    TEXT NOT NULL,
            ecosystem  TEXT NOT NULL,
            name       TEXT NOT NULL,
            reason     TEXT NOT NULL,
            actor      TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (project, ecosystem, name)
        );
        """
    )


def _relax_check(conn: Any, table: str, old: str, new: str) -> None:
    """Widen one CHECK constraint in place. SQLite cannot alter a constraint; its documented
    shortcut for changes that leave the stored rows valid (https://sqlite.org/lang_altertable.html,
    "making other kinds of table schema changes") rewrites the table's SQL instead of copying every
    row into a new table, which at 100,000 memories and their indexes would take seconds."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
    if old not in sql:
        raise RuntimeError(f"{table}: expected the constraint {old!r}")
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                     (sql.replace(old, new), table))
        conn.execute(f"PRAGMA schema_version = {version + 1}")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


def _m0005_documents_and_feeds(conn: Any) -> None:
    """Two kinds of memory that come from outside the conversation: `document` (a chunk of one of
    the repository's documents, with where it lies) and `knowledge` (an entry of a feed, which
    expires unless a person promotes it)."""
    _relax_check(conn, "memories", "CHECK (kind IN ('note','experience','decision','preference','fact'))",
                 "CHECK (kind IN ('note','experience','decision','preference','fact','document','knowledge'))")
    _run_script(
        conn,
        """
        -- Where a document chunk lies; `ordinal` is its place among its section's chunks, which is
        -- how a changed chunk finds the memory it is a new version of.
        CREATE TABLE document_chunks (
            memory_id  INTEGER PRIMARY KEY,
            project    TEXT NOT NULL,
            path       TEXT NOT NULL,
            heading    TEXT NOT NULL,
            ordinal    INTEGER NOT NULL,
            start_line INTEGER NOT NULL,
            end_line   INTEGER NOT NULL
        );
        CREATE INDEX document_chunks_path ON document_chunks (project, path);

        CREATE TABLE feeds (
            id           INTEGER PRIMARY KEY,
            project      TEXT NOT NULL,
            url          TEXT NOT NULL,
            title        TEXT,
            expires_days INTEGER NOT NULL,
            etag         TEXT,
            modified     TEXT,
            last_pulled  TEXT,
            last_success TEXT,
            last_error   TEXT,
            created_at   TEXT NOT NULL,
            UNIQUE (project, url)
        );
        CREATE TABLE feed_entries (
            memory_id   INTEGER PRIMARY KEY,
            feed_id     INTEGER NOT NULL,
            entry_key   TEXT NOT NULL,
            link        TEXT,
            title       TEXT,
            expires_at  TEXT,
            promoted_at TEXT
        );
        CREATE INDEX feed_entries_key ON feed_entries (feed_id, entry_key);
        CREATE INDEX feed_entries_expiry ON feed_entries (expires_at);
        """
    )


VACUUM_PENDING = "vacuum_pending"


def _m0006_forgotten_means_gone(conn: Any) -> None:
    """After `forget`, no byte of a memory's content or tags may stay readable in the file. What
    this migration changes, for new writes and for what older versions left behind:

    * Both full-text indexes delete for real (FTS5 `secure-delete`, SQLite ≥ 3.42): without it a
      deleted row's words stay in the index's segments until a merge. Where SQLite is older,
      `forget` merges the index instead (`store/memories.py: purge_deleted_terms`). Every
      connection also runs with `PRAGMA secure_delete` (store/connect.py), which zeroes freed
      cells and pages.
    * Events now carry a hash of a memory's tags, never the tags (`remember`, `import`). Older
      `remember` and `import` events quoted the tags, and the log is append-only and
      hash-chained: their payload is rewritten once here, behind the triggers (lifted for this
      transaction only), and each keeps its stored hash so the chain still links. The list of
      (seq, hash of the rewritten form) goes to `event_scrubs`, and a `scrub` event appended to
      the chain records that list's digest; `audit verify` accepts a rewritten row only when it
      matches that list and the list matches the attesting event, so the log stays
      tamper-evident. Rewriting every such event, not only the forgotten ones', leaves one rule
      for all: no event quotes text that forgetting erases.
    * Recalls that returned a memory forgotten earlier leave the recall log; the full-text
      indexes are merged once (dropping words already deleted); and, since older versions freed
      pages without zeroing them, the store is rewritten once (VACUUM cannot run inside this
      transaction: `Store` does it on open while `vacuum_pending` is set)."""
    conn.execute("CREATE TABLE event_scrubs (seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, scrub_seq INTEGER NOT NULL)")
    conn.execute("CREATE TRIGGER event_scrubs_no_update BEFORE UPDATE ON event_scrubs BEGIN "
                 "SELECT RAISE(ABORT, 'event scrubs are append-only'); END")
    conn.execute("CREATE TRIGGER event_scrubs_no_delete BEFORE DELETE ON event_scrubs BEGIN "
                 "SELECT RAISE(ABORT, 'event scrubs are append-only'); END")
    version = tuple(int(part) for part in conn.execute("SELECT sqlite_version()").fetchone()[0].split("."))
    if version >= (3, 42):
        for table in ("memory_fts", "memory_substrings"):
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1)")

    quoted = conn.execute("SELECT seq, after FROM events WHERE action IN ('remember', 'import') "
                          "AND after LIKE '%\"tags\":%' ORDER BY seq").fetchall()
    if quoted:
        (append_only,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'").fetchone()
        conn.execute("DROP TRIGGER events_no_update")
        entries = []
        for seq, after_json in quoted:
            after = json.loads(after_json)
            after["tags_hash"] = events.tags_hash(after.pop("tags"))
            entries.append((seq, events.rewrite_payload(conn, seq, after=after)))
        conn.execute(append_only)
        at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        events.attest_scrubs(conn, entries, at=at,
                             reason="events keep a hash of a memory's tags, not the tags (forgotten means gone)")

    if conn.execute("SELECT 1 FROM tombstones LIMIT 1").fetchone():
        conn.execute("DELETE FROM recall_log WHERE EXISTS (SELECT 1 FROM json_each(recall_log.results) "
                     "WHERE json_extract(value, '$.type') = 'memory' "
                     "AND json_extract(value, '$.id') IN (SELECT memory_id FROM tombstones))")
        for table in ("memory_fts", "memory_substrings"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                     (VACUUM_PENDING, "1"))


def _m0007_blessings(conn: Any) -> None:
    """A person's word that a memory is a lesson worth compiling (`cenotaph bless`), keyed on the
    stable memory id so that it outlives content edits."""
    _run_script(
        conn,
        """
        CREATE TABLE blessings (
            memory_id INTEGER PRIMARY KEY,
            project   TEXT NOT NULL,
            reason    TEXT,
            actor     TEXT NOT NULL,
            at        TEXT NOT NULL
        );
        """
    )


def _m0008_compaction(conn: Any) -> None:
    """Compaction: a summary a person wrote (or accepted from an agent) stands for a cluster of
    older memories, which move to the state `superseded` (out of recall, kept whole, listed by
    history and as-of reads). `summary_sources` links each source to the summary memory that
    stands for it, with the state it had before, so that forgetting or refuting the summary puts
    every source back as it was (`restored_at` is set then). Not to be confused with
    `memories.superseded_at`, which closes a version row replaced by a newer version of the same
    memory."""
    _relax_check(conn, "memories", "CHECK (state IN ('active','deprioritised','archived','deleted'))",
                 "CHECK (state IN ('active','deprioritised','archived','deleted','superseded'))")
    _run_script(
        conn,
        """
        CREATE TABLE summary_sources (
            summary_id     INTEGER NOT NULL,
            source_id      INTEGER NOT NULL,
            project        TEXT NOT NULL,
            cluster_id     TEXT NOT NULL,
            previous_state TEXT NOT NULL,
            created_at     TEXT NOT NULL,
            restored_at    TEXT,
            PRIMARY KEY (summary_id, source_id)
        );
        CREATE INDEX summary_sources_source ON summary_sources (source_id);
        """
    )


def _m0009_concepts(conn: Any) -> None:
    """Concepts: what memories are about (memory/core/concepts.py). Links and co-occurrence pairs are
    derived (`cenotaph concepts rebuild` drops and re-derives them); a person's verdicts are keyed
    on normalized values, not on row ids, so no rebuild drops them."""
    _run_script(
        conn,
        """
        CREATE TABLE memory_concepts (
            memory_row INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
            concept    TEXT NOT NULL,
            kind       TEXT NOT NULL CHECK (kind IN ('package','path','identifier','phrase')),
            PRIMARY KEY (memory_row, concept)
        ) WITHOUT ROWID;
        -- By concept, newest row first: recall's expansion and `related` read a concept's latest links.
        CREATE INDEX memory_concepts_concept ON memory_concepts (concept, memory_row);

        -- A memory's strongest concept pairs (a bounded number), low < high.
        CREATE TABLE concept_pairs (
            memory_row INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
            low        TEXT NOT NULL,
            high       TEXT NOT NULL,
            PRIMARY KEY (memory_row, low, high)
        ) WITHOUT ROWID;
        CREATE INDEX concept_pairs_low ON concept_pairs (low);
        CREATE INDEX concept_pairs_high ON concept_pairs (high);

        -- Verdicts. `merge` and `rename` make `alias` another spelling of `canonical`.
        CREATE TABLE concept_aliases (
            alias     TEXT PRIMARY KEY,
            canonical TEXT NOT NULL,
            verdict   TEXT NOT NULL CHECK (verdict IN ('merge','rename')),
            reason    TEXT,
            actor     TEXT NOT NULL,
            at        TEXT NOT NULL
        );
        CREATE INDEX concept_aliases_canonical ON concept_aliases (canonical);
        CREATE TABLE concept_removals (
            concept TEXT PRIMARY KEY,
            reason  TEXT,
            actor   TEXT NOT NULL,
            at      TEXT NOT NULL
        );
        CREATE TABLE concept_dismissals (
            low    TEXT NOT NULL,
            high   TEXT NOT NULL,
            reason TEXT,
            actor  TEXT NOT NULL,
            at     TEXT NOT NULL,
            PRIMARY KEY (low, high)
        );
        """
    )


def _m0010_anchors(conn: Any) -> None:
    """A memory anchored to code: its file relative to the repository root, its lines (1-based,
    inclusive), the lines as they were (`text`) with a little context on either side (the
    fingerprint the anchor is re-found by), the commit it was taken at, and the state the last
    check left (memory/knowledge/anchors/). Keyed on the stable memory id, so that it outlives content edits."""
    _run_script(
        conn,
        """
        CREATE TABLE anchors (
            memory_id  INTEGER PRIMARY KEY,
            project    TEXT NOT NULL,
            path       TEXT NOT NULL,
            start_line INTEGER NOT NULL,
            end_line   INTEGER NOT NULL,
            text       TEXT NOT NULL,
            lines_before TEXT NOT NULL DEFAULT '',
            lines_after  TEXT NOT NULL DEFAULT '',
            revision   TEXT,
            state      TEXT NOT NULL DEFAULT 'current' CHECK (state IN ('current','moved','stale','lost')),
            taken_at   TEXT NOT NULL,
            checked_at TEXT NOT NULL
        );
        CREATE INDEX anchors_path ON anchors (project, path);
        """
    )


def _m0011_newest_rows(conn: Any) -> None:
    """The newest current rows of a project (of a kind), in record-time order: what a listing of
    the newest memories walks backward and stops after the page, instead of sorting every row of
    the project (0.2 s at 100,000 memories); memories.newest asks one project and kind at a time.
    And the current rows' index holds trust too, so that counting a recall's scope (which leaves
    out the refuted) reads the index alone, not every row (0.09 s → 0.02 s at 100,000); and the
    concepts' index holds the link's kind, so that ranking a project's concepts walks it alone in
    concept order (store/concepts.py `top`: 1.5× faster over 900,000 links)."""
    _run_script(
        conn,
        """
        CREATE INDEX memories_newest ON memories (project, superseded_at, recorded_at);
        CREATE INDEX memories_newest_kind ON memories (project, superseded_at, kind, recorded_at);
        DROP INDEX memories_current;
        CREATE INDEX memories_current ON memories (project, superseded_at, state, trust);
        DROP INDEX memory_concepts_concept;
        CREATE INDEX memory_concepts_concept ON memory_concepts (concept, memory_row, kind);
        """
    )


# A row counts for a concept while it is current (store/concepts.py's _CURRENT).
_COUNTS_IN = "{row}.superseded_at IS NULL AND {row}.state IN ('active','deprioritised')"


def _m0012_concept_counts(conn: Any) -> None:
    """How many current memories of a project link each concept, kept by triggers as links and
    rows come and go (a count that reaches zero goes: a forgotten memory's words leave the file):
    ranking a project's concepts reads these counts instead of counting every link of its current
    rows (≈ 0.5 s at 100,000 memories, paid by the console's first `/concepts`
    after each write)."""
    old, new = _COUNTS_IN.format(row="OLD"), _COUNTS_IN.format(row="NEW")
    # A row that stops being current (or goes) takes its links out of its project's counts.
    counted_out = """UPDATE concept_counts SET memories = memories - 1
            WHERE project = OLD.project AND (concept, kind) IN
                (SELECT concept, kind FROM memory_concepts WHERE memory_row = OLD.id);
            DELETE FROM concept_counts WHERE project = OLD.project AND memories <= 0 AND (concept, kind) IN
                (SELECT concept, kind FROM memory_concepts WHERE memory_row = OLD.id);"""
    _run_script(
        conn,
        f"""
        CREATE TABLE concept_counts (
            project  TEXT NOT NULL,
            concept  TEXT NOT NULL,
            kind     TEXT NOT NULL,
            memories INTEGER NOT NULL,
            PRIMARY KEY (project, concept, kind)
        ) WITHOUT ROWID;
        INSERT INTO concept_counts (project, concept, kind, memories)
            SELECT m.project, c.concept, c.kind, COUNT(*) FROM memory_concepts c JOIN memories m ON m.id = c.memory_row
            WHERE {_COUNTS_IN.format(row="m")} GROUP BY m.project, c.concept, c.kind;
        CREATE TRIGGER concept_counts_linked AFTER INSERT ON memory_concepts BEGIN
            INSERT INTO concept_counts (project, concept, kind, memories)
                SELECT m.project, NEW.concept, NEW.kind, 1 FROM memories m
                WHERE m.id = NEW.memory_row AND {_COUNTS_IN.format(row="m")}
                ON CONFLICT (project, concept, kind) DO UPDATE SET memories = memories + 1;
        END;
        -- A link that goes with its row (a cascade) finds no row: the row's own trigger counted it out.
        CREATE TRIGGER concept_counts_unlinked AFTER DELETE ON memory_concepts BEGIN
            UPDATE concept_counts SET memories = memories - 1
            WHERE concept = OLD.concept AND kind = OLD.kind AND project =
                (SELECT m.project FROM memories m WHERE m.id = OLD.memory_row AND {_COUNTS_IN.format(row="m")});
            DELETE FROM concept_counts WHERE concept = OLD.concept AND kind = OLD.kind AND memories <= 0 AND project =
                (SELECT m.project FROM memories m WHERE m.id = OLD.memory_row);
        END;
        CREATE TRIGGER concept_counts_row_left AFTER UPDATE OF superseded_at, state, project ON memories
            WHEN {old} AND NOT ({new} AND NEW.project = OLD.project) BEGIN
            {counted_out}
        END;
        CREATE TRIGGER concept_counts_row_came AFTER UPDATE OF superseded_at, state, project ON memories
            WHEN {new} AND NOT ({old} AND NEW.project = OLD.project) BEGIN
            INSERT INTO concept_counts (project, concept, kind, memories)
                SELECT NEW.project, concept, kind, 1 FROM memory_concepts WHERE memory_row = NEW.id
                ON CONFLICT (project, concept, kind) DO UPDATE SET memories = memories + 1;
        END;
        CREATE TRIGGER concept_counts_row_deleted BEFORE DELETE ON memories WHEN {old} BEGIN
            {counted_out}
        END;
        """
    )


def _m0013_vector_log(conn: Any) -> None:
    """Each connection keeps a copy of the vectors' signs and searches it with numpy (vec0's own
    search slows with every neighbour asked for): a log of the row ids whose vector was written or
    deleted tells the copies what changed (store/sign_index.py). A random token in each row tells a
    copy that the row it last applied was rolled back or pruned."""
    conn.execute("CREATE TABLE vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, row_id INTEGER NOT NULL, "
                 "token INTEGER NOT NULL DEFAULT (random()))")
    conn.execute("INSERT INTO vector_log (row_id) VALUES (0)")
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memories_vec_delete'").fetchone():
        conn.execute("DROP TRIGGER memories_vec_delete")
        conn.execute("CREATE TRIGGER IF NOT EXISTS memories_vec_delete AFTER DELETE ON memories BEGIN "
                     "DELETE FROM memory_vectors WHERE row_id = old.id; "
                     "INSERT INTO vector_log (row_id) VALUES (old.id); END")


MIGRATIONS: tuple[Migration, ...] = (_m0001_initial, _m0002_binary_vector_index, _m0003_substring_index,
                                     _m0004_mining, _m0005_documents_and_feeds, _m0006_forgotten_means_gone,
                                     _m0007_blessings, _m0008_compaction, _m0009_concepts,
                                     _m0010_anchors, _m0011_newest_rows, _m0012_concept_counts,
                                     _m0013_vector_log)


def schema_version(conn: Any) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").fetchone()
    if not exists:
        return 0
    return conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0]


class SchemaTooNew(RuntimeError):
    """The file was written by a newer Cenotaph."""


def migrate(conn: Any) -> int:
    """Apply every migration newer than the file's schema, each in its own transaction."""
    # A current store is opened without its write lock: a command that only reads (`recall`)
    # must not wait for another process's long write to open it.
    if schema_version(conn) == len(MIGRATIONS):
        return len(MIGRATIONS)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        current = schema_version(conn)
        if current > len(MIGRATIONS):
            raise SchemaTooNew(f"the store has schema {current}; this Cenotaph knows up to {len(MIGRATIONS)}: upgrade cenotaph")
        for number, migration in enumerate(MIGRATIONS, start=1):
            if number <= current:
                continue
            migration(conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (number, migration.__name__.lstrip("_"), datetime.now(UTC).isoformat()),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(MIGRATIONS)

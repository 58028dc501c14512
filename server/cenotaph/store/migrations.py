"""Numbered schema migrations, applied in order and recorded. A released migration is never
edited: a change to the schema is a new function appended to MIGRATIONS."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

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


def _m0004_blessings(conn: Any) -> None:
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


MIGRATIONS: tuple[Migration, ...] = (_m0001_initial, _m0002_binary_vector_index, _m0003_substring_index,
                                     _m0004_blessings)


def schema_version(conn: Any) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").fetchone()
    if not exists:
        return 0
    return conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0]


class SchemaTooNew(RuntimeError):
    """The file was written by a newer Cenotaph."""


def migrate(conn: Any) -> int:
    """Apply every migration newer than the file's schema, each in its own transaction."""
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

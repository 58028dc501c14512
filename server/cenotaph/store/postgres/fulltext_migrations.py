"""PostgreSQL's migrations of the full-text index (the `fts` column, FTS5's BM25 statistics, the
postings), numbered among the others in store/postgres/migrations.py, which applies them in order.
A released migration is never edited."""

from __future__ import annotations

from typing import Any

from cenotaph.store.postgres.fulltext import DIACRITICS, DIACRITICS_FOLDED


def _m0003_folded_full_text(conn: Any) -> None:
    """The full-text column folds diacritics as SQLite's tokenizer does (`unicode61
    remove_diacritics 2`): "cafe" finds "café" on both stores. No extension (`unaccent` is not on
    every server): the Latin letters that decompose into a base letter and accents, written out
    (store/postgres/fulltext.py folds a query's words by the same table)."""
    conn.execute(
        """
        CREATE FUNCTION cenotaph_folded_words(body text) RETURNS text
            LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN translate(cenotaph_words(body),
                'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳ',
                'aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeeeeeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzsoouuaaiioouuuuuuuuuuaaaaggkkoooojggnnaaaaaaeeeeiiiioooorrrruuuusstthhaaeeooooooooyy');
        DROP INDEX memories_fts;
        ALTER TABLE memories DROP COLUMN fts;
        ALTER TABLE memories ADD COLUMN fts tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words(content)), 'A') ||
            setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words(lemmas)), 'B') ||
            setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words(context)), 'C')) STORED;
        CREATE INDEX memories_fts ON memories USING gin (fts);
        """
    )


def _m0004_bm25_statistics(conn: Any) -> None:
    """What FTS5's bm25() reads, kept here so that both stores rank with one formula
    (store/postgres/memories.py): each row's length in tokens (all three columns, as unicode61 counts
    them), and the index's row and token totals, kept by statement triggers under the writers'
    lock. A phrase's weighted count in a row is read from the row's `tsvector`."""
    conn.execute(
        """
        CREATE FUNCTION cenotaph_word_count(body text) RETURNS integer
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN coalesce(array_length(string_to_array(btrim(cenotaph_words(body)), ' '), 1), 0);
        ALTER TABLE memories ADD COLUMN fts_tokens integer GENERATED ALWAYS AS (
            cenotaph_word_count(content) + cenotaph_word_count(lemmas) + cenotaph_word_count(context)) STORED;

        CREATE TABLE fts_totals (
            only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
            rows     BIGINT NOT NULL,
            tokens   BIGINT NOT NULL
        );
        INSERT INTO fts_totals (rows, tokens) SELECT count(*), coalesce(sum(fts_tokens), 0) FROM memories;
        CREATE FUNCTION cenotaph_fts_totals() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'DELETE' THEN
                    UPDATE fts_totals SET rows = rows + (SELECT count(*) FROM added),
                                          tokens = tokens + (SELECT coalesce(sum(fts_tokens), 0) FROM added);
                END IF;
                IF TG_OP <> 'INSERT' THEN
                    UPDATE fts_totals SET rows = rows - (SELECT count(*) FROM removed),
                                          tokens = tokens - (SELECT coalesce(sum(fts_tokens), 0) FROM removed);
                END IF;
                RETURN NULL;
            END $$;
        CREATE TRIGGER memories_fts_totals_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_fts_totals();
        CREATE TRIGGER memories_fts_totals_update AFTER UPDATE ON memories
            REFERENCING OLD TABLE AS removed NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_fts_totals();
        CREATE TRIGGER memories_fts_totals_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_fts_totals();

        -- A phrase's occurrences in a row, each weighing its column's weight (bm25()'s 1, 0.6 and
        -- 0.25 for content A, lemmas B, context C), in the columns `labels` names: FTS5's weighted
        -- term frequency. A phrase's words stand at consecutive positions of one column.
        CREATE FUNCTION cenotaph_phrase_frequency(vector tsvector, phrase text[], labels text) RETURNS float8
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN (SELECT coalesce(sum(CASE head.weight WHEN 'A' THEN 1.0::float8 WHEN 'B' THEN 0.6::float8
                                                         ELSE 0.25::float8 END), 0::float8)
                    FROM unnest(vector) AS lexeme, unnest(lexeme.positions, lexeme.weights) AS head(position, weight)
                    WHERE lexeme.lexeme = phrase[1] AND strpos(labels, head.weight) > 0
                      AND NOT EXISTS (
                          SELECT FROM generate_series(2, cardinality(phrase)) AS k
                          WHERE NOT EXISTS (
                              SELECT FROM unnest(vector) AS later, unnest(later.positions, later.weights) AS word(position, weight)
                              WHERE later.lexeme = phrase[k] AND word.position = head.position + k - 1
                                AND word.weight = head.weight)));
        -- Okapi BM25 of one phrase in one row, term by term as FTS5's bm25() computes it in double
        -- precision (k1 = 1.2, b = 0.75).
        CREATE FUNCTION cenotaph_bm25(frequency float8, tokens integer, idf float8, average float8) RETURNS float8
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN idf * ((frequency * (1.2::float8 + 1.0::float8))
                          / (frequency + 1.2::float8 * (1::float8 - 0.75::float8 + 0.75::float8 * tokens::float8 / average)));
        """
    )


def _m0006_phrase_counts_set_wise(conn: Any) -> None:
    """A phrase's count in a row is found set-wise by the search itself (store/postgres/memories.py):
    migration 4's per-row function, 30 to 40 times slower, has no caller left. That search reads
    each matching row's `tsvector`; kept in the row (compressed if need be) rather than out of line,
    where a read costs a TOAST lookup, it takes half the time. The rows already there are
    rewritten once (an update that changes nothing recomputes the column), as long as rewriting
    the table takes."""
    conn.execute("DROP FUNCTION cenotaph_phrase_frequency(tsvector, text[], text)")
    conn.execute("ALTER TABLE memories ALTER COLUMN fts SET STORAGE MAIN")
    conn.execute("UPDATE memories SET content = content")


def _m0007_postings(conn: Any) -> None:
    """Each row's words with their weighted count (FTS5's term frequency over the three columns,
    summed in position order as bm25() sums it), kept by statement triggers under the writers'
    lock: a single-word phrase's count in a row is then a lookup (store/postgres/memories.py)
    instead of narrowing every matching row's `tsvector` (≈ 2.5× faster at 10,000 memories). An
    update that leaves the text alone (recall's counters, a state change) does not touch them."""
    conn.execute(
        """
        CREATE TABLE memory_postings (
            lexeme    TEXT NOT NULL,
            row_id    BIGINT NOT NULL,
            frequency FLOAT8 NOT NULL,
            PRIMARY KEY (lexeme, row_id)
        );
        CREATE INDEX memory_postings_row ON memory_postings (row_id);
        CREATE FUNCTION cenotaph_postings(vector tsvector) RETURNS TABLE (lexeme text, frequency float8)
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT l.lexeme, (SELECT sum(CASE o.weight WHEN 'A' THEN 1.0::float8 WHEN 'B' THEN 0.6::float8
                                                       ELSE 0.25::float8 END ORDER BY o.position)
                              FROM unnest(l.positions, l.weights) AS o(position, weight))
            FROM unnest(vector) AS l $$;
        CREATE FUNCTION cenotaph_postings_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    DELETE FROM memory_postings p USING removed r WHERE p.row_id = r.id;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    INSERT INTO memory_postings (lexeme, row_id, frequency)
                        SELECT w.lexeme, a.id, w.frequency FROM added a, cenotaph_postings(a.fts) AS w;
                END IF;
                RETURN NULL;
            END $$;
        CREATE TRIGGER memories_postings_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_postings_kept();
        -- Row by row for updates: a statement trigger cannot both name columns and see the rows.
        CREATE FUNCTION cenotaph_postings_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM memory_postings WHERE row_id = OLD.id;
                INSERT INTO memory_postings (lexeme, row_id, frequency)
                    SELECT w.lexeme, NEW.id, w.frequency FROM cenotaph_postings(NEW.fts) AS w;
                RETURN NULL;
            END $$;
        CREATE TRIGGER memories_postings_update AFTER UPDATE ON memories
            FOR EACH ROW WHEN (OLD.fts IS DISTINCT FROM NEW.fts OR OLD.id <> NEW.id)
            EXECUTE FUNCTION cenotaph_postings_rewritten();
        CREATE TRIGGER memories_postings_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_postings_kept();
        INSERT INTO memory_postings (lexeme, row_id, frequency)
            SELECT w.lexeme, m.id, w.frequency FROM memories m, cenotaph_postings(m.fts) AS w;
        ANALYZE memory_postings;
        """
    )


def _m0014_phrase_occurrences(conn: Any) -> None:
    """Phrases inside one column, found from the postings.

    Each column's words start a position after the previous column's last, so that a phrase
    (`'a' <-> 'b'`) no longer matches a column's last word followed by the next column's first,
    which FTS5 never matches: such a row was counted in the phrase's rows (its IDF) and listed at
    score 0. The `fts` column is computed again (kept in the row, as migration 6 set it).

    Each posting also holds its word's occurrences in the row, each as position × 4 + its column's
    label (A 0, B 1, C 2), in position order: a phrase's count in a row is then found from its
    words' postings (word k at the head's occurrence + 4 × (k - 1): the next position, same column)
    instead of narrowing every matching row's `tsvector`, which cost ≈ 9 µs a row (18 of an
    exact-lane recall's 37 ms at 10,000 memories; store/postgres/memories.py). The table is built
    again from the rows, with its functions and triggers, and read from its indexes alone."""
    conn.execute(
        """
        DROP TRIGGER memories_postings_insert ON memories;
        DROP TRIGGER memories_postings_update ON memories;
        DROP TRIGGER memories_postings_delete ON memories;
        DROP FUNCTION cenotaph_postings_kept(), cenotaph_postings_rewritten(), cenotaph_postings(tsvector);
        DROP TABLE memory_postings;

        -- A column's words from position 2: 'cenotaph.gap' is one token of the parser's (a host
        -- name) and no folded word holds a dot.
        CREATE FUNCTION cenotaph_spaced_words(body text) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN ts_delete(to_tsvector('simple'::regconfig, 'cenotaph.gap ' || cenotaph_folded_words(body)),
                             'cenotaph.gap'::text);
        DROP INDEX memories_fts;
        ALTER TABLE memories DROP COLUMN fts;
        -- One statement: the table is rewritten once, after the column's storage is set.
        ALTER TABLE memories ADD COLUMN fts tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words(content)), 'A') ||
                setweight(cenotaph_spaced_words(lemmas), 'B') ||
                setweight(cenotaph_spaced_words(context), 'C')) STORED,
            ALTER COLUMN fts SET STORAGE MAIN;
        CREATE INDEX memories_fts ON memories USING gin (fts);

        CREATE TABLE memory_postings (
            lexeme      TEXT NOT NULL,
            row_id      BIGINT NOT NULL,
            frequency   FLOAT8 NOT NULL,
            occurrences INTEGER[] NOT NULL
        );
        CREATE FUNCTION cenotaph_postings(vector tsvector)
            RETURNS TABLE (lexeme text, frequency float8, occurrences integer[])
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT l.lexeme, o.frequency, o.occurrences FROM unnest(vector) AS l,
                LATERAL (SELECT sum(CASE o.weight WHEN 'A' THEN 1.0::float8 WHEN 'B' THEN 0.6::float8
                                                  ELSE 0.25::float8 END ORDER BY o.position) AS frequency,
                                array_agg(o.position * 4 + ascii(o.weight::text) - 65 ORDER BY o.position) AS occurrences
                         FROM unnest(l.positions, l.weights) AS o(position, weight)) AS o $$;
        CREATE FUNCTION cenotaph_postings_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    DELETE FROM memory_postings p USING removed r WHERE p.row_id = r.id;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
                        SELECT w.lexeme, a.id, w.frequency, w.occurrences FROM added a, cenotaph_postings(a.fts) AS w;
                END IF;
                RETURN NULL;
            END $$;
        CREATE TRIGGER memories_postings_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_postings_kept();
        CREATE FUNCTION cenotaph_postings_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM memory_postings WHERE row_id = OLD.id;
                INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
                    SELECT w.lexeme, NEW.id, w.frequency, w.occurrences FROM cenotaph_postings(NEW.fts) AS w;
                RETURN NULL;
            END $$;
        CREATE TRIGGER memories_postings_update AFTER UPDATE ON memories
            FOR EACH ROW WHEN (OLD.fts IS DISTINCT FROM NEW.fts OR OLD.id <> NEW.id)
            EXECUTE FUNCTION cenotaph_postings_rewritten();
        CREATE TRIGGER memories_postings_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION cenotaph_postings_kept();
        INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
            SELECT w.lexeme, m.id, w.frequency, w.occurrences FROM memories m, cenotaph_postings(m.fts) AS w;
        -- A word's postings are read from an index alone, its frequency and occurrences beside the
        -- key: read from the table, each sat on a page of its own (a common word's 25,000 rows at
        -- 100,000 memories, ≈ 110 ms). An entry stays within a B-tree's limit (2,704 bytes) with a
        -- word of up to 400 bytes and its 256 positions at most; the rare longer word is found
        -- through the other index (store/postgres/memories.py names the side in each lookup).
        CREATE INDEX memory_postings_words ON memory_postings (lexeme, row_id) INCLUDE (frequency, occurrences)
            WHERE octet_length(lexeme) <= 400;
        CREATE INDEX memory_postings_long_words ON memory_postings (lexeme, row_id) INCLUDE (frequency)
            WHERE octet_length(lexeme) > 400;
        CREATE INDEX memory_postings_row ON memory_postings (row_id);
        ANALYZE memory_postings;
        """
    )


def _m0015_live_rows_index(conn: Any) -> None:
    """The live rows' scope and length, from an index alone. A query whose branches are each one
    phrase (the semantic lane's words) finds its rows from the postings, then each row's scope
    and token count here: testing each row's `tsvector` against the query instead read the whole
    table (its vectors are kept in the rows), 12 of the statement's 20 ms at 10,000 memories.

    Beside it, a query's rows counted (or found at all) through the full-text index, in a
    function that plans without sequential scans: the planner prices one below the index for a
    common word, but matching a row there reads its vector, while the index counts a word's rows
    without reading them (10 times faster at 10,000 memories). The setting was a transaction's,
    set and set back around the count: four statements where one is sent now."""
    conn.execute(
        """
        CREATE INDEX memories_live ON memories (id)
            INCLUDE (fts_tokens, project, state, trust, kind, valid_from) WHERE superseded_at IS NULL;
        CREATE FUNCTION cenotaph_rows_matching(query tsquery) RETURNS bigint
            LANGUAGE sql STABLE SET enable_seqscan = off
            AS $$ SELECT count(*) FROM memories WHERE fts @@ query $$;
        CREATE FUNCTION cenotaph_any_row_matching(query tsquery) RETURNS boolean
            LANGUAGE sql STABLE SET enable_seqscan = off
            AS $$ SELECT EXISTS (SELECT 1 FROM memories WHERE fts @@ query) $$;
        """
    )


def _m0016_word_rows(conn: Any) -> None:
    """How many rows hold each word, kept by the postings' own triggers: a word's IDF was its
    postings counted at each search, an index-only count of every row holding it (4–15 ms for a
    common word at 100,000 memories, 13 of a recall's 28 ms); now it is one row read. Every write
    already holds the store's write lock, so one counter a word serializes nothing new."""
    conn.execute(
        """
        CREATE TABLE word_rows (lexeme TEXT PRIMARY KEY, rows BIGINT NOT NULL);
        INSERT INTO word_rows (lexeme, rows) SELECT lexeme, count(*) FROM memory_postings GROUP BY lexeme;
        CREATE OR REPLACE FUNCTION cenotaph_postings_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    WITH gone AS (DELETE FROM memory_postings p USING removed r WHERE p.row_id = r.id RETURNING p.lexeme)
                    UPDATE word_rows w SET rows = w.rows - g.n
                        FROM (SELECT lexeme, count(*) AS n FROM gone GROUP BY lexeme) AS g WHERE w.lexeme = g.lexeme;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
                                  SELECT w.lexeme, a.id, w.frequency, w.occurrences
                                  FROM added a, cenotaph_postings(a.fts) AS w RETURNING lexeme)
                    INSERT INTO word_rows (lexeme, rows) SELECT lexeme, count(*) FROM kept GROUP BY lexeme
                        ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + excluded.rows;
                END IF;
                RETURN NULL;
            END $$;
        CREATE OR REPLACE FUNCTION cenotaph_postings_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                WITH gone AS (DELETE FROM memory_postings WHERE row_id = OLD.id RETURNING lexeme)
                UPDATE word_rows w SET rows = w.rows - 1 FROM gone g WHERE w.lexeme = g.lexeme;
                WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
                              SELECT w.lexeme, NEW.id, w.frequency, w.occurrences FROM cenotaph_postings(NEW.fts) AS w
                              RETURNING lexeme)
                INSERT INTO word_rows (lexeme, rows) SELECT lexeme, 1 FROM kept
                    ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + 1;
                RETURN NULL;
            END $$;
        """
    )


def _m0018_content_pairs(conn: Any) -> None:
    """How many rows hold each two-word phrase in their content, kept by the postings' triggers
    beside the words' counts (migration 16): the exact lane's phrase (`staging_database.py`, two
    words in the content) had its rows counted for its IDF by joining its words' postings at each
    search, 11.6 of a recall's 22 ms at 100,000 memories (25,727 postings a word); now one row is
    read. A row's pairs are its content's positions each joined to the next, as a phrase's count
    from the postings joins its words' occurrences (store/postgres/memories.py), words of up to 400
    bytes as the postings' own index holds them (a longer word's phrases are counted there). A
    count that reaches zero stays, as a word's does."""
    conn.execute(
        """
        CREATE FUNCTION cenotaph_content_pairs(vector tsvector) RETURNS TABLE (first text, second text)
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            WITH o AS (SELECT l.lexeme, p AS position FROM unnest(ts_filter(vector, '{a}')) AS l, unnest(l.positions) AS p
                       WHERE octet_length(l.lexeme) <= 400)
            SELECT DISTINCT o.lexeme, n.lexeme FROM o JOIN o AS n ON n.position = o.position + 1 $$;
        CREATE TABLE content_pairs (first TEXT NOT NULL, second TEXT NOT NULL, rows BIGINT NOT NULL,
                                    PRIMARY KEY (first, second));
        INSERT INTO content_pairs (first, second, rows)
            SELECT w.first, w.second, count(*) FROM memories m, cenotaph_content_pairs(m.fts) AS w GROUP BY 1, 2;
        CREATE OR REPLACE FUNCTION cenotaph_postings_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    WITH gone AS (DELETE FROM memory_postings p USING removed r WHERE p.row_id = r.id RETURNING p.lexeme)
                    UPDATE word_rows w SET rows = w.rows - g.n
                        FROM (SELECT lexeme, count(*) AS n FROM gone GROUP BY lexeme) AS g WHERE w.lexeme = g.lexeme;
                    UPDATE content_pairs c SET rows = c.rows - g.n
                        FROM (SELECT w.first, w.second, count(*) AS n FROM removed r, cenotaph_content_pairs(r.fts) AS w
                              GROUP BY 1, 2) AS g
                        WHERE c.first = g.first AND c.second = g.second;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
                                  SELECT w.lexeme, a.id, w.frequency, w.occurrences
                                  FROM added a, cenotaph_postings(a.fts) AS w RETURNING lexeme)
                    INSERT INTO word_rows (lexeme, rows) SELECT lexeme, count(*) FROM kept GROUP BY lexeme
                        ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + excluded.rows;
                    INSERT INTO content_pairs (first, second, rows)
                        SELECT w.first, w.second, count(*) FROM added a, cenotaph_content_pairs(a.fts) AS w GROUP BY 1, 2
                        ON CONFLICT (first, second) DO UPDATE SET rows = content_pairs.rows + excluded.rows;
                END IF;
                RETURN NULL;
            END $$;
        CREATE OR REPLACE FUNCTION cenotaph_postings_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                WITH gone AS (DELETE FROM memory_postings WHERE row_id = OLD.id RETURNING lexeme)
                UPDATE word_rows w SET rows = w.rows - 1 FROM gone g WHERE w.lexeme = g.lexeme;
                UPDATE content_pairs c SET rows = c.rows - 1 FROM cenotaph_content_pairs(OLD.fts) AS g
                    WHERE c.first = g.first AND c.second = g.second;
                WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences)
                              SELECT w.lexeme, NEW.id, w.frequency, w.occurrences FROM cenotaph_postings(NEW.fts) AS w
                              RETURNING lexeme)
                INSERT INTO word_rows (lexeme, rows) SELECT lexeme, 1 FROM kept
                    ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + 1;
                INSERT INTO content_pairs (first, second, rows) SELECT first, second, 1 FROM cenotaph_content_pairs(NEW.fts)
                    ON CONFLICT (first, second) DO UPDATE SET rows = content_pairs.rows + 1;
                RETURN NULL;
            END $$;
        """
    )


def _m0019_text_index_kept_by_trigger(conn: Any) -> None:
    """A row's `tsvector` and token count are computed by a trigger when its text is written, no
    longer as generated columns: PostgreSQL computes a stored generated column again at every
    UPDATE of its row, whatever the columns set, so a recall's counters (`recall_count`), a trust
    or a lifecycle change parsed the row's three texts again (10 recalled rows: 8.8 ms, 1.9 after).
    SQLite's index triggers fire on the text columns alone; these now do too. The totals' tokens
    follow a rewritten row's count, row by row: a trigger with transition tables takes no column
    list, and its capture of the whole rows cost 1.1 ms for 10 counters."""
    conn.execute(
        """
        CREATE FUNCTION cenotaph_fts_columns() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.fts := setweight(to_tsvector('simple'::regconfig, cenotaph_folded_words(NEW.content)), 'A') ||
                           setweight(cenotaph_spaced_words(NEW.lemmas), 'B') ||
                           setweight(cenotaph_spaced_words(NEW.context), 'C');
                NEW.fts_tokens := cenotaph_word_count(NEW.content) + cenotaph_word_count(NEW.lemmas) +
                                  cenotaph_word_count(NEW.context);
                RETURN NEW;
            END $$;
        ALTER TABLE memories ALTER COLUMN fts DROP EXPRESSION, ALTER COLUMN fts_tokens DROP EXPRESSION;
        CREATE TRIGGER memories_fts_columns BEFORE INSERT OR UPDATE OF content, lemmas, context ON memories
            FOR EACH ROW EXECUTE FUNCTION cenotaph_fts_columns();
        CREATE FUNCTION cenotaph_fts_tokens_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE fts_totals SET tokens = tokens + NEW.fts_tokens - OLD.fts_tokens;
                RETURN NULL;
            END $$;
        DROP TRIGGER memories_fts_totals_update ON memories;
        CREATE TRIGGER memories_fts_totals_update AFTER UPDATE OF content, lemmas, context ON memories
            FOR EACH ROW WHEN (OLD.fts_tokens IS DISTINCT FROM NEW.fts_tokens)
            EXECUTE FUNCTION cenotaph_fts_tokens_rewritten();
        """
    )


def _m0020_postings_scored_alone(conn: Any) -> None:
    """The postings carry their row's length (`tokens`, its `fts_tokens`), so that an OR of
    phrases (the semantic lane's words) scores its rows from the postings alone and checks the
    scope of the best ones only, in score order, until the limit is filled: each matching row's
    scope and length had been read from the live rows' index, 2,478 probes for `staging database`
    at 10,000 memories (the statement 4.9 → 3.6 ms, the same rows). The table is built again with
    the column (at 100,000 memories, 5.1 million postings), and its words are sampled ten times as
    widely: a phrase of two words common in the store but outside the 100 most common was estimated
    at 19 postings a word, and its words joined by 2,486 index probes instead of one merge of both
    lists (the statement 7.5 → 4.9 ms, the exact lane's recall 18.4 → 15.6 ms, alternated, and again
    with the databases swapped). The table is vacuumed and analysed once the migrations commit
    (`migrations.migrate`). The triggers' bodies are migration 18's, the length added."""
    conn.execute(
        """
        CREATE TABLE memory_postings_scored (
            lexeme      TEXT NOT NULL,
            row_id      BIGINT NOT NULL,
            frequency   FLOAT8 NOT NULL,
            occurrences INTEGER[] NOT NULL,
            tokens      INTEGER NOT NULL
        );
        INSERT INTO memory_postings_scored (lexeme, row_id, frequency, occurrences, tokens)
            SELECT p.lexeme, p.row_id, p.frequency, p.occurrences, m.fts_tokens
            FROM memory_postings p JOIN memories m ON m.id = p.row_id;
        DROP TABLE memory_postings;
        ALTER TABLE memory_postings_scored RENAME TO memory_postings;
        CREATE INDEX memory_postings_words ON memory_postings (lexeme, row_id) INCLUDE (frequency, occurrences, tokens)
            WHERE octet_length(lexeme) <= 400;
        CREATE INDEX memory_postings_long_words ON memory_postings (lexeme, row_id) INCLUDE (frequency, tokens)
            WHERE octet_length(lexeme) > 400;
        CREATE INDEX memory_postings_row ON memory_postings (row_id);
        ALTER TABLE memory_postings ALTER COLUMN lexeme SET STATISTICS 1000;
        CREATE OR REPLACE FUNCTION cenotaph_postings_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    WITH gone AS (DELETE FROM memory_postings p USING removed r WHERE p.row_id = r.id RETURNING p.lexeme)
                    UPDATE word_rows w SET rows = w.rows - g.n
                        FROM (SELECT lexeme, count(*) AS n FROM gone GROUP BY lexeme) AS g WHERE w.lexeme = g.lexeme;
                    UPDATE content_pairs c SET rows = c.rows - g.n
                        FROM (SELECT w.first, w.second, count(*) AS n FROM removed r, cenotaph_content_pairs(r.fts) AS w
                              GROUP BY 1, 2) AS g
                        WHERE c.first = g.first AND c.second = g.second;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences, tokens)
                                  SELECT w.lexeme, a.id, w.frequency, w.occurrences, a.fts_tokens
                                  FROM added a, cenotaph_postings(a.fts) AS w RETURNING lexeme)
                    INSERT INTO word_rows (lexeme, rows) SELECT lexeme, count(*) FROM kept GROUP BY lexeme
                        ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + excluded.rows;
                    INSERT INTO content_pairs (first, second, rows)
                        SELECT w.first, w.second, count(*) FROM added a, cenotaph_content_pairs(a.fts) AS w GROUP BY 1, 2
                        ON CONFLICT (first, second) DO UPDATE SET rows = content_pairs.rows + excluded.rows;
                END IF;
                RETURN NULL;
            END $$;
        CREATE OR REPLACE FUNCTION cenotaph_postings_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                WITH gone AS (DELETE FROM memory_postings WHERE row_id = OLD.id RETURNING lexeme)
                UPDATE word_rows w SET rows = w.rows - 1 FROM gone g WHERE w.lexeme = g.lexeme;
                UPDATE content_pairs c SET rows = c.rows - 1 FROM cenotaph_content_pairs(OLD.fts) AS g
                    WHERE c.first = g.first AND c.second = g.second;
                WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences, tokens)
                              SELECT w.lexeme, NEW.id, w.frequency, w.occurrences, NEW.fts_tokens
                              FROM cenotaph_postings(NEW.fts) AS w RETURNING lexeme)
                INSERT INTO word_rows (lexeme, rows) SELECT lexeme, 1 FROM kept
                    ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + 1;
                INSERT INTO content_pairs (first, second, rows) SELECT first, second, 1 FROM cenotaph_content_pairs(NEW.fts)
                    ON CONFLICT (first, second) DO UPDATE SET rows = content_pairs.rows + 1;
                RETURN NULL;
            END $$;
        """
    )


def _m0022_plain_text_folded_as_it_is(conn: Any) -> None:
    """A text whose words are all ASCII is folded as it is: `translate` looks each character up in
    the table of accented letters one by one, 0.43 ms for a memory's three texts (a write's text
    index took 0.6 ms, most of it that), where words with no accented letter have nothing to fold.
    The words are made once (a variable, so PL/pgSQL); the result is the same for every text."""
    conn.execute(
        f"""
        CREATE OR REPLACE FUNCTION cenotaph_folded_words(body text) RETURNS text
            LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
            DECLARE
                words text := cenotaph_words(body);
            BEGIN
                IF octet_length(words) = char_length(words) THEN
                    RETURN words;
                END IF;
                RETURN translate(words, '{DIACRITICS}', '{DIACRITICS_FOLDED}');
            END $$;
        """
    )


def _m0024_postings_removed_by_their_words(conn: Any) -> None:
    """A removed or rewritten row's postings are found by its words (its own `tsvector` lists them)
    through the words' indexes, and the postings keep no index by row: each word of every new
    memory wrote an entry there (≈ 50 a memory, ≈ 0.1 ms of its insert) for the removals alone to
    read. A word's postings are in one of two partial indexes by its length (migration 20), so
    each is searched with its own condition. The triggers are otherwise migration 20's."""
    conn.execute(
        """
        DROP INDEX memory_postings_row;
        CREATE OR REPLACE FUNCTION cenotaph_postings_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    WITH gone AS (DELETE FROM memory_postings p USING removed r
                                  WHERE p.lexeme = ANY (tsvector_to_array(r.fts)) AND p.row_id = r.id
                                        AND octet_length(p.lexeme) <= 400 RETURNING p.lexeme),
                         gone_long AS (DELETE FROM memory_postings p USING removed r
                                       WHERE p.lexeme = ANY (tsvector_to_array(r.fts)) AND p.row_id = r.id
                                             AND octet_length(p.lexeme) > 400 RETURNING p.lexeme)
                    UPDATE word_rows w SET rows = w.rows - g.n
                        FROM (SELECT lexeme, count(*) AS n FROM (TABLE gone UNION ALL TABLE gone_long) AS a
                              GROUP BY lexeme) AS g
                        WHERE w.lexeme = g.lexeme;
                    UPDATE content_pairs c SET rows = c.rows - g.n
                        FROM (SELECT w.first, w.second, count(*) AS n FROM removed r, cenotaph_content_pairs(r.fts) AS w
                              GROUP BY 1, 2) AS g
                        WHERE c.first = g.first AND c.second = g.second;
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences, tokens)
                                  SELECT w.lexeme, a.id, w.frequency, w.occurrences, a.fts_tokens
                                  FROM added a, cenotaph_postings(a.fts) AS w RETURNING lexeme)
                    INSERT INTO word_rows (lexeme, rows) SELECT lexeme, count(*) FROM kept GROUP BY lexeme
                        ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + excluded.rows;
                    INSERT INTO content_pairs (first, second, rows)
                        SELECT w.first, w.second, count(*) FROM added a, cenotaph_content_pairs(a.fts) AS w GROUP BY 1, 2
                        ON CONFLICT (first, second) DO UPDATE SET rows = content_pairs.rows + excluded.rows;
                END IF;
                RETURN NULL;
            END $$;
        CREATE OR REPLACE FUNCTION cenotaph_postings_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                WITH gone AS (DELETE FROM memory_postings
                              WHERE lexeme = ANY (tsvector_to_array(OLD.fts)) AND row_id = OLD.id
                                    AND octet_length(lexeme) <= 400 RETURNING lexeme),
                     gone_long AS (DELETE FROM memory_postings
                                   WHERE lexeme = ANY (tsvector_to_array(OLD.fts)) AND row_id = OLD.id
                                         AND octet_length(lexeme) > 400 RETURNING lexeme)
                UPDATE word_rows w SET rows = w.rows - 1 FROM (TABLE gone UNION ALL TABLE gone_long) AS g
                    WHERE w.lexeme = g.lexeme;
                UPDATE content_pairs c SET rows = c.rows - 1 FROM cenotaph_content_pairs(OLD.fts) AS g
                    WHERE c.first = g.first AND c.second = g.second;
                WITH kept AS (INSERT INTO memory_postings (lexeme, row_id, frequency, occurrences, tokens)
                              SELECT w.lexeme, NEW.id, w.frequency, w.occurrences, NEW.fts_tokens
                              FROM cenotaph_postings(NEW.fts) AS w RETURNING lexeme)
                INSERT INTO word_rows (lexeme, rows) SELECT lexeme, 1 FROM kept
                    ON CONFLICT (lexeme) DO UPDATE SET rows = word_rows.rows + 1;
                INSERT INTO content_pairs (first, second, rows) SELECT first, second, 1 FROM cenotaph_content_pairs(NEW.fts)
                    ON CONFLICT (first, second) DO UPDATE SET rows = content_pairs.rows + 1;
                RETURN NULL;
            END $$;
        """
    )

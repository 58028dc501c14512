"""Memory rows' statements that differ on PostgreSQL: the full-text lane (a `tsvector` column
kept by trigger, with a GIN index, ranked by FTS5's own BM25, so that both stores rank alike) and
the substring lane (pg_trgm)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cenotaph.store.dialect import in_snapshot
from cenotaph.store.memories import BM25_WEIGHTS, Scope, idf
from cenotaph.store.postgres import fulltext

def _weight(occurrence: str) -> str:
    """A phrase occurrence's weight: bm25()'s for its column's label (content A, lemmas B, context C),
    read from an occurrence as migration 14 keeps it (position × 4 + the label's number)."""
    cases = " ".join(f"WHEN {number} THEN {weight}::float8" for number, weight in enumerate(BM25_WEIGHTS[:-1]))
    return f"CASE {occurrence} & 3 {cases} ELSE {BM25_WEIGHTS[-1]}::float8 END"


# A phrase's first word's first occurrences in a row are tested one by one, written out, and the
# rest (a row holding that word more often) in a subquery: a subquery a row took twice the time
# (a two-word phrase's 25,727 rows at 100,000 memories counted in 19 ms against 9).
_WRITTEN_OUT = 4


def _starts(phrase: fulltext.Phrase, occurrence: str) -> str:
    """The condition that `phrase` starts at `occurrence` (an SQL expression: one of its first
    word's occurrences in the row of `memory_postings p1`, its later words' postings p2, p3 …):
    in one of the phrase's columns, each later word at the next position of the same column. NULL
    (not true) when the occurrence is."""
    tests = [] if phrase.labels == fulltext.ALL_COLUMNS else [
        f"{occurrence} & 3 IN ({', '.join(str(ord(label) - ord('A')) for label in phrase.labels)})"]
    tests += [f"{occurrence} + {4 * (k - 1)} = ANY(p{k}.occurrences)" for k in range(2, len(phrase.words) + 1)]
    return " AND ".join(tests) or "true"


def _phrase_postings(phrase: fulltext.Phrase) -> tuple[str, list[str]]:
    """`memory_postings p1` of the phrase's first word joined by row to its later words' (p2, p3 …),
    and the statement's parameters: the later words, then the first."""
    joins = " ".join(f"JOIN memory_postings p{k} ON p{k}.row_id = p1.row_id AND {_postings(f'p{k}', word)}"
                     for k, word in enumerate(phrase.words[1:], start=2))
    return f"memory_postings p1 {joins} WHERE {_postings('p1', phrase.words[0])}", [*phrase.words[1:], phrase.words[0]]


def _phrase_rows(phrase: fulltext.Phrase) -> tuple[str, list[str]]:
    """How many rows hold `phrase` (a subquery), counted from its words' postings and occurrences:
    through the full-text index, each row holding the words was read again to test the positions
    (36–39 ms for a two-word phrase in 25,727 rows at 100,000 memories, against 9–11)."""
    postings, params = _phrase_postings(phrase)
    written = " OR ".join(f"({_starts(phrase, f'p1.occurrences[{i}]')})" for i in range(1, _WRITTEN_OUT + 1))
    rest = (f"cardinality(p1.occurrences) > {_WRITTEN_OUT} AND EXISTS (SELECT FROM "
            f"unnest(p1.occurrences[{_WRITTEN_OUT + 1}:]) AS a WHERE {_starts(phrase, 'a')})")
    return f"(SELECT count(*) FROM {postings} AND ({written} OR ({rest})))", params


# Migration 14 indexes a word's postings by its length: up to this many bytes with its occurrences
# (read from the index alone), longer ones apart. A lookup names its side, the partial index's own
# condition, so that the planner may read that index.
_SHORT_WORD_BYTES = 400


def _postings(alias: str, word: str) -> str:
    """The condition finding `word`'s postings in `memory_postings {alias}` (one `?`: the word)."""
    side = "<=" if len(word.encode()) <= _SHORT_WORD_BYTES else ">"
    return f"{alias}.lexeme = ? AND octet_length({alias}.lexeme) {side} {_SHORT_WORD_BYTES}"


def _content_pair(phrase: fulltext.Phrase) -> bool:
    """Two words in the content, each short enough for migration 18 to count the rows holding them."""
    return (phrase.labels == fulltext.COLUMN_WEIGHTS["content"] and len(phrase.words) == 2
            and all(len(word.encode()) <= _SHORT_WORD_BYTES for word in phrase.words))


def term_documents(conn: Any, terms: Sequence[str]) -> dict[str, int]:
    """How many rows (any project, any column) hold each term, in one statement."""
    counted = [(term, words) for term in terms if (words := fulltext.words(term))]  # no words: in no row
    counts = _row_counts(conn, [fulltext.Phrase(tuple(words), fulltext.ALL_COLUMNS) for _, words in counted])
    found = {term: n for (term, _), n in zip(counted, counts, strict=True)}
    return {term: found.get(term, 0) for term in terms}


def _row_counts(conn: Any, phrases: Sequence[fulltext.Phrase]) -> list[int]:
    """How many rows hold each phrase, in one statement: a word in any column and two words in
    the content as the postings' triggers keep them (migrations 16 and 18), any other phrase
    counted from its words' postings."""
    if not phrases:
        return []
    counts, params = [], []
    for phrase in phrases:
        if phrase.single_word:
            counts.append("coalesce((SELECT rows FROM word_rows WHERE lexeme = ?), 0)")
            params.append(phrase.words[0])
        elif _content_pair(phrase):
            counts.append("coalesce((SELECT rows FROM content_pairs WHERE first = ? AND second = ?), 0)")
            params += phrase.words
        else:
            count, count_params = _phrase_rows(phrase)
            counts.append(count)
            params += count_params
    return list(conn.execute(f"SELECT {', '.join(counts)}", params).fetchone())


def indexed_prefixes(conn: Any, prefixes: Sequence[str]) -> set[str]:
    """Those of `prefixes` that begin a word of some row's `fts` (a prefix tsquery), in one statement."""
    single = [(prefix, words[0]) for prefix in prefixes if len(words := fulltext.words(prefix)) == 1]
    if not single:
        return set()
    exists = ", ".join("cenotaph_any_row_matching(?::tsquery)" for _ in single)
    held = conn.execute(f"SELECT {exists}", [f"'{word}':*" for _, word in single]).fetchone()
    return {prefix for (prefix, _), found in zip(single, held, strict=True) if found}


def fts_search(conn: Any, match: str, scope: Scope, limit: int,
               valid_from_between: tuple[str, str] | None = None,
               documents: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(row id, BM25 score, larger is better), as FTS5's bm25() scores it on SQLite: each phrase's
    IDF over the whole index times its saturated, length-normalised weighted frequency in the row
    (migration 4's functions and totals), summed. The caller's `documents` give each single-word
    phrase's rows (counted here when missing, and for phrases of more words, whose own rows its
    words' rows overstate). Ties go to the older row, as on SQLite."""
    query = fulltext.read(match)
    if query is None:
        return []
    where, params = scope.where()
    if valid_from_between is not None:
        where += " AND m.valid_from >= ? AND m.valid_from < ?"
        params = [*params, *valid_from_between]
    phrases = query.phrases
    given = documents if documents is not None and len(documents) == len(phrases) else [None] * len(phrases)
    # The caller's counts are a word's over all columns; any other phrase is counted here: in the
    # statement, from the postings it reads, when each branch is one phrase; else all at once before.
    word = [p.single_word for p in phrases]
    known = [n if n is not None and whole else None for n, whole in zip(given, word, strict=True)]
    totals = _totals(conn)
    if not query.any_phrase:
        missing = [i for i, n in enumerate(known) if n is None]
        counted = dict(zip(missing, _row_counts(conn, [phrases[i] for i in missing]), strict=True))
        known = [counted.get(i, n) for i, n in enumerate(known)]
    sql, sql_params = _scored(query, [None if n is None else idf(totals[0], n) for n in known], totals, where, params,
                              limit=limit)
    return [(r[0], float(r[1])) for r in conn.execute(sql, sql_params)]


def _scored(query: fulltext.Query, idfs: Sequence[float | None], totals: tuple[int, float], where: str,
            params: Sequence[Any], *, limit: int | None = None, extra: str = "") -> tuple[str, list[Any]]:
    """The statement giving each matching row in scope (its `id`, its `score`, then the column
    `extra` names), the best `limit` of them if given (by score, ties to the older row), and its
    parameters. A phrase's weighted count in a row is read from its words'
    postings (migrations 7 and 14): a single word's over all three columns is kept; any other
    phrase's sums, in position order as FTS5 sums them, the weights of its first word's
    occurrences in the phrase's columns that each later word follows at the next position of the
    same column. Each phrase's BM25 is then added in the expression's order, as bm25() adds them.
    A phrase's IDF not given (None; only when each branch is one phrase) is found from the rows
    holding it among those postings, as `idf` finds it from the index's `totals` (rows, average
    length): counted apart through the full-text index, a phrase's rows were read again (≈ 1.7 ms
    at 10,000 memories, and a round trip).
    (Narrowing each matching row's `tsvector` to the query's words instead cost ≈ 9 µs a row; a
    per-row SQL function, 30 to 40 times SQLite's time at 10,000 memories.)"""
    branches, branch_params = [], []
    for i, phrase in enumerate(query.phrases):
        if phrase.single_word:
            branches.append(f"SELECT {i} AS phrase, p1.row_id AS id, p1.tokens, p1.frequency FROM memory_postings p1 "
                            f"WHERE {_postings('p1', phrase.words[0])}")
            branch_params.append(phrase.words[0])
            continue
        postings, phrase_params = _phrase_postings(phrase)
        # Written out for a row holding the first word at most _WRITTEN_OUT times: an occurrence
        # that does not start the phrase adds 0, which leaves the sum in position order exact.
        written = " + ".join(f"CASE WHEN {_starts(phrase, f'p1.occurrences[{j}]')} "
                             f"THEN {_weight(f'p1.occurrences[{j}]')} ELSE 0::float8 END" for j in range(1, _WRITTEN_OUT + 1))
        every = (f"(SELECT sum({_weight('a')} ORDER BY a) FROM unnest(p1.occurrences) AS a "
                 f"WHERE {_starts(phrase, 'a')})")
        branches.append(f"SELECT {i} AS phrase, p1.row_id AS id, p1.tokens, CASE WHEN cardinality(p1.occurrences) <= {_WRITTEN_OUT} "
                        f"THEN nullif({written}, 0::float8) ELSE {every} END AS frequency FROM {postings}")
        branch_params += phrase_params
    total, average = totals
    order = " ORDER BY score DESC, id"
    best = f"{order} LIMIT ?" if limit is not None else ""
    if query.any_phrase:
        # The rows the phrases' postings find are the matching rows, each scored from its postings
        # alone (they carry its length: migration 20), not by testing every row's `tsvector`
        # against the query, which reads the whole table. Then the scope of each, from migration
        # 15's index of live rows: in score order when a limit is asked for, so that the probes stop
        # once it is filled (the order is kept through the join: no sort after it). A phrase of more
        # words, or in some columns, has no count in a row whose occurrences do not qualify: such
        # rows are left out after grouping (a condition on the count before it computes the count
        # twice). (Phrases AND-ed were slower so: the full-text index finds the few rows holding all
        # of them, while the postings give every row holding each.)
        terms, scores = [], []
        for i, known in enumerate(idfs):
            weight = "?" if known is not None else (
                "(SELECT greatest(ln((?::float8 - n + 0.5) / (n + 0.5)), 1e-6) FROM (SELECT count(*)::float8 AS n "
                f"FROM frequency WHERE phrase = {i} AND frequency IS NOT NULL) AS holding)")
            terms.append(_bm25(i, "max(f.tokens)", weight))
            scores += [total if known is None else known, average]
        picked = f", m.{extra}" if extra else ""
        scored = f"(SELECT * FROM scored{order})" if limit is not None else "scored"
        sql = (f"WITH frequency AS ({' UNION ALL '.join(branches)}), "
               f"scored AS (SELECT f.id, {' + '.join(terms)} AS score FROM frequency f "
               f"GROUP BY f.id HAVING count(f.frequency) > 0) "
               f"SELECT s.id, s.score{picked} FROM {scored} AS s "
               f"CROSS JOIN LATERAL (SELECT 1 AS in_scope{picked} FROM memories m WHERE m.id = s.id AND {where}) AS m"
               f"{best}")
        return sql, [*branch_params, *scores, *params, *([limit] if best else [])]
    scores = [v for n in idfs for v in (n, average)]
    score = " + ".join(_bm25(i, "hit.fts_tokens") for i in range(len(query.phrases)))
    picked, carried = (f", m.{extra}", f", hit.{extra}") if extra else ("", "")
    sql = (f"WITH hit AS MATERIALIZED (SELECT m.id, m.fts_tokens{picked} "
           f"FROM memories m WHERE m.fts @@ ?::tsquery AND {where}), "
           f"frequency AS ({' UNION ALL '.join(branches)}) "
           f"SELECT hit.id, {score} AS score{carried} "
           f"FROM hit LEFT JOIN frequency f ON f.id = hit.id GROUP BY hit.id, hit.fts_tokens{carried}{best}")
    return sql, [query.whole, *params, *branch_params, *scores, *([limit] if best else [])]


def _bm25(phrase: int, length: str, idf: str = "?") -> str:
    """Phrase `phrase`'s BM25 in a row of length `length` (an expression) grouped with its
    frequencies (`f`): its `idf` (an expression), then the average length as a parameter."""
    return (f"cenotaph_bm25(coalesce(max(f.frequency) FILTER (WHERE f.phrase = {phrase}), 0::float8), "
            f"{length}, {idf}, ?)")


def _totals(conn: Any) -> tuple[int, float]:
    """The index's rows and their average length in tokens (FTS5's N and avgdl)."""
    rows, tokens = in_snapshot(conn, "fts_totals", lambda: conn.execute("SELECT rows, tokens FROM fts_totals").fetchone())
    return rows, (tokens / rows if rows else 0.0)


def fts_term_hits(conn: Any, match: str, scope: Scope, store_idf: float) -> list[tuple[int, float, str]]:
    """(row id, BM25 score, valid_from) of every row in scope matching one phrase: its BM25 with
    its IDF over the whole store (`store_idf`, which recall has counted already), as FTS5's bm25()
    has it on SQLite (the caller rescales by the scope's own IDF)."""
    query = fulltext.read(match)
    if query is None:
        return []
    where, params = scope.where()
    sql, sql_params = _scored(query, [store_idf], _totals(conn), where, params, extra="valid_from")
    return [(r[0], float(r[1]), r[2]) for r in conn.execute(sql, sql_params)]


def matching_rows(conn: Any, match: str) -> int:
    query = fulltext.read(match)
    if query is None:
        return 0
    return conn.execute("SELECT cenotaph_rows_matching(?::tsquery)", (query.whole,)).fetchone()[0]


def _like_pattern(needle: str) -> str:
    return "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def substring_search(conn: Any, needle: str, scope: Scope, limit: int) -> list[int]:
    """Row ids whose content contains `needle` byte for byte: LIKE, which a trigram index answers
    for needles of three characters or more; for a needle holding punctuation, the marked index
    (migration 17), whose trigrams hold the marks, finds the candidates (at 100,000 memories
    `staging_database.py` took 4.7 ms through the plain one, which reads letters and digits only)."""
    where, params = scope.where()
    marked = fulltext.marked(needle)
    condition, patterns = ("m.content LIKE ?", [_like_pattern(needle)]) if marked == needle else (
        "cenotaph_marked(m.content) LIKE ? AND m.content LIKE ?", [_like_pattern(marked), _like_pattern(needle)])
    rows = conn.execute(
        f"SELECT m.id FROM memories m WHERE {condition} AND {where} ORDER BY m.recorded_at DESC LIMIT ?",
        [*patterns, *params, limit],
    )
    return [r[0] for r in rows]


def fts_rowids(conn: Any) -> set[int]:
    """Every row is in the full-text index: its vector is computed whenever its text is written."""
    return {r[0] for r in conn.execute("SELECT id FROM memories")}


def rows_matching(conn: Any, match: str, projects: Sequence[str]) -> list[tuple[int, str]]:
    query = fulltext.read(match)
    if query is None:
        return []
    rows = conn.execute(
        f"SELECT m.id, m.content FROM memories m WHERE m.fts @@ ?::tsquery AND m.superseded_at IS NULL "
        f"AND m.project IN ({','.join('?' * len(projects))})",
        [query.whole, *projects],
    )
    return [(r[0], r[1]) for r in rows]


def purge_deleted_terms(conn: Any) -> None:
    """Nothing to merge: the GIN index drops a row's words with the row version (VACUUM)."""

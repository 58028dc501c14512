"""The real `cenotaph` command on a private store."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CENOTAPH, HUMAN, cli_memory, cli_store


def run(env, *args, cwd=None, check=True):
    proc = subprocess.run([CENOTAPH, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_done_when_abandon_then_recall_returns_the_warning_first(cli_env, tmp_path):
    run(cli_env, "remember", "We compute embeddings on the CPU with an ONNX model", "--project", "p")
    run(cli_env, "abandon", "onnxruntime", "--reason", "SIGILL on Alpine musl", "--effort", "4", "--project", "p")
    out = run(cli_env, "recall", "should we use onnxruntime for embeddings", "--project", "p", "--json").stdout
    results = json.loads(out)["results"]
    first = results[0]
    assert first["result_type"] == "abandoned_warning"
    assert first["name"] == "onnxruntime" and first["reason"] == "SIGILL on Alpine musl"
    for key in ("id", "content", "project", "kind", "tags", "state", "trust", "score", "lane", "components"):
        assert key in first
    memories = [r for r in results if r["result_type"] == "memory"]
    assert memories and memories[0]["components"]["cosine"] is not None
    text = run(cli_env, "recall", "should we use onnxruntime for embeddings", "--project", "p").stdout
    assert text.splitlines()[0].startswith("1. ABANDONED in this project: onnxruntime")


def test_bad_input_is_a_clear_error_naming_the_field(cli_env):
    proc = run(cli_env, "remember", "", "--project", "p", "--json", check=False)
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["field"] == "content"
    assert "Traceback" not in proc.stderr
    proc = run(cli_env, "remember", "fine", "--project", "p", "--valid-from", "yesterday-ish", check=False)
    assert proc.returncode == 2 and "valid_from" in proc.stderr
    proc = run(cli_env, "abandon", "x", "--reason", "r", "--effort", "9", "--project", "p", check=False)
    assert proc.returncode == 2 and "effort" in proc.stderr
    # Positive control: nothing was written by the refused calls, and a valid call is stored.
    empty = run(cli_env, "recall", "fine", "--project", "p").stdout
    assert "Nothing answers this" in empty and "#1" not in empty
    run(cli_env, "remember", "fine", "--project", "p")
    assert "#1" in run(cli_env, "recall", "fine", "--project", "p").stdout


def test_duplicate_is_refused_with_exit_status_1(cli_env):
    run(cli_env, "remember", "The staging database is reset nightly", "--project", "p")
    proc = run(cli_env, "remember", "The staging database is reset nightly", "--project", "p", check=False)
    assert proc.returncode == 1 and "near-duplicate of #1" in proc.stdout
    run(cli_env, "remember", "The staging database is reset nightly", "--project", "p", "--force")


def test_experience_and_check(cli_env, tmp_path):
    run(cli_env, "experience", "--summary", "Moved the queue to SQLite", "--outcome", "success", "--effort", "3",
        "--abandoned", "celery=needs a broker", "--project", "p", cwd=tmp_path)  # no manifest: any ecosystem
    out = json.loads(run(cli_env, "check", "celery", "sqlite-vec", "--project", "p", "--json").stdout)
    assert [r["status"] for r in out["results"]] == ["abandoned", "clear"]


@pytest.mark.sqlite_only("SQLite's versions and file; tests/store/test_postgres.py has PostgreSQL's doctor")
def test_doctor_reports_versions_and_project(cli_env, tmp_path):
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / ".cenotaph.toml").write_text('project = "acme/widgets"\n')
    report = json.loads(run(cli_env, "doctor", "--json", cwd=repo / "sub").stdout)
    assert report["project"] == "acme/widgets"
    assert report["sqlite_vec_version"].startswith("v0.1")
    assert report["schema_version"] >= 1
    assert report["store"] == str(Path(cli_env["CENOTAPH_HOME"]) / "cenotaph.db")


def test_db_flag_overrides_home(cli_env, tmp_path):
    db = tmp_path / "elsewhere.db"
    run(cli_env, "remember", "kept elsewhere", "--project", "p", "--db", str(db))
    assert db.exists()
    assert not (Path(cli_env["CENOTAPH_HOME"]) / "cenotaph.db").exists()


def test_global_options_go_before_or_after_the_verb(cli_env):
    store = str(cli_store(cli_env))
    run(cli_env, "--db", store, "--project", "p", "remember", "The deploy key rotates monthly")
    before = json.loads(run(cli_env, "--json", "--db", store, "doctor").stdout)
    after = json.loads(run(cli_env, "doctor", "--json", "--db", store).stdout)
    assert before["store"] == after["store"] and before["schema_version"] == after["schema_version"]
    # Given on both sides, the one after the verb wins, as argparse reads left to right.
    assert json.loads(run(cli_env, "--project", "q", "doctor", "--project", "p", "--json").stdout)["project"] == "p"
    assert "rotates monthly" in run(cli_env, "--project", "p", "recall", "deploy key").stdout


def test_output_into_a_closed_pipe_ends_quietly(cli_env, embedder, analyzer):
    with cli_memory(cli_env, embedder, analyzer) as memory:  # something to print: the setting, not the test
        for n in range(3):
            assert memory.remember(HUMAN, f"The cache for service {n} lives in /var/cache/s{n}", project="p").stored
    reader, writer = os.pipe()
    os.close(reader)  # `| head -c1` that has already gone
    try:
        proc = subprocess.run([CENOTAPH, "recall", "cache", "--project", "p", "--json"], env=cli_env, stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(writer)
    assert proc.returncode == 141 and proc.stderr == ""
    # The positive control: the same command into an open pipe prints its results.
    assert json.loads(run(cli_env, "recall", "cache", "--project", "p", "--json").stdout)["results"]

"""The labelled set of agent tool calls through the real `cenotaph hook claude-code` (or `hook
gemini` for Gemini CLI's calls), one process a call: every install or edit of an abandoned library blocked, no other call blocked. At about
0.4 s a process the suite runs a sample drawn from every (tool, label) group; bench/hook_speed.py
runs the whole set (figures in docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
from itertools import groupby
from pathlib import Path

import pytest

from tests import hook_calls
from tests.conftest import CENOTAPH, cli_memory
from tests.gitrepo import GitRepo

EVERY = 11  # one call in eleven of each group: about 45 calls


def sample(calls: list[dict]) -> list[dict]:
    def group(call: dict) -> tuple[str, bool]:
        return call["tool_name"], call["block"]

    return [call for _, members in groupby(sorted(calls, key=group), key=group) for call in list(members)[::EVERY]]


@pytest.fixture
def repo(tmp_path: Path, cli_env, embedder, analyzer) -> GitRepo:
    repo = GitRepo(tmp_path / "acme")
    repo.commit("Start", hook_calls.repository_files())
    with cli_memory(cli_env, embedder, analyzer) as memory:
        hook_calls.seed(memory)
    return repo


def test_the_labelled_set_is_big_and_varied():
    calls = hook_calls.calls()
    assert len(calls) >= 300
    assert {c["tool_name"] for c in calls} >= {"Bash", "Edit", "Write", "MultiEdit", "Read", "Grep", "Glob", "NotebookEdit",
                                               "run_shell_command", "write_file", "replace"}
    blocked = [c for c in calls if c["block"]]
    assert 60 <= len(blocked) <= len(calls) - 100
    assert {c["abandoned"] for c in blocked} == {name for name, *_ in hook_calls.GRAVEYARD} - {"tqdm", "celery"}
    assert {len(sample(calls)), sum(c["block"] for c in sample(calls))} <= set(range(10, 50))


def run(calls: list[dict], cli_env, repo: GitRepo) -> list[tuple[dict, str | None]]:
    outcomes = []
    for call in calls:
        done = subprocess.run([CENOTAPH, "hook", hook_calls.agent(call)], input=hook_calls.hook_input(call, repo.root),
                              env=cli_env, cwd=repo.root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outcomes.append((call, hook_calls.denied(done.stdout)))
    return outcomes


def test_every_call_is_blocked_or_passed_as_labelled(cli_env, repo, capsys):
    counts, wrong = hook_calls.confusion(run(sample(hook_calls.calls()), cli_env, repo))
    with capsys.disabled():
        print(f"\nhook on {sum(counts.values())} labelled calls: {dict(sorted(counts.items()))}")
    assert wrong == []
    assert counts["true block"] >= 10 and counts["true pass"] >= 20


def test_the_held_out_calls_are_blocked_or_passed_as_labelled(cli_env, repo, capsys):
    """Calls written before the shell parser and never tuned on: every one of them, at the same bar."""
    counts, wrong = hook_calls.confusion(run(hook_calls.calls("heldout.jsonl"), cli_env, repo))
    with capsys.disabled():
        print(f"\nhook on the held-out calls: {dict(sorted(counts.items()))}")
    assert counts["false block"] == 0 and counts["true block"] >= 0.98 * (counts["true block"] + counts["false pass"])
    assert counts["true block"] >= 30 and counts["true pass"] >= 20

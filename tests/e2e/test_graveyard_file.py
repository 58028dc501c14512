"""The graveyard's file beside a SQLite store (store/graveyard_file.py), which an agent's hook
reads instead of the store: kept current by other processes' writes, and never trusted when it
is missing, stale, corrupted or another store's (the store answers then, and rewrites it). Each
hook here is the real `cenotaph hook claude-code`; whether it opened the store shows in its
process's modules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_store
from tests.e2e.test_cli import run
from tests.e2e.test_cli_enforce import PROJECT, repo  # noqa: F401 - the fixture: requests, moment, tqdm (silenced)
from tests.gitrepo import GitRepo

pytestmark = pytest.mark.sqlite_only("the file lives beside a SQLite store; a PostgreSQL store answers itself")

# The hook as Claude Code runs it, then whether the store's machinery was opened.
SCRIPT = ("import sys\nfrom cenotaph.cli import main\nstatus = main(['hook', 'claude-code'])\n"
          "print('STORE', 'cenotaph.store.db' in sys.modules, status)\n")


def decide(env: dict[str, str], repo: GitRepo, command: str) -> tuple[bool, bool]:
    """(denied, the store was opened) for a Bash call running `command`."""
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=repo.root, capture_output=True, text=True,
                          timeout=120, input=json.dumps({"cwd": str(repo.root), "hook_event_name": "PreToolUse",
                                                         "tool_name": "Bash", "tool_input": {"command": command}}))
    assert done.returncode == 0 and done.stdout.rstrip().endswith(" 0"), done.stdout + done.stderr
    return '"permissionDecision": "deny"' in done.stdout, "STORE True" in done.stdout


def graveyard_file(env: dict[str, str]) -> Path:
    return Path(f"{cli_store(env)}-graveyard.json")


def test_other_processes_writes_keep_the_file_current(cli_env, repo):
    # The seeding process wrote it: the hook answers from it, both ways.
    assert decide(cli_env, repo, "pip install requests") == (True, False)
    assert decide(cli_env, repo, "pip install leftpad") == (False, False)
    # Each verb in a process of its own: the next hook sees it without opening the store.
    run(cli_env, "abandon", "leftpad", "--ecosystem", "pypi", "--reason", "left us once", "--project", PROJECT)
    assert decide(cli_env, repo, "pip install leftpad") == (True, False)
    run(cli_env, "suppress", "leftpad", "--kind", "diagnostic", "--reason", "fine here", "--project", PROJECT)
    assert decide(cli_env, repo, "pip install leftpad") == (False, False)
    run(cli_env, "reinstate-approach", "requests", "--reason", "httpx lacks it", "--project", PROJECT)
    assert decide(cli_env, repo, "pip install requests") == (False, False)
    assert decide(cli_env, repo, "pnpm add moment") == (True, False)  # the rest of the graveyard stands


def test_a_write_that_leaves_the_graveyard_alone_leaves_the_file(cli_env, repo):
    path = graveyard_file(cli_env)
    before = path.read_bytes()
    run(cli_env, "remember", "The deploy script needs a warm cache", "--project", PROJECT)
    assert path.read_bytes() == before
    assert decide(cli_env, repo, "pip install requests") == (True, False)  # still current: memories moved only
    run(cli_env, "abandon", "leftpad", "--ecosystem", "pypi", "--reason", "left us once", "--project", PROJECT)
    assert path.read_bytes() != before  # positive control


def test_a_stale_file_is_not_trusted_and_is_rewritten(cli_env, repo):
    path = graveyard_file(cli_env)
    old = path.read_bytes()
    # What a process that crashed between its commit and the file, or an older version, leaves.
    run(cli_env, "abandon", "leftpad", "--ecosystem", "pypi", "--reason", "left us once", "--project", PROJECT)
    path.write_bytes(old)
    assert decide(cli_env, repo, "pip install leftpad") == (True, True)  # the store answered
    assert decide(cli_env, repo, "pip install leftpad") == (True, False)  # from the file it rewrote
    # Stale in the other direction: a reinstatement the file does not know of.
    old = path.read_bytes()
    run(cli_env, "reinstate-approach", "leftpad", "--reason", "back again", "--project", PROJECT)
    path.write_bytes(old)
    assert decide(cli_env, repo, "pip install leftpad") == (False, True)
    assert decide(cli_env, repo, "pip install leftpad") == (False, False)


def test_a_missing_file_is_written_by_the_store(cli_env, repo):
    path = graveyard_file(cli_env)
    path.unlink()
    assert decide(cli_env, repo, "pip install requests") == (True, True)
    assert path.is_file()
    assert decide(cli_env, repo, "pip install requests") == (True, False)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other format", "other fields", "another store's",
                                    "a head the log does not have"])
def test_a_corrupted_file_falls_back_to_the_store(cli_env, repo, damage):
    path = graveyard_file(cli_env)
    data = json.loads(path.read_text())
    assert decide(cli_env, repo, "pip install requests") == (True, False)  # positive control: the file answers
    if damage == "garbage":
        path.write_bytes(b"\x00\xff not json")
    elif damage == "truncated":
        path.write_text(path.read_text()[:40])
    elif damage == "other format":
        path.write_text(json.dumps({**data, "format": 99}))
    elif damage == "other fields":
        path.write_text(json.dumps({**data, "approaches": [{**a, "colour": "red"} for a in data["approaches"]]}))
    elif damage == "another store's":  # a store recreated at the same path: the event there is another
        path.write_text(json.dumps({**data, "hash": "0" * 64, "approaches": []}))
    else:
        path.write_text(json.dumps({**data, "seq": data["seq"] + 1000, "approaches": []}))
    assert decide(cli_env, repo, "pip install requests") == (True, True)
    assert decide(cli_env, repo, "pip install requests") == (True, False)  # and rewrote it

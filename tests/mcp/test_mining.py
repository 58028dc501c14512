"""The `mine` tool: an agent may mine the history; what it yields are proposals, never graveyard
entries."""

from __future__ import annotations

from cenotaph import identity

from tests.gitrepo import GitRepo
from tests.mcp.conftest import CLIENT_NAME, PROJECT, call, call_error, connect


async def test_an_agent_mines_proposals_not_dead_ends(server, memory, tmp_path):
    repo = GitRepo(tmp_path / "shop")
    repo.commit("Start", {"package.json": '{"dependencies": {"moment": "2", "react": "18"}}'},
                at="2024-01-01T10:00:00+00:00")
    repo.commit("Replace moment with date-fns: moment is deprecated",
                {"package.json": '{"dependencies": {"date-fns": "3", "react": "18"}}'}, at="2024-02-01T10:00:00+00:00")
    async with connect(server) as client:
        outcome = await call(client, "mine", path=str(repo.root))
        assert outcome["commits_read"] == 2 and not outcome["only_new_commits"]
        (moment,) = outcome["proposed"]
        assert (moment["name"], moment["ecosystem"], moment["replacement"]) == ("moment", "npm", "date-fns")
        assert "deprecated" in moment["reason"] and moment["confidence"] > 0.5
        again = await call(client, "mine", path=str(repo.root))
        assert again["commits_read"] == 0 and again["only_new_commits"] and again["proposed"] == []
        assert "not inside a git repository" in await call_error(client, "mine", path=str(tmp_path))
    (pending,) = memory.proposals(PROJECT)
    assert pending.actor == f"mcp:{CLIENT_NAME} for {identity.person(memory)}" and pending.status == "pending"
    assert memory.check_approaches(["moment"], project=PROJECT)[0].status == "clear"


async def test_an_agent_mines_the_transcripts_of_this_repository(server, memory, tmp_path, monkeypatch):
    from tests.memory.test_mine_transcripts import REJECTED, Claude, slug

    repo = GitRepo(tmp_path / "app")
    repo.commit("Start", {"pyproject.toml": '[project]\nname = "app"\ndependencies = ["polars"]\n'},
                at="2024-01-01T10:00:00+00:00")
    claude_home, codex_home = tmp_path / "claude", tmp_path / "codex"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    session = Claude(claude_home / "projects" / slug(repo.root) / "s1.jsonl", "s1", repo.root)
    session.call("t1", "pip install pandas")
    session.result("t1", REJECTED + "no, don't add pandas, we use polars", is_error=True)
    async with connect(server) as client:
        outcome = await call(client, "mine", source="transcripts", path=str(repo.root))
        assert outcome["source"] == "transcripts" and outcome["sessions"] == 1
        (pandas,) = outcome["proposed"]
        assert (pandas["name"], pandas["replacement"]) == ("pandas", "polars")
        assert "commits_read" not in outcome  # git's fields are left out for transcripts
        assert "not inside a git repository" in await call_error(client, "mine", source="transcripts",
                                                                 path=str(tmp_path))
    assert memory.check_approaches(["pandas"], project=PROJECT)[0].status == "clear"

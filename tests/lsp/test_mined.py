"""A candidate mined from git and accepted by a person is flagged in the editor like any abandoned
approach: on an import, and in setup.py and setup.cfg, which the server now reads as manifests."""

from __future__ import annotations

from lsprotocol import types

from tests.conftest import HUMAN
from tests.gitrepo import GitRepo
from tests.lsp.conftest import PROJECT, project_folder

SETUP_PY = "from setuptools import setup\nsetup(name='app', install_requires=['requests>=2', 'click'])\n"
SETUP_CFG = "[options]\ninstall_requires =\n    click\n    requests>=2\n"


async def test_an_accepted_candidate_is_flagged_on_imports_setup_py_and_setup_cfg(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    repo = GitRepo(folder)
    repo.commit("Start", {"requirements.txt": "requests\nclick\n"}, at="2024-01-01T10:00:00+00:00")
    repo.commit("Replace requests with httpx", {"requirements.txt": "httpx\nclick\n"}, at="2024-02-01T10:00:00+00:00")
    (proposal,) = memory.mine_git(HUMAN, str(folder), project=PROJECT).proposals.proposed
    memory.accept_proposal(HUMAN, proposal.id)
    session = await serve([folder])

    code = session.open(folder / "client.py", "import click\nimport requests\n", "python")
    (flagged,) = await session.diagnostics(code)
    assert flagged.data["name"] == "requests" and flagged.severity == types.DiagnosticSeverity.Warning
    assert flagged.range == types.Range(start=types.Position(line=1, character=7),
                                        end=types.Position(line=1, character=15))
    # The drafted reason is the commit's why; it names the replacement, so nothing repeats it.
    assert "Replace requests with httpx" in flagged.message and "replaced by" not in flagged.message

    setup_py = session.open(folder / "setup.py", SETUP_PY, "python")
    (declared,) = await session.diagnostics(setup_py)
    assert declared.range == types.Range(start=types.Position(line=1, character=37),
                                         end=types.Position(line=1, character=45))
    setup_cfg = session.open(folder / "setup.cfg", SETUP_CFG)
    (declared,) = await session.diagnostics(setup_cfg)
    assert declared.range == types.Range(start=types.Position(line=3, character=4),
                                         end=types.Position(line=3, character=12))


async def test_candidates_are_previewed_decided_in_bulk_and_reopened(memory, serve, tmp_path):
    from cenotaph.lsp.convert import plain

    folder = project_folder(tmp_path, "app", PROJECT)
    repo = GitRepo(folder)
    repo.commit("Start", {"requirements.txt": "requests\nujson\nsix\n", "requirements-dev.txt": "nose\n"},
                at="2024-01-01T10:00:00+00:00")
    dropped = repo.commit("Drop ujson: it crashes on 3.12", {"requirements.txt": "requests\nsix\n"},
                          at="2024-02-01T10:00:00+00:00")
    repo.commit("Tidy", {"requirements.txt": "requests\n", "requirements-dev.txt": ""}, at="2024-02-02T10:00:00+00:00")
    proposed = {p.arguments["name"]: p.id for p in memory.mine_git(HUMAN, str(folder), project=PROJECT).proposals.proposed}
    assert set(proposed) == {"ujson", "six", "nose"}
    session = await serve([folder])

    preview = plain(await session.execute("cenotaph.decideCandidates", {"decision": "reject", "project": PROJECT,
                                                                        "commit": dropped[:7], "preview": True}))
    assert preview["ids"] == [proposed["ujson"]] and preview["message"] == "reject 1 candidate?"
    assert f"#{proposed['ujson']} ujson (pypi)" in preview["markdown"]
    assert len(memory.proposals(PROJECT)) == 3  # a preview decides nothing
    decided = plain(await session.execute("cenotaph.decideCandidates", {
        "decision": "reject", "proposalIds": [proposed["six"], proposed["nose"]], "reason": "noise"}))
    assert sorted(decided["ids"]) == sorted([proposed["six"], proposed["nose"]]) and decided["id"]
    assert decided["message"].startswith("rejected 2 candidates")
    assert [p.arguments["name"] for p in memory.proposals(PROJECT)] == ["ujson"]
    reopened = plain(await session.execute("cenotaph.reopenCandidates", {"batch": decided["id"]}))
    assert reopened["message"] == "reopened 2 candidates: pending again"
    assert {p.arguments["name"] for p in memory.proposals(PROJECT)} == {"ujson", "six", "nose"}

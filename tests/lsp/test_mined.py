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

"""The install test: Cenotaph built as `make dist` builds it (`python -m build`), installed
into a fresh virtual environment from the wheel file alone (`--no-index --no-deps`), and its
`cenotaph` run as an agent's hook and as CI's lint. The dependencies come from this checkout's
environment through a `.pth` line, so only Cenotaph itself comes from the wheel; the build backend
is the test extra's (no build isolation), so nothing is fetched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import HUMAN, cli_memory
from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "acme/app"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The `bin/` of a virtual environment holding Cenotaph from its wheel (built once a module)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    # The checkout's files as they are (uncommitted changes too), without its build leftovers.
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "server", source / "server", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # No build isolation: the backend comes from the test extra, so the build reaches no index.
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(work / "dist"),
                    str(source)], env=env, check=True, timeout=300, capture_output=True)
    wheel = next((work / "dist").glob("cenotaph-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env,
                          check=True, capture_output=True, text=True).stdout.strip()
    # Site directories process .pth files; a folder a .pth adds does not, so the checkout's own
    # editable install of Cenotaph stays out and the wheel's is the one imported.
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index",
                    "--no-deps", str(wheel)], env=env, check=True, timeout=300, capture_output=True)
    where = subprocess.run([python, "-c", "import cenotaph; print(cenotaph.__file__)"], env=env, check=True,
                           capture_output=True, text=True).stdout
    assert where.startswith(site), where
    return venv / "bin"


@pytest.fixture
def repo(tmp_path: Path, cli_env, embedder, analyzer) -> GitRepo:
    repo = GitRepo(tmp_path / "app")
    repo.commit("Start", {".cenotaph.toml": f'project = "{PROJECT}"\n', "requirements.txt": "flask\nrequests\n",
                          "app.py": "import httpx\n"})
    with cli_memory(cli_env, embedder, analyzer) as memory:
        memory.abandon(HUMAN, "requests", ecosystem="pypi", project=PROJECT,
                       reason="Blocks the event loop in our async workers; replaced by httpx.")
    return repo


@pytest.mark.install
def test_the_installed_wheel_runs_the_hook_and_lint(installed, cli_env, repo):
    env = {k: v for k, v in cli_env.items() if k != "PYTHONPATH"}
    cenotaph = str(installed / "cenotaph")

    def hook(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([cenotaph, "hook", "claude-code"], env=env, cwd=repo.root, capture_output=True,
                              text=True, timeout=120, input=json.dumps({
                                  "cwd": str(repo.root), "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                  "tool_input": {"command": command}}))

    denied = hook("pip install requests")
    assert denied.returncode == 0, denied.stderr
    decision = json.loads(denied.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny" and "replaced by httpx" in decision["permissionDecisionReason"]
    allowed = hook("pip install httpx")  # positive control: a clear package passes
    assert allowed.returncode == 0 and allowed.stdout == "", allowed.stderr
    lint = subprocess.run([cenotaph, "lint", "--format", "json"], env=env, cwd=repo.root, capture_output=True,
                          text=True, timeout=120)
    assert lint.returncode == 1, lint.stderr
    found = json.loads(lint.stdout)
    assert [(f["path"], f["name"]) for f in found["findings"]] == [("requirements.txt", "requests")]

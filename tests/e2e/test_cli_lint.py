"""`cenotaph lint` for CI and pre-commit: the real command over a real git repository, its SARIF
validated against the official SARIF 2.1.0 schema (tests/data/sarif/, source noted there)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.conftest import HUMAN, cli_memory
from tests.e2e.test_cli import run
from tests.gitrepo import GitRepo

PROJECT = "acme/app"
SCHEMA = Path(__file__).parent.parent / "data" / "sarif" / "sarif-schema-2.1.0.json"
PRE_COMMIT_HOOKS = Path(__file__).parent.parent.parent / ".pre-commit-hooks.yaml"


@pytest.fixture
def repo(tmp_path: Path, cli_env, embedder, analyzer) -> GitRepo:
    repo = GitRepo(tmp_path / "app")
    repo.commit("Start", {
        ".cenotaph.toml": f'project = "{PROJECT}"\n', ".gitignore": "build/\n",
        "requirements.txt": "flask\nrequests==2.31\n",
        "src/app.py": "import os\nimport requests\n",
        "src/ok.py": "import httpx\n",
        "web/package.json": '{"dependencies": {"moment": "^2.30.0", "date-fns": "3"}}\n',
        "docs/notes.md": "We dropped requests.\n",
    })
    (repo.root / "build").mkdir()
    (repo.root / "build" / "gen.py").write_text("import requests\n", encoding="utf-8")  # ignored by git
    with cli_memory(cli_env, embedder, analyzer) as memory:
        memory.abandon(HUMAN, "requests", ecosystem="pypi", effort=3, project=PROJECT,
                       reason="Blocks the event loop; replaced by httpx.")
        memory.abandon(HUMAN, "moment", ecosystem="npm", project=PROJECT, reason="Mutable dates; replaced by date-fns.")
    return repo


def lint(env, repo: GitRepo, *args: str):
    return run(env, "lint", *args, cwd=repo.root, check=False)


def test_lint_reports_every_abandoned_import_and_declaration_git_knows(cli_env, repo):
    done = lint(cli_env, repo, "--format", "json")
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    found = {(f["path"], f["line"], f["column"], f["end_column"], f["name"], f["kind"]) for f in findings}
    # Not build/gen.py (.gitignore), not the prose in docs/notes.md, not httpx or date-fns.
    assert found == {("requirements.txt", 2, 1, 9, "requests", "declaration"),
                     ("src/app.py", 2, 8, 16, "requests", "import"),
                     ("web/package.json", 1, 20, 26, "moment", "declaration")}
    # Lines and columns count from 1 and the end column is exclusive (SARIF's regions; the editor's
    # range of the same name is 0-based): each range holds exactly the name.
    for f in findings:
        line = (repo.root / f["path"]).read_text(encoding="utf-8").splitlines()[f["line"] - 1]
        assert line[f["column"] - 1:f["end_column"] - 1] == f["name"]
    text = lint(cli_env, repo, "src")
    assert text.returncode == 1
    assert text.stdout.startswith("src/app.py:2:8: requests (import): requests (pypi) was abandoned in this project")
    assert "requirements.txt" not in text.stdout  # outside the PATH given
    clean = lint(cli_env, repo, "src/ok.py")
    assert clean.returncode == 0 and clean.stdout == ""


def test_base_reports_only_what_was_introduced_since(cli_env, repo):
    base = repo.git("rev-parse", "HEAD")
    repo.commit("More", {"src/app.py": "import os\nimport requests\nimport json\n",
                         "src/new.py": "import sys\nfrom requests import Session\n"})
    (repo.root / "scratch.py").write_text("import requests\n", encoding="utf-8")  # untracked, not ignored
    done = lint(cli_env, repo, "--base", base, "--format", "json")
    assert done.returncode == 1, done.stderr
    found = sorted((f["path"], f["line"]) for f in json.loads(done.stdout)["findings"])
    assert found == [("scratch.py", 1), ("src/new.py", 2)]
    head = repo.git("rev-parse", "HEAD")
    (repo.root / "scratch.py").unlink()
    assert lint(cli_env, repo, "--base", head).returncode == 0


def test_usage_errors_exit_2(cli_env, repo):
    assert lint(cli_env, repo, "--format", "xml").returncode == 2
    unknown = lint(cli_env, repo, "--base", "no-such-revision")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    missing = lint(cli_env, repo, "no/such/path")
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_sarif_is_valid_2_1_0_with_one_rule_per_approach(cli_env, repo):
    done = lint(cli_env, repo, "--format", "sarif")
    assert done.returncode == 1, done.stderr
    log = json.loads(done.stdout)
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    (run_,) = log["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["abandoned/pypi/requests", "abandoned/npm/moment"]
    assert rules[0]["help"]["text"].startswith("Blocks the event loop; replaced by httpx.")
    regions = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleIndex"],
                      tuple(r["locations"][0]["physicalLocation"]["region"].values())) for r in run_["results"])
    assert regions == [("requirements.txt", 0, (2, 1, 9)), ("src/app.py", 0, (2, 8, 16)),
                       ("web/package.json", 1, (1, 20, 26))]
    clean = lint(cli_env, repo, "src/ok.py", "--format", "sarif")
    assert clean.returncode == 0
    jsonschema.validate(json.loads(clean.stdout), json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_the_pre_commit_hook_runs_lint_on_the_staged_files(cli_env, repo):
    (hook,) = yaml.safe_load(PRE_COMMIT_HOOKS.read_text(encoding="utf-8"))
    assert hook["id"] == "cenotaph-lint" and hook["language"] == "system" and hook["pass_filenames"] is True
    program, *arguments = hook["entry"].split()
    assert (program, arguments) == ("cenotaph", ["lint"])
    # Its entry run as pre-commit runs it, with the staged file names after it: a file that
    # imports an abandoned package fails the commit; beside it, clean files and prose pass.
    staged = run(cli_env, *arguments, "src/app.py", "src/ok.py", cwd=repo.root, check=False)
    assert staged.returncode == 1 and staged.stdout.startswith("src/app.py:2:8: requests (import)")
    assert run(cli_env, *arguments, "src/ok.py", "docs/notes.md", cwd=repo.root, check=False).returncode == 0

"""`cenotaph lint` for CI and pre-commit: the real command over a real git repository, its SARIF
validated against the official SARIF 2.1.0 schema (tests/data/sarif/, source noted there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.conftest import CENOTAPH, HUMAN, cli_memory
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
    assert (program, arguments) == ("cenotaph", ["lint", "--staged"])
    # Its entry run as pre-commit runs it, with the staged file names after it: a staged file that
    # adds an abandoned import fails the commit; beside it, clean files and prose pass.
    (repo.root / "src" / "ok.py").write_text("import httpx\nimport requests\n", encoding="utf-8")
    (repo.root / "docs" / "notes.md").write_text("We dropped requests.\n\n    import requests\n", encoding="utf-8")
    repo.git("add", "-A")
    staged = run(cli_env, *arguments, "src/ok.py", "docs/notes.md", cwd=repo.root, check=False)
    assert staged.returncode == 1 and staged.stdout.startswith("src/ok.py:2:8: requests (import)")
    assert run(cli_env, *arguments, "src/app.py", "docs/notes.md", cwd=repo.root, check=False).returncode == 0


def test_staged_judges_only_what_the_commit_adds_as_the_index_holds_it(cli_env, repo):
    # A commit touching a file with an old finding passes: the old import is HEAD's.
    (repo.root / "src" / "app.py").write_text("import os\nimport requests\nimport json\n", encoding="utf-8")
    repo.git("add", "src/app.py")
    touched = lint(cli_env, repo, "--staged", "src/app.py")
    assert touched.returncode == 0, touched.stdout + touched.stderr
    # Positive control: a staged new file that imports it fails, alone of the staged files.
    (repo.root / "src" / "new.py").write_text("import sys\nfrom requests import Session\n", encoding="utf-8")
    repo.git("add", "src/new.py")
    added = lint(cli_env, repo, "--staged", "--format", "json")
    assert added.returncode == 1
    assert [(f["path"], f["line"]) for f in json.loads(added.stdout)["findings"]] == [("src/new.py", 2)]
    # The index, not the working tree: an unstaged import is not the commit's, a staged one
    # undone in the working tree is.
    (repo.root / "src" / "ok.py").write_text("import httpx\nimport requests\n", encoding="utf-8")
    (repo.root / "src" / "new.py").write_text("import sys\n", encoding="utf-8")
    found = lint(cli_env, repo, "--staged", "--format", "json")
    assert [(f["path"], f["line"]) for f in json.loads(found.stdout)["findings"]] == [("src/new.py", 2)]
    # A manifest line added beside an old one is new; the old one is not.
    repo.git("reset", "-q")
    (repo.root / "requirements.txt").write_text("flask\nrequests==2.31\nhttpx\n", encoding="utf-8")
    repo.git("add", "requirements.txt")
    assert lint(cli_env, repo, "--staged", "requirements.txt").returncode == 0
    assert lint(cli_env, repo, "--staged", "--base", "HEAD").returncode == 2


def test_staged_in_a_repository_with_no_commit_yet(cli_env, repo, tmp_path):
    fresh = GitRepo(tmp_path / "fresh")
    (fresh.root / ".cenotaph.toml").write_text(f'project = "{PROJECT}"\n', encoding="utf-8")
    (fresh.root / "main.py").write_text("import requests\n", encoding="utf-8")
    (fresh.root / "clean.py").write_text("import httpx\n", encoding="utf-8")
    fresh.git("add", "-A")
    done = run(cli_env, "lint", "--staged", "--format", "json", cwd=fresh.root, check=False)
    assert done.returncode == 1, done.stderr
    assert [f["path"] for f in json.loads(done.stdout)["findings"]] == ["main.py"]


def test_a_moved_file_keeps_its_old_findings_old(cli_env, repo):
    base = repo.git("rev-parse", "HEAD")
    repo.git("mv", "src/app.py", "src/service.py")
    repo.git("mv", "requirements.txt", "requirements-base.txt")
    assert lint(cli_env, repo, "--staged", "src/service.py", "requirements-base.txt").returncode == 0
    # Positive control: beside the moves, a new file with the import is the commit's.
    (repo.root / "src" / "fresh.py").write_text("import requests\n", encoding="utf-8")
    repo.git("add", "src/fresh.py")
    staged = lint(cli_env, repo, "--staged", "--format", "json")
    assert [f["path"] for f in json.loads(staged.stdout)["findings"]] == ["src/fresh.py"]
    # Committed, and moved again with an edit: --base follows both moves.
    repo.commit("Move", {"src/fresh.py": None})
    repo.git("mv", "src/service.py", "src/api.py")
    (repo.root / "src" / "api.py").write_text("import os\nimport requests\nimport sys\n", encoding="utf-8")
    assert lint(cli_env, repo, "--base", base).returncode == 0
    copied = repo.root / "src" / "copy.py"  # a copy is no move: its import is new
    copied.write_text("import os\nimport requests\nimport sys\n", encoding="utf-8")
    moved = lint(cli_env, repo, "--base", base, "--format", "json")
    assert [f["path"] for f in json.loads(moved.stdout)["findings"]] == ["src/copy.py"]


def test_sarif_uris_are_percent_encoded_and_fingerprints_distinct_and_stable(cli_env, repo):
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    # The checker really checks (rfc3986-validator installed): a raw path with a space fails it.
    assert not checker.conforms("src/my file ü.py", "uri-reference")
    odd = "src/my file ü%.py"
    (repo.root / odd).write_text("import requests\nfrom requests import Session\n", encoding="utf-8")

    def results() -> list[dict]:
        done = lint(cli_env, repo, odd, "src/app.py", "--format", "sarif")
        assert done.returncode == 1, done.stderr
        log = json.loads(done.stdout)
        jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")), format_checker=checker)
        return log["runs"][0]["results"]

    first = results()
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in first]
    assert uris == ["src/app.py", "src/my%20file%20%C3%BC%25.py", "src/my%20file%20%C3%BC%25.py"]
    prints = [r["partialFingerprints"]["cenotaph/v2"] for r in first]
    assert len(set(prints)) == 3
    # Lines added above keep each result's fingerprint; a second identical line gets its own.
    (repo.root / odd).write_text("import os\n\nimport requests\nfrom requests import Session\nimport requests\n",
                                 encoding="utf-8")
    again = results()
    assert [r["partialFingerprints"]["cenotaph/v2"] for r in again][:3] == prints
    assert len({r["partialFingerprints"]["cenotaph/v2"] for r in again}) == 4


def test_an_empty_graveyard_is_said_and_can_be_required(cli_env, embedder, analyzer, tmp_path):
    bare = GitRepo(tmp_path / "bare")
    bare.commit("Start", {".cenotaph.toml": f'project = "{PROJECT}"\n', "app.py": "import requests\n"})
    passed = run(cli_env, "lint", cwd=bare.root, check=False)
    assert passed.returncode == 0 and "the graveyard is empty" in passed.stderr
    required = run(cli_env, "lint", "--require-graveyard", cwd=bare.root, check=False)
    assert required.returncode == 2 and "--require-graveyard" in required.stderr and required.stdout == ""
    # Positive control: one abandoned approach, and the notice goes; so does the refusal.
    with cli_memory(cli_env, embedder, analyzer) as memory:
        memory.abandon(HUMAN, "left-pad", ecosystem="npm", project=PROJECT, reason="Unpublished once.")
    checked = run(cli_env, "lint", "--require-graveyard", cwd=bare.root, check=False)
    assert checked.returncode == 0 and "graveyard is empty" not in checked.stderr


def _documented_configs() -> list[str]:
    text = (Path(__file__).parent.parent.parent / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text[text.index("## pre-commit"):text.index("## GitHub Actions")]
    return [block.split("\n", 1)[1] for block in section.split("```")[1::2] if block.startswith("yaml")]


def test_the_documented_pre_commit_configs_work_with_the_real_pre_commit(cli_env, repo, tmp_path):
    local, pinned = _documented_configs()
    # The second points at Cenotaph's repository: here, a clone holding its hooks file, at a commit.
    cenotaph_repo = GitRepo(tmp_path / "cenotaph")
    sha = cenotaph_repo.commit("Hooks", {".pre-commit-hooks.yaml": PRE_COMMIT_HOOKS.read_text(encoding="utf-8")})
    pinned = pinned.replace("https://github.com/OWNER/cenotaph", str(cenotaph_repo.root)).replace(
        "0123456789abcdef0123456789abcdef01234567", sha)
    env = {**cli_env, "PATH": f"{Path(CENOTAPH).parent}{os.pathsep}{cli_env['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"), "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Jane", "GIT_AUTHOR_EMAIL": "jane@example.com",
           "GIT_COMMITTER_NAME": "Jane", "GIT_COMMITTER_EMAIL": "jane@example.com"}

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=repo.root, env=env, capture_output=True, text=True, timeout=180,
                              check=False)

    for config in (local, pinned):
        (repo.root / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
        installed = subprocess.run([str(Path(sys.executable).with_name("pre-commit")), "install"], cwd=repo.root,
                                   env=env, capture_output=True, text=True, timeout=120, check=False)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        git("add", ".pre-commit-config.yaml")
        # A commit touching a file with an old finding, and moving another, goes through.
        with (repo.root / "src" / "app.py").open("a", encoding="utf-8") as file:
            file.write("import json\n")
        git("mv", "requirements.txt", "requirements-main.txt")
        git("add", "-A")
        touched = git("commit", "-q", "-m", "Touch and move")
        assert touched.returncode == 0, touched.stdout + touched.stderr
        # Positive control: one that adds the import is refused, naming the file.
        (repo.root / "src" / "client.py").write_text("import requests\n", encoding="utf-8")
        git("add", "-A")
        refused = git("commit", "-q", "-m", "Add a client")
        output = refused.stdout + refused.stderr  # the hook's output, as git commit shows it
        assert refused.returncode == 1 and "src/client.py:1:8: requests (import)" in output, output
        git("rm", "-q", "--cached", "src/client.py")
        (repo.root / "src" / "client.py").unlink()
        git("mv", "requirements-main.txt", "requirements.txt")
        git("add", "-A")
        assert git("commit", "-q", "-m", "Back").returncode == 0

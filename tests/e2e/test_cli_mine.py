"""Issue 13's "done when", as a new user would do it: mine a repository's history, review the
proposals, accept one, and the graveyard answers for it."""

from __future__ import annotations

import json

from tests.e2e.test_cli import run
from tests.gitrepo import BOB, GitRepo


def test_mine_review_accept_and_check(cli_env, tmp_path):
    repo = GitRepo(tmp_path / "app")
    (repo.root / ".cenotaph.toml").write_text('project = "acme/app"\n', encoding="utf-8")
    repo.commit("Start the API client", {"requirements.txt": "requests==2.31\nclick\n",
                                         "package.json": '{"devDependencies": {"@types/node": "20", "eslint": "8", "jest": "29"}}'},
                at="2024-01-21T09:00:00+00:00")
    replaced = repo.commit("Replace requests with httpx", {"requirements.txt": "httpx==0.27\nclick\n"}, author=BOB,
                           at="2024-03-02T09:00:00+00:00")
    repo.commit("Trim dev tools", {"package.json": '{"devDependencies": {"jest": "29"}}'}, at="2024-03-03T09:00:00+00:00")

    mined = json.loads(run(cli_env, "mine", "git", "--json", cwd=repo.root).stdout)
    assert mined["project"] == "acme/app"
    keys = sorted(p["arguments"]["key"] for p in mined["proposals"]["proposed"])
    assert keys == ["eslint", "requests"]  # httpx, click and jest are declared at HEAD
    # Types follow their package: @types/node is passed over, with why.
    assert mined["history"]["passed_over"] == {"@types/node": "types for another package, not a choice of their own"}
    requests = next(p for p in mined["proposals"]["proposed"] if p["arguments"]["key"] == "requests")
    assert requests["reason"] == "Replace requests with httpx"
    assert requests["arguments"]["commit"] == replaced[:7] and requests["arguments"]["lived_days"] == 41

    listing = run(cli_env, "proposals", cwd=repo.root).stdout
    assert f"#{requests['id']} [pending] abandon requests (pypi)" in listing
    assert f'removed  {replaced[:7]} 2024-03-02 Bob Roe: "Replace requests with httpx"  requirements.txt' in listing
    dev = json.loads(run(cli_env, "proposals", "--class", "dev", "--json", cwd=repo.root).stdout)["proposals"]
    assert [p["arguments"]["key"] for p in dev] == ["eslint"]
    plain = json.loads(run(cli_env, "proposals", "--class", "plain", "--json", cwd=repo.root).stdout)["proposals"]
    assert [p["arguments"]["key"] for p in plain] == ["requests"]

    again = run(cli_env, "mine", "git", cwd=repo.root).stdout
    assert "read 0 commits touching manifests (since the last run)" in again

    run(cli_env, "accept", str(requests["id"]), "--effort", "2", cwd=repo.root)
    checked = json.loads(run(cli_env, "check", "requests", "--json", cwd=repo.root).stdout)
    verdict = checked["results"][0]
    assert verdict["status"] == "abandoned" and verdict["approach"]["reason"] == "Replace requests with httpx"


def test_mining_outside_a_repository_is_a_clear_error(cli_env, tmp_path):
    proc = run(cli_env, "mine", "git", str(tmp_path), "--json", "--project", "p", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["field"] == "path" and "not inside a git repository" in error["message"]
    proc = run(cli_env, "mine", check=False)
    assert proc.returncode == 2 and "SOURCE" in proc.stderr


def test_review_at_scale_ranks_hides_the_unlikely_and_decides_by_class_path_or_ids(cli_env, tmp_path):
    repo = GitRepo(tmp_path / "app")
    (repo.root / ".cenotaph.toml").write_text('project = "acme/app"\n', encoding="utf-8")
    repo.commit("Start", {"requirements.txt": "requests\nujson\nsix\n", "requirements-dev.txt": "nose\nmock\n",
                          "tools/bench/requirements.txt": "pyperf\n", "docs/requirements.txt": "sphinx-rtd\n"},
                at="2024-01-01T09:00:00+00:00")
    repo.commit("Replace requests with httpx", {"requirements.txt": "httpx\nujson\nsix\n"}, at="2024-02-01T09:00:00+00:00")
    repo.commit("Drop ujson: it crashes on 3.12", {"requirements.txt": "httpx\nsix\n"}, at="2024-02-02T09:00:00+00:00")
    repo.commit("Tidy", {"requirements.txt": "httpx\n", "requirements-dev.txt": "", "tools/bench/requirements.txt": "",
                         "docs/requirements.txt": ""}, at="2024-02-03T09:00:00+00:00")
    run(cli_env, "mine", "git", cwd=repo.root)

    shown = json.loads(run(cli_env, "proposals", "--json", cwd=repo.root).stdout)
    names = [p["arguments"]["name"] for p in shown["proposals"]]
    assert names[:2] == ["requests", "ujson"] or names[:2] == ["ujson", "requests"]
    assert "nose" not in names and shown["below"] >= 2  # dev tools dropped in passing lie below
    text = run(cli_env, "proposals", cwd=repo.root).stdout
    assert f"{shown['below']} more mined candidates below confidence 0.50" in text
    everything = json.loads(run(cli_env, "proposals", "--min-confidence", "0", "--json", cwd=repo.root).stdout)
    by_name = {p["arguments"]["name"]: p["id"] for p in everything["proposals"]}
    assert set(by_name) == {"requests", "ujson", "six", "nose", "mock", "pyperf", "sphinx-rtd"}

    dev = json.loads(run(cli_env, "reject", "--class", "dev", "--reason", "tooling churn", "--json",
                         cwd=repo.root).stdout)["rejected"]
    assert sorted(r["arguments"]["name"] for r in dev) == ["mock", "nose"]
    assert {r["decision_reason"] for r in dev} == {"tooling churn"}
    tools = run(cli_env, "reject", "--path", "tools/*", "--reason", "benchmarks are throwaway", cwd=repo.root).stdout
    assert f"rejected 1 proposals (benchmarks are throwaway): #{by_name['pyperf']} pyperf" in tools
    accepted = run(cli_env, "accept", str(by_name["requests"]), str(by_name["ujson"]), cwd=repo.root).stdout
    assert f"accepted proposal #{by_name['requests']}" in accepted and f"accepted proposal #{by_name['ujson']}" in accepted
    left = json.loads(run(cli_env, "proposals", "--min-confidence", "0", "--json", cwd=repo.root).stdout)["proposals"]
    assert sorted(p["arguments"]["name"] for p in left) == ["six", "sphinx-rtd"]  # the positive controls stay
    nothing = run(cli_env, "reject", "--reason", "x", check=False, cwd=repo.root)
    assert nothing.returncode == 2 and "ID" in nothing.stdout + nothing.stderr

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
                         cwd=repo.root).stdout)["proposals"]
    assert sorted(r["arguments"]["name"] for r in dev) == ["mock", "nose"]
    assert {r["decision_reason"] for r in dev} == {"tooling churn"}
    tools = run(cli_env, "reject", "--path", "tools/*", "--reason", "benchmarks are throwaway", cwd=repo.root).stdout
    assert "rejected 1 candidate as batch #" in tools and f"candidate #{by_name['pyperf']} pyperf (pypi)" in tools
    accepted = run(cli_env, "accept", str(by_name["requests"]), str(by_name["ujson"]), cwd=repo.root).stdout
    assert accepted.startswith("accepted 2 candidates as batch #"), accepted
    assert "requests (pypi) abandoned in acme/app: Replace requests with httpx" in accepted
    assert "ApproachRow" not in accepted
    left = json.loads(run(cli_env, "proposals", "--min-confidence", "0", "--json", cwd=repo.root).stdout)["proposals"]
    assert sorted(p["arguments"]["name"] for p in left) == ["six", "sphinx-rtd"]  # the positive controls stay
    nothing = run(cli_env, "reject", "--reason", "x", check=False, cwd=repo.root)
    assert nothing.returncode == 2 and "ID" in nothing.stdout + nothing.stderr


def _pending(cli_env, repo) -> dict[str, dict]:
    rows = json.loads(run(cli_env, "proposals", "--min-confidence", "0", "--json", cwd=repo.root).stdout)["proposals"]
    return {p["arguments"]["name"]: p for p in rows}


def test_bulk_review_by_commit_confidence_class_path_or_ids_previews_and_undoes(cli_env, tmp_path):
    repo = GitRepo(tmp_path / "app")
    (repo.root / ".cenotaph.toml").write_text('project = "acme/app"\n', encoding="utf-8")
    repo.commit("Start", {"requirements.txt": "requests\nujson\nsix\n", "requirements-dev.txt": "nose\nmock\n",
                          "tools/bench/requirements.txt": "pyperf\n"}, at="2024-01-01T09:00:00+00:00")
    repo.commit("Replace requests with httpx", {"requirements.txt": "httpx\nujson\nsix\n"}, at="2024-02-01T09:00:00+00:00")
    dropped = repo.commit("Drop ujson: it crashes on 3.12", {"requirements.txt": "httpx\nsix\n"},
                          at="2024-02-02T09:00:00+00:00")
    tidy = repo.commit("Tidy", {"requirements.txt": "httpx\n", "requirements-dev.txt": "",
                                "tools/bench/requirements.txt": ""}, at="2024-02-03T09:00:00+00:00")
    run(cli_env, "mine", "git", cwd=repo.root)
    before = _pending(cli_env, repo)
    assert set(before) == {"requests", "ujson", "six", "nose", "mock", "pyperf"}
    # The removing commit is listed first, not the one that added it.
    listing = run(cli_env, "proposals", "--min-confidence", "0", cwd=repo.root).stdout
    ujson_block = listing.split(f"#{before['ujson']['id']} [pending]")[1]
    assert ujson_block.split("\n")[2].lstrip().startswith(f"removed  {dropped[:7]}"), ujson_block

    # A preview lists and counts what the commit removed, and changes nothing.
    preview = run(cli_env, "reject", "--commit", tidy[:7], "--dry-run", cwd=repo.root).stdout
    assert preview.startswith("would reject 4 candidates (nothing changed"), preview
    assert all(f"#{before[n]['id']} {n} " in preview for n in ("six", "nose", "mock", "pyperf"))
    assert "ujson" not in preview and "requests" not in preview
    assert _pending(cli_env, repo) == before

    # By commit: ujson's commit touches ujson only.
    by_commit = json.loads(run(cli_env, "reject", "--commit", dropped[:9], "--reason", "kept for now", "--json",
                               cwd=repo.root).stdout)
    assert [p["arguments"]["name"] for p in by_commit["proposals"]] == ["ujson"] and by_commit["batch"]
    # By confidence: everything below the cut, nothing at or above it.
    cut = 0.5
    low = json.loads(run(cli_env, "reject", "--below", str(cut), "--dry-run", "--json", cwd=repo.root).stdout)
    low_names = {p["arguments"]["name"] for p in low["proposals"]}
    expected_low = {n for n, p in before.items() if p["arguments"]["confidence"] < cut and n != "ujson"}
    assert low_names == expected_low and expected_low and set(before) - expected_low - {"ujson"}
    # Filters combine: dev candidates in requirements-dev.txt, not the one under tools/.
    both = json.loads(run(cli_env, "reject", "--class", "dev", "--path", "requirements-dev.txt", "--reason", "churn",
                          "--json", cwd=repo.root).stdout)
    assert sorted(p["arguments"]["name"] for p in both["proposals"]) == ["mock", "nose"]
    # By ids: every one named.
    ids = [str(before[n]["id"]) for n in ("six", "pyperf")]
    listed = run(cli_env, "reject", *ids, "--reason", "noise", cwd=repo.root).stdout
    assert listed.startswith("rejected 2 candidates as batch #") and "undo: cenotaph reopen --batch" in listed
    assert set(_pending(cli_env, repo)) == {"requests"}

    # Undo restores exactly: the batch's candidates are pending as before, and may be mined again.
    reopened = run(cli_env, "reopen", "--batch", str(both["batch"]), cwd=repo.root).stdout
    assert reopened.startswith("reopened 2 candidates: pending again"), reopened
    run(cli_env, "reopen", str(before["ujson"]["id"]), cwd=repo.root)
    after = _pending(cli_env, repo)
    assert set(after) == {"requests", "ujson", "nose", "mock"}
    assert all(after[n] == before[n] for n in after)
    again = run(cli_env, "reopen", "--batch", str(both["batch"]), check=False, cwd=repo.root)
    assert again.returncode == 2 and "name what to reopen" in again.stdout + again.stderr

    # Accepting in bulk reads as what happened; an accepted batch is not undone behind the graveyard's back.
    accepted = run(cli_env, "accept", "--commit", dropped[:7], cwd=repo.root).stdout
    assert accepted.startswith("accepted 1 candidate as batch #"), accepted
    assert "ujson (pypi) abandoned in acme/app: Drop ujson: it crashes on 3.12" in accepted
    batch = accepted.split("batch #")[1].split()[0]
    refused = run(cli_env, "reopen", "--batch", batch, check=False, cwd=repo.root)
    assert refused.returncode != 0 and "reinstate" in refused.stdout + refused.stderr

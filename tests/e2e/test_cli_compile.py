"""Issue 17's "done when", as a new user would do it with the real `cenotaph` and `ruff` commands."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import CENOTAPH

RUFF = str(Path(sys.executable).with_name("ruff"))
BREAKTHROUGH = "Use one shared httpx.AsyncClient for every request"


def run(env, cwd, *args, check=True):
    proc = subprocess.run([CENOTAPH, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_done_when_abandon_and_two_experiences_compile_to_a_skill_and_a_ruff_rule(cli_env, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    run(cli_env, repo, "abandon", "requests", "--reason", "blocking calls stalled the event loop", "--effort", "4")
    for summary in ("Moved the crawler's page fetches to asyncio", "Rewrote the webhook sender to keep up with bursts"):
        run(cli_env, repo, "experience", "--summary", summary, "--outcome", "success", "--effort", "3",
            "--breakthrough", BREAKTHROUGH)

    result = json.loads(run(cli_env, repo, "compile", "--target", "skill", "--json").stdout)
    [change] = result["files"]
    draft = change["draft"]
    front = re.match(r"---\nname: ([a-z0-9]+(?:-[a-z0-9]+)*)\ndescription: (.*)\n---\n", draft)
    assert front and len(front[1]) <= 64 and 0 < len(json.loads(front[2])) <= 1024
    assert "Don't: requests — blocking calls stalled the event loop" in draft and BREAKTHROUGH in draft
    assert change["base_sha256"] == "absent" and change["diff"].startswith("--- /dev/null")
    run(cli_env, repo, "accept", str(result["proposal"]["id"]))
    assert (repo / change["path"]).read_text(encoding="utf-8") == draft

    (repo / "fetch.py").write_text("import requests\n\nprint(requests)\n", encoding="utf-8")
    (repo / "ruff.toml").write_text("line-length = 100\n", encoding="utf-8")
    ruff = json.loads(run(cli_env, repo, "compile", "--target", "ruff", "--json").stdout)
    (repo / "ruff.toml").write_text("line-length = 120\n", encoding="utf-8")  # edited before accepting
    refused = run(cli_env, repo, "accept", str(ruff["proposal"]["id"]), check=False)
    assert refused.returncode == 2
    assert "ruff.toml changed since the proposal; propose it again with `cenotaph compile --target ruff`" \
        in refused.stderr
    assert (repo / "ruff.toml").read_text(encoding="utf-8") == "line-length = 120\n"

    # Put back as it was diffed, the same proposal goes through.
    (repo / "ruff.toml").write_text("line-length = 100\n", encoding="utf-8")
    run(cli_env, repo, "accept", str(ruff["proposal"]["id"]))
    assert (repo / "ruff.toml").read_text(encoding="utf-8").startswith("line-length = 100\n")
    flagged = subprocess.run([RUFF, "check", "--no-cache", "--output-format", "concise", "fetch.py"], cwd=repo,
                             capture_output=True, text=True, timeout=60)
    assert flagged.returncode == 1 and "TID251 `requests` is banned" in flagged.stdout, flagged.stdout

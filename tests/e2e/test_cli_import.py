"""`cenotaph import FILE`: JSON Lines in, a summary out (text or --json), refused lines by number
and field, a second run skipping what is already there."""

from __future__ import annotations

import json

from tests.e2e.test_cli import run

LINES = [
    '{"content": "The deploy script needs the VPN to reach the registry", "tags": ["deploy"]}',
    '{"content": "Use ruff for linting", "kind": "decision"}',
    "this is not json",
    '{"content": "Staging data is a week old", "kind": "rumour"}',
    "",
    '{"content": "Old fact", "valid_from": "2024-01-01", "project": "other"}',
]


def test_import_reads_json_lines_and_reports_each_refusal(cli_env, tmp_path):
    path = tmp_path / "memories.jsonl"
    path.write_text("\n".join(LINES) + "\n")
    proc = run(cli_env, "import", str(path), "--project", "p", "--json", check=False)
    assert proc.returncode == 1  # some lines were refused
    summary = json.loads(proc.stdout)
    assert (summary["imported"], summary["skipped_duplicates"], summary["skipped_forgotten"]) == (3, 0, 0)
    assert [(r["line"], r["field"]) for r in summary["refused"]] == [(3, None), (4, "kind")]
    assert "5/5" in proc.stderr  # progress on stderr (every non-blank line counts)
    hits = json.loads(run(cli_env, "recall", "VPN registry", "--project", "p", "--json").stdout)["results"]
    assert hits[0]["content"].startswith("The deploy script") and hits[0]["trust"] == "unverified"
    assert "Old fact" in run(cli_env, "recall", "old fact", "--project", "other").stdout
    assert "intact: 3 events" in run(cli_env, "audit", "verify").stdout

    # Again: nothing new; the good lines alone import cleanly (exit 0).
    path.write_text("\n".join(line for i, line in enumerate(LINES) if i not in (2, 3)) + "\n")
    text = run(cli_env, "import", str(path), "--project", "p").stdout
    assert "imported 0 memories; skipped 3 already stored" in text


def test_a_missing_file_is_an_error_naming_the_file(cli_env, tmp_path):
    proc = run(cli_env, "import", str(tmp_path / "nope.jsonl"), "--project", "p", "--json", check=False)
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["field"] == "file"

"""The real `cenotaph` command: a secret is refused with exit status 2 and nothing stored,
`--redact` stores it redacted, `import` refuses its lines by number, `repair --check` finds one
stored earlier, and `forget --confirm` leaves no byte of the memory in the file or its WAL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cenotaph.app import open_store

from tests.conftest import cli_store
from tests.e2e.test_cli import run
from tests.memory.secrets_corpus import LOOK_ALIKES, SECRETS
from tests.memory.test_forget_gone import raw_bytes

AWS = "AKIAQ3EGUWZXJ7NK4PLR"


def _db(cli_env) -> Path:
    return Path(cli_env["CENOTAPH_HOME"]) / "cenotaph.db"


@pytest.mark.sqlite_only("greps the bytes of the SQLite file")
def test_done_when_remember_with_an_aws_key_exits_2_naming_it_and_stores_nothing(cli_env):
    proc = run(cli_env, "remember", f"the key is {AWS} for the deploy user", "--project", "p", check=False)
    assert proc.returncode == 2
    assert "content: AWS Access Key at 11–31" in proc.stderr and "--redact" in proc.stderr
    assert AWS not in proc.stderr + proc.stdout and "Traceback" not in proc.stderr
    as_json = run(cli_env, "remember", f"the key is {AWS}", "--project", "p", "--json", check=False)
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"]["field"] == "content"
    assert json.loads(run(cli_env, "audit", "log", "--json").stdout)["events"] == []
    assert AWS.encode() not in raw_bytes(_db(cli_env))
    # With --redact the person's text is stored, the key replaced.
    run(cli_env, "remember", f"the key is {AWS} for the deploy user", "--project", "p", "--redact")
    out = run(cli_env, "recall", "deploy user key", "--project", "p").stdout
    assert "the key is [REDACTED:AWS Access Key] for the deploy user" in out
    assert AWS.encode() not in raw_bytes(_db(cli_env))


def test_import_refuses_each_secret_line_by_number_and_takes_the_look_alikes(cli_env, tmp_path):
    lines = [json.dumps({"content": text}) for _, text in LOOK_ALIKES]
    lines += [json.dumps({"content": text}) for _, text, _ in SECRETS]
    source = tmp_path / "memories.jsonl"
    source.write_text("\n".join(lines) + "\n")
    proc = run(cli_env, "import", str(source), "--project", "p", "--json", check=False)
    report = json.loads(proc.stdout)
    assert report["imported"] + report["skipped_duplicates"] == len(LOOK_ALIKES)
    refused = report["refused"]
    assert [r["line"] for r in refused] == list(range(len(LOOK_ALIKES) + 1, len(lines) + 1))
    assert all(r["field"] == "content" for r in refused)
    assert not any(secret in json.dumps(refused) for _, _, secret in SECRETS)


def test_repair_check_reports_a_secret_stored_before_screening(cli_env):
    run(cli_env, "remember", "the deploy user's key is in the vault", "--project", "p")
    assert "secret stored" not in run(cli_env, "repair", "--check").stdout  # the positive control
    store = open_store(cli_store(cli_env))
    try:
        with store.write() as tx:  # an old store: written before every write was screened
            tx.execute("UPDATE memories SET content = ? WHERE memory_id = 1", (f"the key is {AWS} for the deploy user",))
    finally:
        store.close()
    proc = run(cli_env, "repair", "--check", check=False)
    assert proc.returncode == 1
    assert "secret stored (forget it): memory #1 v1 content: AWS Access Key at 11–31" in proc.stdout
    assert AWS not in proc.stdout


@pytest.mark.sqlite_only("greps the bytes of the SQLite file and its WAL")
def test_forget_confirm_leaves_no_byte_of_content_or_tags_in_the_file_or_wal(cli_env):
    token, tag = "zqxjvorblefumph", "tagwvzzkplunder"
    run(cli_env, "remember", f"Run the {token} script before a staging deploy", "--tag", tag, "--project", "p")
    run(cli_env, "remember", "The cache is warmed after each staging deploy", "--project", "p")
    run(cli_env, "recall", f"{token} script", "--project", "p")
    db = _db(cli_env)
    before = raw_bytes(db)
    assert token.encode() in before and tag.encode() in before  # the positive control
    run(cli_env, "forget", "1", "--reason", "named an internal script", "--confirm", "--project", "p")
    after = raw_bytes(db)
    assert token.encode() not in after and tag.encode() not in after
    assert b"The cache is warmed" in after
    assert "intact" in run(cli_env, "audit", "verify").stdout

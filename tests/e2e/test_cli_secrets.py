"""The real `cenotaph` command: a secret is refused with exit status 2 and nothing stored,
`--redact` stores it redacted, `import` refuses its lines by number, `repair --check` finds one
stored earlier, and `forget --confirm` leaves no byte of the memory in the file or its WAL."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import HUMAN, cli_memory
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


def test_repair_check_reports_a_secret_stored_before_screening(cli_env, embedder, analyzer):
    with cli_memory(cli_env, embedder, analyzer) as memory:
        assert memory.remember(HUMAN, "the deploy user's key is in the vault", project="p").id == 1
    assert "secret stored" not in run(cli_env, "repair", "--check").stdout  # the positive control
    with cli_memory(cli_env, embedder, analyzer) as memory, memory.ctx.store.write() as tx:
        # An old store: written before every write was screened.
        tx.execute("UPDATE memories SET content = ? WHERE memory_id = 1", (f"the key is {AWS} for the deploy user",))
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


# pallets/flask docs/config.rst, "Configuring from Environment Variables" (trimmed): the section
# `ingest` used to drop whole because it shows the documentation's example key.
FLASK_ENV_SECTION = """Configuring from Environment Variables
--------------------------------------

In addition to pointing to configuration files using environment
variables, you may find it useful (or necessary) to control your
configuration values directly from the environment. Flask can be
instructed to load all environment variables starting with a specific
prefix into the config using :meth:`~flask.Config.from_prefixed_env`.

.. code-block:: text

    $ export FLASK_SECRET_KEY="5f352379324c22463451387a0aec5d2f"
    $ export FLASK_MAIL_ENABLED=false
    $ flask run
     * Running on http://127.0.0.1:5000/

The prefix is ``FLASK_`` by default. This is configurable via the
``prefix`` argument of :meth:`~flask.Config.from_prefixed_env`.
"""


def test_issue_27_ordinary_code_is_stored_prose_secrets_are_refused_or_redacted(cli_env):
    for text in ("Open sqlite with detect_types=sqlite3.PARSE_DECLTYPES so timestamps come back as datetime.",
                 "password = PasswordField('New Password', [...])"):
        run(cli_env, "remember", text, "--project", "p")  # exit 0: identifiers are not secrets
    proc = run(cli_env, "remember", "the db password is hunter2", "--project", "p", check=False)
    assert proc.returncode == 2 and "content: Password at 19–26" in proc.stderr
    assert "hunter2" not in proc.stderr + proc.stdout and "Traceback" not in proc.stderr
    run(cli_env, "remember", "staging login is admin / Tr0ub4dor-x9Q2-Lm7Z", "--project", "p", "--redact")
    out = run(cli_env, "recall", "staging login", "--project", "p").stdout
    assert "staging login is admin / [REDACTED:Login Credentials]" in out and "Tr0ub4dor" not in out
    assert "hunter2" not in json.dumps(json.loads(run(cli_env, "audit", "log", "--json").stdout))


def test_ingest_keeps_a_section_with_an_example_key_redacting_only_the_key(cli_env, tmp_path):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".cenotaph.toml").write_text('project = "acme/app"\n', encoding="utf-8")
    (repo / "docs" / "config.rst").write_text(FLASK_ENV_SECTION, encoding="utf-8")
    proc = run(cli_env, "ingest", "docs/", cwd=repo)
    assert "secret redacted: docs/config.rst:12: Secret Keyword" in proc.stdout
    out = json.loads(run(cli_env, "recall", "load config from FLASK_ environment variables", "--json",
                         cwd=repo).stdout)
    section = next(r["content"] for r in out["results"] if "from_prefixed_env" in r["content"])
    assert 'export FLASK_SECRET_KEY="[REDACTED:Secret Keyword]"' in section
    assert "FLASK_MAIL_ENABLED=false" in section and "5f352379324c22463451387a0aec5d2f" not in section

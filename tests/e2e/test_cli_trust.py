"""Trust, time and audit from the real `cenotaph` command (issue 3 "Done when")."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cenotaph.app import open_store
from cenotaph.memory.context import Context
from cenotaph.memory.service import Memory

from tests.conftest import AGENT, CENOTAPH, cli_store

P = ("--project", "p")


def run(env, *args, check=True):
    proc = subprocess.run([CENOTAPH, *args], env=env, capture_output=True, text=True, timeout=180)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def js(env, *args):
    return json.loads(run(env, *args, "--json").stdout)


def test_lifecycle_trust_contradictions_and_history(cli_env):
    a = js(cli_env, "remember", "Keep gunicorn as the web server for the admin site.", *P)["id"]
    written = js(cli_env, "remember", "Gunicorn workers crash on the admin site; remove gunicorn.", *P)
    b = written["id"]
    assert written["contradictions"][0]["other_id"] == a
    listed = js(cli_env, "contradictions", *P)["contradictions"]
    assert [(c["memory_a"]["trust"], c["memory_b"]["trust"]) for c in listed] == [("disputed", "disputed")]
    resolved = js(cli_env, "resolve", str(listed[0]["id"]), "--keep", "b", "--reason", "reproduced", *P)
    assert resolved["status"] == "resolved" and resolved["memory_a"]["trust"] == "refuted"
    assert js(cli_env, "contradictions", *P)["contradictions"] == []

    assert js(cli_env, "deprioritise", str(b), "--reason", "rare", "--hint", "gunicorn", *P)["state"] == "deprioritised"
    preview = js(cli_env, "forget", str(b), "--reason", "wrong", *P)
    assert preview["content"].startswith("Gunicorn workers crash") and preview["confirmed"] is False
    assert js(cli_env, "history", str(b))["versions"][0]["state"] == "deprioritised"
    assert js(cli_env, "forget", str(b), "--reason", "wrong", "--confirm", *P)["state"] == "deleted"
    history = js(cli_env, "history", str(b))
    assert history["tombstone"]["reason"] == "wrong" and history["versions"][0]["content"] == ""
    refused = run(cli_env, "reinstate", str(b), "--reason", "oops", *P, check=False)
    assert refused.returncode == 2 and "forgotten" in refused.stderr
    assert js(cli_env, "confirm", str(a), "--reason", "it was right after all", *P)["trust"] == "confirmed"
    text = run(cli_env, "history", str(a)).stdout
    assert "trust disputed → refuted" in text and "it was right after all" in text


@pytest.mark.sqlite_only("tampers with the SQLite file and backs it up as a file")
def test_suppress_update_audit_tamper_and_backup_refusal(cli_env, tmp_path):
    stored = js(cli_env, "remember", "The frontend bundles with webpack and babel", *P)["id"]
    row = js(cli_env, "suppress", "Webpack", "--kind", "recall", "--reason", "migrating", *P)
    assert (row["value"], row["kind"], row["project"]) == ("webpack", "recall", "p")
    silenced = run(cli_env, "recall", "frontend bundler", *P).stdout
    assert "Nothing answers this" in silenced and "webpack" not in silenced
    lifted = js(cli_env, "unsuppress", "webpack", "--kind", "recall", "--reason", "cancelled", *P)
    assert lifted["lifted_reason"] == "cancelled"
    updated = js(cli_env, "update", str(stored), "--content", "The frontend bundles with Vite", *P)
    assert updated["version"] == 2

    assert js(cli_env, "audit", "verify")["ok"] is True
    log = js(cli_env, "audit", "log", "--target", str(stored))["events"]
    assert [e["action"] for e in log] == ["remember", "update"]
    backup = js(cli_env, "backup", str(tmp_path / "ok.bak"))
    assert Path(backup["path"]).is_file()

    db = sqlite3.connect(Path(cli_env["CENOTAPH_HOME"]) / "cenotaph.db")
    db.execute("DROP TRIGGER events_no_update")
    db.execute("UPDATE events SET reason = 'nothing to see' WHERE seq = 2")
    db.commit()
    db.close()
    broken = run(cli_env, "audit", "verify", check=False)
    assert broken.returncode == 1 and "event #2" in broken.stdout

    junk = tmp_path / "junk.db"
    junk.write_text("hello")
    refused = run(cli_env, "restore", str(junk), "--json", check=False)
    assert refused.returncode == 2
    assert "not a Cenotaph backup" in json.loads(refused.stdout)["error"]["message"]
    assert js(cli_env, "restore", backup["path"])["memories_added"] == 0


def test_a_person_accepts_an_agent_proposal_from_the_command_line(cli_env, embedder, analyzer):
    memory_id = js(cli_env, "remember", "The old CI runners are in the basement rack", *P)["id"]
    store = open_store(cli_store(cli_env))
    try:
        agent_side = Memory(Context(store=store, embedder=embedder, analyzer=analyzer))
        proposal = agent_side.forget(AGENT, memory_id, reason="decommissioned", confirm=True)
        other = agent_side.set_trust(AGENT, memory_id, "refuted", reason="they were moved")
    finally:
        store.close()
    pending = js(cli_env, "proposals", *P)["proposals"]
    assert [(p["id"], p["action"]) for p in pending] == [(proposal.id, "forget"), (other.id, "refute")]
    assert js(cli_env, "reject", str(other.id), "--reason", "not yet", *P)["status"] == "rejected"
    assert js(cli_env, "accept", str(proposal.id), *P)["state"] == "deleted"
    assert js(cli_env, "proposals", *P)["proposals"] == []

"""Issue 18's done-when through the real `cenotaph` command: ingest a design document, recall the
right chunk with its location, re-ingest an edit as one changed chunk; a loopback feed's entries
stored as knowledge."""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from tests.e2e.test_cli import run
from tests.memory.test_documents import DESIGN
from tests.memory.test_feeds import RSS


def test_ingest_recall_and_reingest_an_edit(cli_env, tmp_path):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".cenotaph.toml").write_text('project = "acme/app"\n', encoding="utf-8")
    design = repo / "docs" / "design.md"
    design.write_text(DESIGN, encoding="utf-8")
    first = json.loads(run(cli_env, "ingest", "docs/", "--json", cwd=repo).stdout)
    assert (first["files"], first["chunks_added"]) == (1, 4)
    out = json.loads(run(cli_env, "recall", "how are migrations applied", "--json", cwd=repo).stdout)
    top = out["results"][0]
    assert top["kind"] == "document" and top["content"].startswith("Migrations are numbered functions")
    assert top["location"] == {"path": "docs/design.md", "start_line": 12, "end_line": 13,
                               "heading": "Design › Storage › Migrations"}
    text = run(cli_env, "recall", "how are migrations applied", cwd=repo).stdout
    assert text.startswith(f"1. docs/design.md:12: #{top['id']}")
    design.write_text(DESIGN.replace("The language server flags", "The language server marks"), encoding="utf-8")
    again = json.loads(run(cli_env, "ingest", "docs/", "--json", cwd=repo).stdout)
    assert (again["chunks_updated"], again["chunks_unchanged"], again["chunks_added"]) == (1, 3, 0)


def test_feed_add_and_pull_store_expiring_knowledge(cli_env, tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "feed.xml").write_text(RSS, encoding="utf-8")

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path / "site"), **kwargs)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/feed.xml"
        run(cli_env, "feed", "add", url, "--project", "p")
        pulled = json.loads(run(cli_env, "feed", "pull", "--project", "p", "--json").stdout)
        assert pulled["feeds"][0]["added"] == 2 and pulled["feeds"][0]["error"] is None
        listed = run(cli_env, "feed", "list", "--project", "p").stdout
        assert "2 live entries" in listed and "expire after 30 days" in listed
        found = json.loads(run(cli_env, "recall", "connection pool recycles", "--project", "p", "--json").stdout)
        entry = found["results"][0]
        assert entry["kind"] == "knowledge"
        promoted = run(cli_env, "promote", str(entry["id"]), "--project", "p").stdout
        assert "kept for good, confirmed" in promoted
        doctor = run(cli_env, "doctor", "--project", "p").stdout
        assert url in doctor
    finally:
        httpd.shutdown()
        httpd.server_close()
    bad = run(cli_env, "feed", "add", "ftp://example.invalid/feed", "--project", "p", check=False)
    assert bad.returncode == 2 and "url" in bad.stderr + bad.stdout

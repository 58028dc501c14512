"""`cenotaph/recall` and `cenotaph/remember`: the editor asks the server it already runs, and gets
what `cenotaph recall --json` and `cenotaph remember --json` print, recorded as the editor's actor."""

from __future__ import annotations

import json
import subprocess

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from cenotaph.lsp.convert import plain
from cenotaph.store import recall_log
from tests.conftest import CENOTAPH, HUMAN, person_of
from tests.lsp.conftest import PROJECT, conforms, project_folder


def keys(value):
    """The shape of a JSON value: its keys, all the way down (lists by their first item)."""
    if isinstance(value, dict):
        return {k: keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [keys(value[0])] if value else []
    return None


async def test_recall_answers_like_the_cli_for_the_documents_project(memory, serve, tmp_path, cli_env, db_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    other = project_folder(tmp_path, "other", "acme/other")
    decision = memory.remember(HUMAN, "We deploy the API with blue-green releases behind the load balancer.",
                               project=PROJECT, kind="decision").id
    note = memory.remember(HUMAN, "Deploy notes: the staging load balancer drains connections for 30 seconds.",
                           project=PROJECT, kind="note").id
    elsewhere = memory.remember(HUMAN, "We deploy the billing service with rolling releases.",
                                project="acme/other", kind="decision").id
    memory.abandon(HUMAN, "capistrano", reason="Ruby-only deploy tooling", project=PROJECT)
    session = await serve([folder, other])
    request = session.client.protocol.send_request_async

    query = "how do we deploy with capistrano"
    answer = plain(await request("cenotaph/recall", {"query": query, "k": 5, "uri": (folder / "a.py").as_uri()}))
    conforms("recall.schema.json", answer, "recallResult")
    cli = json.loads(subprocess.run([CENOTAPH, "recall", "--json", "-k", "5", "--db", str(db_path), "--project",
                                     PROJECT, "--", query], env=cli_env, capture_output=True, text=True,
                                    check=True).stdout)
    assert keys(answer) == keys(cli) and answer["project"] == cli["project"] == PROJECT
    assert [(r["result_type"], r["id"]) for r in answer["results"]] == \
        [(r["result_type"], r["id"]) for r in cli["results"]]
    assert answer["results"][0]["result_type"] == "abandoned_warning" and answer["results"][0]["name"] == "capistrano"
    found = [r["id"] for r in answer["results"] if r["result_type"] == "memory"]
    assert decision in found and note in found and elsewhere not in found
    # Three memories of k = 5 matched (the abandonment's story too): the answer says nothing else
    # did, as the CLI's does.
    assert answer["nothing_else_matched"] is cli["nothing_else_matched"] is True and len(found) == 3

    # A folder URI decides the project too; `kinds` keeps only those kinds (the note is a control).
    decisions = plain(await request("cenotaph/recall", {"query": "deploy releases", "kinds": ["decision"],
                                                        "uri": other.as_uri()}))
    assert decisions["project"] == "acme/other"
    assert [r["id"] for r in decisions["results"] if r["result_type"] == "memory"] == [elsewhere]

    with memory.ctx.store.read() as conn:
        actors = {(row.actor, row.query) for row in recall_log.since(conn, PROJECT, "2000-01-01")}
    assert (f"vscode:{person_of(db_path)}", query) in actors and (f"cli:{person_of(db_path)}", query) in actors


BAD_PARAMS = [
    ({"query": "", "uri": "file:///x"}, "query"),
    ({"query": "   ", "project": PROJECT}, "query"),
    ({"query": "deploy", "kinds": ["gossip"], "project": PROJECT}, "kinds"),
    ({"query": "deploy", "k": 0, "project": PROJECT}, "k"),
    ({"query": "deploy"}, "uri"),
    ({"query": "deploy", "uri": "file:///elsewhere/a.py"}, "uri"),
]


async def test_bad_recall_params_are_errors_that_name_the_field(serve, tmp_path):
    session = await serve([project_folder(tmp_path, "app", PROJECT)])
    request = session.client.protocol.send_request_async
    for params, field in BAD_PARAMS:
        with pytest.raises(JsonRpcInvalidParams) as raised:
            await request("cenotaph/recall", params)
        assert field in raised.value.message, params
    good = plain(await request("cenotaph/recall", {"query": "deploy", "project": PROJECT}))  # the control
    assert good["project"] == PROJECT and good["results"] == []


async def test_remember_stores_as_the_editor_and_refuses_a_duplicate(memory, serve, tmp_path, db_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder], client_name="Neovim")
    request = session.client.protocol.send_request_async
    params = {"content": "Integration tests run against a real Postgres in a container.", "kind": "decision",
              "tags": ["testing"], "uri": (folder / "tests" / "conftest.py").as_uri()}

    stored = plain(await request("cenotaph/remember", params))
    conforms("recall.schema.json", stored, "rememberResult")
    assert stored["stored"] is True and stored["memory"]["actor"] == f"nvim:{person_of(db_path)}"
    row = memory.get(stored["id"])
    assert (row.project, row.kind, row.tags, row.content) == (PROJECT, "decision", ["testing"], params["content"])

    again = plain(await request("cenotaph/remember", params))
    conforms("recall.schema.json", again, "rememberResult")
    assert again["stored"] is False and again["duplicate_of"] == stored["id"]

    with pytest.raises(JsonRpcInvalidParams) as raised:
        await request("cenotaph/remember", {**params, "kind": "gossip"})
    assert "kind" in raised.value.message

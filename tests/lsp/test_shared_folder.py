"""The repository's shared folder in the editor (issue 14), with the real `cenotaph serve` and real
git: a teammate's pull reaches the open document within a second; hover says who shared it; the
code actions share and unshare; a malformed shared file gets one diagnostic of its own."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types

from cenotaph import project as project_resolution
from tests.conftest import HUMAN
from tests.lsp.conftest import abandoned, conforms
from tests.team import team

ONNX = ".cenotaph/graveyard/pypi/onnxruntime.toml"


async def test_a_teammates_pull_reaches_the_open_document_within_a_second(serve, tmp_path, cli_env, db_path):
    ada, grace = team(tmp_path, cli_env, "Ada Lovelace", "Grace Hopper")
    ada.cenotaph("abandon", "onnxruntime", "--reason", "SIGILL on Alpine musl", "--share")
    ada.publish("Share: onnxruntime is a dead end")

    session = await serve([grace.root])  # Grace's editor, on a store of her own (db_path)
    uri = session.open(grace.root / "app.py", "import numpy\nimport onnxruntime\n", "python")
    assert await session.diagnostics(uri) == []  # not pulled yet
    pull = await asyncio.create_subprocess_exec("git", "pull", "-q", "--no-rebase", "origin", "main", cwd=grace.root,
                                                env=grace.env)
    assert await pull.wait() == 0
    pulled_at = time.monotonic()
    (flagged,) = await session.diagnostics(uri, bool)
    arrived = time.monotonic() - pulled_at
    assert arrived <= 1.0, f"the shared entry reached the document {arrived:.2f}s after the pull"
    assert flagged.range.start.line == 1 and flagged.severity == types.DiagnosticSeverity.Warning
    assert flagged.data["source"] == "repo" and flagged.data["scope"] == "project"
    assert "shared in the repository by Ada Lovelace" in flagged.message
    conforms("diagnostic-data.schema.json", flagged.data)

    # The server asked the client to watch the shared folders (this test client does not: the
    # live refresh noticed the pull).
    (watch,) = [r for r in session.client.registrations if r.method == "workspace/didChangeWatchedFiles"]
    assert [w["globPattern"] for w in watch.register_options["watchers"]] == ["**/.cenotaph/**"]

    hover = await session.hover(uri, 1, 10)
    assert hover is not None and "shared in the repository by Ada Lovelace" in hover.contents.value
    assert "SIGILL on Alpine musl" in hover.contents.value and ONNX in hover.contents.value
    titles = [a.title for a in await session.code_actions(uri, flagged)]
    assert "Stop sharing 'onnxruntime' with the team" in titles and "Silence 'onnxruntime' in this project" in titles
    assert not [t for t in titles if t.startswith(("Reinstate", "Mark this record wrong"))]

    # Grace's `cenotaph check` agrees, from her own store.
    (verdict,) = grace.cenotaph_json("check", "onnxruntime", "--db", str(db_path))["results"]
    assert (verdict["status"], verdict["source"]) == ("abandoned", "repo")

    # A branch switch that drops the file clears the warning.
    grace.git("checkout", "-q", "-b", "before", "HEAD~1")
    assert await session.diagnostics(uri, lambda d: not d) == []


async def test_share_with_the_team_from_a_warning_and_from_the_ledger(memory, serve, tmp_path, cli_env):
    (ada,) = team(tmp_path, cli_env, "Ada Lovelace")
    project = project_resolution.resolve(None, ada.root)
    story = memory.abandon(HUMAN, "requests", reason="blocking I/O in the event loop", project=project).memory_id
    stored = memory.remember(HUMAN, "Releases are tagged from main only", project=project, kind="decision")
    memory.deprioritise(HUMAN, stored.id, reason="rarely asked")
    session = await serve([ada.root])
    uri = session.open(ada.root / "requirements.txt", "requests==2.32.0\n")
    (flagged,) = await session.diagnostics(uri, bool)
    assert flagged.data["source"] == "store"
    (share,) = [a for a in await session.code_actions(uri, flagged) if a.title.startswith("Share")]
    assert share.title == "Share 'requests' with the team"
    conforms("commands.schema.json", {"command": share.command.command, "arguments": list(share.command.arguments)})
    result = await session.execute(share.command.command, share.command.arguments[0])
    assert result["done"] and "commit it" in result["message"]
    assert (ada.root / ".cenotaph/graveyard/pypi/requests.toml").is_file()
    # Now shared: the warning says so, the reason once, and the action turns into "Stop sharing".
    (again,) = await session.diagnostics(uri, lambda d: bool(d) and "shared in the repository" in d[0].message)
    assert again.message.count("blocking I/O in the event loop") == 1
    assert "; also shared in the repository by Ada Lovelace" in again.message
    hover = await session.hover(uri, 0, 2)
    assert "\n---\n" not in hover.contents.value  # one story, not the same story twice
    assert "*Also shared in the repository by Ada Lovelace" in hover.contents.value
    # The reason once, the story memory cited beside it (its number, not its text again).
    assert hover.contents.value.count("blocking I/O in the event loop") == 1
    assert f"- memory #{story} · experience" in hover.contents.value
    titles = [a.title for a in await session.code_actions(uri, again)]
    assert "Stop sharing 'requests' with the team" in titles and "Share 'requests' with the team" not in titles

    ledger = await session.client.protocol.send_request_async("cenotaph/ledger", {"uri": uri})
    # One entry per record, marked as shared (positive control: it is listed, with its mark).
    [entry] = [line for line in ledger.text.splitlines() if line.startswith("- approach #") and "requests" in line]
    assert "shared in the repository (.cenotaph/graveyard/pypi/requests.toml)" in entry
    assert ledger.counts.graveyard == 1
    entry_line = ledger.text.splitlines().index(entry)
    ledger_uri = session.open_uri(ledger.uri, ledger.text, "markdown")
    line = next(i for i, text in enumerate(ledger.text.splitlines()) if text.startswith(f"- memory #{stored.id}"))
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=ledger_uri),
        range=types.Range(start=types.Position(line=line, character=2), end=types.Position(line=line, character=2)),
        context=types.CodeActionContext(diagnostics=[])))
    (share_memory,) = [a for a in actions if a.title == f"Share memory #{stored.id} with the team"]
    on_entry = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=ledger_uri),
        range=types.Range(start=types.Position(line=entry_line, character=2),
                          end=types.Position(line=entry_line, character=2)),
        context=types.CodeActionContext(diagnostics=[])))
    assert "Stop sharing 'requests' with the team" in [a.title for a in on_entry]
    conforms("commands.schema.json", {"command": share_memory.command.command,
                                      "arguments": list(share_memory.command.arguments)})
    assert (await session.execute(share_memory.command.command, share_memory.command.arguments[0]))["done"]
    assert [p.name.startswith("releases-are-tagged-from-main-only-")
            for p in (ada.root / ".cenotaph/memories").iterdir()] == [True]


async def test_a_malformed_shared_file_gets_one_diagnostic_and_the_others_still_work(serve, tmp_path, cli_env):
    (ada,) = team(tmp_path, cli_env, "Ada Lovelace")
    ada.cenotaph("abandon", "onnxruntime", "--reason", "SIGILL on Alpine musl", "--share")
    session = await serve([ada.root])
    uri = session.open(ada.root / "app.py", "import onnxruntime\nimport torch\n", "python")
    assert [d.data["name"] for d in await session.diagnostics(uri, bool)] == ["onnxruntime"]
    broken = ada.root / ".cenotaph/graveyard/pypi/torch.toml"
    broken.write_text('format = 1\necosystem = "pypi"\nname = "torch\n', encoding="utf-8")
    (problem,) = await session.diagnostics(broken.as_uri(), bool)  # published without being opened
    assert problem.code == "shared-file-invalid" and problem.severity == types.DiagnosticSeverity.Error
    assert problem.range.start.line == 2 and "not valid TOML" in problem.message
    assert [d.data["name"] for d in await session.diagnostics(uri)] == ["onnxruntime"]
    # Opened, it keeps its one diagnostic (a shared file is not scanned for mentions).
    opened = session.open(broken, broken.read_text(), "toml")
    assert [d.code for d in await session.diagnostics(opened, bool)] == ["shared-file-invalid"]
    broken.write_text('format = 1\necosystem = "pypi"\nname = "torch"\nreason = "CUDA only"\n'
                      'author = "Ada"\nshared_at = "2026-03-01T12:00:00Z"\n', encoding="utf-8")
    assert await session.diagnostics(opened, lambda d: not d) == []
    assert sorted(d.data["name"] for d in abandoned(await session.diagnostics(uri, lambda d: len(d) == 2), "torch")
                  + abandoned(await session.diagnostics(uri), "onnxruntime")) == ["onnxruntime", "torch"]


async def test_reinstating_a_shared_entry_offers_to_stop_sharing_it(memory, serve, tmp_path, cli_env):
    (ada,) = team(tmp_path, cli_env, "Ada Lovelace")
    project = project_resolution.resolve(None, ada.root)
    memory.abandon(HUMAN, "requests", reason="blocking I/O in the event loop", project=project)
    session = await serve([ada.root], message_answers=["It works now", "Stop sharing it"])
    uri = session.open(ada.root / "requirements.txt", "requests==2.32.0\n")
    await session.diagnostics(uri, bool)
    assert (await session.execute("cenotaph.share", {"name": "requests", "project": project}))["done"]
    shared = ada.root / ".cenotaph/graveyard/pypi/requests.toml"
    assert shared.is_file()
    await session.diagnostics(uri, lambda d: bool(d) and "shared in the repository" in d[0].message)

    done = await session.execute("cenotaph.reinstate", {"name": "requests", "project": project})
    [_, offer] = session.client.message_requests
    assert offer.message.startswith("'requests' is still shared with the team (.cenotaph/graveyard/pypi/requests.toml)")
    assert done["done"] and "no longer shared" in done["message"]
    assert not shared.exists()
    assert await session.diagnostics(uri, lambda d: not d, timeout=30) == []

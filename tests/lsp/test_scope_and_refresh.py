"""Each workspace folder is a project, and a write by another process reaches open documents
within a second."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types

from tests.conftest import CENOTAPH, HUMAN
from tests.lsp.conftest import PROJECT, abandoned, project_folder


async def test_multi_root_workspaces_keep_their_folders_apart(memory, serve, tmp_path):
    app = project_folder(tmp_path, "app", PROJECT)
    other = project_folder(tmp_path, "other", "acme/other")
    memory.abandon(HUMAN, "requests", reason="blocking I/O in the event loop", project=PROJECT)
    memory.abandon(HUMAN, "flask", reason="we standardised on one framework", project="")
    session = await serve([app, other])
    text = "requests==2.32.0\nflask==3.0\n"
    in_app = session.open(app / "requirements.txt", text)
    in_other = session.open(other / "requirements.txt", text)

    app_diagnostics = await session.diagnostics(in_app)
    assert [(d.data["name"], d.severity, d.data["documentProject"]) for d in app_diagnostics] == [
        ("requests", types.DiagnosticSeverity.Warning, PROJECT),
        ("flask", types.DiagnosticSeverity.Information, PROJECT),
    ]
    other_diagnostics = await session.diagnostics(in_other)  # the global graveyard reaches both
    assert [(d.data["name"], d.data["documentProject"]) for d in other_diagnostics] == [("flask", "acme/other")]

    # Each folder's ledger is its own project's.
    ledger = await session.client.protocol.send_request_async("cenotaph/ledger", {"uri": in_other})
    assert ledger.project == "acme/other" and "requests" not in ledger.text and "flask" in ledger.text

    # A folder leaves the workspace: its documents are no longer anyone's project.
    session.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[], removed=[types.WorkspaceFolder(uri=app.as_uri(), name="app")])))
    assert await session.diagnostics(in_app, lambda d: not d) == []
    assert abandoned(await session.diagnostics(in_other), "flask")


async def test_another_process_abandons_and_the_open_document_shows_it_within_a_second(
        memory, serve, tmp_path, cli_env, db_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    uri = session.open(folder / "requirements.txt", "httpx==0.27\nrequests==2.32.0\n")
    assert await session.diagnostics(uri) == []  # nothing abandoned yet

    # The write's moment, seen from here: when the event log's head moves; and the moment the
    # diagnostic arrives, watched at the same time (the CLI takes a while to exit after writing).
    start = memory.change_seq()
    written_at: list[float] = []

    async def watch_the_store() -> None:
        while memory.change_seq() == start:
            await asyncio.sleep(0.005)
        written_at.append(time.monotonic())

    async def watch_the_document() -> tuple[list, float]:
        found = await session.diagnostics(uri, lambda d: bool(d), timeout=30)
        return found, time.monotonic()

    watcher = asyncio.create_task(watch_the_store())
    arrival = asyncio.create_task(watch_the_document())
    cli = await asyncio.create_subprocess_exec(
        CENOTAPH, "abandon", "requests", "--ecosystem", "pypi", "--reason", "blocking I/O in the event loop", "--project", PROJECT,
        "--db", str(db_path), env=cli_env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await cli.communicate()
    assert cli.returncode == 0, err.decode()
    await asyncio.wait_for(watcher, 5)

    (flagged,), seen_at = await arrival
    assert flagged.data["name"] == "requests" and flagged.range.start.line == 1  # httpx stays clear
    assert seen_at - written_at[0] <= 1.0, f"diagnostic arrived {seen_at - written_at[0]:.2f}s after the write"


async def test_two_servers_on_one_store_see_each_others_abandon_within_a_second(serve, tmp_path):
    """Two editors (two `cenotaph serve` processes, as on two machines sharing a PostgreSQL store):
    one abandons a library, and the other's open document flags it within a second."""
    mine = project_folder(tmp_path, "mine", PROJECT)
    theirs = project_folder(tmp_path, "theirs", PROJECT)
    writer = await serve([mine])
    reader = await serve([theirs])
    uri = reader.open(theirs / "requirements.txt", "httpx==0.27\nrequests==2.32.0\n")
    assert await reader.diagnostics(uri) == []  # nothing abandoned yet
    own = writer.open(mine / "requirements.txt", "requests==2.32.0\n")
    await writer.diagnostics(own)

    arrival = asyncio.create_task(reader.diagnostics(uri, lambda d: bool(d), timeout=30))
    await writer.execute("cenotaph.abandon", {"name": "requests", "project": PROJECT,
                                              "reason": "blocking I/O in the event loop"})
    written_at = time.monotonic()  # the command's answer comes once its transaction committed
    (flagged,) = await arrival
    seen_at = time.monotonic()
    assert flagged.data["name"] == "requests" and flagged.range.start.line == 1  # httpx stays clear
    assert seen_at - written_at <= 1.0, f"diagnostic arrived {seen_at - written_at:.2f}s after the write"

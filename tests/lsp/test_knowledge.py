"""The language server keeps the workspace's documents ingested: a saved file that matches
`documents.include` is ingested again in the background; one that does not is left alone."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from cenotaph.lsp.features.knowledge import included
from cenotaph.lsp.settings import DEFAULT_DOCUMENTS
from tests.conftest import HUMAN
from tests.lsp.conftest import PROJECT, project_folder


def test_the_default_globs():
    assert included("README.md", DEFAULT_DOCUMENTS) and included("docs/design/storage.md", DEFAULT_DOCUMENTS)
    assert included("services/billing/adr/0001-use-postgres.md", DEFAULT_DOCUMENTS)
    assert included("docs/intro.md", DEFAULT_DOCUMENTS)
    assert not included("src/README.md", DEFAULT_DOCUMENTS) and not included("docs/notes.txt", DEFAULT_DOCUMENTS)
    assert not included("CHANGELOG.md", DEFAULT_DOCUMENTS)


async def chunks_of(memory, path: str, expected: int, timeout: float = 90.0) -> list:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = [r for r in memory.recent(PROJECT, kinds=["document"], limit=100)
                 if path in {loc.path for loc in _locations(memory, r.memory_id)}]
        if len(found) >= expected or loop.time() > deadline:
            return found
        await asyncio.sleep(0.1)


def _locations(memory, memory_id: int):
    from cenotaph.store import documents

    with memory.ctx.store.read() as conn:
        return list(documents.locations(conn, [memory_id]).values())


async def test_saving_a_matching_document_ingests_it_and_others_are_left_alone(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    design = folder / "docs" / "design.md"
    design.parent.mkdir()
    design.write_text("# Storage\n\nMigrations are numbered functions applied in order.\n", encoding="utf-8")
    changelog = folder / "CHANGELOG.md"
    changelog.write_text("# 1.0\n\nFirst release of the billing service.\n", encoding="utf-8")
    session = await serve([folder])
    for path in (changelog, design):
        uri = session.open(path, path.read_text(encoding="utf-8"), "markdown")
        session.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
    found = await chunks_of(memory, "docs/design.md", 1)
    assert [r.content for r in found] == ["Migrations are numbered functions applied in order."]
    assert await chunks_of(memory, "CHANGELOG.md", 1, timeout=2.0) == []
    # Turned off by an empty list.
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"cenotaph": {"documents": {"include": []}}}))
    design.write_text("# Storage\n\nMigrations run at open, in order.\n", encoding="utf-8")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=design.as_uri())))
    # The moment has passed once a document saved later, with the list back, is ingested: a save
    # is debounced and ingested in the order it came, so the earlier one would have been by then.
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"cenotaph": {"documents": {"include": ["docs/marker.md"]}}}))
    marker = folder / "docs" / "marker.md"
    marker.write_text("# Marker\n\nSaved after the design note.\n", encoding="utf-8")
    session.open(marker, marker.read_text(encoding="utf-8"), "markdown")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=marker.as_uri())))
    assert [r.content for r in await chunks_of(memory, "docs/marker.md", 1)] == ["Saved after the design note."]
    assert [r.content for r in await chunks_of(memory, "docs/design.md", 1)] == [
        "Migrations are numbered functions applied in order."]


async def test_show_location_opens_the_file_at_the_chunk(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    (folder / "docs").mkdir()
    design = folder / "docs" / "design.md"
    design.write_text("# Design\n\nIntro.\n\n## Storage\n\nMigrations are numbered functions.\n", encoding="utf-8")
    memory.ingest(HUMAN, [str(design)], project=PROJECT, root=folder)
    chunk = memory.recall(HUMAN, "numbered migrations", project=PROJECT, k=1).results[0]
    note = memory.remember(HUMAN, "A plain note about the billing job.", project=PROJECT)
    session = await serve([folder])
    shown = session.client.shown_documents  # what pytest-lsp's client was asked to show
    result = await session.execute("cenotaph.showLocation", {"memoryId": chunk.id})
    assert result["done"] and result["message"] == "docs/design.md:7"
    assert shown[0].uri == design.as_uri() and shown[0].selection.start.line == 6
    with pytest.raises(Exception, match="from no document or selection"):
        await session.execute("cenotaph.showLocation", {"memoryId": note.id})

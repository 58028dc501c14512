"""Bulk import (issue 8): batches written with source `import`, one event per memory in the hash
chain, full text and vectors in step; exact duplicates and forgotten content skipped and counted;
a bad item refused by position and field while the others go in."""

from __future__ import annotations

import numpy as np
from cenotaph.memory.context import content_hash
from cenotaph.memory.operations.importing import ImportItem, read_jsonl
from cenotaph.store import vectors

from tests.conftest import HUMAN

P = "github.com/acme/app"
NOTES = [
    "The deploy script needs the VPN to reach the registry",
    "Staging uses a copy of last week's production data",
    "Run the migrations before the smoke tests",
    "The billing job retries three times before paging",
    "Release notes are written by the on-call engineer",
]


def test_imported_memories_are_stored_indexed_and_chained(memory):
    head = memory.change_seq()
    report = memory.import_memories(HUMAN, [
        ImportItem(NOTES[0], kind="decision", tags=["deploy"], valid_from="2024-05-01"),
        ImportItem(NOTES[1], project="github.com/acme/other"),
        *(ImportItem(n) for n in NOTES[2:]),
    ], project=P, batch=2)
    assert (report.imported, report.skipped_duplicates, report.skipped_forgotten, report.refused) == (5, 0, 0, [])
    first = memory.get(report.memory_ids[0])
    assert (first.content, first.kind, first.tags, first.source, first.trust) == (
        NOTES[0], "decision", ["deploy"], "import", "unverified")
    assert first.valid_from.startswith("2024-05-01") and first.recorded_at > first.valid_from
    assert memory.get(report.memory_ids[1]).project == "github.com/acme/other"
    # One `import` event per memory, chained like any other write.
    added = memory.audit_log(limit=1000)[head:]
    assert [(e.action, e.target) for e in added] == [("import", f"memory:{i}") for i in report.memory_ids]
    assert memory.audit_verify().ok
    assert memory.check_store().ok
    # Each vector is its own text's (batching kept rows and vectors aligned).
    with memory.ctx.store.read() as conn:
        for memory_id, text in zip(report.memory_ids, NOTES, strict=True):
            row = memory.get(memory_id)
            stored = vectors.get(conn, row.id)
            assert float(np.dot(stored, memory.ctx.embedder.embed_one(text))) > 0.99
    # Both lanes find them.
    assert memory.recall(HUMAN, "VPN registry", project=P).results[0].id == report.memory_ids[0]
    assert memory.recall(HUMAN, "who writes the release notes", project=P).results[0].id == report.memory_ids[4]


def test_exact_duplicates_in_the_same_project_are_skipped_and_counted(memory):
    kept = memory.remember(HUMAN, NOTES[0], project=P)
    report = memory.import_memories(HUMAN, [
        ImportItem(NOTES[0]),  # already stored
        ImportItem(NOTES[1]), ImportItem(NOTES[1]),  # twice in the same import
        ImportItem(NOTES[0], project="github.com/acme/other"),  # positive control: another project
    ], project=P)
    assert (report.imported, report.skipped_duplicates) == (2, 2)
    assert [memory.get(i).content for i in report.memory_ids] == [NOTES[1], NOTES[0]]
    assert memory.get(report.memory_ids[1]).project == "github.com/acme/other"
    again = memory.import_memories(HUMAN, [ImportItem(NOTES[1]), ImportItem(NOTES[2])], project=P)
    assert (again.imported, again.skipped_duplicates) == (1, 1)
    assert memory.get(kept.id).content == NOTES[0]


def test_forgotten_content_is_never_imported_again(memory):
    gone = memory.remember(HUMAN, NOTES[3], project=P)
    memory.forget(HUMAN, gone.id, reason="wrong", confirm=True)
    report = memory.import_memories(HUMAN, [ImportItem(NOTES[3]), ImportItem(NOTES[3], project="elsewhere"),
                                            ImportItem(NOTES[4])], project=P)
    assert (report.imported, report.skipped_forgotten, report.skipped_duplicates) == (1, 2, 0)
    assert memory.get(report.memory_ids[0]).content == NOTES[4]  # positive control
    hashes = {memory.get(i).content_hash for i in report.memory_ids}
    assert content_hash(NOTES[3]) not in hashes


def test_a_bad_item_is_refused_by_position_and_field_and_the_rest_go_in(memory):
    report = memory.import_memories(HUMAN, [
        ImportItem(NOTES[0]),
        ImportItem(NOTES[1], kind="rumour"),
        ImportItem("", line=7),
        ImportItem(NOTES[2], tags="not-a-list"),
        ImportItem(NOTES[3], valid_from="last spring"),
        ImportItem(NOTES[4], project=3),
    ], project=P)
    assert [(r.line, r.field) for r in report.refused] == [
        (2, "kind"), (4, "tags"), (5, "valid_from"), (6, "project"), (7, "content")]
    assert report.imported == 1 and memory.get(report.memory_ids[0]).content == NOTES[0]


def test_progress_is_reported_after_each_batch(memory):
    calls = []
    report = memory.import_memories(HUMAN, (ImportItem(n) for n in NOTES), project=P, batch=2, total=5,
                                    progress=lambda done, total: calls.append((done, total)))
    assert report.imported == 5
    assert calls == [(2, 5), (4, 5), (5, 5)]


def test_json_lines_are_read_with_refusals_by_line_number():
    refused = []
    lines = ['{"content": "a", "kind": "fact", "tags": ["x"], "valid_from": "2024-01-01", "project": "q"}\n',
             "\n", "not json\n", "[1, 2]\n", '{"content": "b", "colour": "red"}\n', '{"kind": "note"}\n',
             '{"content": "c"}\n']
    items = list(read_jsonl(lines, refused))
    assert items == [ImportItem("a", kind="fact", tags=["x"], valid_from="2024-01-01", project="q", line=1),
                     ImportItem("c", line=7)]
    assert [(r.line, r.field) for r in refused] == [(3, None), (4, None), (5, "colour"), (6, "content")]


def test_a_jsonl_import_reports_reading_and_checking_refusals_together(memory):
    lines = [f'{{"content": "{NOTES[0]}"}}', "{oops", '{"content": "x", "kind": "rumour"}', f'{{"content": "{NOTES[1]}"}}']
    report = memory.import_jsonl(HUMAN, lines, project=P)
    assert report.imported == 2
    assert [(r.line, r.field) for r in report.refused] == [(2, None), (3, "kind")]

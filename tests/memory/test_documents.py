"""The repository's documents as chunk memories with their location (issue 18): chunking that
follows the document's structure, re-ingesting that changes only what changed, recall that leads
to the place in the file, and documents kept apart from notes in duplicate and contradiction checks."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

from cenotaph.mcp.tools.results import recall_reply
from cenotaph.memory.core import chunk_ranking
from cenotaph.memory.core.query_words import heading_tokens, query_words, search_words
from cenotaph.memory.models import nothing_else
from cenotaph.nlp import chunks
from tests.conftest import CENOTAPH, HUMAN, cli_memory

P = "github.com/acme/app"

DESIGN = """# Design

Cenotaph keeps a local memory for coding work.

## Storage

One SQLite file holds everything, in WAL mode, with a busy timeout so that several processes
can write at once.

### Migrations

Migrations are numbered functions applied in order at open, each recorded in the
schema_migrations table; a released migration is never edited.

## Editors

The language server flags abandoned imports with a warning and explains them on hover.
"""


# Filler prose for the pages the ranking test makes.
INTRO = ("Every command below is run from the repository's root, in the virtual environment that make setup "
         "creates, and each one prints what it changed so that a second run can be compared with the first.")


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- chunking ------------------------------------------------------------------------------------

def test_markdown_splits_at_headings_and_keeps_the_heading_path_and_lines():
    found = chunks.split(DESIGN, "markdown")
    assert [(c.heading_path, c.start_line, c.end_line) for c in found] == [
        ("Design", 3, 3), ("Design › Storage", 7, 8), ("Design › Storage › Migrations", 12, 13),
        ("Design › Editors", 17, 17)]
    assert found[2].text.startswith("Migrations are numbered functions")


def test_a_code_block_is_never_cut_and_a_heading_inside_it_is_no_heading():
    code = "\n".join(f"line_{i} = {i}  # filler words to make this block long enough" for i in range(80))
    text = f"# Setup\n\nIntro paragraph.\n\n```python\n# not a heading\n{code}\n\n{code}\n```\n\nAfter the block.\n"
    found = chunks.split(text, "markdown")
    fenced = [c for c in found if "```python" in c.text]
    assert len(fenced) == 1 and fenced[0].text.rstrip().endswith("```")
    assert all(c.heading_path == "Setup" for c in found)  # positive control: the real heading counts
    assert any(c.text == "After the block." for c in found)


def test_long_sections_are_split_at_paragraphs_to_a_bounded_size_with_a_small_overlap():
    paragraphs = [" ".join(f"word{p}x{i}" for i in range(120)) for p in range(6)]
    short = "A short bridging sentence."
    text = "# Long\n\n" + "\n\n".join(paragraphs[:2] + [short] + paragraphs[2:]) + "\n"
    found = chunks.split(text, "markdown")
    assert len(found) >= 3
    assert all(len(c.text.split()) <= chunks.TARGET_WORDS + chunks.OVERLAP_WORDS for c in found)
    # The short paragraph that closed one chunk opens the next.
    assert sum(short in c.text for c in found) == 2


def test_restructuredtext_and_setext_headings():
    rst = "Title\n=====\n\nIntro.\n\nSection\n-------\n\nBody text::\n\n    code line\n\n    more code\n\nAfter.\n"
    found = chunks.split(rst, "rst")
    assert [c.heading_path for c in found] == ["Title", "Title › Section"]
    assert "more code" in found[1].text and "After." in found[1].text
    setext = "Top\n===\n\npara one\n\nSub\n---\n\npara two\n"
    assert [c.heading_path for c in chunks.split(setext, "markdown")] == ["Top", "Top › Sub"]


# --- ingesting -----------------------------------------------------------------------------------

def test_ingest_then_recall_finds_the_right_chunk_first_with_its_location(memory, tmp_path):
    write(tmp_path, "docs/design.md", DESIGN)
    report = memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    assert (report.files, report.chunks_added) == (1, 4)
    response = memory.recall(HUMAN, "how are migrations applied", project=P, k=3)
    top = response.results[0]
    assert top.kind == "document" and top.content.startswith("Migrations are numbered functions")
    assert (top.location.path, top.location.start_line, top.location.end_line) == ("docs/design.md", 12, 13)


def test_a_file_named_twice_in_one_call_is_ingested_once_and_many_files_keep_their_own_chunks(memory, tmp_path):
    """Files are stored in order while the next ones are embedded: each file's chunks carry its
    own vectors, and a file named again (here inside its folder) adds nothing twice."""
    paths = [write(tmp_path, f"docs/{topic}.md", f"# {topic.title()}\n\nThe {topic} service {verb}.\n")
             for topic, verb in [("billing", "retries invoices nightly"), ("search", "ranks with BM25"),
                                 ("backups", "copies the store hourly"), ("deploys", "ship on Tuesdays")]]
    report = memory.ingest(HUMAN, [str(paths[1]), str(tmp_path / "docs"), str(paths[1])], project=P, root=tmp_path)
    assert (report.files, report.chunks_added) == (4, 4)
    for topic, query in [("billing", "when are invoices retried"), ("backups", "how often is the store copied")]:
        top = memory.recall(HUMAN, query, project=P, k=1).results[0]
        assert top.location.path == f"docs/{topic}.md"
    again = memory.ingest(HUMAN, [str(paths[1])], project=P, root=tmp_path)  # the control: a second call does read it
    assert (again.files, again.files_unchanged, again.chunks_unchanged) == (1, 1, 1)


def test_reingesting_unchanged_writes_nothing_and_an_edit_changes_one_chunk_only(memory, tmp_path):
    path = write(tmp_path, "docs/design.md", DESIGN)
    first = memory.ingest(HUMAN, [str(path)], project=P, root=tmp_path)
    head = memory.change_seq()
    again = memory.ingest(HUMAN, [str(path)], project=P, root=tmp_path)
    assert (again.chunks_unchanged, again.chunks_added, again.chunks_updated, again.files_unchanged) == (4, 0, 0, 1)
    assert memory.change_seq() == head  # no events at all
    path.write_text(DESIGN.replace("never edited", "never edited once released"), encoding="utf-8")
    edited = memory.ingest(HUMAN, [str(path)], project=P, root=tmp_path)
    assert (edited.chunks_updated, edited.chunks_unchanged, edited.chunks_added) == (1, 3, 0)
    changed = [e for e in memory.audit_log(limit=1000)[head:] if e.action == "update"]
    assert len(changed) == 1
    history = memory.history(int(changed[0].target.split(":")[1]))
    assert [v.version for v in history.versions] == [1, 2]
    assert "once released" in history.versions[-1].content and first.chunks_added == 4


def test_a_moved_chunk_is_unchanged_and_keeps_its_memory_with_new_lines(memory, tmp_path):
    path = write(tmp_path, "README.md", DESIGN)
    memory.ingest(HUMAN, [str(path)], project=P, root=tmp_path)
    before = memory.recall(HUMAN, "how are migrations applied", project=P, k=1).results[0]
    path.write_text("Preface line.\n\n" + DESIGN, encoding="utf-8")
    report = memory.ingest(HUMAN, [str(path)], project=P, root=tmp_path)
    assert report.chunks_added == 1 and report.chunks_updated == 0  # the preface is the only new chunk
    after = memory.recall(HUMAN, "how are migrations applied", project=P, k=1).results[0]
    assert after.id == before.id and after.location.start_line == before.location.start_line + 2


def test_a_chunk_that_disappeared_is_archived_and_a_deleted_file_archives_all(memory, tmp_path):
    path = write(tmp_path, "docs/design.md", DESIGN)
    other = write(tmp_path, "docs/other.md", "# Other\n\nThe billing job retries three times.\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    path.write_text(DESIGN.split("## Editors")[0], encoding="utf-8")
    report = memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    assert report.chunks_archived == 1
    archived = [e for e in memory.audit_log(limit=1000) if e.action == "archive"]
    assert archived[-1].reason == "no longer in docs/design.md"
    def billing_found() -> bool:
        return any("billing job" in r.content for r in memory.recall(HUMAN, "billing job retries", project=P).results)

    assert billing_found()  # the positive control, before the file goes
    other.unlink()
    gone = memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    assert (gone.files_removed, gone.chunks_archived) == (1, 1)
    assert not billing_found()
    assert memory.recall(HUMAN, "how are migrations applied", project=P, k=1).results[0].kind == "document"


def test_gitignored_binary_oversize_and_unsupported_files_are_skipped_and_counted(memory, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".gitignore", "docs/build/\n")
    write(tmp_path, "docs/guide.md", "# Guide\n\nRun the migrations before the smoke tests.\n")
    write(tmp_path, "docs/build/generated.md", "# Generated\n\nA generated page nobody wrote.\n")
    write(tmp_path, "docs/diagram.png.md", "").write_bytes(b"\x89PNG\0\0binary")
    write(tmp_path, "docs/notes.txt", "Plain text notes about the deploy script.\n")
    write(tmp_path, "docs/script.py", "print('not a document')\n")
    big = write(tmp_path, "docs/huge.md", "word " * 500_000)
    report = memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    assert report.files == 2  # guide.md and notes.txt: the positive controls
    assert report.skipped_binary == ["docs/diagram.png.md"] and report.skipped_oversize == ["docs/huge.md"]
    assert report.skipped_unsupported == 1 and big.exists()
    contents = [r.content for r in memory.recall(HUMAN, "generated page", project=P, k=10).results]
    assert not any("generated page nobody wrote" in c for c in contents)


def test_a_path_that_does_not_exist_is_reported(memory, tmp_path):
    write(tmp_path, "docs/guide.md", "# Guide\n\nRun the migrations first.\n")
    report = memory.ingest(HUMAN, [str(tmp_path / "docs"), str(tmp_path / "nope.md")], project=P, root=tmp_path)
    assert report.missing == [str(tmp_path / "nope.md")] and report.files == 1


def test_documents_do_not_duplicate_or_contradict_notes(memory, tmp_path):
    note = memory.remember(HUMAN, "Always use SQLAlchemy for database access in the billing service.", project=P)
    write(tmp_path, "README.md", "# Billing\n\nNever use SQLAlchemy for database access in the billing service.\n")
    memory.ingest(HUMAN, [str(tmp_path / "README.md")], project=P, root=tmp_path)
    memory.scan_contradictions(HUMAN, P)
    assert memory.contradictions(P) == []
    assert memory.get(note.id).trust == "confirmed"
    # Positive control: the same opposite note is a contradiction.
    memory.remember(HUMAN, "Never use SQLAlchemy for database access in the billing service.", project=P)
    assert len(memory.contradictions(P)) == 1


def test_a_secret_in_a_document_is_redacted_in_place_and_reported_by_line(memory, tmp_path):
    key = "AKIA" + "Q3EGRV7NBOW2XK5M"
    write(tmp_path, "docs/setup.md", f"# Setup\n\nRun the migrations first.\n\n## Keys\n\n"
          f"export AWS_ACCESS_KEY_ID={key}\nthe db password is hunter2\n")
    report = memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    assert report.chunks_added == 2  # the chunk with the secrets is kept, beside the clean one
    assert report.redacted_secrets == ["docs/setup.md:7: AWS Access Key", "docs/setup.md:8: Password"]
    contents = [r.content for r in memory.recent(P, limit=10)]
    assert any("export AWS_ACCESS_KEY_ID=[REDACTED:AWS Access Key]\nthe db password is [REDACTED:Password]" in c
               for c in contents)
    assert "Run the migrations first." in "\n".join(contents)  # the positive control: clean text unchanged
    assert not any(key in c or "hunter2" in c for c in contents)
    assert key not in json.dumps([(e.after, e.reason) for e in memory.audit_log()])
    # Re-ingesting the same file leaves the redacted chunk alone and reports nothing new.
    again = memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    assert (again.chunks_unchanged, again.chunks_added, again.chunks_updated, again.redacted_secrets) == (2, 0, 0, [])


def test_a_chunk_found_by_its_words_alone_is_scored_with_its_own_cosine_whatever_k(memory, tmp_path):
    """More chunks than the vector lane draws (60): the chunk holding a rare word is found by the
    word lane only, and is scored with its own vector, not the farthest neighbour's."""
    for n in range(70):
        write(tmp_path, f"docs/page{n:02}.md", f"# Widget {n}\n\nThe dashboard paints widget {n} teal. {INTRO}\n")
    # The chunk holds two of the query's three words: enough for the share rule at any cosine.
    write(tmp_path, "docs/zz.md", f"# Billing\n\nThe invoice job retries at night (its code name: quuxbar; no "
                                  f"widget shows it). {INTRO}\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    # Seventy widget pages make a crowd that no chunk stands out from in meaning: the standout rule
    # (test_no_chunk_standing_out_…) would leave nothing, and this test is about the scores.
    memory.recaller.rules = replace(memory.recaller.rules, document_standout=0.0)
    query = "which widget is quuxbar teal"
    by_k = {k: {r.content: r for r in memory.recall(HUMAN, query, project=P, k=k).results} for k in (5, 20)}
    for k, found in by_k.items():
        chunk = next(r for r in found.values() if "quuxbar" in r.content)
        assert chunk.kind == "document" and chunk.components.cosine is not None and chunk.components.bm25 is not None
    for content, r in by_k[5].items():
        assert r.score == by_k[20][content].score  # one score whatever k


# --- nothing answers -----------------------------------------------------------------------------

PROXY = """# Networking

## Proxy

Set the proxy with the `--proxy` option or the `HTTPS_PROXY` variable; a proxy that needs a
password takes it in the URL. Requests through the proxy time out after thirty seconds.

## Links

The tool copies files instead of creating symlinks when the target folder is on another drive.
"""


def test_a_question_about_what_no_document_mentions_gets_nothing_and_says_why(memory, tmp_path):
    """"kubernetes" is in no stored text: no chunk is an answer unless it says the same in other
    words, and the response says nothing answers and which word nothing mentions. The control, on
    the same store: a question in the documents' own words is answered."""
    write(tmp_path, "docs/network.md", PROXY)
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    unknown = memory.recall(HUMAN, "Which Kubernetes proxy does the tool need?", project=P, k=5, log=False)
    assert unknown.results == [] and unknown.unknown_words == ["kubernetes"]
    assert unknown.nothing_else_matched and nothing_else(unknown).startswith(
        "nothing answers this (") and nothing_else(unknown).endswith("no memory or document mentions kubernetes)")
    known = memory.recall(HUMAN, "How do I set a proxy that needs a password?", project=P, k=5, log=False)
    assert known.unknown_words == [] and known.results[0].location.heading == "Networking › Proxy"
    assert not nothing_else(known).startswith("nothing answers")


def test_an_inflected_word_whose_stem_a_document_holds_is_no_unknown_word(memory, tmp_path):
    """"symlinking" is nowhere as typed, but "symlinks" is: the question is answered. The control:
    "teleporting", whose stem begins no word of the store, is unknown."""
    write(tmp_path, "docs/network.md", PROXY)
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    inflected = memory.recall(HUMAN, "Does the tool copy files instead of symlinking them?", project=P, k=5, log=False)
    assert inflected.unknown_words == [] and inflected.results[0].location.heading == "Networking › Links"
    assert memory.recall(HUMAN, "Does the tool copy files instead of teleporting them?", project=P, k=5,
                         log=False).unknown_words == ["teleporting"]


def test_a_note_is_still_an_answer_when_a_query_word_is_unknown(memory, tmp_path):
    """The unknown-word rule is the documents' alone: a note on the same subject still answers a
    question with a word nothing holds, while the document chunk beside it does not."""
    write(tmp_path, "docs/network.md", PROXY)
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    note = memory.remember(HUMAN, "The proxy password is read from the HTTPS_PROXY URL.", project=P).id
    response = memory.recall(HUMAN, "Where is the proxy password read from in Kubernetes?", project=P, k=5, log=False)
    assert response.unknown_words == ["kubernetes"]
    assert [r.id for r in response.results] == [note]
    # The rule off (and the share of the query's words a chunk needs): the chunk too.
    memory.recaller.rules = replace(memory.recaller.rules, unknown_word_cosine=-1.0, document_share=0.0)
    assert [r.kind for r in memory.recall(HUMAN, "Where is the proxy password read from in Kubernetes?", project=P,
                                          k=5, log=False).results] == ["note", "document"]


def test_the_mcp_reply_and_the_cli_say_nothing_answers(cli_env, embedder, analyzer, tmp_path):
    write(tmp_path, "docs/network.md", PROXY)
    with cli_memory(cli_env, embedder, analyzer) as memory:
        memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
        reply = recall_reply(memory.recall(HUMAN, "Which Kubernetes proxy does the tool need?", project=P, k=5,
                                           log=False), explain=False)
        answered = recall_reply(memory.recall(HUMAN, "How do I set a proxy that needs a password?", project=P, k=5,
                                              log=False), explain=False)  # the control
    said = "nothing answers this (2 weaker left out; no memory or document mentions kubernetes)"
    assert reply.structured_content["unknown_words"] == ["kubernetes"] and reply.structured_content["results"] == []
    assert reply.content[0].text == f"note: {said}"
    assert "unknown_words" not in answered.structured_content and "nothing answers" not in answered.content[0].text
    out = subprocess.run([CENOTAPH, "recall", "--project", P, "-k", "5", "--", "Which Kubernetes proxy does the tool need?"],
                         env=cli_env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"{said.capitalize()}."


def test_a_question_in_a_document_is_not_ranked_as_a_conversations_question(memory, tmp_path):
    """A question in a chunk (an FAQ's heading) is answered in place: the chunk is not ranked below
    one that only tells, and passes nothing to the chunk stored after it. The control: a note that
    asks the same is ranked a little lower."""
    faq = "# FAQ\n\n## Why not dicts?\n\nWhy not dicts? A class says which fields it has; a dict holds any key.\n\n" \
          "## Speed\n\nCreating a class is as fast as creating a dict.\n"
    write(tmp_path, "docs/faq.md", faq)
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    memory.remember(HUMAN, "Why not dicts? A class says which fields it has; a dict holds any key.", project="acme/notes")
    query = "why not use dicts for fields"
    chunk = memory.recall(HUMAN, query, project=P, k=5, log=False).results
    note = memory.recall(HUMAN, query, project="acme/notes", k=5, log=False).results[0]
    assert chunk[0].location.heading == "FAQ › Why not dicts?" and chunk[0].components.bm25 is not None
    assert abs(chunk[0].components.relevance - (0.3 + 0.7 * chunk[0].components.cosine)) < 1e-5
    assert all(r.components.passed_on == 0 for r in chunk)
    assert abs(note.components.relevance - 0.85 * (0.3 + 0.7 * note.components.cosine)) < 1e-5


def test_a_changelog_entry_ranks_below_the_page_it_announces(memory, tmp_path):
    """A release note names the feature in few words, close to the question: the page that explains
    it comes first. The control: without the changelog's factor the release note is first."""
    write(tmp_path, "docs/changelog.md", "# Changelog\n\n## 2.1.0\n\n- Added the `--retries` option to retry failed "
                                         "downloads.\n")
    write(tmp_path, "docs/downloads.md", "# Downloads\n\n## Retrying\n\nThe `--retries` option sets how many times a "
                                         "failed download is tried again (three by default), waiting longer each "
                                         "time; 0 turns retrying off.\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    query = "which option retries failed downloads"
    assert memory.recall(HUMAN, query, project=P, k=2, log=False).results[0].location.path == "docs/downloads.md"
    memory.recaller.rules = replace(memory.recaller.rules, changelog_factor=1.0)
    assert memory.recall(HUMAN, query, project=P, k=2, log=False).results[0].location.path == "docs/changelog.md"


CONFIGURATION = """# Configuration

Settings are read from config.toml in the project's root: the download cache, the proxy and the
timeouts are configured there, and each can also be given on the command line, which wins.

## Cache location

Downloads are kept in ~/.cache/tool unless `--cache-dir` names another folder.

## Timeouts

A request gives up after thirty seconds; `--timeout` changes it.
"""


def test_a_subsection_whose_heading_names_the_subject_ranks_above_its_parents_intro(memory, tmp_path):
    """The parent's intro names the cache among other settings; the subsection's heading says it is
    about the cache, and holds the answer: it comes first. The control: without the headings'
    weight the intro is first. Other pages make "cache" rare, as in a real docs folder."""
    write(tmp_path, "docs/config.md", CONFIGURATION)
    for n in range(12):
        write(tmp_path, f"docs/page{n:02}.md", f"# Widget {n}\n\nThe dashboard paints widget {n} teal. {INTRO}\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    query = "how is the download cache configured"
    first = memory.recall(HUMAN, query, project=P, k=2, log=False).results
    assert [r.location.heading for r in first] == ["Configuration › Cache location", "Configuration"]
    memory.recaller.rules = replace(memory.recaller.rules, heading_weight=0.0)
    assert memory.recall(HUMAN, query, project=P, k=2, log=False).results[0].location.heading == "Configuration"


def test_a_heading_matches_the_query_in_another_inflection(memory, tmp_path, monkeypatch):
    """"Loading plugins" is about how plugins are loaded: a heading is read with its lemmas, as a query
    word is, and its section comes before a neighbour a little closer in meaning. The control: read
    as typed, the heading holds "plugins" alone and the neighbour is first."""
    write(tmp_path, "docs/plugins.md", "# Plugins\n\n## Writing plugins\n\nA plugin is a module with hook "
                                       "functions; tool imports each one at start.\n\n"
                                       "## Loading plugins\n\nEntry points of the group `tool` are read at start, "
                                       "in the order they were installed.\n")
    for n in range(12):
        write(tmp_path, f"docs/page{n:02}.md", f"# Widget {n}\n\nThe dashboard paints widget {n} teal. {INTRO}\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    query = "how are plugins loaded"
    words = query_words(query, memory.ctx.analyzer)
    assert "load" in chunk_ranking.heading_forms("Plugins › Loading plugins", words, memory.ctx.analyzer)
    # The neighbour holds one of the query's two words: ranked, not left out.
    memory.recaller.rules = replace(memory.recaller.rules, document_share=0.0)
    results = memory.recall(HUMAN, query, project=P, k=2, log=False).results
    assert [r.location.heading for r in results] == ["Plugins › Loading plugins", "Plugins › Writing plugins"]
    monkeypatch.setattr(chunk_ranking, "heading_forms", lambda path, words, analyzer: heading_tokens(path))
    assert memory.recall(HUMAN, query, project=P, k=2, log=False).results[0].location.heading == \
        "Plugins › Writing plugins"


def test_a_chunk_holding_few_of_the_questions_words_is_no_answer_unless_it_means_the_same(memory, tmp_path):
    """Every word of the question is in some page, none is unknown, yet no chunk holds more than
    two of its five: nothing answers. The controls: a question whose words the backups section
    holds gets it; and without the rule the music question is answered with the backups page."""
    write(tmp_path, "docs/storage.md", "# Storage\n\n## Backups\n\nNightly backups copy the store into the backups "
                                       "folder; seven copies are kept.\n")
    write(tmp_path, "docs/media.md", "# Media\n\nThe dashboard can play a sound when a widget turns red; music is "
                                     "never played.\n")
    write(tmp_path, "docs/files.md", "# Files\n\nEvery file the dashboard writes is listed in its log.\n")
    for n in range(8):
        write(tmp_path, f"docs/page{n:02}.md", f"# Widget {n}\n\nThe dashboard paints widget {n} teal. {INTRO}\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    music = "How do I play music files from the nightly backups?"
    response = memory.recall(HUMAN, music, project=P, k=5, log=False)
    assert response.unknown_words == [] and response.results == []
    answered = memory.recall(HUMAN, "How are the nightly backups kept?", project=P, k=5, log=False).results
    assert answered and answered[0].location.heading == "Storage › Backups"
    memory.recaller.rules = replace(memory.recaller.rules, document_share=0.0)
    assert memory.recall(HUMAN, music, project=P, k=5, log=False).results


def test_no_chunk_standing_out_from_the_crowd_nearest_the_question_is_no_answer(memory, tmp_path):
    """Twelve widget pages, each about as near the question as the next and none saying how many
    widgets there can be: nothing answers. The controls: without the rule the widget pages are
    listed; and in the same folder, once a palette page is written, a question it answers stands
    out from the widget pages and is answered below cosine 0.7."""
    for n in range(12):
        write(tmp_path, f"docs/page{n:02}.md", f"# Widget {n}\n\nThe dashboard paints widget {n} teal. {INTRO}\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    query = "How many widgets can the dashboard paint?"
    response = memory.recall(HUMAN, query, project=P, k=5, log=False)
    assert response.unknown_words == [] and response.results == [] and response.below_floor > 0
    memory.recaller.rules = replace(memory.recaller.rules, document_standout=0.0)
    crowd = memory.recall(HUMAN, query, project=P, k=12, log=False).results
    assert crowd and all(r.location.heading.startswith("Widget") for r in crowd)
    cosines = [r.components.cosine for r in crowd]
    assert len(cosines) >= 10 and max(cosines) < 0.7 and chunk_ranking.standout(cosines) < chunk_ranking.DOCUMENT_STANDOUT
    memory.recaller.rules = replace(memory.recaller.rules, document_standout=chunk_ranking.DOCUMENT_STANDOUT)
    write(tmp_path, "docs/palette.md", "# Palette\n\nThe dashboard can paint a widget in any of twelve colours; teal is "
                                       "the default.\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    answered = memory.recall(HUMAN, "Which colour is the default for a widget?", project=P, k=5, log=False).results
    assert answered[0].location.heading == "Palette" and answered[0].components.cosine < 0.7


def test_the_standout_is_measured_against_the_tenth_nearest_chunk():
    """Best minus tenth best; fewer than ten chunks make no crowd, and the rule does not apply."""
    assert chunk_ranking.standout([0.5] * 9) == float("inf")
    assert abs(chunk_ranking.standout([0.8, 0.6, *([0.5] * 8), 0.1]) - 0.3) < 1e-9


def test_a_chunk_holding_every_identifier_the_question_types_holds_enough_of_its_words(memory, tmp_path):
    """"Why does `__cache_hook__` exist?" has two words, and the hooks section holds one: the one
    that names its subject, as typed. It answers. The controls: without the rule nothing does; and
    a page holding the identifier's words but not the identifier ("cache hook") is no answer."""
    write(tmp_path, "docs/hooks.md", "# Hooks\n\n## Before the cache\n\nDefine `__cache_hook__` on a widget class to "
                                     "be called before its value is cached, with the value about to be stored.\n")
    write(tmp_path, "docs/words.md", "# Words\n\nA cache hook runs for every widget of the dashboard.\n")
    write(tmp_path, "docs/intro.md", f"# Introduction\n\nSeveral dashboards can exist side by side. {INTRO}\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    query = "Why does __cache_hook__ exist?"
    response = memory.recall(HUMAN, query, project=P, k=5, log=False)
    assert response.unknown_words == [] and response.results
    assert response.results[0].location.heading == "Hooks › Before the cache" and response.results[0].components.cosine < 0.7
    assert "Words" not in [r.location.heading for r in response.results]
    memory.recaller.rules = replace(memory.recaller.rules, identifier_evidence=False)
    assert [r for r in memory.recall(HUMAN, query, project=P, k=5, log=False).results
            if r.location.heading == "Hooks › Before the cache"] == []


def test_a_stop_word_typed_as_a_flag_is_a_word_of_the_question(memory, tmp_path):
    """"--with" and "--only" name options: their words are searched and counted, where "with" in a
    sentence is a function word. The control: without the rule the question's words are "happens"
    and "given" alone, and the options section is not found by its words."""
    assert search_words("What happens to --with and --without when --only is given?") == [
        "happens", "with", "without", "only", "given"]
    assert search_words("What happens to --with when --only is given?", flags=False) == ["happens", "given"]
    assert search_words("Run it with only one worker") == ["run", "one", "worker"]
    write(tmp_path, "docs/cli.md", "# Commands\n\n## install\n\n### Options\n\n`--only` installs the named groups "
                                   "alone; `--with` and `--without` are then ignored.\n")
    write(tmp_path, "docs/events.md", "# Events\n\nWhat happens when a widget is given a new value: the dashboard "
                                      "paints it again.\n")
    memory.ingest(HUMAN, [str(tmp_path / "docs")], project=P, root=tmp_path)
    query = "What happens to --with and --without when --only is given?"
    response = memory.recall(HUMAN, query, project=P, k=5, log=False)
    options = [r for r in response.results if r.location.heading == "Commands › install › Options"]
    assert options and options[0].components.bm25 is not None
    memory.recaller.rules = replace(memory.recaller.rules, flag_words=False)
    response = memory.recall(HUMAN, query, project=P, k=5, log=False)
    assert all(r.components.bm25 is None for r in response.results if r.location.heading.endswith("Options"))

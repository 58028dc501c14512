"""Team memory in the repository (issue 14): `.cenotaph/` holds one file per shared entry; the files
are read, never copied into the store; rendering is deterministic; a malformed file is reported and
the others still work; deleting a file removes the entry; a person's own verdicts still apply."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
from cenotaph.memory.errors import Conflict, NotFound
from cenotaph.memory.team.folder import (
    SharedApproach,
    SharedNote,
    load,
    read_approach,
    read_note,
    render_approach,
    render_note,
)
from cenotaph.store.records import ProposalRow

from tests.conftest import AGENT, HUMAN, REPO

P = "github.com/acme/app"
ONNX = ".cenotaph/graveyard/pypi/onnxruntime.toml"


def repository(tmp_path: Path, name: str = "repo") -> Path:
    root = tmp_path / name
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "config", "user.name", "Ada Lovelace"], check=True)
    return root


@pytest.fixture
def repo(tmp_path, memory) -> Path:
    root = repository(tmp_path)
    memory.attach_repositories([(root, P)])
    return root


def write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def shared_approach_text(name: str, reason: str, ecosystem: str = "pypi") -> str:
    return (f'format = 1\necosystem = "{ecosystem}"\nname = "{name}"\nreason = "{reason}"\n'
            f'author = "Grace Hopper"\nshared_at = "2026-02-01T09:00:00Z"\n')


# --- the formats ---------------------------------------------------------------------------------


def test_rendering_is_deterministic_and_reads_back_verbatim():
    approach = SharedApproach(path=ONNX, ecosystem="pypi", name="onnxruntime", display_name="ONNX Runtime",
                              reason='SIGILL on "Alpine" musl\\libc\nsee #12\x07', author="Ada Lovelace",
                              shared_at="2026-03-01T12:00:00.000000Z", effort=4, aliases=("ort", "onnx-runtime"),
                              gotchas=("pin numpy",), valid_from="2026-02-27T08:30:00.000000Z")
    text = render_approach(approach)
    assert text == render_approach(approach)
    assert text.splitlines()[:3] == ['format = 1', 'ecosystem = "pypi"', 'name = "onnxruntime"']
    again = read_approach(ONNX, text)
    assert again.reason == approach.reason and again.aliases == ("onnx-runtime", "ort")
    assert (again.effort, again.gotchas, again.shared_at) == (4, ("pin numpy",), approach.shared_at)

    content = "Use Postgres for the queue.\n\n  Not Redis: ünïcode, \"quotes\", +++ and trailing space  "
    note = SharedNote(path=".cenotaph/memories/x.md", kind="decision", content=content, author="Ada",
                      shared_at="2026-03-01T12:00:00.000000Z", tags=("queue", "db"))
    rendered = render_note(note)
    assert rendered == render_note(note) and rendered.endswith(content)
    assert read_note(note.path, rendered) == note


def test_rendered_files_conform_to_their_json_schemas():
    approach = SharedApproach(path=ONNX, ecosystem="pypi", name="onnxruntime", display_name="onnxruntime",
                              reason="SIGILL", author="Ada", shared_at="2026-03-01T12:00:00.000000Z", effort=4)
    note = SharedNote(path=".cenotaph/memories/x.md", kind="note", content="hello", author="Ada",
                      shared_at="2026-03-01T12:00:00.000000Z", valid_to="2026-04-01T00:00:00.000000Z")
    import tomllib

    for schema_name, table in (("shared-approach.schema.json", tomllib.loads(render_approach(approach))),
                               ("shared-memory.schema.json",
                                tomllib.loads(render_note(note).split("+++\n")[1]))):
        schema = json.loads((REPO / "shared_schema" / schema_name).read_text())
        jsonschema.validate(table, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**table, "format": 2}, schema)


def test_sharing_again_writes_the_same_bytes(memory, repo, clock):
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL on Alpine musl", project=P, effort=4)
    first = memory.share(HUMAN, "onnxruntime", project=P)
    assert first.changed and first.path == ONNX
    written = (repo / ONNX).read_bytes()
    assert b'author = "Ada Lovelace"' in written
    clock.advance(days=3)
    again = memory.share(HUMAN, "onnxruntime", project=P)
    assert not again.changed and (repo / ONNX).read_bytes() == written  # shared_at is kept


# --- reading ---------------------------------------------------------------------------------------


def test_malformed_files_are_reported_and_the_others_still_work(memory, repo):
    write(repo, ONNX, shared_approach_text("onnxruntime", "SIGILL on Alpine"))
    write(repo, ".cenotaph/graveyard/pypi/broken.toml", 'format = 1\nname = "broken\n')
    write(repo, ".cenotaph/graveyard/pypi/future.toml", shared_approach_text("future", "x").replace(
        "format = 1", "format = 7"))
    write(repo, ".cenotaph/graveyard/pypi/Not_Normal.toml", shared_approach_text("Not_Normal", "x"))
    write(repo, ".cenotaph/memories/no-front-matter.md", "just text\n")
    state = load(repo, P)
    memory.shared.refresh()  # what each edge does on its refresh
    problems = {p.path: p for p in state.problems}
    assert set(problems) == {".cenotaph/graveyard/pypi/broken.toml", ".cenotaph/graveyard/pypi/future.toml",
                             ".cenotaph/graveyard/pypi/Not_Normal.toml", ".cenotaph/memories/no-front-matter.md"}
    assert problems[".cenotaph/graveyard/pypi/broken.toml"].line == 1
    assert "unknown format version 7" in problems[".cenotaph/graveyard/pypi/future.toml"].message
    assert "does not normalize" in problems[".cenotaph/graveyard/pypi/Not_Normal.toml"].message
    verdict = memory.check_approaches(["onnxruntime", "broken", "future"], project=P)
    assert [(v.status, v.source) for v in verdict] == [("abandoned", "repo"), ("clear", None), ("clear", None)]
    assert [s.problems for s in memory.shared_folders()] == [state.problems]


def test_deleting_the_file_removes_the_entry(memory, repo):
    write(repo, ONNX, shared_approach_text("onnxruntime", "SIGILL on Alpine"))
    write(repo, ".cenotaph/graveyard/npm/@acme/left-pad.toml",
          shared_approach_text("@acme/left-pad", "unpublished", "npm"))
    memory.shared.refresh()
    checked = memory.check_approaches(["onnxruntime", "@acme/left-pad"], project=P)
    assert [v.status for v in checked] == ["abandoned", "abandoned"]
    assert checked[0].approach.actor == "Grace Hopper" and checked[0].scope == "project"
    (repo / ONNX).unlink()
    assert memory.shared.refresh()
    checked = memory.check_approaches(["onnxruntime", "@acme/left-pad"], project=P)
    assert [v.status for v in checked] == ["clear", "abandoned"]
    # Nothing of it was ever in the store.
    assert memory.graveyard.in_scope(P) == [checked[1].approach]


def test_another_project_does_not_see_the_repository(memory, repo):
    write(repo, ONNX, shared_approach_text("onnxruntime", "SIGILL on Alpine"))
    memory.shared.refresh()
    assert memory.check_approaches(["onnxruntime"], project=P)[0].status == "abandoned"
    assert memory.check_approaches(["onnxruntime"], project="acme/other", include_other_projects=False)[0].status \
        == "clear"


def test_personal_and_shared_abandonment_is_one_verdict_with_both_reasons(memory, repo):
    write(repo, ONNX, shared_approach_text("onnxruntime", "SIGILL on Alpine"))
    memory.shared.refresh()
    memory.abandon(HUMAN, "onnxruntime", reason="the wheel is 200 MB", project=P)
    (verdict,) = memory.check_approaches(["onnxruntime"], project=P)
    assert verdict.status == "abandoned" and verdict.source == "store"
    assert [(a.reason, getattr(a, "source", "store")) for a in [verdict.approach, *verdict.also]] == [
        ("the wheel is 200 MB", "store"), ("SIGILL on Alpine", "repo")]
    warnings = [r for r in memory.recall(HUMAN, "should we try onnxruntime", project=P).results
                if r.result_type == "abandoned_warning"]
    assert len(warnings) == 1
    assert "the wheel is 200 MB" in warnings[0].content and "SIGILL on Alpine" in warnings[0].content


def test_a_person_silences_a_shared_entry_for_themselves_without_touching_the_file(memory, repo):
    write(repo, ONNX, shared_approach_text("onnxruntime", "SIGILL on Alpine"))
    memory.shared.refresh()
    before = (repo / ONNX).read_bytes()
    assert not memory.check_approaches(["onnxruntime"], project=P)[0].diagnostic_suppressed  # positive control
    memory.suppress(HUMAN, "onnxruntime", kind="diagnostic", project=P, reason="we vendor a patched build")
    (verdict,) = memory.check_approaches(["onnxruntime"], project=P)
    assert verdict.status == "abandoned" and verdict.diagnostic_suppressed
    assert (repo / ONNX).read_bytes() == before
    with pytest.raises(Conflict) as refused:  # the record itself is the repository's
        memory.reinstate_approach(HUMAN, "onnxruntime", reason="works now", project=P)
    assert refused.value.field == "name" and "unshare" in refused.value.message


# --- recall ----------------------------------------------------------------------------------------


def test_shared_memories_take_part_in_recall_with_source_repo(memory, repo):
    mine = memory.remember(HUMAN, "The billing service retries webhooks three times", project=P)
    write(repo, ".cenotaph/memories/job-queue-0123456789.md",
          '+++\nformat = 1\nkind = "decision"\nauthor = "Grace Hopper"\nshared_at = "2026-02-01T09:00:00Z"\n+++\n'
          "We chose Postgres SKIP LOCKED for the job queue instead of Redis")
    memory.shared.refresh()
    results = memory.recall(HUMAN, "which database backs the job queue", project=P).results
    shared = [r for r in results if r.source == "repo"]
    assert [r.shared_path for r in shared] == [".cenotaph/memories/job-queue-0123456789.md"]
    assert results[0].source == "repo" and results[0].kind == "decision" and results[0].actor == "Grace Hopper"
    # The unrelated store memory is not padding here (the relevance floor), and still answers its own
    # question beside the shared ones.
    assert mine.id not in [r.id for r in results]
    assert mine.id in [r.id for r in memory.recall(HUMAN, "how often are billing webhooks retried", project=P).results]
    exact = memory.recall(HUMAN, "SKIP LOCKED", project=P).results
    assert [r.shared_path for r in exact if r.source == "repo"] == [".cenotaph/memories/job-queue-0123456789.md"]
    # Another project does not recall the repository's memories.
    assert not [r for r in memory.recall(HUMAN, "job queue database", project="acme/other").results
                if r.source == "repo"]


# --- writing ---------------------------------------------------------------------------------------


def test_share_a_memory_then_unshare_it_by_id(memory, repo):
    stored = memory.remember(HUMAN, "Deploys freeze on Fridays after 14:00", project=P, kind="decision",
                             tags=["deploy"])
    result = memory.share(HUMAN, stored.id, project=P)
    assert result.kind == "memory" and result.path.startswith(".cenotaph/memories/deploys-freeze-on-fridays-")
    text = (repo / result.path).read_text()
    assert text.endswith("+++\nDeploys freeze on Fridays after 14:00") and 'tags = ["deploy"]' in text
    assert memory.unshare(HUMAN, stored.id, project=P).changed
    assert not (repo / result.path).exists() and not (repo / ".cenotaph" / "memories").exists()
    with pytest.raises(NotFound):
        memory.unshare(HUMAN, stored.id, project=P)


def test_the_story_memory_of_an_approach_is_shared_as_the_approach(memory, repo):
    result = memory.abandon(HUMAN, "onnxruntime", reason="SIGILL on Alpine musl", project=P)
    assert memory.share(HUMAN, result.memory_id, project=P).path == ONNX
    assert memory.unshare(HUMAN, "onnxruntime", project=P).path == ONNX
    assert memory.check_approaches(["onnxruntime"], project=P)[0].source == "store"


def test_an_agents_share_is_a_proposal_a_person_accepts(memory, repo):
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL on Alpine musl", project=P)
    proposal = memory.share(AGENT, "onnxruntime", project=P, reason="the team keeps retrying it")
    assert isinstance(proposal, ProposalRow) and proposal.action == "share" and proposal.target == f"shared:{ONNX}"
    assert not (repo / ONNX).exists()
    result = memory.accept_proposal(HUMAN, proposal.id)
    assert result.changed and (repo / ONNX).is_file()
    assert [e.action for e in memory.audit_log(target=f"shared:{ONNX}")] == ["share"]


def test_sharing_outside_a_repository_names_the_project(memory):
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL", project=P)
    with pytest.raises(Conflict) as refused:
        memory.share(HUMAN, "onnxruntime", project=P)
    assert refused.value.field == "project"


@pytest.mark.parametrize(("content", "key", "kind"), [
    ("the deploy key is AKIA" + "Q3EGRV7NBOW2XK5M", "AKIA" + "Q3EGRV7NBOW2XK5M", "AWS Access Key"),
    ("the db password is hunter2", "hunter2", "Password"),  # issue 27: it became the file's name
])
def test_a_secret_stored_before_writes_were_screened_is_never_shared(memory, repo, content, key, kind):
    from cenotaph.memory.core.remember import new_row
    from cenotaph.memory.errors import InvalidInput
    from cenotaph.store import memories

    clean = memory.remember(HUMAN, "Deploys freeze on Fridays after 14:00", project=P, kind="decision")
    with memory.ctx.store.write() as tx:  # an old store: the row went in before the scanner existed
        row = new_row(memory_id=memories.next_memory_id(tx), project=P, kind="note",
                      content=content, source="human", actor="test", trust="confirmed",
                      analysis=memory.ctx.analyzer.analyze(content), valid_from=memory.ctx.now(),
                      recorded_at=memory.ctx.now())
        memories.insert(tx, row)
    with pytest.raises(InvalidInput, match=kind) as refused:
        memory.share(HUMAN, row.memory_id, project=P)
    assert key not in str(refused.value)
    assert memory.share(HUMAN, clean.id, project=P).changed  # the positive control
    shared = [p for p in (repo / ".cenotaph").rglob("*") if p.is_file()]
    assert shared and not any(key in p.name or key in p.read_text() for p in shared)


def test_a_memory_stored_redacted_is_shared_under_a_name_without_the_secret(memory, repo):
    from cenotaph.memory.models import Actor

    stored = memory.remember(Actor(name="cli", kind="human", redact_secrets=True), "the db password is hunter2", project=P)
    assert stored.memory.content == "the db password is [REDACTED:Password]"
    path = memory.share(HUMAN, stored.id, project=P).path
    assert "hunter2" not in path and "hunter2" not in (repo / path).read_text()
    assert path.startswith(".cenotaph/memories/the-db-password-is-redacted-password-")

"""From memory to policy (issue 17): lessons compile only when reinforced, rendering is
deterministic, and files are written only through a proposal a person accepts while the file is
still as it was diffed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.policy import lessons as lesson_rules
from cenotaph.memory.policy.compile import CompileWrite, instructions

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/crawler"
BREAKTHROUGH = "Use one shared httpx.AsyncClient for the whole crawl"


def _experience(memory, summary: str, *, breakthrough: str | None = BREAKTHROUGH, gotchas=None, outcome="success"):
    return memory.record_experience(HUMAN, summary, project=P, outcome=outcome, effort=3, breakthrough=breakthrough,
                                    gotchas=gotchas).id


def _lesson(memory, text: str):
    found = [l for l in memory.lessons(P) if l.text == text]
    assert len(found) == 1, [l.text for l in memory.lessons(P)]
    return found[0]


def _front_matter(text: str) -> dict[str, str]:
    match = re.match(r"^---\nname: (?P<name>[^\n]*)\ndescription: (?P<description>[^\n]*)\n---\n", text)
    assert match, text[:200]
    return {"name": match["name"], "description": json.loads(match["description"])}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def test_a_breakthrough_is_reinforced_by_a_second_distinct_experience(memory):
    first = _experience(memory, "Moved the crawler's page fetches from threads to asyncio")
    assert not _lesson(memory, BREAKTHROUGH).reinforced
    # The same experience told twice is one source, not two.
    _experience(memory, "Moved the crawler's page fetches from threads to asyncio.")
    lesson = _lesson(memory, BREAKTHROUGH)
    assert len(lesson.sources) == 2 and not lesson.reinforced
    second = _experience(memory, "Rewrote the webhook sender so that it keeps up with bursts of events")
    lesson = _lesson(memory, BREAKTHROUGH)
    assert lesson.reinforced and lesson.reinforced_by == ["recurrence"]
    assert {first, second} <= set(lesson.memory_ids)


def test_near_identical_breakthroughs_are_one_lesson(memory):
    _experience(memory, "Moved the crawler's page fetches from threads to asyncio")
    _experience(memory, "Rewrote the webhook sender so that it keeps up with bursts of events",
                breakthrough="Use one shared httpx.AsyncClient for the whole crawl.")
    assert _lesson(memory, BREAKTHROUGH).reinforced
    assert sum(1 for l in memory.lessons(P) if l.kind == "do") == 1


def test_a_blessing_reinforces_a_single_memory_and_only_a_person_blesses(memory):
    gotcha = "The sitemap parser silently drops URLs longer than 2,048 characters"
    stored = _experience(memory, "Indexed the docs site", breakthrough=None, gotchas=[gotcha])
    other = _experience(memory, "Crawled the blog", breakthrough=None, gotchas=["Robots.txt caches for a day"])
    with pytest.raises(Conflict, match="only a person"):
        memory.bless(AGENT, stored, reason="looks important")
    assert not _lesson(memory, gotcha).reinforced
    memory.bless(HUMAN, stored, reason="bit us twice")
    assert _lesson(memory, gotcha).reinforced_by == ["blessing"]
    assert not _lesson(memory, "Robots.txt caches for a day").reinforced  # positive control: unblessed stays out
    assert other != stored
    assert [e.action for e in memory.audit_log(target=f"memory:{stored}")][-1] == "bless"


def test_graveyard_entries_are_reinforced_from_effort_three_and_decisions_when_confirmed(memory):
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=3)
    memory.abandon(HUMAN, "lxml", reason="wheels missing on the build image", project=P, effort=2)
    confirmed = memory.remember(HUMAN, "We store crawl results as Parquet files", project=P, kind="decision").id
    memory.remember(AGENT, "We retry failed pages three times", project=P, kind="decision")
    by_text = {l.text: l for l in memory.lessons(P)}
    assert by_text["requests — blocking calls stalled the event loop"].reinforced_by == ["effort"]
    assert not by_text["lxml — wheels missing on the build image"].reinforced
    assert by_text["We store crawl results as Parquet files"].reinforced_by == ["confirmed decision"]
    assert by_text["We store crawl results as Parquet files"].memory_ids == [confirmed]
    assert "We retry failed pages three times" not in by_text  # an agent's decision is not a person's


def test_skill_drafts_are_valid_deterministic_and_carry_provenance(memory, repo):
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    a = _experience(memory, "Moved the crawler's page fetches from threads to asyncio")
    b = _experience(memory, "Rewrote the webhook sender so that it keeps up with bursts of events")
    result = memory.compile(HUMAN, "skill", project=P, root=repo)
    assert result.proposal is not None and result.proposal.status == "pending"
    [change] = result.files
    assert re.fullmatch(r"\.claude/skills/[a-z0-9]+(-[a-z0-9]+)*/SKILL\.md", change.path)
    meta = _front_matter(change.draft)
    assert len(meta["name"]) <= 64 and change.path.split("/")[2] == meta["name"]
    assert 0 < len(meta["description"]) <= 1024 and meta["description"].startswith("Load when")
    assert "- Don't: requests — blocking calls stalled the event loop (memory #1;" in change.draft
    assert f"- {BREAKTHROUGH} (memories #{a}, #{b};" in change.draft
    assert change.base_sha256 == "absent" and change.diff.startswith("--- /dev/null\n+++ b/.claude/skills/")
    assert not (repo / change.path).exists()  # compile only proposes
    again = memory.compile(HUMAN, "skill", project=P, root=repo)
    assert again.files[0].draft == change.draft and again.proposal.id == result.proposal.id

    written = memory.accept_proposal(HUMAN, result.proposal.id)
    assert isinstance(written, CompileWrite)
    assert (repo / change.path).read_text(encoding="utf-8") == change.draft
    assert memory.compile(HUMAN, "skill", project=P, root=repo).proposal is None  # up to date


def test_accept_refuses_when_the_file_moved_since_the_proposal(memory, repo):
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    (repo / "pyproject.toml").write_text('[project]\nname = "crawler"\n', encoding="utf-8")
    moved = memory.compile(HUMAN, "ruff", project=P, root=repo).proposal
    (repo / "pyproject.toml").write_text('[project]\nname = "crawler"\nversion = "2"\n', encoding="utf-8")
    with pytest.raises(Conflict,
                       match=r"pyproject.toml changed since the proposal; propose it again with `cenotaph compile --target"):
        memory.accept_proposal(HUMAN, moved.id)
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == '[project]\nname = "crawler"\nversion = "2"\n'
    assert memory.proposals(P)[0].id == moved.id  # still pending: nothing was written or decided
    fresh = memory.compile(HUMAN, "ruff", project=P, root=repo).proposal
    memory.accept_proposal(HUMAN, fresh.id)  # positive control: the same verb on an unmoved file writes
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith('[project]\nname = "crawler"\nversion = "2"\n') and "banned-api" in text


def test_an_agent_proposes_but_never_accepts(memory, repo):
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    proposal = memory.compile(AGENT, "agents-md", project=P, root=repo).proposal
    assert proposal.actor == AGENT.name
    with pytest.raises(Conflict, match="only a person"):
        memory.accept_proposal(AGENT, proposal.id)
    assert not (repo / "AGENTS.md").exists()
    memory.reject_proposal(HUMAN, proposal.id, reason="not now")
    assert memory.proposals(P) == []


def test_the_managed_block_leaves_the_rest_of_the_file_byte_for_byte(memory, repo):
    before = "# Agents\r\n\r\nRun `make test`.  \n\n"
    after = "\n## Ours\n\ttabs, trailing space \nno newline at the end"
    (repo / "AGENTS.md").write_text(before + f"{instructions.BEGIN}\nold lessons\n{instructions.END}" + after,
                                    encoding="utf-8", newline="")
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    proposal = memory.compile(HUMAN, "agents-md", project=P, root=repo).proposal
    memory.accept_proposal(HUMAN, proposal.id)
    text = (repo / "AGENTS.md").read_bytes().decode("utf-8")
    assert text.startswith(before + instructions.BEGIN) and text.endswith(instructions.END + after)
    assert "- Don't: requests — blocking calls stalled the event loop" in text and "old lessons" not in text
    assert instructions.changed_since_written(text, [l.key for l in lesson_rules.reinforced(memory.ctx, P)])[0] == 0

    # A file without a block keeps all its bytes; the block goes after them.
    (repo / "CLAUDE.md").write_text("Be terse.", encoding="utf-8")
    proposal = memory.compile(HUMAN, "claude-md", project=P, root=repo).proposal
    memory.accept_proposal(HUMAN, proposal.id)
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8").startswith("Be terse.\n\n" + instructions.BEGIN)

    memory.abandon(HUMAN, "lxml", reason="wheels missing on the build image", project=P, effort=5)
    assert instructions.changed_since_written(text, [l.key for l in lesson_rules.reinforced(memory.ctx, P)])[0] == 1


def test_lint_targets_take_only_their_ecosystem_and_keep_a_persons_entries(memory, repo):
    memory.abandon(HUMAN, "requests", reason="blocking calls", project=P, effort=4)
    memory.abandon(HUMAN, "moment", reason="too heavy for the bundle", project=P, effort=4, ecosystem="npm")
    (repo / "biome.json").write_text(json.dumps({"linter": {"rules": {"style": {"noRestrictedImports": {
        "level": "warn", "options": {"paths": {"lodash": "ours, not Cenotaph's"},
                                     "patterns": [{"group": ["lodash/*"], "message": "ours too"}]}}}}}}, indent="\t"),
        encoding="utf-8")
    draft = memory.compile(HUMAN, "biome", project=P, root=repo).files[0].draft
    rule = json.loads(draft)["linter"]["rules"]["style"]["noRestrictedImports"]
    assert rule["options"]["paths"] == {"lodash": "ours, not Cenotaph's",
                                        "moment": "cenotaph: moment was abandoned: too heavy for the bundle"}
    assert rule["options"]["patterns"] == [  # the package's deep imports (moment/locale/de) too
        {"group": ["lodash/*"], "message": "ours too"},
        {"group": ["moment/**"], "message": "cenotaph: moment was abandoned: too heavy for the bundle"}]
    assert rule["level"] == "warn" and draft.startswith("{\n\t\"linter\"")

    (repo / ".eslintrc.json").write_text('{\n    "rules": {"semi": "error", "no-restricted-imports": '
                                         '["warn", {"patterns": ["lodash/*"]}]}\n}\n', encoding="utf-8")
    [change] = memory.compile(HUMAN, "eslint", project=P, root=repo).files
    assert change.path == ".eslintrc.json"
    moment = "cenotaph: moment was abandoned: too heavy for the bundle"
    # The person's string pattern becomes a group of one: ESLint takes strings or objects, not both.
    assert json.loads(change.draft)["rules"] == {"semi": "error", "no-restricted-imports": ["warn", {
        "paths": [{"name": "moment", "message": moment}],
        "patterns": [{"group": ["lodash/*"]}, {"group": ["moment/**"], "message": moment}]}]}
    assert change.draft.startswith('{\n    "rules"')

    ruff = memory.compile(HUMAN, "ruff", project=P, root=repo).files[0]
    assert ruff.path == "ruff.toml" and "requests = " in ruff.draft and "moment" not in ruff.draft


def test_a_skill_cenotaph_wrote_for_a_topic_that_is_gone_is_removed_and_a_persons_is_kept(memory, repo):
    from cenotaph.memory.policy.compile.skills import GENERATED

    skills = repo / ".claude" / "skills"
    (skills / "old-topic").mkdir(parents=True)
    (skills / "old-topic" / "SKILL.md").write_text(f"---\nname: old-topic\n---\n\n{GENERATED} (…)\n", encoding="utf-8")
    (skills / "mine").mkdir()
    (skills / "mine" / "SKILL.md").write_text("---\nname: mine\n---\n\nWritten by hand.\n", encoding="utf-8")
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    result = memory.compile(HUMAN, "skill", project=P, root=repo)
    by_path = {c.path: c for c in result.files}
    assert set(by_path) == {".claude/skills/old-topic/SKILL.md", next(p for p in by_path if "old-topic" not in p)}
    gone = by_path[".claude/skills/old-topic/SKILL.md"]
    assert gone.draft is None and gone.diff.startswith("--- a/.claude/skills/old-topic/SKILL.md\n+++ /dev/null\n")
    memory.accept_proposal(HUMAN, result.proposal.id)
    assert not (skills / "old-topic").exists()
    assert (skills / "mine" / "SKILL.md").read_text(encoding="utf-8").endswith("Written by hand.\n")


# --- names and descriptions (issue 29) -------------------------------------------------------------

def _skill_files(root: Path, result) -> dict[str, str]:
    return {c.path: c.draft for c in result.files if c.draft is not None}


def test_a_project_whose_id_is_a_path_leaves_no_path_in_any_compiled_file(memory, tmp_path):
    root = tmp_path / "home" / "jane" / "src" / "billing"
    (root / ".git").mkdir(parents=True)
    project = str(root)
    memory.abandon(HUMAN, "requests", reason=f"blocking calls stalled {project}'s event loop", project=project,
                   effort=4)
    memory.abandon(HUMAN, "moment", ecosystem="npm", reason="too heavy for the bundle", project=project, effort=3)
    for target in ("skill", "agents-md", "ruff", "eslint"):
        files = _skill_files(root, memory.compile(HUMAN, target, project=project, root=root))
        assert files, target
        for path, text in files.items():
            assert str(tmp_path) not in text and "/home/jane" not in text, (path, text)
    [skill] = _skill_files(root, memory.compile(HUMAN, "skill", project=project, root=root)).values()
    meta = _front_matter(skill)
    # Positive control: the project is named, by its folder's name.
    assert meta["name"] == "billing-dependencies" and "for billing," in meta["description"]
    assert "blocking calls stalled billing's event loop" in skill


def test_names_come_from_what_the_rules_are_about_not_the_words_of_their_reasons(memory, repo):
    # Reasons full of words that recur across lessons, and would name a topic by frequency.
    for name, reason in (("requests", "event-loop broke the colon-hash parsing in the event-loop"),
                         ("lxml", "event-loop stalls, colon-hash broke again on the build image"),
                         ("simplejson", "broke colon-hash keys; event-loop event-loop event-loop")):
        memory.abandon(HUMAN, name, ecosystem="pypi", reason=reason, project=P, effort=4)
    [change] = memory.compile(HUMAN, "skill", project=P, root=repo).files
    meta = _front_matter(change.draft)
    assert meta["name"] == "crawler-python-dependencies"
    assert not re.search(r"event|loop|colon|hash|broke", meta["name"])
    assert meta["description"].startswith("Load when adding or choosing a dependency for crawler, or before "
                                          "importing or installing requests, lxml, simplejson again.")
    assert change.draft.splitlines()[5] == "# crawler: python dependencies (requests, lxml, simplejson)"


def test_lessons_about_one_library_are_named_after_it(memory, repo):
    for summary, gotcha in (("Indexed the docs", "httpx.AsyncClient leaks sockets when a response is never read"),
                            ("Crawled the blog", "httpx.Timeout applies per phase, not to the whole request"),
                            ("Fetched the feeds", "Close `httpx` clients in a finally block: shared pools hang")):
        memory.bless(HUMAN, _experience(memory, summary, breakthrough=None, gotchas=[gotcha]), reason="bit us")
    [change] = memory.compile(HUMAN, "skill", project=P, root=repo).files
    meta = _front_matter(change.draft)
    assert meta["name"] == "crawler-httpx"
    assert meta["description"].startswith("Load when working with httpx in crawler")


def test_a_persons_rename_survives_recompiles(memory, repo):
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    first = memory.compile(HUMAN, "skill", project=P, root=repo)
    assert [c.path for c in first.files] == [".claude/skills/crawler-python-dependencies/SKILL.md"]
    memory.accept_proposal(HUMAN, first.proposal.id)
    (repo / ".cenotaph.toml").write_text('[compile.skill_names]\ncrawler-python-dependencies = "crawler-deps"\n',
                                         encoding="utf-8")
    renamed = memory.compile(HUMAN, "skill", project=P, root=repo)
    by_path = {c.path: c for c in renamed.files}
    assert set(by_path) == {".claude/skills/crawler-deps/SKILL.md", ".claude/skills/crawler-python-dependencies/SKILL.md"}
    assert by_path[".claude/skills/crawler-python-dependencies/SKILL.md"].draft is None  # the old folder goes
    assert _front_matter(by_path[".claude/skills/crawler-deps/SKILL.md"].draft)["name"] == "crawler-deps"
    memory.accept_proposal(HUMAN, renamed.proposal.id)
    # More lessons later: the topic keeps the person's name.
    memory.abandon(HUMAN, "lxml", reason="wheels missing on the build image", project=P, effort=3)
    again = memory.compile(HUMAN, "skill", project=P, root=repo)
    assert [c.path for c in again.files] == [".claude/skills/crawler-deps/SKILL.md"]
    assert "- Don't: lxml — wheels missing" in again.files[0].draft


def test_a_rename_to_an_invalid_skill_name_is_refused_naming_the_setting(memory, repo):
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    (repo / ".cenotaph.toml").write_text('[compile.skill_names]\ncrawler-python-dependencies = "Crawler Deps"\n',
                                         encoding="utf-8")
    with pytest.raises(InvalidInput) as refused:
        memory.compile(HUMAN, "skill", project=P, root=repo)
    assert refused.value.field == "skill_names"


def test_the_description_names_the_first_abandoned_libraries_and_stays_within_the_limit(memory, repo):
    names = [f"lib{n}-{'x' * 40}" for n in range(12)]
    for name in names:
        memory.abandon(HUMAN, name, ecosystem="pypi", reason="too slow " * 20, project=P, effort=4)
    [change] = memory.compile(HUMAN, "skill", project=P, root=repo).files
    description = _front_matter(change.draft)["description"]
    assert len(description) <= 1024
    assert f"installing {', '.join(names[:8])}, … again." in description and names[8] not in description

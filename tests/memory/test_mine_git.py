"""Mining a real git history (built here, two authors) for dependencies it abandoned: candidates
are judged by the manifests, become proposals, and never enter the graveyard by themselves.
Every exclusion sits in the same history as a name that is proposed."""

from __future__ import annotations

import subprocess

import pytest

from cenotaph.memory.errors import InvalidInput, Unavailable
from tests.conftest import HUMAN
from tests.gitrepo import BOB, GitRepo

PYPROJECT = """\
[project]
name = "demo"
dependencies = [{deps}]
[project.optional-dependencies]
test = [{test}]
[dependency-groups]
dev = [{dev}]
[build-system]
requires = [{build}]
"""


def pyproject(deps="", test="", dev="", build='"setuptools"'):
    return PYPROJECT.format(deps=deps, test=test, dev=dev, build=build)


CARGO = """\
[package]
name = "demo"
[dependencies]
serde = "1"
{extra}
"""

PACKAGE = '{{"dependencies": {{{deps}}}, "devDependencies": {{{dev}}}}}'


def day(n: int, hour: int = 10) -> str:
    return f"2024-01-{n:02d}T{hour:02d}:00:00+00:00"


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> dict[str, str]:
    """One history with every case; returns the shas by name."""
    repo = GitRepo(tmp_path_factory.mktemp("history") / "repo")
    shas = {"repo": str(repo.root)}
    shas["initial"] = repo.commit("Initial project", {
        "requirements.txt": "requests==2.31\nflask==2.0\nsix\ntyping_extensions\ntoml\n",
        "pyproject.toml": pyproject(deps='"attrs"', test='"pytest"', build='"setuptools", "flit_core"'),
        "Cargo.toml": CARGO.format(extra='serde_json = "1"\nold_crate = "0.1"\n[dependencies.fancy_crate]\nversion = "1"'),
        "package.json": PACKAGE.format(deps='"left-pad": "1", "lodash": "4"', dev='"@types/node": "20", "jest": "29"'),
        "go.mod": "module demo\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgithub.com/sirupsen/logrus v1.9.0\n)\n",
        "setup.cfg": "[options]\ninstall_requires =\n    click\n",
        "tools/legacy/setup.py": "from setuptools import setup\nsetup(name='legacy', install_requires=['docopt'])\n",
        "tools/legacy/README.md": "kept when the manifest goes\n",  # the folder stays: a manifest deleted alone
        "tests/data/requirements.txt": "fixture-only-pkg\n",
        "web/node_modules/dep/package.json": PACKAGE.format(deps='"vendored-dep": "1"', dev=""),
        "README.md": "demo\n",
    }, at=day(1))
    shas["bump"] = repo.commit("Bump flask", {"requirements.txt": "requests==2.31\nflask==3.0\nsix\ntyping_extensions\ntoml\n"},
                               author=BOB, at=day(2))
    shas["ujson"] = repo.commit("Add ujson for speed", {"requirements.txt": "requests==2.31\nflask==3.0\nsix\ntyping_extensions\ntoml\nujson\n"},
                                author=BOB, at=day(3))
    shas["revert"] = repo.commit(f'Revert "Add ujson for speed"\n\nThis reverts commit {shas["ujson"]}.',
                                 {"requirements.txt": "requests==2.31\nflask==3.0\nsix\ntyping_extensions\ntoml\n"}, at=day(4))
    # Moves, respellings and a Cargo rename: nothing is abandoned.
    shas["moves"] = repo.commit("Reorganise the manifests", {
        "requirements.txt": "requests==2.31\nFlask==3.0\ntyping-extensions\ntoml\n",
        "requirements-extra.txt": "six\n",
        "pyproject.toml": pyproject(deps='"attrs"', dev='"pytest"', build='"setuptools", "flit_core"'),
        "Cargo.toml": CARGO.format(extra='json = { package = "serde_json", version = "1" }\nold_crate = "0.1"\n'
                                         '[dependencies.fancy_crate]\nversion = "1"'),
    }, at=day(5))
    # A removal hidden in a commit about something else, and the fixtures and vendored trees.
    shas["tidy"] = repo.commit("Tidy the CI config", {
        "package.json": PACKAGE.format(deps='"left-pad": "1"', dev='"jest": "29"'),
        "tests/data/requirements.txt": "other-fixture\n",
        "web/node_modules/dep/package.json": PACKAGE.format(deps='"other-vendored": "1"', dev=""),
        ".ci.yml": "steps: []\n",
    }, author=BOB, at=day(6))
    shas["replace"] = repo.commit("Replace requests with httpx for async support", {
        "requirements.txt": "httpx==0.27\nFlask==3.0\ntyping-extensions\ntoml\n",
    }, at=day(7))
    shas["broken"] = repo.commit("WIP pyproject", {"pyproject.toml": "[project\ndependencies = oops\n"}, author=BOB, at=day(8))
    shas["fixed"] = repo.commit("Fix pyproject; toml is in the standard library now", {
        "pyproject.toml": pyproject(deps='"attrs"', dev='"pytest"', build='"setuptools"'),
        "requirements.txt": "httpx==0.27\nFlask==3.0\ntyping-extensions\n",
    }, at=day(9))
    shas["cargo"] = repo.commit("Cargo cleanup", {
        "Cargo.toml": CARGO.format(extra='json = { package = "serde_json", version = "1" }'),
        "setup.cfg": "[options]\ninstall_requires =\n",
    }, at=day(10))
    shas["legacy"] = repo.commit("Delete the legacy tools", {"tools/legacy/setup.py": None}, author=BOB, at=day(20))
    # A removal made on a branch and merged.
    repo.git("checkout", "-q", "-b", "drop-logrus")
    shas["branch"] = repo.commit("Use the standard log package", {
        "go.mod": "module demo\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n)\n"}, author=BOB, at=day(21))
    repo.git("checkout", "-q", "main")
    repo.commit("Docs", {"README.md": "demo, documented\n"}, at=day(21, 12))
    shas["merge"] = repo.merge("drop-logrus", "Merge branch 'drop-logrus'", at=day(22))
    # A name dropped and brought back is no candidate.
    repo.commit("Drop six", {"requirements-extra.txt": ""}, at=day(23))
    repo.commit("Six is needed after all", {"requirements-extra.txt": "six\n"}, author=BOB, at=day(24))
    shas["head"] = repo.git("rev-parse", "HEAD")
    return shas


def proposed(report) -> dict[str, dict]:
    return {p.arguments["key"]: p.arguments for p in report.proposals.proposed}


def test_a_history_proposes_exactly_what_was_declared_and_is_declared_nowhere_at_head(memory, history):
    report = memory.mine_git(HUMAN, history["repo"], project="p")
    found = proposed(report)
    assert sorted(found) == [
        "click", "docopt", "fancy-crate", "flit-core", "github.com/sirupsen/logrus", "lodash",
        "old-crate", "requests", "toml", "ujson",
    ]
    # Not proposed: still declared (bumped, moved between files or groups, respelled, renamed with
    # `package =`, dropped and brought back), and what only fixtures and vendored trees declared.
    # @types/node's package was never declared: types are no choice of their own.
    assert report.history.passed_over == {"@types/node": "types for another package, not a choice of their own"}
    for kept in ("flask", "six", "typing-extensions", "pytest", "attrs", "serde-json", "json", "httpx",
                 "fixture-only-pkg", "vendored-dep", "left-pad", "jest", "github.com/pkg/errors"):
        assert kept not in found
    assert {p.arguments["ecosystem"] for p in report.proposals.proposed} == {"pypi", "npm", "cargo", "go"}
    # Nothing entered the graveyard by itself.
    assert memory.check_approaches(["requests"], project="p")[0].status == "clear"
    assert report.history.commits_read >= 14 and report.history.parse_failures == 1
    assert report.history.failed == [f"{history['broken'][:12]}:pyproject.toml"]


def test_evidence_reason_and_replacement_of_a_replaced_dependency(memory, history):
    requests = proposed(memory.mine_git(HUMAN, history["repo"], project="p"))["requests"]
    # The commit's why, short; the commit is its citation, not pasted into it.
    assert requests["reason"] == "Replace requests with httpx for async support"
    assert requests["commit"] == history["replace"][:7]
    assert requests["replacement"] == "httpx" and requests["lived_days"] == 6 and not requests["revert"]
    assert [(e["role"], e["ref"], e["author"], e["path"]) for e in requests["evidence"]] == [
        ("added", history["initial"], "Jane Doe", "requirements.txt"),
        ("removed", history["replace"], "Jane Doe", "requirements.txt"),
    ]
    assert requests["classes"] == []


def test_a_revert_of_an_addition_and_the_confidence_it_earns(memory, history):
    found = proposed(memory.mine_git(HUMAN, history["repo"], project="p"))
    ujson = found["ujson"]
    assert ujson["revert"] and "a revert of its addition" in ujson["reason"]
    assert [(e["role"], e["ref"], e["author"]) for e in ujson["evidence"]] == [
        ("added", history["ujson"], "Bob Roe"), ("removed", history["revert"], "Jane Doe")]
    # A hidden removal (the subject is about CI) is still found, with less confidence.
    lodash = found["lodash"]
    assert lodash["evidence"][-1]["ref"] == history["tidy"] and lodash["evidence"][-1]["summary"] == "Tidy the CI config"
    assert found["requests"]["confidence"] > lodash["confidence"]
    # ujson was reverted the day after its addition: an experiment undone, below the default view
    # (a revert after a long life earns confidence: test_mine_git_direct).
    assert any("an experiment" in ground for ground in ujson["grounds"])
    assert ujson["confidence"] < 0.5 <= found["requests"]["confidence"]


def test_classes_a_person_weighs_differently(memory, history):
    found = proposed(memory.mine_git(HUMAN, history["repo"], project="p"))
    assert found["flit-core"]["classes"] == ["build"]
    assert found["docopt"]["classes"] == ["subproject"]
    assert found["docopt"]["reason"] == "Delete the legacy tools"  # the class says the manifest went with it
    assert found["flit-core"]["confidence"] < found["old-crate"]["confidence"]
    assert found["old-crate"]["classes"] == [] and found["click"]["classes"] == []  # the positive controls


def test_a_version_bump_or_a_broken_manifest_is_no_addition_or_removal(memory, history):
    found = proposed(memory.mine_git(HUMAN, history["repo"], project="p"))
    # toml's removal is the commit that fixed the broken pyproject.toml, not the broken one; flask's
    # bump never counted as an addition (flask is still declared).
    assert found["toml"]["evidence"][-1]["ref"] == history["fixed"]
    assert found["flit-core"]["evidence"][-1]["ref"] == history["fixed"]


def test_a_removal_merged_from_a_branch_is_traced_to_the_branch_commit(memory, history):
    logrus = proposed(memory.mine_git(HUMAN, history["repo"], project="p"))["github.com/sirupsen/logrus"]
    assert logrus["evidence"][-1]["ref"] == history["branch"]
    assert logrus["evidence"][-1]["author"] == "Bob Roe"
    # The branch commit's why, not the merge's line; the branch commit is the citation.
    assert logrus["reason"] == "Use the standard log package" and logrus["commit"] == history["branch"][:7]


def test_a_rerun_reads_only_new_commits_and_remembers_how_names_were_added(memory, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    initial = repo.commit("Start", {"requirements.txt": "requests\nflask\n"}, at=day(1))
    first = memory.mine_git(HUMAN, str(repo.root), project="p")
    assert first.history.commits_read == 1 and first.proposals.proposed == []
    again = memory.mine_git(HUMAN, str(repo.root), project="p")
    assert again.history.commits_read == 0 and again.history.incremental
    drop = repo.commit("Drop flask", {"requirements.txt": "requests\n"}, author=BOB, at=day(11))
    later = memory.mine_git(HUMAN, str(repo.root), project="p")
    assert later.history.commits_read == 1 and later.history.incremental
    flask = proposed(later)["flask"]
    assert [(e["role"], e["ref"]) for e in flask["evidence"]] == [("added", initial), ("removed", drop)]
    assert flask["lived_days"] == 10
    # Brought back while its proposal is pending: the proposal stays, and the run says so.
    repo.commit("Flask is back", {"requirements.txt": "requests\nflask\n"}, at=day(12))
    back = memory.mine_git(HUMAN, str(repo.root), project="p")
    assert back.back_at_head == ["flask"] and back.proposals.proposed == []
    assert [p.arguments["key"] for p in memory.proposals("p")] == ["flask"]


def test_rejected_and_pending_names_are_not_proposed_again_when_history_is_read_again(memory, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "requests\nflask\nujson\n"}, at=day(1))
    repo.commit("Slim down", {"requirements.txt": "ujson\n"}, at=day(2))
    report = memory.mine_git(HUMAN, str(repo.root), project="p")
    ids = {p.arguments["key"]: p.id for p in report.proposals.proposed}
    assert sorted(ids) == ["flask", "requests"]
    memory.reject_proposal(HUMAN, ids["requests"], reason="only used in a script we deleted")
    # A rewritten HEAD: the cursor no longer leads to it, so everything is read again.
    repo.git("commit", "-q", "--amend", "-m", "Slim down the requirements")
    repo.commit("Drop ujson too", {"requirements.txt": ""}, at=day(3))
    again = memory.mine_git(HUMAN, str(repo.root), project="p")
    assert not again.history.incremental
    assert again.proposals.dismissed == ["requests"] and again.proposals.already_pending == ["flask"]
    assert [p.arguments["key"] for p in again.proposals.proposed] == ["ujson"]


def test_accepting_a_mined_candidate_abandons_it_with_the_drafted_reason(memory, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "requests\n"}, at=day(1))
    repo.commit("Replace requests with httpx", {"requirements.txt": "httpx\n"}, at=day(2))
    proposal = memory.mine_git(HUMAN, str(repo.root), project="p").proposals.proposed[0]
    memory.accept_proposal(HUMAN, proposal.id, effort=2)
    verdict = memory.check_approaches(["requests"], project="p")[0]
    assert verdict.status == "abandoned" and verdict.approach.reason == "Replace requests with httpx"
    assert memory.check_approaches(["httpx"], project="p")[0].status == "clear"


def test_a_shallow_clone_says_how_far_back_it_could_see(memory, history, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "6", f"file://{history['repo']}", str(clone)], check=True)
    report = memory.mine_git(HUMAN, str(clone), project="p")
    assert report.history.shallow
    assert report.history.oldest_seen.sha == history["cargo"]  # the boundary: its parents are cut off
    found = proposed(report)
    # Removals after the boundary are seen; what the boundary commit seems to add was there before it,
    # so no addition (and no lifetime) is claimed, and removals before it are out of sight.
    assert sorted(found) == ["docopt", "github.com/sirupsen/logrus"]
    assert [e["role"] for e in found["docopt"]["evidence"]] == ["removed"] and found["docopt"]["lived_days"] is None


def test_limits_read_fewer_commits_and_leave_the_cursor(memory, history):
    limited = memory.mine_git(HUMAN, history["repo"], project="p", max_commits=3)
    assert limited.history.commits_read == 3 and not limited.history.complete
    since = memory.mine_git(HUMAN, history["repo"], project="p", since="2024-01-21")
    assert 0 < since.history.commits_read < 6
    full = memory.mine_git(HUMAN, history["repo"], project="p")
    assert not full.history.incremental and full.history.commits_read >= 14


def test_bad_input_is_a_clear_error(memory, tmp_path, monkeypatch):
    with pytest.raises(InvalidInput) as not_git:
        memory.mine_git(HUMAN, str(tmp_path), project="p")
    assert not_git.value.field == "path" and "not inside a git repository" in str(not_git.value)
    with pytest.raises(InvalidInput) as missing:
        memory.mine_git(HUMAN, str(tmp_path / "nowhere"), project="p")
    assert missing.value.field == "path"
    repo = GitRepo(tmp_path / "repo")
    with pytest.raises(InvalidInput) as limit:
        memory.mine_git(HUMAN, str(repo.root), project="p", max_commits=0)
    assert limit.value.field == "max_commits"
    empty = memory.mine_git(HUMAN, str(repo.root), project="p")  # no commits yet: nothing to read
    assert empty.history.head is None and empty.history.commits_read == 0
    monkeypatch.setenv("PATH", str(tmp_path / "no-binaries"))
    with pytest.raises(Unavailable) as no_git:
        memory.mine_git(HUMAN, str(repo.root), project="p")
    assert no_git.value.field == "git"



def test_backports_and_dev_requirement_files_are_classed(memory, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "importlib_metadata; python_version < '3.8'\nujson\n",
                          "requirements-dev.txt": "black\n", "requirements-docker.txt": "gunicorn\n"}, at=day(1))
    repo.commit("Python 3.11 only", {"requirements.txt": "", "requirements-dev.txt": "",
                                     "requirements-docker.txt": ""}, at="2024-06-01T10:00:00+00:00")
    classes = {key: args["classes"] for key, args in proposed(memory.mine_git(HUMAN, str(repo.root), project="p")).items()}
    assert classes == {"importlib-metadata": ["backport"], "black": ["dev"],
                       "ujson": [], "gunicorn": []}  # ujson, gunicorn: the positive controls


def test_one_blob_read_as_two_kinds_of_manifest(memory, tmp_path):
    # Both files are emptied: one blob, which is no JSON (package.json does not parse and keeps what it
    # declared) and an empty requirements file (flask is gone).
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "flask\n", "package.json": '{"dependencies": {"left-pad": "1"}}'},
                at=day(1))
    repo.commit("Empty both", {"requirements.txt": "", "package.json": ""}, at=day(2))
    report = memory.mine_git(HUMAN, str(repo.root), project="p")
    assert sorted(proposed(report)) == ["flask"] and report.history.parse_failures == 1


def test_a_renamed_manifest_keeps_its_names_and_their_history(memory, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    start = repo.commit("Start", {"requirements.txt": "flask\nrequests\n"}, at=day(1))
    repo.git("mv", "requirements.txt", "requirements-base.txt")
    repo.commit("Rename the requirements", {}, author=BOB, at=day(2))
    drop = repo.commit("Drop requests", {"requirements-base.txt": "flask\n"}, at=day(3))
    found = proposed(memory.mine_git(HUMAN, str(repo.root), project="p"))
    assert sorted(found) == ["requests"]  # flask moved with the file
    assert [(e["role"], e["ref"], e["path"]) for e in found["requests"]["evidence"]] == [
        ("added", start, "requirements.txt"), ("removed", drop, "requirements-base.txt")]


def test_a_message_holding_the_log_separators_is_read_whole(memory, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start \x1e\x1f odd", {"requirements.txt": "flask\nujson\n"}, at=day(1))
    drop = repo.commit("Drop ujson\x1f\x1e it is slow", {"requirements.txt": "flask\n"}, at=day(2))
    (ujson,) = memory.mine_git(HUMAN, str(repo.root), project="p").proposals.proposed
    assert ujson.arguments["evidence"][-1]["ref"] == drop
    assert ujson.arguments["evidence"][-1]["summary"] == "Drop ujson\x1f\x1e it is slow"

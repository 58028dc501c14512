"""The manifests the build uses, and the evidence a candidate's confidence is computed from: each
rule in a real history built here, beside a drop of the same shape that the rule leaves alone."""

from __future__ import annotations

import json
import math

from cenotaph.cli.commands.mining import DEFAULT_MIN_CONFIDENCE
from cenotaph.memory.mining.evidence import INTERCEPT, WEIGHTS
from cenotaph.memory.mining.git import mine
from cenotaph.memory.mining.history import Repository

from tests.gitrepo import GitRepo


def day(n: int) -> str:
    return f"2024-03-{n:02d}T10:00:00+00:00"


def history(repo: GitRepo):
    found = mine(Repository(repo.root), None).history
    return found, {c.key: c for c in found.candidates}


def crate(deps: str, name: str = "a") -> str:
    return f'[package]\nname = "{name}"\nversion = "0.1.0"\n[dependencies]\n{deps}\n'


def test_a_cargo_toml_outside_the_workspace_or_without_rust_source_is_not_read(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    ci = "jobs:\n  fuzz:\n    steps:\n      - run: cd fuzz && cargo fuzz build\n"
    repo.commit("Start", {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\nexclude = ["fuzz"]\n',
        "crates/a/Cargo.toml": crate('error-chain = "0.12"\nlibc = "0.2"'),
        "crates/a/src/lib.rs": "pub fn f() {}\n",
        # A copy kept as a highlighter's test input: no Rust source beside it.
        "tests/syntax/Cargo.toml": crate('error-chain = "0.12"\nwx-thing = "1"', "copy"),
        "tests/syntax/example.py": "import django\n",
        # Excluded from the workspace, but a workflow builds it: it is live.
        "fuzz/Cargo.toml": crate('arbitrary = "1"\nlibc = "0.2"', "fuzz"),
        "fuzz/src/main.rs": "fn main() {}\n",
        ".github/workflows/ci.yml": ci,
        # Neither a member nor built by anything.
        "legacy/Cargo.toml": crate('rand = "0.8"', "legacy"),
        "legacy/src/lib.rs": "\n",
    }, at=day(1))
    repo.commit("Replace error-chain with thiserror", {
        "crates/a/Cargo.toml": crate('thiserror = "1"\nlibc = "0.2"'),
    }, at=day(5))
    repo.commit("Drop wx-thing from the syntax sample", {"tests/syntax/Cargo.toml": crate('error-chain = "0.12"', "copy")},
                at=day(6))
    repo.commit("Remove rand", {"legacy/Cargo.toml": crate("", "legacy")}, at=day(7))
    repo.commit("Remove libc from the library, the fuzzer keeps it", {"crates/a/Cargo.toml": crate('thiserror = "1"')},
                at=day(8))
    found, by_key = history(repo)
    # The copy at HEAD still names error-chain; the build does not use it, so the drop is seen.
    assert by_key["error-chain"].replacement == "thiserror"
    assert set(found.outside_build) == {"tests/syntax/Cargo.toml", "legacy/Cargo.toml"}
    assert "no Rust source" in found.outside_build["tests/syntax/Cargo.toml"]
    assert "wx-thing" not in by_key and "rand" not in by_key
    assert "libc" not in by_key  # declared by the fuzzer, which a workflow builds


def package(deps: str, name: str = "", workspaces: str = "") -> str:
    fields = [f'"name": "{name}"'] if name else []
    fields += [f'"workspaces": [{workspaces}]'] if workspaces else []
    return "{" + ", ".join([*fields, f'"dependencies": {{{deps}}}']) + "}"


def test_npm_workspaces_decide_what_is_live_and_the_own_packages_are_no_choice(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {
        "package.json": package("", "root", '"packages/*"'),
        "packages/core/package.json": package('"lodash": "4"', "@acme/core"),
        "packages/app/package.json": package('"@acme/core": "^1", "moment": "2", "left-pad": "1"', "@acme/app"),
        "templates/react/package.json": package('"react": "18", "left-pad": "1"', "template-react"),
        "docs/package.json": package('"vitepress": "1"', "docs"),
        ".github/workflows/docs.yml": "jobs:\n  docs:\n    defaults:\n      run:\n        working-directory: docs\n",
    }, at=day(1))
    repo.commit("Drop moment for dates, and the registry copy of core", {
        "packages/app/package.json": package('"left-pad": "1"', "@acme/app"),
    }, at=day(10))
    repo.commit("Use left-pad no more", {"packages/app/package.json": package("", "@acme/app")}, at=day(12))
    repo.commit("Remove react from the template", {"templates/react/package.json": package("", "template-react")},
                at=day(13))
    repo.commit("Remove vitepress, the docs are plain Markdown now", {"docs/package.json": package("", "docs")}, at=day(14))
    found, by_key = history(repo)
    assert "moment" in by_key and "vitepress" in by_key  # a member's drop; a built non-member's drop
    assert "templates/react/package.json" in found.outside_build and "docs/package.json" not in found.outside_build
    assert "react" not in by_key
    # The template, unbuilt, still names left-pad at HEAD: the member's drop counts.
    assert "left-pad" in by_key
    assert found.passed_over["@acme/core"] == "the name of one of the repository's own packages (or their former name)"


def test_go_work_use_decides_which_modules_are_live(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    mod = "module example.com/{name}\n\nrequire (\n{reqs})\n"
    repo.commit("Start", {
        "go.work": "go 1.22\n\nuse (\n\t./svc\n)\n",
        "svc/go.mod": mod.format(name="svc", reqs="\tgithub.com/pkg/errors v0.9.1\n"),
        "svc/main.go": "package main\n",
        "scratch/go.mod": mod.format(name="scratch", reqs="\tgithub.com/pkg/errors v0.9.1\n"),
        "scratch/main.go": "package main\n",
    }, at=day(1))
    repo.commit("Drop github.com/pkg/errors, use fmt.Errorf wrapping", {"svc/go.mod": mod.format(name="svc", reqs="")},
                at=day(9))
    found, by_key = history(repo)
    assert "scratch/go.mod" in found.outside_build
    assert "github.com/pkg/errors" in by_key


def test_grounds_list_the_evidence_and_the_confidence_is_the_logistic_of_their_sum(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "alpha\nbeta\ngamma\n", "CHANGES.md": "# Changes\n"}, at=day(1))
    repo.commit("Tidy the imports", {"requirements.txt": "beta\ngamma\n"}, at=day(20))
    repo.commit("Tidy the tests", {"requirements.txt": "gamma\n"}, at=day(21))
    repo.commit("Release notes", {"CHANGES.md": "# Changes\n\n- Drop the `alpha` dependency.\n"}, at=day(22))
    _, by_key = history(repo)
    alpha, beta = by_key["alpha"], by_key["beta"]
    assert any(g.startswith("the changelog:") and f"({WEIGHTS['changelog']:+.2f})" in g for g in alpha.grounds)
    assert "changelog" in alpha.features and "changelog" not in beta.features
    assert alpha.confidence > beta.confidence
    # Each ground shows its weight in log-odds; the confidence is the logistic of their sum.
    weights = [float(g.rsplit("(", 1)[1].rstrip(")")) for g in beta.grounds]
    assert weights == [round(WEIGHTS[f], 2) for f in beta.features]
    assert beta.confidence == round(1 / (1 + math.exp(-(INTERCEPT + sum(WEIGHTS[f] for f in beta.features)))), 3)


def test_a_pin_kept_for_another_package_ranks_below_a_drop_of_the_same_words(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {
        "requirements.txt": "sqlalchemy\n# already required by sqlalchemy; remove once greenlet releases 2.0.0\n"
                            "greenlet<2\nujson\n",
    }, at=day(1))
    repo.commit("Remove greenlet and ujson", {"requirements.txt": "sqlalchemy\n"}, at=day(15))
    _, by_key = history(repo)
    assert "pin" in by_key["greenlet"].features and "pin" not in by_key["ujson"].features
    # Named and dropped on purpose, the pin still weighs against it (by how much is fitted: one pin
    # in the judged corpus, so it keeps about the weight its rule was given).
    assert by_key["ujson"].confidence >= DEFAULT_MIN_CONFIDENCE
    assert by_key["ujson"].confidence - by_key["greenlet"].confidence > 0.3


def test_a_drop_in_a_version_bump_of_another_package_is_passed_over(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "sqlalchemy==1.4\ntyping-inspect\nsix\n"}, at=day(1))
    repo.commit("Bump sqlalchemy from 1.4 to 2.0", {"requirements.txt": "sqlalchemy==2.0\nsix\n"}, at=day(10))
    repo.commit("Clean up", {"requirements.txt": "sqlalchemy==2.0\n"}, at=day(12))
    found, by_key = history(repo)
    assert "bump of sqlalchemy" in found.passed_over["typing-inspect"]
    assert "six" in by_key


def test_the_replacement_a_message_says_is_used_with_the_commits_lines_as_evidence(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {
        "requirements-dev.txt": "pip-tools\nflake8\nisort\n",
        "requirements.txt": "click\n",
        ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n      - run: pip-sync\n",
    }, at=day(1))
    repo.commit("use uv", {
        "requirements-dev.txt": "flake8\nisort\n",
        ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n      - uses: astral-sh/setup-uv@v5\n      - run: uv sync\n",
    }, at=day(10))
    repo.commit("Migrate linting from various tooling to Ruff", {
        "requirements-dev.txt": "",
        ".pre-commit-config.yaml": "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.0\n"
                                   "    hooks:\n      - id: ruff\n",
    }, at=day(11))
    repo.commit("use pnpm for the docs", {"requirements.txt": ""}, at=day(12))  # nothing runs pnpm
    _, by_key = history(repo)
    assert by_key["pip-tools"].replacement == "uv"
    # Ruff, named for every tool the commit dropped and naming none of them, replaces no one of them
    # in particular: on the blind corpus such a successor was the judges' for 2 of 18 names.
    assert by_key["flake8"].replacement is None and by_key["isort"].replacement is None
    assert "replaced_shared" in by_key["flake8"].features and "Ruff" in by_key["flake8"].reason
    assert any("named in the message" in g for g in by_key["pip-tools"].grounds)
    assert by_key["click"].replacement is None


def test_system_packages_backports_and_same_day_experiments_rank_lower(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    docker = "FROM python:3.12 AS build\nRUN apt-get update && apt-get install -y {apt}\n"
    repo.commit("Start", {"Dockerfile": docker.format(apt="make curl wget"),
                          "requirements.txt": "importlib-metadata\nsimplejson\nrequests\n"}, at=day(1))
    repo.commit("Slim the build image", {"Dockerfile": docker.format(apt="curl wget")}, at=day(10))
    # Named by the removing commit, a system package was a choice about the build: a weaker doubt.
    repo.commit("Remove wget from the build image", {"Dockerfile": docker.format(apt="curl")}, at=day(10))
    repo.commit("Drop support for Python 3.7", {"requirements.txt": "simplejson\nrequests\n"}, at=day(11))
    repo.commit("Add tenacity", {"requirements.txt": "simplejson\nrequests\ntenacity\n"}, at=day(12))
    repo.commit("Remove tenacity", {"requirements.txt": "simplejson\nrequests\n"}, at="2024-03-12T18:00:00+00:00")
    repo.commit("Remove simplejson", {"requirements.txt": "requests\n"}, at=day(14))
    _, by_key = history(repo)
    assert by_key["make"].confidence < DEFAULT_MIN_CONFIDENCE <= by_key["simplejson"].confidence
    assert "system" in by_key["make"].features and "system_chosen" in by_key["wget"].features
    assert by_key["make"].confidence < by_key["wget"].confidence
    backport = by_key["importlib-metadata"]
    assert "Python 3.7" in backport.reason and backport.confidence < DEFAULT_MIN_CONFIDENCE
    assert "same_day" in by_key["tenacity"].features
    assert by_key["tenacity"].confidence < by_key["simplejson"].confidence


def test_a_name_a_build_file_still_installs_at_head_is_in_use(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    ci = "jobs:\n  test:\n    steps:\n      - run: python -m pip install tox\n      - run: python -m tox -e py\n"
    repo.commit("Start", {
        "docs/requirements.txt": "sphinx\ntox\nreleases\n",
        ".github/workflows/ci.yml": ci,
    }, at=day(1))
    repo.commit("Remove tox and releases from the docs requirements", {"docs/requirements.txt": "sphinx\n"},
                at=day(28))
    found, by_key = history(repo)
    # The workflow still installs tox: only its listing in the docs' requirements went.
    assert "tox" not in by_key
    assert "installed at HEAD by .github/workflows/ci.yml" in found.passed_over["tox"]
    assert "releases" in by_key  # the same commit's other drop, which nothing installs


def test_a_drop_whose_commit_took_its_use_out_of_the_code_or_scripts_has_that_as_evidence(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    package = '{"name": "app", "dependencies": {%s}, "devDependencies": {%s}, "scripts": {"test": "%s"}}'
    repo.commit("Start", {
        "requirements.txt": "flask\npython-dateutil\nujson\nattrs\n",
        "app/main.py": "import flask\nfrom dateutil import parser\nimport ujson\n",
        "app/util.py": "import ujson\nimport attrs\n",
        "web/package.json": package % ('"kleur": "1", "chalk": "4"', '"ava": "3", "c8": "7"', "c8 ava"),
        "web/index.js": "import kleur from 'kleur'\nimport chalk from 'chalk'\n",
        "Cargo.toml": crate('lazy_static = "1"\nonce_cell = "1"'),
        "src/lib.rs": "use lazy_static::lazy_static;\nuse once_cell::sync::Lazy;\n",
    }, at="2023-06-01T10:00:00+00:00")
    repo.commit("Tidy the parsing", {
        # Its import went with its declaration (an import name that is not the package's).
        "requirements.txt": "flask\nujson\nattrs\n",
        "app/main.py": "import flask\nimport ujson\n",
    }, at=day(2))
    repo.commit("Clean up", {
        # The declaration went, the code still imports it elsewhere: no use was taken out.
        "requirements.txt": "flask\nujson\n",
        "app/util.py": "import ujson\nimport attrs  # still\n",
    }, at=day(3))
    repo.commit("Rework the output", {
        # kleur's import went; chalk's declaration went while its import stayed.
        "web/package.json": package % ("", '"ava": "3", "c8": "7"', "c8 ava"),
        "web/index.js": "import colors from './colors.js'\nimport chalk from 'chalk'\n",
    }, at=day(4))
    repo.commit("Simplify the tests", {
        # ava left the test script; c8 stays in it.
        "web/package.json": package % ("", '"c8": "7"', "c8 node --test"),
    }, at=day(5))
    repo.commit("Clean up the crate", {
        "Cargo.toml": crate('once_cell = "1"'),
        "src/lib.rs": "use std::sync::LazyLock;\nuse once_cell::sync::Lazy;\n",
    }, at=day(6))
    repo.commit("Move things around", {
        "Cargo.toml": crate(""),
        "src/other.rs": "use once_cell::sync::Lazy;\n",
        "src/lib.rs": "use std::sync::LazyLock;\nmod other;\n",
    }, at=day(7))
    _, by_key = history(repo)
    taken_out = {key for key, c in by_key.items() if "use_dropped" in c.features}
    assert taken_out == {"python-dateutil", "kleur", "ava", "lazy-static"}
    assert "app/main.py" in next(g for g in by_key["python-dateutil"].grounds if "took its use out" in g)
    # The use moved (once_cell to another file) or stayed (attrs, chalk): no such evidence.
    assert {"attrs", "chalk", "once-cell"} <= set(by_key)
    assert by_key["kleur"].confidence > by_key["chalk"].confidence


def test_a_lock_that_still_resolves_a_name_whose_use_the_commit_took_out_is_no_evidence_against_it(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    lock = '\n'.join(f'[[package]]\nname = "{name}"\nversion = "1.0"\n' for name in ("werkzeug", "blinker", "click"))
    repo.commit("Start", {
        "pyproject.toml": '[project]\nname = "app"\ndependencies = ["werkzeug", "blinker", "click"]\n',
        "app/signals.py": "import blinker\n",
        "app/cli.py": "import click\n",
        "uv.lock": lock,
    }, at="2023-06-01T10:00:00+00:00")
    # Both are still resolved by the lock (for werkzeug's sake); the code stopped using blinker in
    # the same commit, and kept using click.
    repo.commit("Rework the events", {
        "pyproject.toml": '[project]\nname = "app"\ndependencies = ["werkzeug"]\n',
        "app/signals.py": "from app import events\n",
    }, at=day(1))
    _, by_key = history(repo)
    assert "locked" not in by_key["blinker"].features and "use_dropped" in by_key["blinker"].features
    assert by_key["blinker"].reason.endswith("a lock file at HEAD still resolves it, for another package")
    assert "locked" in by_key["click"].features and "use_dropped" not in by_key["click"].features
    assert by_key["blinker"].confidence > by_key["click"].confidence


def test_the_one_name_of_its_role_the_commit_added_replaces_a_name_whose_imports_it_took_out_only_where_they_were(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {
        "requirements.txt": "flask\nujson\ndateparser\n",
        "app/codec.py": "import ujson\n",
        "app/dates.py": "import dateparser\n",
    }, at="2023-06-01T10:00:00+00:00")
    # orjson's import comes in where ujson's went: a swap.
    repo.commit("Faster encoding", {
        "requirements.txt": "flask\norjson\ndateparser\n",
        "app/codec.py": "import orjson\n",
    }, at=day(1))
    # dateparser's import went; the one name added is imported elsewhere, for something else.
    repo.commit("Parse dates correctly, add a debug flag", {
        "requirements.txt": "flask\norjson\nrich\n",
        "app/dates.py": "from datetime import datetime\n",
        "app/debug.py": "import rich\n",
    }, at=day(2))
    _, by_key = history(repo)
    assert by_key["ujson"].replacement == "orjson" and "replaced_commit" in by_key["ujson"].features
    assert by_key["dateparser"].replacement is None and "replaced_commit" not in by_key["dateparser"].features
    assert "use_dropped" in by_key["dateparser"].features


def test_types_the_commit_added_are_no_command_that_took_a_tools_place(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    package = '{"name": "app", "scripts": {"test": "%s", "lint": "%s"}, "devDependencies": {%s}}'
    repo.commit("Start", {
        "package.json": package % ("yarn lint && jest", "tslint src", '"jest": "27", "tslint": "6"'),
    }, at="2023-06-01T10:00:00+00:00")
    # mocha's types came with it: mocha alone took jest's place.
    repo.commit("Update the tests", {
        "package.json": package % ("yarn build && mocha test", "tslint src",
                                   '"mocha": "9", "@types/mocha": "9", "chai": "4", "tslint": "6"'),
    }, at=day(1))
    # Two tools, each run where tslint ran: neither is its successor.
    repo.commit("Lint differently", {
        "package.json": package % ("yarn build && mocha test", "eslint src && biome check src",
                                   '"mocha": "9", "@types/mocha": "9", "chai": "4", "eslint": "8", "@biomejs/biome": "1"'),
    }, at=day(2))
    _, by_key = history(repo)
    assert by_key["jest"].replacement == "mocha" and "replaced_usage" in by_key["jest"].features
    assert by_key["tslint"].replacement is None


def test_a_crates_procedural_macros_dropped_while_the_crate_stays_are_the_same_package(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {
        "Cargo.toml": crate('serde = "1"\nserde_derive = "1"\nstrum_macros = "0.24"\ntokio = "1"'),
        "src/lib.rs": "#[macro_use]\nextern crate serde_derive;\nuse strum_macros::Display;\n",
    }, at="2023-06-01T10:00:00+00:00")
    # serde re-exports its derive macros (its `derive` feature); strum, which would, is not declared.
    repo.commit("Unify serde and serde_derive using the derive feature; drop the strum macros", {
        "Cargo.toml": crate('serde = { version = "1", features = ["derive"] }\ntokio = "1"'),
        "src/lib.rs": "use serde::Serialize;\n",
    }, at=day(1))
    found, by_key = history(repo)
    assert "serde-derive" not in by_key and "re-exports them" in found.passed_over["serde_derive"]
    assert "strum-macros" in by_key


def test_no_successor_by_role_alone_for_a_system_package_or_a_library_brought_in_for_a_use_of_its_own(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    docker = "FROM ubuntu:22.04\nRUN apt-get update && apt-get install -y %s\n"
    repo.commit("Start", {
        "Dockerfile": docker % "curl libsecret-1-dev",
        "requirements.txt": "flask\nujson\n",
        "requirements-dev.txt": "pytest-cov\n",
        "app/codec.py": "import ujson\n",
    }, at="2023-06-01T10:00:00+00:00")
    # An apt package went and another came: each for a need of its own.
    repo.commit("Rebase to focal", {"Dockerfile": docker % "curl python3"}, at=day(1))
    # A base image swapped for one other: its successor (the control).
    repo.commit("Use Debian", {"Dockerfile": "FROM debian:12\nRUN apt-get update && apt-get install -y curl python3\n"},
                at=day(2))
    # pytest-cov went; the one name of its role added came into the code for a use of its own.
    repo.commit("Add a serializer parameter", {
        "requirements.txt": "flask\nujson\n",
        "requirements-dev.txt": "simplejson\n",
        "app/serialize.py": "import simplejson\n",
    }, at=day(3))
    # ujson's import went and orjson's came where it was (the control).
    repo.commit("Faster encoding", {"requirements.txt": "flask\norjson\n", "app/codec.py": "import orjson\n"}, at=day(4))
    _, by_key = history(repo)
    assert by_key["libsecret-1-dev"].replacement is None
    assert by_key["ubuntu"].replacement == "debian"
    assert by_key["pytest-cov"].replacement is None
    assert by_key["ujson"].replacement == "orjson"


def test_in_package_json_a_tools_successor_runs_in_the_script_it_ran_in_or_one_that_script_now_runs(tmp_path):
    repo = GitRepo(tmp_path / "repo")

    def package(scripts: dict[str, str], tools: list[str]) -> str:
        return json.dumps({"name": "app", "scripts": scripts, "devDependencies": dict.fromkeys(tools, "1")}, indent=2)

    repo.commit("Start", {
        "package.json": package({"test": "c8 tap", "check": "tsc && jest"}, ["c8", "tap", "jest"]),
    }, at="2023-06-01T10:00:00+00:00")
    # tap measures coverage itself: c8 left the test script, and tshy came in for another script.
    repo.commit("Move to the new test runner", {
        "package.json": package({"test": "tap", "prepare": "tshy", "check": "tsc && jest"},
                                ["tap", "tshy", "prettier", "jest"]),
    }, at=day(1))
    # jest's script now runs another, which runs ava.
    repo.commit("Migrate the checks", {
        "package.json": package({"test": "tap", "prepare": "tshy", "check": "tsc && pnpm run check-only",
                                 "check-only": "ava test/"}, ["tap", "tshy", "prettier", "ava", "eslint"]),
    }, at=day(2))
    _, by_key = history(repo)
    assert by_key["c8"].replacement is None
    assert by_key["jest"].replacement == "ava" and "replaced_usage" in by_key["jest"].features


def test_a_name_a_workspace_declared_for_a_member_deleted_whole_went_with_that_subproject(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    root = ('[package]\nname = "app"\nversion = "0.1.0"\n[workspace]\nmembers = ["xtask"]\n'
            '[workspace.dependencies]\nanyhow = "1"\nignore = "0.4"\n[dependencies]\nanyhow.workspace = true\n')
    repo.commit("Start", {
        "Cargo.toml": root,
        "src/main.rs": "fn main() {}\n",
        "xtask/Cargo.toml": '[package]\nname = "xtask"\nversion = "0.1.0"\n[dependencies]\nignore.workspace = true\n',
        "xtask/src/main.rs": "use ignore::Walk;\nfn main() {}\n",
        "setup.py": "from setuptools import setup\nsetup(name='tool', install_requires=['click', 'attrs'])\n",
        "pyproject.toml": '[project]\nname = "tool"\ndependencies = ["click", "attrs"]\n',
    }, at="2023-06-01T10:00:00+00:00")
    repo.commit("Replace xtask with a justfile", {
        "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n[dependencies]\nanyhow = "1"\n',
        "xtask/Cargo.toml": None, "xtask/src/main.rs": None, "justfile": "lint:\n\tcargo clippy\n",
    }, at=day(1))
    # setup.py deleted beside the pyproject.toml that also lost attrs: no subproject went.
    repo.commit("Drop attrs, move to pyproject only", {
        "setup.py": None, "pyproject.toml": '[project]\nname = "tool"\ndependencies = ["click"]\n',
    }, at=day(2))
    _, by_key = history(repo)
    assert "subproject" in by_key["ignore"].classes
    assert "subproject" not in by_key["attrs"].classes


def test_a_message_names_a_package_by_its_projects_language_affix(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {
        "Cargo.toml": crate('websocket = "0.17"\nhyper = "0.9"\nclap = "2"'),
        "src/main.rs": "fn main() {}\n",
    }, at="2023-06-01T10:00:00+00:00")
    repo.commit("Switch from rust-websocket to ws-rs", {"Cargo.toml": crate('ws = "0.5"\nhyper = "0.9"\nclap = "2"')},
                at=day(1))
    # "hyperlinks" and "clap-rsx" are other words: neither names a package.
    repo.commit("Render hyperlinks, drop clap-rsx notes", {"Cargo.toml": crate('ws = "0.5"')}, at=day(2))
    _, by_key = history(repo)
    assert "named" in by_key["websocket"].features
    assert "named" not in by_key["hyper"].features and "named" not in by_key["clap"].features


def test_a_scope_dropped_or_a_condas_python_name_is_the_same_package(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    dev = '{"name": "app", "devDependencies": {%s}}'
    env = "channels:\n  - conda-forge\ndependencies:\n{}"
    repo.commit("Start", {"package.json": dev % '"@wessberg/rollup-plugin-ts": "1", "@acme/left-pad": "1"',
                          "environment.yml": env.format("  - duckdb\n  - numpy\n"),
                          "build.js": "import ts from '@wessberg/rollup-plugin-ts'\nimport pad from '@acme/left-pad'\n"},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("Fix the build", {"package.json": dev % '"rollup-plugin-ts": "2", "@acme/left-pad": "1"',
                                  "build.js": "import ts from 'rollup-plugin-ts'\nimport pad from '@acme/left-pad'\n"},
                at=day(2))
    repo.commit("Use python-duckdb for the test environment", {"environment.yml": env.format("  - python-duckdb\n  - numpy\n")},
                at=day(3))
    # The positive controls: a scoped name replaced by other words, a conda package by another.
    repo.commit("Fix the padding", {"package.json": dev % '"rollup-plugin-ts": "2", "pad-start": "1"',
                                    "build.js": "import ts from 'rollup-plugin-ts'\nimport pad from 'pad-start'\n"},
                at=day(4))
    repo.commit("Use polars for the test environment", {"environment.yml": env.format("  - python-duckdb\n  - polars\n")},
                at=day(5))
    _, by_key = history(repo)
    for key, successor in (("@wessberg/rollup-plugin-ts", "rollup-plugin-ts"), ("duckdb", "python-duckdb")):
        assert by_key[key].replacement == successor, key
        assert "same_package" in by_key[key].features, key
    for key, successor in (("@acme/left-pad", "pad-start"), ("numpy", "polars")):
        assert by_key[key].replacement == successor, key
        assert "same_package" not in by_key[key].features, key


def test_a_major_version_dropped_while_another_stays_declared_past_the_commit_is_an_upgrade(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    mod = "module example.com/app\n\nrequire (\n{})\n"
    reqs = {"yaml2": "\tgopkg.in/yaml.v2 v2.4.0\n", "yaml3": "\tgopkg.in/yaml.v3 v3.0.1\n",
            "new": "\tgo.yaml.in/yaml/v3 v3.0.4\n", "thing": "\tgithub.com/acme/thing v1.2.0\n",
            "thing2": "\tgithub.com/acme/thing/v2 v2.0.0\n"}
    repo.commit("Start", {"go.mod": mod.format("".join(reqs[k] for k in ("yaml2", "yaml3", "thing", "thing2"))),
                          "main.go": "package main\n"}, at="2023-06-01T10:00:00+00:00")
    # v3 stays past the commit that drops v2 (HEAD no longer declares it: it moved to a new path later).
    repo.commit("feat!: drop yaml v2 support", {"go.mod": mod.format("".join(reqs[k] for k in ("yaml3", "thing", "thing2")))},
                at=day(2))
    repo.commit("Switch to the YAML org's go-yaml", {"go.mod": mod.format("".join(reqs[k] for k in ("new", "thing", "thing2")))},
                at=day(3))
    # The positive control: v2 dropped after v1 had gone, no version of it left.
    repo.commit("Drop thing v1", {"go.mod": mod.format("".join(reqs[k] for k in ("new", "thing2")))}, at=day(4))
    repo.commit("Remove thing, unmaintained", {"go.mod": mod.format(reqs["new"])}, at=day(5))
    found, by_key = history(repo)
    for name, kept in (("gopkg.in/yaml.v2", "gopkg.in/yaml.v3"), ("github.com/acme/thing", "github.com/acme/thing/v2")):
        assert name not in by_key and found.passed_over[name] == f"upgraded to its next major version, {kept}", name
    assert {"gopkg.in/yaml.v3", "github.com/acme/thing/v2"} <= set(by_key)


def test_a_tools_plugin_dropped_unnamed_with_no_use_taken_out_has_that_as_evidence(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    dev = '{"name": "app", "devDependencies": {%s}, "scripts": {"test": "%s"}}'
    tools = ("eslint", "eslint-plugin-import", "eslint-config-acme", "eslint-plugin-jsdoc", "rollup", "rollup-plugin-cleanup",
             "tap")
    repo.commit("Start", {"package.json": dev % (", ".join(f'"{n}": "1"' for n in tools), "tap && rollup-plugin-cleanup"),
                          ".eslintrc.json": '{"extends": "acme", "plugins": ["import"]}'},
                at="2023-06-01T10:00:00+00:00")
    # The linter's setup changed: its plugin and shared configuration went, unnamed.
    repo.commit("Switch from the old lint setup to flat config", {
        "package.json": dev % (('"eslint": "9", "eslint-plugin-jsdoc": "1", "rollup": "1", "rollup-plugin-cleanup": "1", '
                                '"tap": "1"'), "tap && rollup-plugin-cleanup"),
        ".eslintrc.json": None, "eslint.config.js": "export default []\n"}, at=day(2))
    # The positive controls: a plugin whose use the commit took out of a script, and one it names.
    repo.commit("Tidy the build", {"package.json": dev % ('"eslint": "9", "eslint-plugin-jsdoc": "1", "rollup": "1", "tap": "1"',
                                                          "tap")}, at=day(3))
    repo.commit("Drop eslint-plugin-jsdoc, too noisy", {"package.json": dev % ('"eslint": "9", "rollup": "1", "tap": "1"', "tap")},
                at=day(4))
    _, by_key = history(repo)
    plugins = {key for key, c in by_key.items() if "plugin" in c.features}
    # A shared configuration is a style guide chosen, no part of the tool's setup.
    assert plugins == {"eslint-plugin-import"}
    assert "eslint-config-acme" in by_key and "plugin" not in by_key["eslint-config-acme"].features
    assert "use_dropped" in by_key["rollup-plugin-cleanup"].features
    assert "plugin" not in by_key["eslint-plugin-jsdoc"].features


def test_a_use_taken_out_of_code_is_read_by_the_import_scanners_a_go_block_and_a_comment_too(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    gomod = "module example.com/app\n\ngo 1.21\n\nrequire (\n%s)\n"
    mods = ("github.com/pkg/errors", "github.com/fatih/color", "github.com/spf13/pflag")
    main = 'package main\n\nimport (\n\t"fmt"\n%s)\n\nfunc main() { fmt.Println() }\n'
    repo.commit("Start", {
        "go.mod": gomod % "".join(f"\t{m} v1.0.0\n" for m in mods),
        "main.go": main % "".join(f'\t"{m}"\n' for m in mods),
        "package.json": '{"name": "web", "dependencies": {"kleur": "1", "chalk": "4"}}',
        "index.js": "// const kleur = require('kleur')\nimport chalk from 'chalk'\n",
    }, at="2023-06-01T10:00:00+00:00")
    # One line of the import block goes (the diff holds no `import (`): its use was taken out.
    repo.commit("Tidy the errors", {
        "go.mod": gomod % "".join(f"\t{m} v1.0.0\n" for m in mods[1:]),
        "main.go": main % "".join(f'\t"{m}"\n' for m in mods[1:]),
    }, at=day(2))
    # The control: a declaration dropped while the import block keeps the path.
    repo.commit("Tidy the module", {"go.mod": gomod % f"\t{mods[2]} v1.0.0\n"}, at=day(3))
    # A commented-out require is no use; the control is an import taken out.
    repo.commit("Rework the output", {
        "package.json": '{"name": "web", "dependencies": {}}',
        "index.js": "const x = 1\n",
    }, at=day(4))
    _, by_key = history(repo)
    taken_out = {key for key, c in by_key.items() if "use_dropped" in c.features}
    assert taken_out == {"github.com/pkg/errors", "chalk"}
    assert {"github.com/fatih/color", "kleur"} <= set(by_key)


def test_a_short_lived_name_whose_use_the_commit_took_out_was_not_dropped_silently(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "flask\n", "app/main.py": "import flask\n"}, at=day(1))
    repo.commit("Handle ports", {"requirements.txt": "flask\nportpicker\nretrying\n",
                                 "app/main.py": "import flask\nimport portpicker\nimport retrying\n"}, at=day(2))
    # Its import went with its declaration: the code says it went, though the message does not.
    repo.commit("Better way of handling ports", {"requirements.txt": "flask\nretrying\n",
                                                 "app/main.py": "import flask\nimport retrying\n"}, at=day(9))
    # The control: the declaration went while the code kept its import.
    repo.commit("Tidy", {"requirements.txt": "flask\n"}, at=day(10))
    _, by_key = history(repo)
    assert "short" in by_key["portpicker"].features and "short_silent" not in by_key["portpicker"].features
    assert "short_silent" in by_key["retrying"].features


def test_a_go_module_is_named_by_its_paths_last_word(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    gomod = "module example.com/app\n\ngo 1.21\n\nrequire (\n%s)\n"
    mods = ("github.com/acme/spinner", "github.com/urfave/cli/v2", "github.com/acme/colorful")
    repo.commit("Start", {"go.mod": gomod % "".join(f"\t{m} v1.0.0\n" for m in mods)}, at="2023-06-01T10:00:00+00:00")
    repo.commit("chore(mod): cleanup dependencies\n\nWe do not use spinner anymore.",
                {"go.mod": gomod % "".join(f"\t{m} v1.0.0\n" for m in mods[1:])}, at=day(2))
    repo.commit("Move the flags off cli", {"go.mod": gomod % f"\t{mods[2]} v1.0.0\n"}, at=day(3))
    # The control: a message that names neither the path nor its last word.
    repo.commit("Tidy the module", {"go.mod": gomod % ""}, at=day(4))
    _, by_key = history(repo)
    assert "named" in by_key["github.com/acme/spinner"].features
    assert "named" in by_key["github.com/urfave/cli/v2"].features
    assert "named" not in by_key["github.com/acme/colorful"].features


def listed(names: tuple[str, ...]) -> str:
    return ", ".join(f'"{n}": "1"' for n in names)


def test_many_names_dropped_by_a_commit_that_sets_out_to_remove_them_are_no_churn(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    dev = '{"name": "app", "devDependencies": {%s}}'
    gulp = ("gulp", "gulp-babel", "gulp-cached", "gulp-chmod", "gulp-sass", "gulp-eslint")
    old = ("mocha", "chai", "sinon", "shelljs", "string", "mustache")
    tools = ("rollup", "rollup-plugin-cleanup", "terser", "tslib", "typescript", "ts-node")
    repo.commit("Start", {"package.json": dev % listed((*gulp, *old, *tools)), "gulpfile.js": "// the build\n"},
                at="2023-06-01T10:00:00+00:00")
    # Removing is what each of these commits set out to do, after a type or an emoji.
    repo.commit("Removed gulpfile", {"package.json": dev % listed((*old, *tools)), "gulpfile.js": None}, at=day(2))
    repo.commit("npm: uninstall a bunch of packages", {"package.json": dev % listed(tools)}, at=day(3))
    # The control: as many names go with a change of the build, which says nothing of removing them.
    repo.commit("Build with esbuild", {"package.json": dev % listed(("esbuild",))}, at=day(4))
    _, by_key = history(repo)
    assert not {name for name in (*gulp, *old) if "churn" in by_key[name].features}
    assert "signal" in by_key["mocha"].features  # "uninstall" says the drop
    assert all("churn" in by_key[name].features for name in tools)


def test_the_one_name_a_dependency_update_added_is_the_dropped_package_under_its_new_name(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    dev = '{"name": "app", "devDependencies": {%s}}'
    repo.commit("Start", {"package.json": dev % '"eslint": "8", "eslint-plugin-node": "11", "tap": "16"'},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("chore(deps): update all non-major dependencies",
                {"package.json": dev % '"eslint": "8", "eslint-plugin-n": "16", "tap": "16"'}, at=day(2))
    # The control: the same shape in a commit about something else keeps its successor's credit.
    repo.commit("Rework the test setup", {"package.json": dev % '"eslint": "8", "eslint-plugin-n": "16", "vitest": "1"'},
                at=day(3))
    _, by_key = history(repo)
    assert "same_package" in by_key["eslint-plugin-node"].features
    assert "replaced_commit" not in by_key["eslint-plugin-node"].features
    assert "replaced_commit" in by_key["tap"].features and by_key["tap"].replacement == "vitest"


def test_a_subject_that_removes_the_manifest_itself_is_no_choice_of_each_name_it_declared(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    docs = ("sphinx-rtd-theme", "numpydoc", "nbsphinx", "ipykernel", "pandoc", "recommonmark")
    bench = ("asv", "virtualenv", "pyperf", "psutil", "memory-profiler", "line-profiler")
    repo.commit("Start", {"docs/requirements.txt": "\n".join(("sphinx", *docs)) + "\n",
                          "requirements-bench.txt": "\n".join(("pytest", *bench)) + "\n"},
                at="2023-06-01T10:00:00+00:00")
    # Its subject sets out to remove, but what it removes is the file: its names went with it.
    repo.commit("Clean up docs/requirements.txt", {"docs/requirements.txt": "sphinx\n"}, at=day(2))
    # The control: the same shape, the subject about removing the tools.
    repo.commit("Clean up the benchmark tools", {"requirements-bench.txt": "pytest\n"}, at=day(3))
    _, by_key = history(repo)
    assert all("churn" in by_key[name].features for name in docs)
    assert not {name for name in bench if "churn" in by_key[name].features}


def test_a_tool_the_message_names_is_the_scoped_package_the_commit_added_under_that_name(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    package = '{"name": "app", "scripts": {"lint": "%s"}, "devDependencies": {%s}}'
    repo.commit("Start", {"package.json": package % ("eslint .", '"eslint": "9", "mocha": "10"')},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("chore: switch to Biome for parsing and linting",
                {"package.json": package % ("biome check", '"@biomejs/biome": "1", "mocha": "10"')}, at=day(2))
    _, by_key = history(repo)
    assert by_key["eslint"].replacement == "@biomejs/biome"


def test_a_floor_rise_written_as_a_tox_environment_retires_a_backport(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements.txt": "numpy\ntyping_extensions\nimportlib_metadata\n"},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("drop py37 (#378)", {"requirements.txt": "numpy\nimportlib_metadata\n"}, at=day(2))
    # The control: a backport dropped by a commit that raises no floor.
    repo.commit("Trim the requirements", {"requirements.txt": "numpy\n"}, at=day(3))
    _, by_key = history(repo)
    assert "floor" in by_key["typing-extensions"].features
    assert any("Python 3.7" in g for g in by_key["typing-extensions"].grounds)
    assert "floor" not in by_key["importlib-metadata"].features


def test_a_commit_that_stops_pinning_a_name_speaks_of_a_pin(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"Cargo.toml": crate('clap = "4"\nbitflags = "=1.2.1"\nregex = "1"')},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("Don't pin bitflags", {"Cargo.toml": crate('clap = "4"\nregex = "1"')}, at=day(2))
    # The control: a name the commit drops with a why of its own.
    repo.commit("Drop regex, it is slow", {"Cargo.toml": crate('clap = "4"')}, at=day(3))
    _, by_key = history(repo)
    assert "pin" in by_key["bitflags"].features
    assert "pin" not in by_key["regex"].features


def test_a_subject_that_reverts_a_change_made_days_before_undoes_an_experiment(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"go.mod": "module example.com/app\n\ngo 1.21\n\nrequire github.com/spf13/cobra v1.8.0\n"},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("Replaced zstd package", {"go.mod": "module example.com/app\n\ngo 1.21\n\nrequire (\n"
                                                    "\tgithub.com/spf13/cobra v1.8.0\n\tgithub.com/klauspost/compress v1.17.0\n"
                                                    "\tgithub.com/fatih/color v1.16.0\n)\n"}, at=day(1))
    # No sha of the commit it undoes: the subject says it reverts, two days after the addition.
    repo.commit("revert back to flate instead of zstd", {"go.mod": "module example.com/app\n\ngo 1.21\n\nrequire (\n"
                                                                  "\tgithub.com/spf13/cobra v1.8.0\n\tgithub.com/fatih/color v1.16.0\n)\n"},
                at=day(3))
    # The control: a name of the same age dropped by a subject that reverts nothing.
    repo.commit("Drop color output", {"go.mod": "module example.com/app\n\ngo 1.21\n\nrequire github.com/spf13/cobra v1.8.0\n"},
                at=day(4))
    _, by_key = history(repo)
    assert "experiment" in by_key["github.com/klauspost/compress"].features
    assert "experiment" not in by_key["github.com/fatih/color"].features


def test_a_backport_retired_with_the_floor_has_no_successor_the_commit_added(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("Start", {"requirements-dev.txt": "pytest\nmock; python_version < '3.3'\nflake8\n"},
                at="2023-06-01T10:00:00+00:00")
    repo.commit("Drop support for EOL Python 2", {"requirements-dev.txt": "pytest\npyupgrade\nflake8\n"}, at=day(2))
    # The control: the one name of its role another commit added in a tool's place replaces it.
    repo.commit("Rework the linting", {"requirements-dev.txt": "pytest\npyupgrade\nruff\n"}, at=day(3))
    _, by_key = history(repo)
    assert "floor" in by_key["mock"].features and by_key["mock"].replacement is None
    assert by_key["flake8"].replacement == "ruff"

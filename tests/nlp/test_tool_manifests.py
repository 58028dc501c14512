"""The Python tooling's declarations: tox.ini `deps` and .pre-commit-config.yaml hook repositories
and `additional_dependencies`, each beside what in the same file declares nothing."""

from __future__ import annotations

from cenotaph.nlp.detect import declarations, detect
from cenotaph.nlp.ecosystems import document_kind
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.nlp.test_detect import rows, text_at

TOX = """\
[tox]
envlist = py3{12,11}, py38-{simplejson,lowest}
requires = tox-uv

[testenv]
deps =
    pytest  # the runner
    -r requirements/tests.txt
    {[base]deps}
    lowest: Werkzeug==0.15.5
    py38,!lowest: greenlet>=1
    devel: https://github.com/pallets/werkzeug/archive/master.tar.gz

    simplejson: simplejson
commands = pytest {posargs}

[testenv:style]
deps = pre-commit
commands = pre-commit run --all-files

[base]
deps = ignored-outside-testenv
"""


def test_tox_deps_of_every_testenv_after_their_factor_conditions() -> None:
    assert document_kind("pkg/tox.ini") == "tox_ini" and document_kind("pytest.ini") is None
    assert [(line, start, end, name) for line, start, end, name, *_ in rows("tox.ini", TOX)] == [
        (6, 4, 10, "pytest"),
        (9, 12, 20, "Werkzeug"),
        (10, 18, 26, "greenlet"),
        (13, 16, 26, "simplejson"),
        (17, 7, 17, "pre-commit"),
    ]
    # -r files, substitutions, URLs, tox's own `requires` and other sections name no dependency.
    scan = declarations("tox.ini", TOX)
    assert scan is not None and {d.group for d in scan.declarations} == {"test"}


PRE_COMMIT = """\
ci:
  autoupdate_schedule: monthly
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.1.3
    hooks:
      - id: ruff
      - id: ruff-format
  - repo: https://github.com/psf/black
    rev: 23.7.0
    hooks: [{id: black}]
  -   repo: "https://github.com/PyCQA/flake8.git"
      rev: 6.1.0
      hooks:
      -   id: flake8
          additional_dependencies:
          - flake8-bugbear==23.1  # pinned
          - 'flake8-implicit-str-concat'
      -   id: flake8-docs
          additional_dependencies: [flake8-docstrings, "pydocstyle>=6"]
  - repo: https://github.com/pre-commit/mirrors-mypy
    hooks:
      - id: mypy
        additional_dependencies:
        - types-requests
        args: [--strict]
  - repo: https://github.com/pre-commit/pre-commit-hooks
    hooks:
      - id: trailing-whitespace
  - repo: local
    hooks:
      - id: pylint
  - repo: meta
"""


def test_pre_commit_hook_repositories_are_their_tools_and_additional_dependencies_are_declared() -> None:
    assert document_kind(".pre-commit-config.yaml") == "pre_commit"
    assert document_kind(".pre-commit-hooks.yaml") is None  # a hook repository's own manifest
    assert [(line, start, end, name) for line, start, end, name, *_ in rows(".pre-commit-config.yaml", PRE_COMMIT)] == [
        (3, 39, 43, "ruff"),
        (8, 33, 38, "black"),
        (11, 38, 44, "flake8"),
        (16, 12, 26, "flake8-bugbear"),
        (17, 13, 39, "flake8-implicit-str-concat"),
        (19, 36, 53, "flake8-docstrings"),
        (19, 56, 66, "pydocstyle"),
        (20, 48, 52, "mypy"),
        (24, 10, 24, "types-requests"),
        (26, 40, 56, "pre-commit-hooks"),
    ]
    # Hook ids (ruff-format, trailing-whitespace, a local pylint) and `args` are no packages.
    scan = declarations(".pre-commit-config.yaml", PRE_COMMIT)
    assert scan is not None and {d.group for d in scan.declarations} == {"dev"}


SHAPES = st.sampled_from([
    "[testenv]", "[testenv:x]", "deps =", "deps=", "\n", "\r\n", " ", "\t", "    ", "py38: ", "!a,b: ", "-r ", "#",
    " # ", "pytest", "h\u00e9llo", "\U0001f600", "{[base]deps}", "https://x/y.tar.gz", "repos:", "- repo: ",
    "repo: ", "https://github.com/a/", "ruff-pre-commit", "mirrors-", ".git", "'", '"', "additional_dependencies:",
    "[", "]", ",", "- ", "  - ", "local", "==1", "\x00",
])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.one_of(SHAPES, st.text(max_size=8)), max_size=40),
       path=st.sampled_from(["tox.ini", ".pre-commit-config.yaml"]))
def test_any_text_in_tox_ini_or_pre_commit_config_scans_without_error_at_exact_ranges(pieces, path) -> None:
    text = "".join(pieces)
    mentions = detect(path, text)
    for mention in mentions:
        assert text_at(text, mention) == mention.name
    scan = declarations(path, text)
    assert scan is not None
    assert sorted(d.key for d in scan.declarations) == sorted(m.key for m in mentions if m.kind == "declaration")

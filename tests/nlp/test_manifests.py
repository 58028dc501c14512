"""setup.py and setup.cfg declarations, and the group every manifest scanner gives a declaration
(what mining the history needs to tell a move between groups from a removal)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cenotaph.nlp.detect import Declaration, declarations, detect
from cenotaph.nlp.ecosystems import document_kind
from tests.nlp.test_detect import rows, text_at


def groups(path: str, text: str) -> list[tuple[str, str, str]]:
    scan = declarations(path, text)
    assert scan is not None
    return [(d.key, d.ecosystem, d.group) for d in scan.declarations]


def test_setup_py_and_setup_cfg_are_manifests_and_other_setup_files_are_not() -> None:
    assert document_kind("pkg/setup.py") == "setup_py"
    assert document_kind("file:///home/me/proj/setup.cfg") == "setup_cfg"
    assert document_kind("pkg/setup_utils.py") == "python"  # the positive control: a plain Python file
    assert document_kind("setup.txt") == "plaintext"  # a document, not a manifest
    assert declarations("setup.txt", "install_requires = six\n") is None
    assert declarations("src/app.py", "import requests\n") is None  # code is no manifest


SETUP_PY = '''\
from setuptools import setup, find_packages
import yaml

BASE = ["requests>=2.0", 'six']
UNUSED = ["not-declared"]
EXTRAS = {"async": ["httpx[http2]>=0.27; python_version >= '3.8'"]}

helper(install_requires=["not-setup-either"])

setup(
    name="demo",
    install_requires=BASE + ["click"],
    tests_require=("pytest",),
    extras_require=dict() or EXTRAS,
    setup_requires="""
        setuptools_scm  # versions from git
        wheel
    """,
)
'''


def test_setup_py_declares_the_requirements_of_its_setup_call_and_keeps_its_imports() -> None:
    assert [(line, name, key, kind) for line, _, _, name, key, _, kind in rows("setup.py", SETUP_PY)] == [
        (0, "setuptools", "setuptools", "import"),
        (1, "yaml", "pyyaml", "import"),
        (3, "requests", "requests", "declaration"),
        (3, "six", "six", "declaration"),
        (11, "click", "click", "declaration"),
        (12, "pytest", "pytest", "declaration"),
        (15, "setuptools_scm", "setuptools-scm", "declaration"),
        (16, "wheel", "wheel", "declaration"),
    ]
    # `extras_require=dict() or EXTRAS` is an expression, not a dict: nothing is guessed from it.
    assert groups("setup.py", SETUP_PY) == [
        ("requests", "pypi", "main"), ("six", "pypi", "main"), ("click", "pypi", "main"),
        ("pytest", "pypi", "test"), ("setuptools-scm", "pypi", "build"), ("wheel", "pypi", "build"),
    ]


def test_setup_py_extras_through_a_name_and_a_file_that_does_not_parse() -> None:
    text = 'import setuptools\nEXTRAS = {"async": ["httpx"], "docs": ["sphinx"]}\n' \
           'setuptools.setup(extras_require=EXTRAS)\n'
    assert groups("setup.py", text) == [("httpx", "pypi", "extra:async"), ("sphinx", "pypi", "extra:docs")]
    broken = declarations("setup.py", "import yaml\nsetup(install_requires=['requests'\n")
    assert broken is not None and broken.declarations == () and not broken.well_formed
    assert [m.name for m in detect("setup.py", "import yaml\nsetup(install_requires=['requests'\n")] == ["yaml"]


SETUP_CFG = """\
[metadata]
name = demo
install_requires = not-a-requirement-here

[options]
packages = find:
install_requires =
    requests>=2
    # a comment inside the value
    attrs; python_version < "3.8"  # marker
tests_require = pytest
setup_requires = file: requirements-build.txt

[options.extras_require]
fast = ujson
    orjson
dev =
  black
"""


def test_setup_cfg_options_and_extras_with_multi_line_values() -> None:
    assert [(line, start, end, name) for line, start, end, name, *_ in rows("setup.cfg", SETUP_CFG)] == [
        (7, 4, 12, "requests"),
        (9, 4, 9, "attrs"),
        (10, 16, 22, "pytest"),
        (14, 7, 12, "ujson"),
        (15, 4, 10, "orjson"),
        (17, 2, 7, "black"),
    ]
    assert [group for *_, group in groups("setup.cfg", SETUP_CFG)] == [
        "main", "main", "test", "extra:fast", "extra:fast", "extra:dev"]


def test_every_manifest_scanner_says_which_group_declares_a_name() -> None:
    pyproject = """\
[project]
dependencies = ["requests"]
[project.optional-dependencies]
async = ["httpx"]
[dependency-groups]
lint = ["ruff"]
[build-system]
requires = ["hatchling"]
[tool.poetry.dependencies]
python = "^3.11"
flask = "*"
[tool.poetry.dev-dependencies]
pytest = "*"
[tool.poetry.group.docs.dependencies]
sphinx = "*"
"""
    assert groups("pyproject.toml", pyproject) == [
        ("requests", "pypi", "main"), ("httpx", "pypi", "extra:async"), ("ruff", "pypi", "group:lint"),
        ("hatchling", "pypi", "build"), ("flask", "pypi", "main"), ("pytest", "pypi", "dev"),
        ("sphinx", "pypi", "group:docs"),
    ]
    package_json = '{"dependencies": {"left-pad": "1"}, "devDependencies": {"@types/node": "20", ' \
                   '"jq": "npm:jquery@3"}, "peerDependencies": {"react": "18"}, "overrides": {"**/lodash": "4"}}'
    assert groups("package.json", package_json) == [
        ("left-pad", "npm", "main"), ("@types/node", "npm", "dev"), ("jquery", "npm", "dev"),
        ("react", "npm", "peer"), ("lodash", "npm", "override"),
    ]
    cargo = """\
[dependencies]
serde = "1"
[dependencies.json]
package = "serde_json"
[dev-dependencies]
proptest = "1"
[target.'cfg(windows)'.dependencies]
winapi = "0.3"
[workspace.dependencies]
tokio = "1"
"""
    assert groups("Cargo.toml", cargo) == [
        ("serde", "cargo", "main"), ("serde-json", "cargo", "main"), ("proptest", "cargo", "dev"),
        ("winapi", "cargo", "target:cfg(windows):main"), ("tokio", "cargo", "workspace"),
    ]
    go_mod = "module x\nrequire (\n\tgithub.com/a/b v1.0.0\n)\nreplace github.com/c/d => github.com/e/f v1.0.0\n"
    assert groups("go.mod", go_mod) == [("github.com/a/b", "go", "main"), ("github.com/e/f", "go", "replace")]
    assert groups("requirements-dev.txt", "pytest==8\n") == [("pytest", "pypi", "main")]


def test_a_manifest_that_does_not_parse_is_marked_but_still_scanned() -> None:
    broken = declarations("pyproject.toml", '[project]\ndependencies = ["requests", "httpx"\n')
    assert broken is not None and not broken.well_formed
    assert [d.key for d in broken.declarations] == ["requests", "httpx"]
    whole = declarations("package.json", '{"dependencies": {"left-pad": "1"}}')
    assert whole is not None and whole.well_formed
    assert whole.declarations == (Declaration("left-pad", "left-pad", "npm", "main"),)


SHAPES = st.sampled_from([
    "setup(", "install_requires=", "extras_require=", "tests_require", "[", "]", "{", "}", "(", ")", ",", "'", '"',
    '"""', "\\", "\n", "\r\n", "\r", " ", "\t", "requests", "h\u00e9llo", "\U0001f600", "#", ";", "=", ":",
    "[options]", "[options.extras_require]", "    ", "file:", "x = ", "+", "BASE", "dict(", "\x00",
])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.one_of(SHAPES, st.text(max_size=8)), max_size=40),
       path=st.sampled_from(["setup.py", "setup.cfg"]))
def test_any_text_in_setup_py_or_setup_cfg_scans_without_error_at_exact_ranges(pieces, path) -> None:
    text = "".join(pieces)
    mentions = detect(path, text)
    for mention in mentions:
        assert text_at(text, mention) == mention.name
    scan = declarations(path, text)  # the same scanner: the same declarations
    assert scan is not None
    assert sorted(d.key for d in scan.declarations) == sorted(m.key for m in mentions if m.kind == "declaration")

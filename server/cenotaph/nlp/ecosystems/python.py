"""Python (PyPI): imports in code, requirements files, pyproject.toml, setup.py and setup.cfg
(the tooling's tox.ini and .pre-commit-config.yaml in `pytools`),
pip, uv and Poetry commands, PEP 503 names with the import names that stand for distributions,
and what a workspace's environment says its imports are."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Final

from cenotaph.nlp.ecosystems import base, pep508, pytools
from cenotaph.nlp.ecosystems.base import (
    LINE_COMMENT_REST,
    Context,
    Document,
    Ecosystem,
    Hit,
    ImportNames,
    Installer,
    LazyPattern,
    name_rule,
    single_line_string_rest,
    stamp,
    triple_quoted_rest,
)
from cenotaph.nlp.names import fold

# ---------------------------------------------------------------------------------------------
# Imports

_PY_SPACE = r"(?:[ \t\f]|\\(?:\r\n|\r|\n))"
# A statement starts the file, a line, or follows a ';' or the ':' of a compound statement
# (`try: import x`), blanks in between.
_PY_STATEMENT_START = r"[\r\n;:]"
_PY_STATEMENT = LazyPattern(
    rf"{_PY_STATEMENT_START}?[ \t\f]*+(?P<keyword>import|from){_PY_SPACE}+"
)
_PY_CANDIDATE = LazyPattern(rf"(?:import|from){_PY_SPACE}+")
# From code to the next statement start followed by `import` or `from` (or to the end): comments
# and strings are passed over inside the regular expression engine, so the work done in Python is
# per import statement, not per token. The string and comment grammars are the other lexers'.
_PY_TO_STATEMENT = LazyPattern(
    "(?:"
    + "|".join(
        [
            r"[^'\"#\r\n;:]++",
            rf"{_PY_STATEMENT_START}(?![ \t\f]*+(?:import|from){_PY_SPACE})",
            f"#{LINE_COMMENT_REST}",
            *(
                f"{opener}{rest}"
                for quote in "\"'"
                for opener, rest in (
                    (quote * 3, triple_quoted_rest(quote)),
                    (quote, single_line_string_rest(quote)),
                )
            ),
        ]
    ).replace("(?P<close>", "(?:")  # one pattern holds several terminators: unnamed here
    + ")*+",
    re.S,
)
_PY_IMPORTED_MODULE = LazyPattern(
    rf"(?P<top>\w+)(?:{_PY_SPACE}*\.{_PY_SPACE}*\w+)*"  # a.b.c
    rf"(?:{_PY_SPACE}+as{_PY_SPACE}+\w+)?"  # as alias
    rf"{_PY_SPACE}*(?P<more>,{_PY_SPACE}*)?"
)
_PY_NOT_A_LIBRARY = frozenset({"__future__"})


def _last_python_candidate(text: str) -> int | None:
    """The end of the last `_PY_CANDIDATE` match, found from the end of the text."""
    ends = []
    for keyword in ("import", "from"):
        end = len(text)
        while (start := text.rfind(keyword, 0, end)) >= 0:
            if candidate := _PY_CANDIDATE.match(text, start):
                ends.append(candidate.end())
                break
            end = start + len(keyword) - 1  # occurrences that start before this one
    return max(ends, default=None)


def _python_statements(text: str) -> Iterator[re.Match[str]]:
    """The `import` and `from` keywords of code that start a statement (match _PY_STATEMENT)."""
    # The scan stops at the last candidate (usually in the import block at the top): a string
    # still open there hides it, as it should.
    last = _last_python_candidate(text)
    if last is None:
        return
    statement = _PY_STATEMENT.match(text)  # the first line follows no line break
    position = 0
    while True:
        if statement is not None:
            yield statement
            # Not its end: a line continuation in the blanks after the keyword starts a line.
            position = statement.end("keyword")
        position = _PY_TO_STATEMENT.match(text, position, last).end()
        if position >= last:
            return
        statement = _PY_STATEMENT.match(text, position)
        assert statement is not None  # the scan stops only where a statement starts


def _import_hits(text: str, _context: Context) -> Iterator[Hit]:
    for statement in _python_statements(text):
        # Module names are read from the raw text: their grammar holds no quote or '#', so it
        # never runs into a string or comment. After `from`, a relative module (`from . import
        # x`) starts with a dot: no match.
        position = statement.end()
        while module := _PY_IMPORTED_MODULE.match(text, position):
            if module["top"] not in _PY_NOT_A_LIBRARY:
                yield Hit(*module.span("top"), "pypi", "import")
            if statement["keyword"] == "from" or module["more"] is None:
                break
            position = module.end()


# ---------------------------------------------------------------------------------------------
# requirements.txt and friends

_REQUIREMENTS_COMMENT = LazyPattern(r"(?:^|[ \t])#")  # pip: a '#' at the start or after a blank


# Any physical line; a common requirement line (a name then a specifier, a comment or the end,
# no backslash anywhere) also has its name read here, so that most lines cost no Python work.
_REQUIREMENT_LINE = LazyPattern(
    r"(?:\A|(?<=\n)|(?<=\r)(?!\n))"  # a line start: after '\n', after '\r' not in "\r\n"
    rf"(?:[ \t]*(?P<name>{pep508.NAME_PATTERN})[ \t]*+"
    # What pep508.name_span accepts after the name; the end of content is a comment or blanks.
    r"(?=[\[(<>=!~;@]|--|(?<=[ \t])#|[^\S\r\n]*+(?:[\r\n]|\Z))"
    r"(?=[^\r\n\\]*+(?:[\r\n]|\Z)))?"
    r"[^\r\n]*+"
)


def _requirements_hits(text: str, _context: Context) -> Iterator[Hit]:
    starts_requirement = True  # False on the continuation lines of a requirement
    for physical_line in _REQUIREMENT_LINE.finditer(text):
        name = physical_line["name"]
        if name is not None and not name.lower().endswith(pep508.ARCHIVE_SUFFIXES):
            if starts_requirement:
                yield Hit(*physical_line.span("name"), "pypi", "declaration", "main")
            starts_requirement = True  # without a backslash, the line does not continue
            continue
        offset, line = physical_line.start(), physical_line.group()
        comment = _REQUIREMENTS_COMMENT.search(line)
        content = line[: comment.start()] if comment else line.rstrip()
        # As in pip, a line carrying a comment never continues onto the next one.
        continues = comment is None and content.endswith("\\")
        if continues:
            content = content[:-1]
        if starts_requirement and content.strip():
            yield from pep508.line_hits(offset, content, "main")
            starts_requirement = False
        if not continues:
            starts_requirement = True


# ---------------------------------------------------------------------------------------------
# Lock files: the names they resolve (uv.lock and poetry.lock are TOML with one
# `[[package]]` table a name; Pipfile.lock is JSON by group)

_LOCKED_NAME = LazyPattern(r'^name\s*=\s*"([^"]+)"', re.MULTILINE)


def _toml_lock_names(text: str) -> Iterator[str]:
    return (match[1] for match in _LOCKED_NAME.finditer(text))


def _pipfile_lock_names(text: str) -> Iterator[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return iter(())
    return (name for key, group in data.items() if key != "_meta" and isinstance(group, dict) for name in group)


LOCK_FILES = {"uv.lock": _toml_lock_names, "poetry.lock": _toml_lock_names, "pdm.lock": _toml_lock_names,
              "pipfile.lock": _pipfile_lock_names}


# ---------------------------------------------------------------------------------------------
# pyproject.toml

def _table(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _array(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _grouped(value: object) -> list[object]:
    """The items of every array in a table of named groups."""
    return [item for group in _table(value).values() for item in _array(group)]


def _pyproject_declared(text: str) -> set[str] | None:
    """Folded names of everything the file declares, or None when it does not parse."""
    import tomllib  # here: an agent's hook loads this module for a shell command's installs

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    project = _table(data.get("project"))
    tool = _table(data.get("tool"))
    flit = _table(_table(tool.get("flit")).get("metadata"))
    hatch_envs = _table(_table(tool.get("hatch")).get("envs")).values()
    requirements = [
        *_array(project.get("dependencies")),
        *_grouped(project.get("optional-dependencies")),
        *_grouped(data.get("dependency-groups")),
        *_array(_table(data.get("build-system")).get("requires")),
        *_array(flit.get("requires")),
        *_grouped(flit.get("requires-extra")),
        *_grouped(_table(tool.get("pdm")).get("dev-dependencies")),
        *(item for env in hatch_envs for key in _HATCH_ENV_KEYS for item in _array(_table(env).get(key))),
    ]
    declared = set()
    for requirement in requirements:
        if isinstance(requirement, str) and (span := pep508.name_span(requirement)):
            declared.add(fold(requirement[span[0] : span[1]]))
    poetry = _table(_table(data.get("tool")).get("poetry"))
    poetry_tables = [
        poetry.get("dependencies"),
        poetry.get("dev-dependencies"),
        *(_table(group).get("dependencies") for group in _table(poetry.get("group")).values()),
    ]
    declared.update(fold(name) for table in poetry_tables for name in _table(table))
    return declared


_HATCH_ENV_KEYS = ("dependencies", "extra-dependencies")


def _is_requirement_array(path: tuple[str, ...]) -> bool:
    return (
        path in (("project", "dependencies"), ("build-system", "requires"), ("tool", "flit", "metadata", "requires"))
        or (len(path) == 3 and path[:2] == ("project", "optional-dependencies"))
        or (len(path) == 2 and path[0] == "dependency-groups")
        or (len(path) == 5 and path[:4] == ("tool", "flit", "metadata", "requires-extra"))
        or (len(path) == 4 and path[:3] == ("tool", "pdm", "dev-dependencies"))
        or (len(path) == 5 and path[:3] == ("tool", "hatch", "envs") and path[4] in _HATCH_ENV_KEYS)
    )


def _poetry_table_depth(path: tuple[str, ...]) -> int:
    """How many keys of `path` name a Poetry dependency table (0 when none does)."""
    if path[:3] in (("tool", "poetry", "dependencies"), ("tool", "poetry", "dev-dependencies")):
        return 3
    if len(path) >= 5 and path[:3] == ("tool", "poetry", "group") and path[4] == "dependencies":
        return 5
    return 0


def _pyproject_group(path: tuple[str, ...], poetry_depth: int) -> str:
    if poetry_depth == 5:
        return f"group:{path[3]}"
    if poetry_depth == 3:
        return "dev" if path[2] == "dev-dependencies" else "main"
    if path[0] == "build-system":
        return "build"
    if path[0] == "dependency-groups":
        return f"group:{path[1]}"
    if path[:3] == ("tool", "flit", "metadata"):  # flit's own spelling of [project]
        return f"extra:{path[4]}" if len(path) == 5 else "main"
    if path[:3] == ("tool", "pdm", "dev-dependencies"):
        return f"group:{path[3]}"
    if path[:3] == ("tool", "hatch", "envs"):  # an environment's tools: lint, test, docs …
        return f"group:{path[3]}"
    return f"extra:{path[2]}" if len(path) == 3 else "main"


def _pyproject_hits(text: str, _context: Context) -> Iterator[Hit]:
    from cenotaph.nlp.ecosystems.tomlscan import TomlScan

    declared = _pyproject_declared(text)
    reported: set[int] = set()
    for entry in TomlScan(text).entries:
        path = tuple(key.text for key in entry.path)
        names: list[tuple[int, int]] = []
        depth = 0
        if _is_requirement_array(path):
            for string in entry.strings:
                if span := pep508.name_span(string.text):
                    names.append((string.start + span[0], string.start + span[1]))
        elif (depth := _poetry_table_depth(path)) and len(path) > depth:
            key = entry.path[depth]
            is_name = pep508.name_span(key.text) == (0, len(key.text))
            if is_name and key.text.lower() != "python":  # python: the interpreter, no package
                names.append((key.start, key.end))
        for start, end in names:
            # The scan sees every occurrence; when the file parses, tomllib says which count.
            if start not in reported and (declared is None or fold(text[start:end]) in declared):
                reported.add(start)
                yield Hit(start, end, "pypi", "declaration", _pyproject_group(path, depth))


# ---------------------------------------------------------------------------------------------
# setup.py (nlp/ecosystems/setuppy.py) and setup.cfg

_SETUP_KEYWORD_GROUPS: Mapping[str, str] = {
    "install_requires": "main", "tests_require": "test", "setup_requires": "build",
}


def _setup_py_hits(text: str, context: Context) -> Iterator[Hit]:
    """Imports as in any Python file, and the requirements a `setup(...)` call declares (a file
    that does not parse still has its imports found)."""
    from cenotaph.nlp.ecosystems import setuppy

    yield from _import_hits(text, context)
    yield from setuppy.requirement_hits(text, _SETUP_KEYWORD_GROUPS)


def _setup_cfg_hits(text: str, _context: Context) -> Iterator[Hit]:
    """`[options]` install_requires, tests_require, setup_requires and `[options.extras_require]`
    values, one requirement a line."""
    for section, key, offset, value in base.ini_values(text):
        if section == "options" and key.lower() in _SETUP_KEYWORD_GROUPS:
            yield from _cfg_requirement_hits(offset, value, _SETUP_KEYWORD_GROUPS[key.lower()])
        elif section == "options.extras_require":
            yield from _cfg_requirement_hits(offset, value, f"extra:{key}")


def _cfg_requirement_hits(offset: int, value: str, group: str) -> Iterator[Hit]:
    content = value.split(" #", 1)[0]  # an inline comment; ';' starts a PEP 508 marker here
    if content.lstrip().startswith(("file:", "attr:")):
        return
    indent = len(content) - len(content.lstrip())
    if span := pep508.name_span(content.lstrip()):
        yield Hit(offset + indent + span[0], offset + indent + span[1], "pypi", "declaration", group)


def _toml_parses(text: str) -> bool:
    from cenotaph.nlp.ecosystems.tomlscan import parses

    return parses(text)


def _parses(text: str) -> bool:
    from cenotaph.nlp.ecosystems.setuppy import parses

    return parses(text)


# ---------------------------------------------------------------------------------------------
# pip, uv and Poetry


# What pip installs from a URL or VCS: `git+https://…/requests.git@v2.31.0`, `…/requests-2.31.0.tar.gz`,
# `…/requests-2.31.0-py3-none-any.whl`, `…/archive/v2.31.0.zip` of GitHub's repository, a `#egg=` fragment.
_EGG = LazyPattern(r"[^#]*#(?:.*&)?egg=(?P<name>[A-Za-z0-9][\w.-]*)")
_ARCHIVE = LazyPattern(r"(?:\S*/)?(?P<name>[A-Za-z0-9][\w.]*?)-\d[^/]*?(?:\.tar\.gz|\.zip|\.tgz|\.tar\.bz2|\.whl)\Z")
_REPOSITORY = LazyPattern(r"(?:git|hg|svn|bzr)\+\w+://\S*?/(?P<name>[A-Za-z0-9][\w.-]*?)(?:\.git)?(?:@[^/]*)?\Z"
                         r"|https?://(?:github\.com|gitlab\.com)/[^/]+/(?P<repo>[A-Za-z0-9][\w.-]*?)(?:\.git)?/archive/")


def _pip_package_span(argument: str) -> tuple[int, int] | None:
    span = pep508.name_span(argument)
    if span:
        return span if span[0] == 0 else None
    for pattern in (_EGG, _ARCHIVE, _REPOSITORY):
        if match := pattern.match(argument):
            return match.span("name") if match["name"] else match.span("repo")
    return None


_PIP = Installer(
    "pypi",
    (r"pip[\d.]*", r"python[\d.]* -m pip", "uv pip"),
    frozenset({"install"}),
    frozenset(
        "-r --requirement -c --constraint -i --index-url --extra-index-url -f "
        "--find-links -t --target --prefix --root --src --platform --python-version "
        "--implementation --abi --trusted-host --cache-dir --upgrade-strategy --progress-bar "
        "--only-binary --no-binary -C --config-settings --global-option --log --proxy --retries "
        "--timeout --exists-action --cert --client-cert --report --root-user-action "
        "--python".split()
    ),
    _pip_package_span,
    package_options=frozenset({"-e", "--editable"}),  # `-e .` names none; `-e git+…#egg=x` names x
    hint="pip",
)
# Applications in environments of their own: what the command installs is still a PyPI package.
_PIPX = Installer(
    "pypi", ("pipx",), frozenset({"install"}),
    frozenset("--python --index-url -i --pip-args --suffix --spec --with -w".split()),
    _pip_package_span, hint="pipx",
)
# `pipx run x` (or `--spec x cmd`) and `uvx x` (`uv tool run`; `--from x cmd`, `--with y`) fetch x to run it.
_PIPX_RUN = Installer("pypi", ("pipx run",), frozenset(), frozenset("--python --index-url -i --pip-args".split()),
                      _pip_package_span, source_options=frozenset({"--spec"}), positionals="first")
_PIPX_INJECT = Installer("pypi", ("pipx inject",), frozenset(), _PIPX.options_with_argument, _pip_package_span,
                         skipped=1)  # `pipx inject ENVIRONMENT x y`
_UV_RUN_OPTIONS = frozenset("--with-requirements --with-editable --python -p --index --default-index -c --constraints "
                            "--overrides --directory --project --package --extra --group --env-file".split())
_UVX = Installer("pypi", ("uvx", "uv tool run"), frozenset(), _UV_RUN_OPTIONS, _pip_package_span,
                 package_options=frozenset({"--with", "-w"}), source_options=frozenset({"--from"}), positionals="first")
# `uv run --with x script.py`: only its options name packages.
_UV_RUN = Installer("pypi", ("uv run",), frozenset(), _UV_RUN_OPTIONS | {"-m", "--module", "--script"},
                    _pip_package_span, package_options=frozenset({"--with", "-w"}), positionals="none")
# `uv tool install` is uv's pipx.
_UV_TOOL = Installer(
    "pypi", ("uv tool",), frozenset({"install"}),
    frozenset("--from --with -w --with-requirements --with-editable --python -p --index --default-index "
              "-c --constraints --overrides".split()),
    _pip_package_span, frozenset({"uninstall"}), hint="uv tool",
)
_UV = Installer(
    "pypi", ("uv",), frozenset({"add"}),
    frozenset("--group --optional --extra --index --default-index --python -p --package --script --tag --branch "
              "--rev -r --requirements --bounds -m --marker --constraints -c".split()),
    _pip_package_span, frozenset({"remove"}), hint="uv ",
)
_POETRY = Installer(
    "pypi", ("poetry",), frozenset({"add"}),
    frozenset("-G --group -E --extras --source --python --platform --markers".split()),
    _pip_package_span, frozenset({"remove", "rm"}), hint="poetry",
)
_PIPENV = Installer(
    "pypi", ("pipenv",), frozenset({"install"}), frozenset("--python --categories -r --requirements".split()),
    _pip_package_span, frozenset({"uninstall"}), hint="pipenv",
)
_PDM = Installer(
    "pypi", ("pdm",), frozenset({"add"}),
    frozenset("-G --group -p --project -L --lockfile -e --editable --save-strategy --update-strategy".split()),
    _pip_package_span, frozenset({"remove"}), hint="pdm",
)


# ---------------------------------------------------------------------------------------------
# Names

# Python import names whose distribution is called something else, as people write them. Keyed
# by the folded import name; the value is the PEP 503 name of the distribution. These stand
# beside the generated table below and win over it.
_CURATED_ALIASES: Final[dict[str, str]] = {
    "yaml": "pyyaml",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "pil": "pillow",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "pyjwt",
    "attr": "attrs",
    "magic": "python-magic",
    "serial": "pyserial",
    "crypto": "pycryptodome",
    "openssl": "pyopenssl",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "git": "gitpython",
    "fitz": "pymupdf",
    "usb": "pyusb",
    "zmq": "pyzmq",
    "mysqldb": "mysqlclient",
    "win32api": "pywin32",
    "websocket": "websocket-client",
    "jose": "python-jose",
    "multipart": "python-multipart",
    "faiss": "faiss-cpu",
    "google-protobuf": "protobuf",
    "sqlean": "sqlean-py",
    "pysqlite3": "pysqlite3-binary",
    "llama-cpp": "llama-cpp-python",
}
# The top-level modules of the most downloaded distributions whose import name is another name
# (`markdown_it` is markdown-it-py), generated from pigar's database by
# scripts/build_import_names.py: "module distribution" per line.
_GENERATED = Path(__file__).resolve().parent.parent / "data" / "pypi_import_names.txt"


def _table_rows() -> list[list[str]]:
    """The generated table's (module, distribution) rows."""
    try:
        lines = _GENERATED.read_text(encoding="utf-8").splitlines()
    except OSError:  # a build without the data: the curated names still stand
        lines = []
    return [line.split(" ", 1) for line in lines if line and not line.startswith("#")]


def _import_aliases() -> dict[str, str]:
    """Folded import name → PEP 503 distribution (the distributions in the table already are)."""
    # An identifier's fold, without a regular expression per row (the hook loads this).
    aliases = {fold(module) if "__" in module else module.lower().replace("_", "-"): distribution
               for module, distribution in _table_rows()}
    return aliases | _CURATED_ALIASES


@cache
def _module_names() -> dict[str, tuple[str, ...]]:
    """Distribution → its import names as written; built at first use, which a hook never makes."""
    modules: dict[str, list[str]] = defaultdict(list)
    for module, distribution in _table_rows():
        modules[distribution].append(module)
    for alias, distribution in _CURATED_ALIASES.items():
        # An import name is one word (`google-protobuf` is npm's name for protobuf, no module).
        if alias.isidentifier() and not any(fold(m) == alias for m in modules[distribution]):
            modules[distribution].append(alias)
    return {distribution: tuple(found) for distribution, found in modules.items()}


_IMPORT_ALIASES = _import_aliases()


def _normalize(name: str) -> str:
    """PEP 503, with an import name resolved to its distribution."""
    key = fold(name)
    return _IMPORT_ALIASES.get(key, key)


def _enclosing_modules(name: str) -> tuple[str, ...]:
    """The packages a dotted module is in, nearest first (`pygments.lexer` → pygments)."""
    parts = name.split(".")
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        return ()
    return tuple(".".join(parts[:end]) for end in range(len(parts) - 1, 0, -1))


def _modules(key: str) -> tuple[str, ...]:
    """The modules code imports the distribution `key` by, as written (`PIL` for pillow); its own
    name with '_' for '-' when no table knows another."""
    return _module_names().get(key) or (key.replace("-", "_"),)


_BACKPORTS = frozenset({
    "importlib-metadata", "importlib-resources", "typing-extensions", "dataclasses", "futures", "enum34",
    "tomli", "exceptiongroup", "contextlib2", "pathlib2", "mock", "zipp", "singledispatch", "funcsigs",
    "subprocess32", "trollius", "asyncio", "ordereddict", "argparse", "unittest2", "cached-property",
    "graphlib-backport", "async-generator", "typing", "configparser", "ipaddress", "pytz-deprecation-shim",
})


def _is_backport(key: str) -> bool:
    return key in _BACKPORTS or key.startswith("backports")


def _is_type_stubs(key: str) -> bool:
    return key.startswith("types-") or key.endswith("-stubs")


# ---------------------------------------------------------------------------------------------
# The workspace's environment: which distribution an imported name belongs to


class EnvironmentModules:
    """The import names the distributions installed in a workspace's Python environment provide
    (`yaml_env_tag` is the distribution pyyaml-env-tag), read again when site-packages changes."""

    def __init__(self) -> None:
        self._environments: dict[Path, tuple[tuple, ImportNames]] = {}

    def names(self, document: Path, folder: Path) -> ImportNames:
        site_packages = _site_packages(folder)
        if not site_packages:
            return base.NONE
        stamps = tuple((directory, stamp(directory)) for directory in site_packages)
        cached = self._environments.get(folder)
        if cached is None or cached[0] != stamps:
            cached = self._environments[folder] = (stamps, ImportNames(pypi=_distributions(site_packages)))
        return cached[1]


def _site_packages(folder: Path) -> list[Path]:
    """The site-packages of the workspace's environment: `.venv` or `venv` in the folder, else
    the one $VIRTUAL_ENV names."""
    candidates = [folder / ".venv", folder / "venv"]
    if virtual_env := os.environ.get("VIRTUAL_ENV"):
        candidates.append(Path(virtual_env))
    for environment in candidates:
        if not (environment / "pyvenv.cfg").is_file():
            continue
        found = sorted((environment / "lib").glob("python*/site-packages"))
        found += [path for path in [environment / "Lib" / "site-packages"] if path.is_dir()]  # Windows
        if found:
            return found
    return []


def _distributions(site_packages: list[Path]) -> dict[str, str]:
    """Folded top-level import name → the folded distribution that installs it; a name that
    several distributions share (a namespace such as `google`) stands for none of them."""
    providers: dict[str, set[str]] = defaultdict(set)
    for directory in site_packages:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")) or not entry.is_dir():
                continue
            distribution = fold(entry.name.rsplit(".", 1)[0].split("-", 1)[0])
            for module in _top_level(Path(entry.path)):
                providers[fold(module)].add(distribution)
    return {module: next(iter(dists)) for module, dists in providers.items() if len(dists) == 1}


def _top_level(metadata: Path) -> set[str]:
    """The import names a distribution provides: its `top_level.txt`, else the first part of
    the paths in its RECORD."""
    try:
        return {line.strip() for line in (metadata / "top_level.txt").read_text(encoding="utf-8").splitlines()
                if line.strip() and "/" not in line}
    except (OSError, UnicodeDecodeError):
        pass
    try:
        rows = (metadata / "RECORD").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return set()
    import csv

    modules = set()
    for row in csv.reader(rows):
        if not row:
            continue
        top = row[0].split("/", 1)[0]
        if "/" in row[0]:
            if not top.endswith((".dist-info", ".egg-info", ".data")) and top not in ("..", "__pycache__"):
                modules.add(top)
        elif top.endswith((".py", ".so", ".pyd")):
            modules.add(top.split(".", 1)[0])  # a module file: `six.py`, `_cffi_backend.cpython-311-….so`
    return modules


def _project_urls(root: Path, declared: Mapping[str, str]) -> dict[str, list[str]]:
    """PEP 503 name → the URLs its installed metadata names (Project-URL, Home-page), for the
    declared names installed in the repository's environment (.venv, venv, env)."""
    from email.parser import HeaderParser

    urls: dict[str, list[str]] = {}
    for env in (root / ".venv", root / "venv", root / "env"):
        for meta in env.glob("lib/python*/site-packages/*.dist-info/METADATA"):
            headers = HeaderParser().parsestr(meta.read_text(encoding="utf-8", errors="replace"))
            name = headers.get("Name")
            if not name:
                continue
            values = [v.split(",", 1)[-1].strip() for v in headers.get_all("Project-URL") or []]
            values += [v for v in (headers.get("Home-page"),) if v]
            urls.setdefault(fold(name), values)
    return {key: urls[key] for key in declared if key in urls}


# ---------------------------------------------------------------------------------------------

ECOSYSTEMS = (
    Ecosystem(
        "pypi",
        language="python",
        siblings=("conda",),
        documents=(
            Document("python", ("?*.py", "?*.pyi"), _import_hits, import_names=EnvironmentModules),
            Document("pyproject", ("pyproject.toml",), _pyproject_hits, manifest=True, at_root=True,
                     well_formed=_toml_parses),
            Document("requirements", ("*requirements*.txt", "*requirements*.in", "requirements/?*.txt",
                                      "requirements/?*.in", "constraints*.txt", "constraints*.in"),
                     _requirements_hits, manifest=True, at_root=True, group_in_name=True),
            Document("setup_py", ("setup.py",), _setup_py_hits, manifest=True, well_formed=_parses),
            Document("setup_cfg", ("setup.cfg",), _setup_cfg_hits, manifest=True),
            Document("tox_ini", ("tox.ini",), pytools.tox_hits, manifest=True),
            Document("pipfile", ("pipfile",), pytools.pipfile_hits, manifest=True, at_root=True),
            Document("pre_commit", (".pre-commit-config.yaml", ".pre-commit-config.yml"), pytools.pre_commit_hits,
                     manifest=True),
        ),
        normalize=_normalize,
        name_problem=name_rule(r"[A-Z0-9](?:[A-Z0-9._-]*[A-Z0-9])?", "PyPI",
                               "letters, digits and . _ - inside, a letter or digit at each end (PEP 508)",
                               versions=r"===?|[<>]=?|!=|~=|\[|;|@|\("),
        aliases=_IMPORT_ALIASES,
        modules=_modules,
        enclosing=_enclosing_modules,
        system_installers=(_PIP, _PIPX, _UV_TOOL, _PIPX_RUN, _PIPX_INJECT, _UVX, _UV_RUN),
        project_installers=(_PIP._replace(removals=frozenset({"uninstall"})), _UV, _POETRY, _PDM, _PIPENV),
        is_backport=_is_backport,
        is_type_stubs=_is_type_stubs,
        project_urls=_project_urls,
        # After the others: a pyproject.toml beside package.json or Cargo.toml is mostly the
        # tooling's, and the project's names are declared in the other manifest.
        root_rank=1,
    ),
)

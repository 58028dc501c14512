"""npm: imports in JavaScript and TypeScript, package.json, npm, pnpm and Yarn commands, and
names kept as written (lower case) with their scope."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from cenotaph.nlp.ecosystems.base import (
    BLOCK_COMMENT,
    LINE_COMMENT,
    Context,
    Document,
    Ecosystem,
    Hit,
    Installer,
    continues_word,
    lex,
    multi_line_string,
    name_rule,
    single_line_string,
    syntax,
)

# ---------------------------------------------------------------------------------------------
# Names

_NPM_NAME = re.compile(r"(?:@[\w.~-]+/)?[A-Za-z0-9][\w.~-]*", re.ASCII)


def _npm_name_length(spec: str, followers: str) -> int | None:
    """Length of the npm package name (`@scope/name` or `name`) at the start of `spec` when one of
    `followers` or the end comes after it."""
    match = _NPM_NAME.match(spec)
    if match is None or (match.end() < len(spec) and spec[match.end()] not in followers):
        return None
    if spec[: match.end()].lower().endswith((".tgz", ".tar.gz")):
        return None
    return match.end()


# ---------------------------------------------------------------------------------------------
# Imports in JavaScript and TypeScript

_JS_REGEX_BODY = re.compile(
    r"(?:[^/\\\[\r\n]++|\\[^\r\n]?|\[(?:[^\]\\\r\n]++|\\[^\r\n]?)*+\]?)*+(?P<close>/|(?=[\r\n])|\Z)"
)
_JS_OPERAND_EXPECTED_AFTER = frozenset("(,=:[!&|?{};")


def _js_regex_literal(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
    # A '/' opens a regular expression only where an operand is expected; elsewhere it divides.
    # Reading a quote inside a regex as a string would swallow the code that follows.
    before = opener.start() - 1
    while before >= 0 and text[before] in " \t\r\n":
        before -= 1
    if before >= 0 and text[before] not in _JS_OPERAND_EXPECTED_AFTER:
        return None
    body = _JS_REGEX_BODY.match(text, opener.end())
    assert body is not None  # every part of the pattern may match empty
    return body.end(), body.end()


_JAVASCRIPT = syntax(
    comments={"//": LINE_COMMENT, "/*": BLOCK_COMMENT, "/": _js_regex_literal},
    strings={
        '"': single_line_string('"'),
        "'": single_line_string("'"),
        "`": multi_line_string("`"),
    },
)


# `from "p"` (import and export declarations), `import "p"`, `import("p")`, `require("p")`;
# the quote is left to the lookahead so that its offset finds the string literal.
_JS_SPECIFIER = re.compile(r"""(?P<keyword>from|import|require)\s*(?P<call>\(\s*)?(?=["'`])""")
_JS_IMPORT_FORMS = frozenset(
    {("from", False), ("import", False), ("import", True), ("require", True)}  # (keyword, call)
)

_NODE_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram "
    "diagnostics_channel dns domain events fs http http2 https inspector module net os path "
    "perf_hooks process punycode querystring readline repl stream string_decoder sys timers tls "
    "trace_events tty url util v8 vm wasi worker_threads zlib".split()
)


_SUBPATH = re.compile(r"(?:/[^/\s]+)+/?")  # a file inside the package: no empty part, no space


def _package_of_path(specifier: str) -> tuple[str, ...]:
    """The package a deep import specifier is in: `lodash/fp` → lodash, `@scope/pkg/sub` → @scope/pkg."""
    length = _npm_name_length(specifier, "/")
    if not length or not _SUBPATH.fullmatch(specifier, length):
        return ()
    return (specifier[:length],)


def _import_hits(text: str, _context: Context) -> Iterator[Hit]:
    lexed = lex(text, _JAVASCRIPT)
    for specifier in _JS_SPECIFIER.finditer(lexed.code):
        form = (specifier["keyword"], specifier["call"] is not None)
        if form not in _JS_IMPORT_FORMS or continues_word(lexed.code, specifier.start(), "$."):
            continue
        literal = lexed.strings.get(specifier.end())
        if literal is None:
            continue
        content_start, content_end, _ = literal
        spec = text[content_start:content_end]
        # Relative, absolute, `node:`/URL and aliased (`~/`, `#internal`) specifiers do not match.
        length = _npm_name_length(spec, "/")
        if length and spec[:length] not in _NODE_BUILTINS:
            yield Hit(content_start, content_start + length, "npm", "import")


# ---------------------------------------------------------------------------------------------
# package.json: a forgiving scan, so that a missing comma or brace mid-edit loses little.

_JSON_TOKEN = re.compile(r'"(?:[^"\\\r\n]++|\\.)*+"?|[{}\[\]:,]')


@dataclass(slots=True)
class _JsonContainer:
    path: tuple[str, ...]  # keys leading from the root object to this container
    is_object: bool
    expects_key: bool = True
    key: str = ""  # the latest key read in this object


def _json_strings(text: str) -> Iterator[tuple[tuple[str, ...], bool, int, int]]:
    """(path, is a key, content start, content end) of each string: a key's path is its object's,
    a value's path ends with its key."""
    stack: list[_JsonContainer] = []
    for token in _JSON_TOKEN.finditer(text):
        char = token.group()[0]
        top = stack[-1] if stack else None
        if char in "{[":
            path = () if top is None else top.path + ((top.key,) if top.is_object else ())
            stack.append(_JsonContainer(path, char == "{"))
        elif char in "}]":
            if stack:
                stack.pop()
            if stack and stack[-1].is_object:
                stack[-1].expects_key = True
        elif char in ":,":
            if top and top.is_object:
                top.expects_key = char == ","
        elif top is not None:
            terminated = token.end() - token.start() >= 2 and token.group().endswith('"')
            start, end = token.start() + 1, token.end() - 1 if terminated else token.end()
            if top.is_object and top.expects_key:
                top.key = text[start:end]
                top.expects_key = False
                yield top.path, True, start, end
            else:
                yield top.path + ((top.key,) if top.is_object else ()), False, start, end
                # After a value the next string is a key even if the comma is still missing.
                top.expects_key = top.is_object


_NPM_DEPENDENCY_OBJECTS = frozenset(
    {"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"}
)
_NPM_GROUPS: Mapping[str, str] = {
    "dependencies": "main", "devDependencies": "dev", "peerDependencies": "peer", "optionalDependencies": "optional",
}
_NPM_BUNDLED_ARRAYS = frozenset({"bundleDependencies", "bundledDependencies"})
_NPM_OVERRIDE_OBJECTS = frozenset({"overrides", "resolutions"})


def _npm_override_target(selector: str) -> tuple[int, int] | None:
    """The package an `overrides`/`resolutions` key applies to: the last package of a yarn path
    such as `**/parent/@scope/child@1`, without its version."""
    segments: list[tuple[int, int]] = []
    position = 0
    parts = selector.split("/")
    while parts:
        part = parts.pop(0)
        length = len(part)
        if part.startswith("@") and parts:
            length += 1 + len(parts.pop(0))
        if part not in ("**", "*"):
            segments.append((position, position + length))
        position += length + 1
    if not segments:
        return None
    start, end = segments[-1]
    length = _npm_name_length(selector[start:end], "@")
    return (start, start + length) if length else None


# A dependency whose spec points into the repository or at a git repository is one of the
# project's own packages (a workspace member, a fixture), not a third-party choice.
_LOCAL_SPEC = re.compile(r"(?:file|link|workspace|portal|git\+[a-z]+|git|github|gitlab|bitbucket):|\.{0,2}/|~/")
_URL_SPEC = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def _own_build(spec: str, own: str) -> bool:
    """Whether `spec` installs the package.json's own package under another name: an `npm:`
    alias of it, or a URL of a build of it (a pull request's, `https://pkg.pr.new/…/own@sha`)."""
    if spec.startswith("npm:"):
        length = _npm_name_length(spec[4:], "@")
        return length is not None and spec[4 : 4 + length] == own
    return _URL_SPEC.match(spec) is not None and re.search(rf"/{re.escape(own)}(?=[@/#?]|$)", spec) is not None


def _package_json_hits(text: str, _context: Context) -> Iterator[Hit]:
    dependencies: dict[tuple[str, str], tuple[int, int]] = {}  # (section, key) -> name span
    local: set[tuple[str, str]] = set()
    specs: dict[tuple[str, str], str] = {}
    own = ""  # the package's own name
    others: list[tuple[int, int, str]] = []  # name span and group
    for path, is_key, start, end in _json_strings(text):
        value = text[start:end]
        section = path[0] if path else ""
        if not is_key and path == ("name",):
            own = value
        elif is_key and len(path) == 1 and section in _NPM_DEPENDENCY_OBJECTS:
            if _npm_name_length(value, ""):  # the whole key is a package name
                dependencies[(section, value)] = (start, end)
        elif not is_key and len(path) == 2 and section in _NPM_DEPENDENCY_OBJECTS:
            specs[(section, path[1])] = value
            # `"alias": "npm:real@^1"` installs `real`.
            length = _npm_name_length(value[4:], "@") if value.startswith("npm:") else None
            if length:
                dependencies[(section, path[1])] = (start + 4, start + 4 + length)
            elif _LOCAL_SPEC.match(value):
                local.add((section, path[1]))
        elif not is_key and len(path) == 1 and section in _NPM_BUNDLED_ARRAYS:
            if _npm_name_length(value, ""):
                others.append((start, end, "bundled"))
        elif is_key and len(path) == 1 and section in _NPM_OVERRIDE_OBJECTS:
            if target := _npm_override_target(value):
                others.append((start + target[0], start + target[1], "override"))
    for (section, key), (start, end) in dependencies.items():
        if (section, key) not in local and not (own and _own_build(specs.get((section, key), ""), own)):
            yield Hit(start, end, "npm", "declaration", _NPM_GROUPS[section])
    for start, end, group in others:
        yield Hit(start, end, "npm", "declaration", group)


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Lock files: the names they resolve

def _package_lock_names(text: str) -> Iterator[str]:
    """package-lock.json: `packages` keys (`node_modules/a/node_modules/@s/b`) from version 2 on,
    `dependencies` keys before."""
    try:
        data = json.loads(text)
    except ValueError:
        return iter(())
    packages = data.get("packages") if isinstance(data, dict) else None
    if isinstance(packages, dict):
        return (key.rsplit("node_modules/", 1)[1] for key in packages if "node_modules/" in key)
    dependencies = data.get("dependencies") if isinstance(data, dict) else None
    return iter(dependencies if isinstance(dependencies, dict) else ())


# pnpm-lock.yaml: `  /name@1.0.0:` or `  /@scope/name/1.0.0:` (older), `  name@1.0.0:` or
# `  '@scope/name@1.0.0':` (9.0) under `packages:`; yarn.lock: `name@^1, name@^1.1:` or
# `"@scope/name@^1":` at the start of a line.
_PNPM_ENTRY = re.compile(r"^ {2}'?/?((?:@[^/@\s']+/)?[^/@\s':]+)[@/]\d", re.MULTILINE)
_YARN_ENTRY = re.compile(r'^"?((?:@[^/@\s"]+/)?[^/@\s",#]+)@', re.MULTILINE)


def _pnpm_lock_names(text: str) -> Iterator[str]:
    return (match[1] for match in _PNPM_ENTRY.finditer(text))


def _yarn_lock_names(text: str) -> Iterator[str]:
    return (match[1] for match in _YARN_ENTRY.finditer(text))


LOCK_FILES = {"package-lock.json": _package_lock_names, "npm-shrinkwrap.json": _package_lock_names,
              "pnpm-lock.yaml": _pnpm_lock_names, "yarn.lock": _yarn_lock_names}


# ---------------------------------------------------------------------------------------------
# npm, pnpm, Yarn and Bun

# A package named by where it comes from: GitHub's `owner/repo` or `github:owner/repo`, a git URL
# (`git+https://…/moment.git#2.30.1`), a tarball (`…/moment-2.30.1.tgz`). Its repository's or file's
# name stands for the package's.
_REPOSITORY = re.compile(r"(?:(?:github|gitlab|bitbucket):|git\+\w+://[^#]*/|\w+://[^#]*/)?[\w.-]+/"
                         r"(?P<name>[a-z0-9][\w.-]*?)(?:\.git)?(?=#|\Z)", re.IGNORECASE)
_TARBALL = re.compile(r"(?:\w+://\S*/|\.{0,2}/\S*/|)(?P<name>[a-z0-9][\w.-]*?)-\d[\w.-]*\.(?:tgz|tar\.gz)\Z",
                      re.IGNORECASE)


def _npm_package_span(argument: str) -> tuple[int, int] | None:
    if length := _npm_name_length(argument, "@"):
        return 0, length
    match = _TARBALL.match(argument) or _REPOSITORY.match(argument)
    return match.span("name") if match else None


_NPM = Installer(
    "npm",
    ("npm", "pnpm", "yarn", "bun"),
    frozenset({"install", "i", "add"}),
    frozenset(
        "--prefix --registry --cache --userconfig -w --workspace --tag --omit --include".split()
    ),
    _npm_package_span,
)


# Runners: `npx x`, `pnpm dlx x`, `yarn dlx x`, `bunx x`, `npm exec -- x` fetch x to run it (`-p x cmd`: cmd is x's).
_RUNNER = Installer("npm", ("npx", "pnpx", "bunx", "npm exec", "npm x", "pnpm dlx", "yarn dlx", "bun x"), frozenset(),
                    frozenset("--prefix --registry --cache --userconfig -w --workspace -c --call --shell-mode".split()),
                    _npm_package_span, source_options=frozenset({"-p", "--package"}), positionals="first")
# `yarn workspace web add moment`: the workspace's name, then Yarn's subcommand.
_YARN_WORKSPACE = Installer("npm", ("yarn workspace",), frozenset({"add"}), frozenset(), _npm_package_span,
                            frozenset({"remove"}), skipped=1, hint="yarn workspace")

# pnpm's `-w` is `--workspace-root`, a flag; its `--filter` names a workspace package.
_PNPM_OPTIONS = _NPM.options_with_argument - {"-w"} | {"--filter", "-F"}


def _project(program: str, removals: str, options: frozenset[str] = _NPM.options_with_argument) -> Installer:
    return _NPM._replace(programs=(program,), removals=frozenset(removals.split()), hint=program,
                               options_with_argument=options)


# ---------------------------------------------------------------------------------------------
# Installed packages


def _project_urls(root: Path, declared: Mapping[str, str]) -> dict[str, list[str]]:
    """The repository and home page each declared package's installed package.json names."""
    return {key: _urls(root, name) for key, name in declared.items()}


def _urls(root: Path, name: str) -> list[str]:
    manifest = root / "node_modules" / name / "package.json"
    if not manifest.is_file():
        return []
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except ValueError:
        return []
    repository = data.get("repository")
    url = repository.get("url") if isinstance(repository, dict) else repository
    return [u for u in (url, data.get("homepage")) if isinstance(u, str)]


# ---------------------------------------------------------------------------------------------

ECOSYSTEMS = (
    Ecosystem(
        "npm",
        language="javascript",
        documents=(
            Document("javascript", tuple(f"?*.{suffix}" for suffix in "js jsx ts tsx mjs cjs mts cts".split()),
                     _import_hits),
            Document("package_json", ("package.json",), _package_json_hits, manifest=True, at_root=True,
                     well_formed=_parses),
        ),
        normalize=str.lower,  # as written, scope included
        # npm's rules (validate-npm-package-name), capitals allowed as its old names have them.
        name_problem=name_rule(r"(?:@[a-z0-9~-][\w.~-]*/)?[a-z0-9~-][\w.~-]*", "npm",
                               "an optional @scope/, then letters, digits and - . _ ~, not starting with . or _",
                               versions="@", flags=re.IGNORECASE | re.ASCII),
        spelled=lambda name: name.startswith("@") and "/" in name,  # a scope
        enclosing=_package_of_path,  # a deep import (`lodash/fp`, `@scope/pkg/sub`) is its package's
        system_installers=(_NPM, _RUNNER),
        project_installers=(_project("npm", "uninstall remove rm un r unlink"),
                            _project("pnpm", "remove rm uninstall un", _PNPM_OPTIONS), _project("yarn", "remove"),
                            _project("bun", "remove rm"), _YARN_WORKSPACE),
        # DefinitelyTyped's scope, and a scope of types for another tool's plugins (`@eslint-types/import`).
        is_type_stubs=lambda key: re.match(r"@(?:[a-z0-9._~-]+-)?types/", key) is not None,
        project_urls=_project_urls,
    ),
)

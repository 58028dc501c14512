"""Go modules: imports in Go, go.mod, `go get`, and module paths kept as written, a package
inside a module found through the module's path."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cenotaph.nlp.ecosystems.base import (
    BLOCK_COMMENT,
    LINE_COMMENT,
    Context,
    Document,
    Ecosystem,
    Hit,
    Installer,
    closed_by,
    lex,
    lines,
    name_rule,
    single_line_string,
    syntax,
)
from cenotaph.nlp.ecosystems.shell import pattern_span

# ---------------------------------------------------------------------------------------------
# Imports in Go

_GO = syntax(
    comments={"//": LINE_COMMENT, "/*": BLOCK_COMMENT},
    strings={
        '"': single_line_string('"'),
        "`": closed_by(r"[^`]*+(?P<close>`|\Z)"),
        "'": single_line_string("'"),
    },
)

_GO_IMPORT = re.compile(r"^[ \t]*import[ \t]*(?:(?P<block>\()|(?=[\w.\"`]))", re.M)
_GO_IMPORT_SPEC = re.compile(r"[\s;]*(?:[\w.]+[ \t]*)?(?=[\"`])")
_GO_IMPORT_PATH = re.compile(r"[^\s\"`\\]+")


def _import_hits(text: str, _context: Context) -> Iterator[Hit]:
    lexed = lex(text, _GO)
    for declaration in _GO_IMPORT.finditer(lexed.code):
        position = declaration.end()
        while spec := _GO_IMPORT_SPEC.match(lexed.code, position):
            literal = lexed.strings.get(spec.end())
            if literal is None:
                break
            content_start, content_end, position = literal
            path = text[content_start:content_end]
            # The standard library's paths have no dot in their first element; a path left
            # unterminated mid-edit runs into the code after it.
            if "." in path.split("/", 1)[0] and _GO_IMPORT_PATH.fullmatch(path):
                yield Hit(content_start, content_end, "go", "import")
            if not declaration["block"]:
                break


# ---------------------------------------------------------------------------------------------
# go.mod

_GO_MOD_DIRECTIVE = re.compile(r"[ \t]*(?P<verb>require|replace)\b[ \t]*(?P<block>\()?")
_GO_MOD_PATH = re.compile(r'[ \t]*"?(?P<path>[^\s"]+)')
_INDIRECT = re.compile(r"\s*indirect\b")


def _go_mod_hits(text: str, _context: Context) -> Iterator[Hit]:
    block_verb = None  # the directive of the `( ... )` block being read
    for offset, line in lines(text):
        code, _, comment = line.partition("//")
        if block_verb:
            if code.strip().startswith(")"):
                block_verb = None
                continue
            verb, position = block_verb, 0
        elif directive := _GO_MOD_DIRECTIVE.match(code):
            if directive["block"]:
                block_verb = directive["verb"]
                continue
            verb, position = directive["verb"], directive.end()
        else:
            continue
        if verb == "replace":
            # The replacement is what gets built; a local directory names no module.
            arrow = code.find("=>", position)
            if arrow < 0:
                continue
            position = arrow + 2
        module = _GO_MOD_PATH.match(code, position)
        if module and not module["path"].startswith((".", "/")):
            start, end = module.span("path")
            # `// indirect`: the go command keeps a dependency's requirement; no choice of the project's.
            group = "replace" if verb == "replace" else "indirect" if _INDIRECT.match(comment) else "main"
            yield Hit(offset + start, offset + end, "go", "declaration", group)


_GO_GET = Installer("go", ("go",), frozenset({"get"}), frozenset(),
                    pattern_span(r"[A-Za-z0-9][\w.~/-]*\.[\w.~/-]*(?=@|\Z)"), hint="go get")


# ---------------------------------------------------------------------------------------------
# Names

_MODULE_PATH = re.compile(r"^[a-z0-9.-]+\.[a-z]{2,}/[^\s:]+$")  # a `:tag` makes it an image


def _enclosing_modules(path: str) -> list[str]:
    """The modules a Go import path may belong to besides the path itself, longest first: each
    prefix ending at a '/' (`github.com/a/b/sub` → `github.com/a/b`, `github.com/a`). Never a
    partial segment, so `github.com/a/bc` is not in `github.com/a/b`; a major-version suffix
    (`/v2`) is a segment like any other."""
    prefixes = []
    end = len(path)
    # A module path has at least a host and one more element.
    while (end := path.rfind("/", 0, end)) > 0 and "/" in path[:end]:
        prefixes.append(path[:end])
    return prefixes


# A major version of 2 or more is part of the module path: `/v2`, or gopkg.in's `.v2`.
_MAJOR_VERSION = re.compile(r"/v(?:[2-9]|[1-9]\d+)$|(?<=^gopkg\.in/)(.+)\.v\d+$")


def _lineage(path: str) -> str:
    """The module path without its major version (`example.com/mod/v2` → `example.com/mod`,
    `gopkg.in/yaml.v3` → `gopkg.in/yaml`)."""
    return _MAJOR_VERSION.sub(lambda match: match[1] or "", path)


# ---------------------------------------------------------------------------------------------

# go.sum: `module version hash`, a line each (a module's `/go.mod` line too).
_SUMMED_MODULE = re.compile(r"^(\S+)\s+v", re.MULTILINE)
LOCK_FILES = {"go.sum": lambda text: (match[1] for match in _SUMMED_MODULE.finditer(text))}


ECOSYSTEMS = (
    Ecosystem(
        "go",
        language="go",
        documents=(
            Document("go", ("?*.go",), _import_hits),
            Document("go_mod", ("go.mod",), _go_mod_hits, manifest=True, at_root=True),
        ),
        normalize=str,  # a module path as written
        # Go's import path rules (module.CheckImportPath): no empty element, none at a dot's ends.
        name_problem=name_rule(r"{0}(?:/{0})*".format(r"[A-Za-z0-9_~+-](?:[A-Za-z0-9_.~+-]*[A-Za-z0-9_~+-])?"),
                               "Go module", "'/'-separated elements of letters, digits and - . _ ~ +, none "
                               "starting or ending with '.'", versions="@", flags=re.ASCII, max_length=500),
        lineage=_lineage,
        enclosing=_enclosing_modules,  # most Go code imports a package inside a module
        spelled=lambda name: _MODULE_PATH.match(name) is not None,
        project_installers=(_GO_GET,),
    ),
)

"""Detection of imports, declarations and prose mentions, with exact LSP ranges.

Each fixture mixes names that must be found with look-alikes that must not (comments, strings,
relative imports, standard libraries, options, stage names, substrings), and every test compares
the complete list of findings, so an exclusion can never pass on an empty result.
"""

from __future__ import annotations

import ast
import json
import time
import tomllib

import pytest

from cenotaph.nlp.detect import Mention, detect
from cenotaph.nlp.ecosystems import document_kind
from cenotaph.nlp.ecosystems.base import ImportNames, utf16_column
from cenotaph.nlp.names import fold

Row = tuple[int, int, int, str, str, str, str]


def rows(path: str, text: str, vocabulary: frozenset[str] = frozenset()) -> list[Row]:
    """(line, start, end, name, key, ecosystem, kind) of every mention, after checking that each
    range covers exactly the name in the text."""
    mentions = detect(path, text, vocabulary)
    for mention in mentions:
        assert text_at(text, mention) == mention.name
    return [(m.line, m.start, m.end, m.name, m.key, m.ecosystem, m.kind) for m in mentions]


def text_at(text: str, mention: Mention) -> str:
    """The text an LSP client would highlight for `mention` (UTF-16 columns)."""
    line = text.splitlines()[mention.line].encode("utf-16-le")
    return line[mention.start * 2 : mention.end * 2].decode("utf-16-le")


# ---------------------------------------------------------------------------------------------
# Document kinds


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/app/service.py", "python"),
        ("typings/lib.pyi", "python"),
        ("web/App.tsx", "javascript"),
        ("web/main.jsx", "javascript"),
        ("web/server.mjs", "javascript"),
        ("web/config.cjs", "javascript"),
        ("web/types.mts", "javascript"),
        ("web/legacy.cts", "javascript"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("requirements.txt", "requirements"),
        ("requirements-dev.txt", "requirements"),
        ("dev-requirements.txt", "requirements"),
        ("constraints.txt", "requirements"),
        ("requirements.in", "requirements"),
        ("requirements/base.in", "requirements"),
        ("requirements/test.txt", "requirements"),
        ("C:\\proj\\requirements.txt", "requirements"),
        ("pyproject.toml", "pyproject"),
        ("file:///home/me/my%20app/pyproject.toml", "pyproject"),
        ("frontend/package.json", "package_json"),
        ("crates/core/Cargo.toml", "cargo_toml"),
        ("go.mod", "go_mod"),
        ("Dockerfile", "dockerfile"),
        ("docker/Dockerfile.prod", "dockerfile"),
        ("api.dockerfile", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("docs/guide.md", "markdown"),
        ("README.markdown", "markdown"),
        ("AGENTS.md", "instructions"),
        ("file:///home/me/proj/CLAUDE.md", "instructions"),
        ("/home/me/proj/.github/copilot-instructions.md", "instructions"),
        ("docs/copilot-instructions.md", "markdown"),
        (".cursorrules", "instructions"),
        ("notes.txt", "plaintext"),
        ("MANIFEST.in", None),
        ("go.sum", None),
        ("package-lock.json", None),
        ("Cargo.lock", None),
        ("logo.png", None),
    ],
)
def test_document_kind(path: str, kind: str | None) -> None:
    assert document_kind(path) == kind


def test_unscanned_file_yields_nothing_that_a_python_file_would() -> None:
    text = "import yaml\n"
    assert rows("service.py", text) == [(0, 7, 11, "yaml", "pyyaml", "pypi", "import")]
    assert detect("notes.csv", text, frozenset({"yaml"})) == []


# ---------------------------------------------------------------------------------------------
# Columns


def test_utf16_column_counts_astral_characters_twice() -> None:
    line = "a\U0001f600b\u00e9c"  # 'a', an emoji (2 units), 'b', 'é' (1 unit), 'c'
    assert [utf16_column(line, i) for i in range(len(line) + 1)] == [0, 1, 3, 4, 5, 6]


def test_python_range_after_an_emoji_is_in_utf16_units() -> None:
    text = 'banner = "\U0001f389"; import yaml\nimport os\n'
    assert text.splitlines()[0].index("yaml") == 21  # one str index, two UTF-16 units
    assert rows("app.py", text) == [
        (0, 22, 26, "yaml", "pyyaml", "pypi", "import"),
        (1, 7, 9, "os", "os", "pypi", "import"),
    ]


def test_javascript_range_after_an_emoji_is_in_utf16_units() -> None:
    text = 'const party = "\U0001f389\U0001f389"; const pad = require("left-pad");\n'
    assert text.index("left-pad") == 41
    assert rows("index.js", text) == [(0, 43, 51, "left-pad", "left-pad", "npm", "import")]


# ---------------------------------------------------------------------------------------------
# Python

PYTHON = '''\
"""Service module.

import notalibrary  (docstring, not an import)
"""
from __future__ import annotations
import os, yaml.constructor as yc
from sklearn.linear_model import LogisticRegression
from . import sibling
from ..pkg import thing
# import commented_out
x = "import in_string"
import requests; import attr
from PIL import (
    Image,
    ImageDraw,
)


def load():
    try:
        import numpy as np
    except ImportError:
        np = None
    import google.protobuf.message, \\
        torch
    return np
'''


def test_python_imports() -> None:
    assert rows("service.py", PYTHON) == [
        (5, 7, 9, "os", "os", "pypi", "import"),
        (5, 11, 15, "yaml", "pyyaml", "pypi", "import"),
        (6, 5, 12, "sklearn", "scikit-learn", "pypi", "import"),
        (11, 7, 15, "requests", "requests", "pypi", "import"),
        (11, 24, 28, "attr", "attrs", "pypi", "import"),
        (12, 5, 8, "PIL", "pillow", "pypi", "import"),
        (20, 15, 20, "numpy", "numpy", "pypi", "import"),
        (23, 11, 17, "google", "google", "pypi", "import"),
        (24, 8, 13, "torch", "torch", "pypi", "import"),
    ]


def test_python_line_endings_do_not_change_positions() -> None:
    expected = rows("service.py", PYTHON)
    assert rows("service.py", PYTHON.replace("\n", "\r\n")) == expected
    assert rows("service.py", PYTHON.replace("\n", "\r")) == expected


BROKEN_PYTHON = '''\
import json
from fastapi import FastAPI

app = FastAPI(
    title="half typed",

def handler(:
    import httpx
    return httpx.get("https://example.com")
'''


def test_python_that_does_not_parse_still_yields_its_imports() -> None:
    with pytest.raises(SyntaxError):
        ast.parse(BROKEN_PYTHON)
    assert rows("main.py", BROKEN_PYTHON) == [
        (0, 7, 11, "json", "json", "pypi", "import"),
        (1, 5, 12, "fastapi", "fastapi", "pypi", "import"),
        (7, 11, 16, "httpx", "httpx", "pypi", "import"),
    ]


def test_python_unterminated_docstring_hides_only_what_follows_it() -> None:
    text = 'import yaml\n\ndef f():\n    """Being typed...\n    import hidden\n'
    assert rows("wip.py", text) == [(0, 7, 11, "yaml", "pyyaml", "pypi", "import")]


PYTHON_BLOCK = '''\
import os
import json
from typing import Any

import requests
from pydantic import BaseModel


class Item(BaseModel):
    """An item; import nothing from here."""

    name: str  # the name; import is just a word here
    price: float = 0.0

    def total(self, count: int) -> float:
        values = [self.price * i for i in range(count)]
        label = f"{self.name}: {sum(values)} (from stock)"
        return sum(values) if label else 0.0


def fetch(url: str) -> dict[str, Any]:
    import httpx
    response = httpx.get(url, timeout=10)
    return json.loads(response.text)

'''


def test_python_two_thousand_lines_scan_quickly() -> None:
    text = PYTHON_BLOCK * 80
    assert text.count("\n") == 2000
    detect("big.py", text)  # warm up the compiled patterns
    started = time.perf_counter()
    mentions = detect("big.py", text)
    elapsed_ms = (time.perf_counter() - started) * 1000
    print(f"\n2,000-line Python file scanned in {elapsed_ms:.1f} ms")
    per_block = [
        (0, 7, 9, "os"),
        (1, 7, 11, "json"),
        (2, 5, 11, "typing"),
        (4, 7, 15, "requests"),
        (5, 5, 13, "pydantic"),
        (21, 11, 16, "httpx"),
    ]
    assert [(m.line, m.start, m.end, m.name) for m in mentions] == [
        (line + 25 * block, start, end, name)
        for block in range(80)
        for line, start, end, name in per_block
    ]


def test_python_imports_after_compound_statement_colons() -> None:
    text = (
        "try: import ujson as json\n"
        "except ImportError: import json\n"
        "if TYPE_CHECKING: from pandas import DataFrame\n"
        "value = transform (data)\n"  # a keyword inside another word
        "result = yield from gen\n"  # `from` that does not start a statement
    )
    assert rows("compat.py", text) == [
        (0, 12, 17, "ujson", "ujson", "pypi", "import"),
        (1, 27, 31, "json", "json", "pypi", "import"),
        (2, 23, 29, "pandas", "pandas", "pypi", "import"),
    ]


PYTHON_IMPORTS_THROUGHOUT = '''\
import os
HELP = """Usage:
import not_a_module
from nor_this import x
"""
value = 'a string \\
import still_in_the_string'
import after_a_continued_string  # import in_a_comment
def f():
    text = "from quoted import nothing"; import after_a_semicolon
    if text: from after_a_colon import y
    import first, \\
        second
    import continued_keyword \\
, third
    return f"""{text}
import in_an_f_string"""
import last
'''


def test_python_imports_throughout_a_file_skip_strings_and_comments_between_them() -> None:
    assert rows("spread.py", PYTHON_IMPORTS_THROUGHOUT) == [
        (0, 7, 9, "os", "os", "pypi", "import"),
        (7, 7, 31, "after_a_continued_string", "after-a-continued-string", "pypi", "import"),
        (9, 48, 65, "after_a_semicolon", "after-a-semicolon", "pypi", "import"),
        (10, 18, 31, "after_a_colon", "after-a-colon", "pypi", "import"),
        (11, 11, 16, "first", "first", "pypi", "import"),
        (12, 8, 14, "second", "second", "pypi", "import"),
        (13, 11, 28, "continued_keyword", "continued-keyword", "pypi", "import"),
        (14, 2, 7, "third", "third", "pypi", "import"),
        (17, 7, 11, "last", "last", "pypi", "import"),
    ]


# ---------------------------------------------------------------------------------------------
# JavaScript / TypeScript

JAVASCRIPT = """\
// import fake from "commented";
/* require("also-commented") */
import React, { useState } from "react";
import { z } from 'zod/v4';
import "./styles.css";
import fs from "fs";
import { readFile } from "node:fs/promises";
import path from 'path/posix';
import type { Config } from "@acme/config/types";
export { helper } from "../lib/helper";
export * from "lodash-es";
import {
  Button,
  Dialog,
} from "@radix-ui/react-dialog";
import Card from "@/components/Card";
const msg = "import nope from 'nope'";
const quotes = /[`'"]/g;
const express = require("express");
const half = total / 2; const dayjs = require("dayjs");
const lazy = () => import("chart.js/auto");
const tpl = `require("not-a-call")`;
import legacy = require("legacy-lib");
const parts = Array.from("abc");
"""


def test_javascript_imports() -> None:
    assert rows("src/App.tsx", JAVASCRIPT) == [
        (2, 33, 38, "react", "react", "npm", "import"),
        (3, 19, 22, "zod", "zod", "npm", "import"),
        (8, 29, 41, "@acme/config", "@acme/config", "npm", "import"),
        (10, 15, 24, "lodash-es", "lodash-es", "npm", "import"),
        (14, 8, 30, "@radix-ui/react-dialog", "@radix-ui/react-dialog", "npm", "import"),
        (18, 25, 32, "express", "express", "npm", "import"),
        (19, 47, 52, "dayjs", "dayjs", "npm", "import"),
        (20, 27, 35, "chart.js", "chart.js", "npm", "import"),
        (22, 25, 35, "legacy-lib", "legacy-lib", "npm", "import"),
    ]


# ---------------------------------------------------------------------------------------------
# Go

GO = """\
package main

// import "github.com/commented/out"
import "fmt"
import yaml "gopkg.in/yaml.v3"

import (
\t"context"
\t"net/http"

\t_ "github.com/mattn/go-sqlite3"
\tlog "github.com/sirupsen/logrus"
\t. "github.com/onsi/gomega" // dot import
\t/* "github.com/block/comment" */
\t`github.com/raw/string`
)

func main() {
\tfmt.Println("import \\"github.com/not/an/import\\"")
}
"""


def test_go_imports() -> None:
    assert rows("cmd/main.go", GO) == [
        (4, 13, 29, "gopkg.in/yaml.v3", "gopkg.in/yaml.v3", "go", "import"),
        (10, 4, 31, "github.com/mattn/go-sqlite3", "github.com/mattn/go-sqlite3", "go", "import"),
        (11, 6, 32, "github.com/sirupsen/logrus", "github.com/sirupsen/logrus", "go", "import"),
        (12, 4, 26, "github.com/onsi/gomega", "github.com/onsi/gomega", "go", "import"),
        (14, 2, 23, "github.com/raw/string", "github.com/raw/string", "go", "import"),
    ]


# ---------------------------------------------------------------------------------------------
# Rust

RUST = """\
//! Crate docs: use fake_crate::Thing;
extern crate serde_derive;
extern crate alloc;

mod parser;

use std::collections::HashMap;
use core::fmt;
use crate::config::Settings;
use self::inner::X;
use super::Y;
use parser::Parser;
use serde::{Deserialize, Serialize};
pub use tokio::sync::mpsc;
pub(crate) use anyhow::Result;
use ::rand::Rng;
use {regex::Regex, std::io};

/* use block_commented::X; /* nested */ use still_commented::X; */
fn main() {
    let s = "use string_crate::X;";
    let r = r#"use raw_crate::X; "quoted""#;
    fn f<'a>(x: &'a str) -> &'a str { x } use once_cell::sync::Lazy;
    use itertools::Itertools;
}
"""


def test_rust_uses() -> None:
    assert rows("src/main.rs", RUST) == [
        (1, 13, 25, "serde_derive", "serde-derive", "cargo", "import"),
        (12, 4, 9, "serde", "serde", "cargo", "import"),
        (13, 8, 13, "tokio", "tokio", "cargo", "import"),
        (14, 15, 21, "anyhow", "anyhow", "cargo", "import"),
        (15, 6, 10, "rand", "rand", "cargo", "import"),
        (16, 5, 10, "regex", "regex", "cargo", "import"),
        (22, 46, 55, "once_cell", "once-cell", "cargo", "import"),
        (23, 8, 17, "itertools", "itertools", "cargo", "import"),
    ]


# ---------------------------------------------------------------------------------------------
# requirements.txt

REQUIREMENTS = """\
# Core dependencies
-r base.txt
-c constraints.txt
--index-url https://pypi.org/simple
requests>=2.31,<3  # HTTP
Flask[async]==3.0.0
PyYAML ; python_version >= "3.8"
numpy==1.26.4 \\
    --hash=sha256:abc \\
    --hash=sha256:def
urllib3 @ https://example.com/urllib3-2.0.whl
-e git+https://github.com/org/mylib.git#egg=my_lib
-e ./local/package
./wheels/foo-1.0-py3-none-any.whl
   scikit-learn
#commented-out==1.0
"""


def test_requirements() -> None:
    assert rows("requirements.txt", REQUIREMENTS) == [
        (4, 0, 8, "requests", "requests", "pypi", "declaration"),
        (5, 0, 5, "Flask", "flask", "pypi", "declaration"),
        (6, 0, 6, "PyYAML", "pyyaml", "pypi", "declaration"),
        (7, 0, 5, "numpy", "numpy", "pypi", "declaration"),
        (10, 0, 7, "urllib3", "urllib3", "pypi", "declaration"),
        (11, 44, 50, "my_lib", "my-lib", "pypi", "declaration"),
        (14, 3, 15, "scikit-learn", "scikit-learn", "pypi", "declaration"),
    ]


REQUIREMENTS_LINE_SHAPES = (
    "requests==2.31  # pinned\n"
    "httpx#not-a-comment\n"  # a '#' with no blank before it is part of the requirement
    "attrs\u3000\n"  # trailing whitespace of any kind
    "Flask [async] ; python_version >= '3.9'\n"
    "numpy --hash=sha256:abc\n"
    "local-1.0.whl\n"  # an archive, not a name
    "wheel-name.tar  # also an archive\n"
    "torch==2.3 \\\n"
    "    not-a-name\n"  # a continuation line
    "pandas\r"
    "scipy>=1\r\n"
    "-e git+https://example.com/repo.git#egg=egg_name\n"
)


def test_requirements_line_shapes() -> None:
    assert rows("requirements.txt", REQUIREMENTS_LINE_SHAPES) == [
        (0, 0, 8, "requests", "requests", "pypi", "declaration"),
        (2, 0, 5, "attrs", "attrs", "pypi", "declaration"),
        (3, 0, 5, "Flask", "flask", "pypi", "declaration"),
        (4, 0, 5, "numpy", "numpy", "pypi", "declaration"),
        (7, 0, 5, "torch", "torch", "pypi", "declaration"),
        (9, 0, 6, "pandas", "pandas", "pypi", "declaration"),
        (10, 0, 5, "scipy", "scipy", "pypi", "declaration"),
        (11, 40, 48, "egg_name", "egg-name", "pypi", "declaration"),
    ]


# ---------------------------------------------------------------------------------------------
# pyproject.toml

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "demo"
description = "a client for requests"  # not a dependency
dependencies = [
    "httpx>=0.27",
    # "commented-out",
    'pydantic[email]>=2; python_version >= "3.9"',
]

[project.optional-dependencies]
ml = ["torch==2.3", "onnxruntime"]

[dependency-groups]
test = ["pytest>=8", {include-group = "lint"}]
lint = ["ruff"]

[tool.poetry.dependencies]
python = "^3.11"
sqlalchemy = "^2.0"
"Flask-Login" = { version = "^0.6", optional = true }

[tool.poetry.group.dev.dependencies]
black = "^24"

[tool.poetry.dependencies.fastapi]
version = "^0.110"

[tool.ruff]
line-length = 100
"""


def test_pyproject() -> None:
    tomllib.loads(PYPROJECT)  # the fixture is valid TOML
    assert rows("pyproject.toml", PYPROJECT) == [
        (1, 13, 23, "setuptools", "setuptools", "pypi", "declaration"),
        (1, 31, 36, "wheel", "wheel", "pypi", "declaration"),
        (8, 5, 10, "httpx", "httpx", "pypi", "declaration"),
        (10, 5, 13, "pydantic", "pydantic", "pypi", "declaration"),
        (14, 7, 12, "torch", "torch", "pypi", "declaration"),
        (14, 21, 32, "onnxruntime", "onnxruntime", "pypi", "declaration"),
        (17, 9, 15, "pytest", "pytest", "pypi", "declaration"),
        (18, 9, 13, "ruff", "ruff", "pypi", "declaration"),
        (22, 0, 10, "sqlalchemy", "sqlalchemy", "pypi", "declaration"),
        (23, 1, 12, "Flask-Login", "flask-login", "pypi", "declaration"),
        (26, 0, 5, "black", "black", "pypi", "declaration"),
        (28, 26, 33, "fastapi", "fastapi", "pypi", "declaration"),
    ]


BROKEN_PYPROJECT = """\
[project]
name = "half-typed"
dependencies = [
    "httpx>=0.27",
    "rich",

[project.optional-dependencies]
cli = ["typer", "click>=8"
"""


def test_pyproject_that_does_not_parse_falls_back_to_the_text() -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(BROKEN_PYPROJECT)
    assert rows("pyproject.toml", BROKEN_PYPROJECT) == [
        (3, 5, 10, "httpx", "httpx", "pypi", "declaration"),
        (4, 5, 9, "rich", "rich", "pypi", "declaration"),
        (7, 8, 13, "typer", "typer", "pypi", "declaration"),
        (7, 17, 22, "click", "click", "pypi", "declaration"),
    ]


# ---------------------------------------------------------------------------------------------
# package.json

PACKAGE_JSON = """\
{
  "name": "web-app",
  "scripts": { "build": "vite build", "react": "not-a-dependency" },
  "dependencies": {
    "react": "^18.2.0",
    "@tanstack/react-query": "^5.0.0",
    "lodash-legacy": "npm:lodash@^4.17.21"
  },
  "devDependencies": {
    "typescript": "~5.4.0"
  },
  "peerDependencies": { "react-dom": ">=18" },
  "optionalDependencies": { "fsevents": "^2.3.3" },
  "bundleDependencies": ["left-pad"],
  "overrides": { "semver": "7.5.4", "@babel/core@7": { "json5": "2.2.3" } },
  "resolutions": { "**/minimist": "1.2.8" },
  "config": { "dependencies": { "nested-not-counted": "1" } }
}
"""


def test_package_json() -> None:
    json.loads(PACKAGE_JSON)  # the fixture is valid JSON
    assert rows("package.json", PACKAGE_JSON) == [
        (4, 5, 10, "react", "react", "npm", "declaration"),
        (5, 5, 26, "@tanstack/react-query", "@tanstack/react-query", "npm", "declaration"),
        (6, 26, 32, "lodash", "lodash", "npm", "declaration"),  # the package behind the alias
        (9, 5, 15, "typescript", "typescript", "npm", "declaration"),
        (11, 25, 34, "react-dom", "react-dom", "npm", "declaration"),
        (12, 29, 37, "fsevents", "fsevents", "npm", "declaration"),
        (13, 26, 34, "left-pad", "left-pad", "npm", "declaration"),
        (14, 18, 24, "semver", "semver", "npm", "declaration"),
        (14, 37, 48, "@babel/core", "@babel/core", "npm", "declaration"),
        (15, 23, 31, "minimist", "minimist", "npm", "declaration"),
    ]


BROKEN_PACKAGE_JSON = """\
{
  "name": "api",
  "dependencies": {
    "express": "^4.19.0"
    "cors": "^2.8.5",
    "helmet":
  },
  "devDependencies": {
    "jest": "^29"
"""


def test_package_json_being_edited() -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(BROKEN_PACKAGE_JSON)
    assert rows("package.json", BROKEN_PACKAGE_JSON) == [
        (3, 5, 12, "express", "express", "npm", "declaration"),
        (4, 5, 9, "cors", "cors", "npm", "declaration"),
        (5, 5, 11, "helmet", "helmet", "npm", "declaration"),
        (8, 5, 9, "jest", "jest", "npm", "declaration"),
    ]


# ---------------------------------------------------------------------------------------------
# Cargo.toml

CARGO_TOML = """\
[package]
name = "svc"
version = "0.1.0"

[dependencies]
serde = { version = "1", features = ["derive"] }
tokio = "1"
# old-crate = "0.1"
web_framework = { package = "actix-web", version = "4" }

[dev-dependencies]
proptest = "1"

[build-dependencies]
cc = "1"

[target.'cfg(windows)'.dependencies]
winapi = "0.3"

[workspace.dependencies]
anyhow = "1"

[dependencies.reqwest]
version = "0.12"
features = ["json"]

[dependencies.http_alias]
package = "http"
version = "1"

[features]
default = ["serde"]
"""


def test_cargo_toml() -> None:
    assert rows("Cargo.toml", CARGO_TOML) == [
        (5, 0, 5, "serde", "serde", "cargo", "declaration"),
        (6, 0, 5, "tokio", "tokio", "cargo", "declaration"),
        (8, 29, 38, "actix-web", "actix-web", "cargo", "declaration"),  # renamed: the real crate
        (11, 0, 8, "proptest", "proptest", "cargo", "declaration"),
        (14, 0, 2, "cc", "cc", "cargo", "declaration"),
        (17, 0, 6, "winapi", "winapi", "cargo", "declaration"),
        (20, 0, 6, "anyhow", "anyhow", "cargo", "declaration"),
        (22, 14, 21, "reqwest", "reqwest", "cargo", "declaration"),
        (27, 11, 15, "http", "http", "cargo", "declaration"),
    ]


# ---------------------------------------------------------------------------------------------
# go.mod

GO_MOD = """\
module example.com/app

go 1.22

require github.com/spf13/cobra v1.8.0

require (
\tgithub.com/mattn/go-sqlite3 v1.14.22
\tgolang.org/x/sync v0.7.0 // indirect
\t// github.com/commented/out v1.0.0
)

replace github.com/old/lib => github.com/new/lib v1.2.0
replace example.com/local => ../local

exclude github.com/bad/lib v0.1.0
"""


def test_go_mod() -> None:
    sqlite = "github.com/mattn/go-sqlite3"
    assert rows("go.mod", GO_MOD) == [
        (4, 8, 30, "github.com/spf13/cobra", "github.com/spf13/cobra", "go", "declaration"),
        (7, 1, 28, sqlite, sqlite, "go", "declaration"),
        (8, 1, 18, "golang.org/x/sync", "golang.org/x/sync", "go", "declaration"),
        (12, 30, 48, "github.com/new/lib", "github.com/new/lib", "go", "declaration"),
    ]


# ---------------------------------------------------------------------------------------------
# Dockerfile

DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG PY=3.12
FROM --platform=$BUILDPLATFORM python:${PY}-slim AS builder
RUN apt-get update && \\
    apt-get install -y --no-install-recommends \\
        build-essential \\
        # comment lines inside a continuation are dropped
        libpq-dev=15.* \\
    && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir -r requirements.txt && \\
    python -m pip install "uvicorn[standard]==0.30" gunicorn
RUN npm install -g @angular/cli@17 pnpm@8
FROM node:20-alpine@sha256:abcd AS assets
RUN apk add --no-cache --virtual .build-deps git curl=8.5.0-r0
COPY --from=builder /app /app
COPY --from=nginx:1.25 /etc/nginx/nginx.conf /etc/nginx/
FROM scratch
FROM builder
FROM ghcr.io/acme/runtime:2.1
"""


def test_dockerfile() -> None:
    assert rows("Dockerfile", DOCKERFILE) == [
        (2, 31, 37, "python", "python", "container", "declaration"),
        (5, 8, 23, "build-essential", "build-essential", "apt", "declaration"),
        (7, 8, 17, "libpq-dev", "libpq-dev", "apt", "declaration"),
        (10, 27, 34, "uvicorn", "uvicorn", "pypi", "declaration"),
        (10, 52, 60, "gunicorn", "gunicorn", "pypi", "declaration"),
        (11, 19, 31, "@angular/cli", "@angular/cli", "npm", "declaration"),
        (11, 35, 39, "pnpm", "pnpm", "npm", "declaration"),
        (12, 5, 9, "node", "node", "container", "declaration"),
        (13, 45, 48, "git", "git", "apk", "declaration"),
        (13, 49, 53, "curl", "curl", "apk", "declaration"),
        (15, 12, 17, "nginx", "nginx", "container", "declaration"),
        (18, 5, 25, "ghcr.io/acme/runtime", "ghcr.io/acme/runtime", "container", "declaration"),
    ]


def test_dockerfile_shell_commands() -> None:
    text = (
        "FROM python:3.12-slim\n"
        "ONBUILD RUN pip3 install --user flask 2>/dev/null\n"
        "RUN DEBIAN_FRONTEND=noninteractive sudo apt-get -o Dpkg::Use-Pty=0 install -y jq \\\n"
        '    && uv pip install --system "httpx>=0.27" ./local-wheel.whl \\\n'
        "    && npm i --save-dev typescript@5 ./vendor/pkg.tgz \\\n"
        "    && yarn add @scope/ui@^2\n"
        'RUN ["pip", "install", "exec-form-is-json"]\n'
        "RUN echo apt-get install not-a-package | tee /tmp/out  # pip install commented\n"
    )
    assert rows("Dockerfile", text) == [
        (0, 5, 11, "python", "python", "container", "declaration"),
        (1, 32, 37, "flask", "flask", "pypi", "declaration"),
        (2, 78, 80, "jq", "jq", "apt", "declaration"),
        (3, 32, 37, "httpx", "httpx", "pypi", "declaration"),
        (4, 24, 34, "typescript", "typescript", "npm", "declaration"),
        (5, 16, 25, "@scope/ui", "@scope/ui", "npm", "declaration"),
    ]


CONDA_DOCKERFILE = """\
FROM mambaorg/micromamba:1.5
RUN conda install -c conda-forge -y numpy=1.26 'scipy>=1' --name env conda-forge::pandas \\
    && mamba install -y -n base pyyaml[build=py311*] \\
    && micromamba install -y -f env.yaml -r /opt/mm tqdm
RUN conda create -n py python=3.11 && conda env create -f environment.yml && conda list numpy
RUN /opt/conda/bin/conda install --file requirements.txt -p /opt/env -c defaults 'polars 1.2'
"""


def test_dockerfile_conda_installs() -> None:
    # Channels, environment names, prefixes and files are options' arguments; `env create`
    # and `list` install nothing.
    assert rows("Dockerfile", CONDA_DOCKERFILE) == [
        (0, 5, 24, "mambaorg/micromamba", "mambaorg/micromamba", "container", "declaration"),
        (1, 36, 41, "numpy", "numpy", "conda", "declaration"),
        (1, 48, 53, "scipy", "scipy", "conda", "declaration"),
        (1, 82, 88, "pandas", "pandas", "conda", "declaration"),
        (2, 32, 38, "pyyaml", "pyyaml", "conda", "declaration"),
        (3, 52, 56, "tqdm", "tqdm", "conda", "declaration"),
        (4, 23, 29, "python", "python", "conda", "declaration"),
        (5, 82, 88, "polars", "polars", "conda", "declaration"),
    ]


def test_import_names_of_the_workspace_decide_the_key() -> None:
    # What the workspace says an import stands for replaces the key; names it says nothing
    # about keep the built-in table (yaml → pyyaml). Declarations are never renamed.
    names = ImportNames(cargo={"memmap": "memmap2"}, pypi={"yaml-env-tag": "pyyaml-env-tag",
                                                           "tag-helper": "tag-helper-dist"})
    assert [(m.name, m.key) for m in detect("src/lib.rs", "use memmap::Mmap;\nuse serde::Serialize;\n",
                                            import_names=names)] == [("memmap", "memmap2"), ("serde", "serde")]
    python = "import yaml_env_tag\nimport yaml\n"
    assert [(m.name, m.key) for m in detect("mkdocs.py", python, import_names=names)] == [
        ("yaml_env_tag", "pyyaml-env-tag"), ("yaml", "pyyaml")]
    # Without: the table of the most downloaded distributions' import names knows it too.
    assert [m.key for m in detect("mkdocs.py", python)] == ["pyyaml-env-tag", "pyyaml"]
    assert [m.key for m in detect("mkdocs.py", "import tag_helper\n")] == ["tag-helper"]  # nobody knows: as written
    assert [m.key for m in detect("requirements.txt", "tag_helper\n", import_names=names)] == ["tag-helper"]


def test_dockerfile_escape_directive() -> None:
    text = (
        "# escape=`\n"
        "FROM docker.io/library/python:3.12-windowsservercore AS base\n"
        "RUN pip install --no-cache-dir `\n"
        "    requests `\n"
        "    C:\\wheels\\local.whl\n"
    )
    assert rows("Dockerfile.windows", text) == [
        (1, 5, 29, "docker.io/library/python", "python", "container", "declaration"),
        (3, 4, 12, "requests", "requests", "pypi", "declaration"),
    ]


# ---------------------------------------------------------------------------------------------
# Prose

VOCABULARY = frozenset(
    fold(name)
    for name in ["onnx", "Pillow", "go-sqlite3", "@acme/widgets", "scikit_learn", "sklearn"]
)

MARKDOWN = """\
# Notes \U0001f389 on `onnx`

We moved from onnxruntime to `onnx` last week. Pillow was dropped;
see `github.com/mattn/go-sqlite3` and `@acme/widgets`. `scikit-learn` stays.
Do not confuse `sklearn-extra` with sklearn.
"""


def test_markdown_mentions_in_code() -> None:
    assert rows("docs/notes.md", MARKDOWN, VOCABULARY) == [
        (0, 15, 19, "onnx", "onnx", "other", "mention"),  # after an emoji: 2 UTF-16 units
        (2, 30, 34, "onnx", "onnx", "other", "mention"),
        (3, 22, 32, "go-sqlite3", "go-sqlite3", "other", "mention"),
        (3, 39, 52, "@acme/widgets", "@acme/widgets", "other", "mention"),
        (3, 56, 68, "scikit-learn", "scikit-learn", "other", "mention"),
    ]  # not Pillow nor sklearn, written as words; `sklearn-extra` is another name


DEAD = frozenset(fold(name) for name in ["requests", "moment", "click", "lazy_static", "black"])


def flagged(path: str, text: str) -> list[tuple[int, str]]:
    return [(line, name) for line, _start, _end, name, *_ in rows(path, text, DEAD)]


MARKDOWN_DOC = """\
# Simple requests

Handles cross-origin requests; click the button. A black background.
Use `requests` here, or ``click``.
Run pip install requests, then restart the server.
npm i moment@2 and yarn add -D moment
from requests import Session

```python
# retry failed requests
r = requests.get(url)
\"\"\"Docstring about click.\"\"\"
```

    import click

- a list item

    a list item's paragraph about requests

!!! note
    an admonition about requests

~~~
cargo add lazy_static
"""


def test_markdown_flags_code_not_prose() -> None:
    assert flagged("docs/guide.md", MARKDOWN_DOC) == [
        (3, "requests"), (3, "click"),  # inline code
        (4, "requests"),  # an install command inside a sentence
        (5, "moment"), (5, "moment"),  # two commands on one line
        (6, "requests"),  # an import line
        (10, "requests"),  # in a fence, not its comment or docstring
        (14, "click"),  # an indented code block
        (24, "lazy_static"),  # an unclosed fence runs to the end
    ]  # lines 0-2 (a heading and prose), 18 and 21 (a list item's and an admonition's text): English


RST_DOC = """\
Making requests
===============

Handles cross-origin requests; click the button. The ``requests`` library.

Install it::

    $ pip install requests

.. note::

   Black is a colour; requests are made.

.. code-block:: python
   :linenos:

   import click  # the click library
   requests.get(url)

Back to prose about requests.

>>> import moment
"""


def test_restructuredtext_flags_literals_not_prose() -> None:
    assert flagged("docs/index.rst", RST_DOC) == [
        (3, "requests"),  # an inline literal
        (7, "requests"),  # a literal block after `::`
        (16, "click"), (17, "requests"),  # a code directive's content (not its comment)
        (21, "moment"),  # a doctest block
    ]  # the title, the prose, the note directive's text: English


PLAIN_DOC = """\
Send requests with the black formatter? No: click here.
To install: pip install requests
Then in Python:

    import click
    >>> requests.get(url)

```
cargo add lazy_static
```
"""


def test_plain_text_flags_install_import_and_prompt_lines() -> None:
    assert flagged("docs/notes.txt", PLAIN_DOC) == [(1, "requests"), (4, "click"), (5, "requests"), (8, "lazy_static")]
    # README without an extension is plain text; requirements*.txt stays the requirements kind.
    assert flagged("README", PLAIN_DOC) == flagged("docs/notes.txt", PLAIN_DOC)
    assert [m.kind for m in detect("requirements-dev.txt", "requests\n", DEAD)] == ["declaration"]


IMPORT_LINES = """\
The moment you require help, use requests; import what you need.
const m = require('moment')
import dayjs from "moment/locale/fr"
use lazy_static::lazy_static;
extern crate lazy_static;
import "github.com/acme/requests"
import os, requests.adapters as adapters
"""


def test_import_lines_of_each_language_are_code_in_any_document() -> None:
    expected = [(1, "moment"), (2, "moment"), (3, "lazy_static"), (4, "lazy_static"), (5, "requests"), (6, "requests")]
    assert flagged("docs/notes.txt", IMPORT_LINES) == expected  # not the English of line 0
    assert flagged("docs/notes.md", IMPORT_LINES) == expected


AGENTS_MD = """\
# Agent instructions

- Never add `pillow` back; images go through the service.
- Tests: `pytest -q`. Do not pip install onnx (onnxruntime is fine).
- Use onnxruntime for inference. Avoid onnx on Alpine.
- Prefer httpx over onnx. Don't use onnx.

```python
import onnx
```
"""


def test_instruction_files_flag_code_and_recommending_sentences() -> None:
    vocabulary = VOCABULARY | {"onnxruntime"}
    assert [(line, name) for line, _s, _e, name, *_ in rows("AGENTS.md", AGENTS_MD, vocabulary)] == [
        (2, "pillow"),  # inline code
        (3, "onnx"),  # an install command (the sentence negates it: the server tells a mention from a recommendation)
        (4, "onnxruntime"),  # a sentence that recommends it
        (8, "onnx"),  # a fence
    ]  # not "Avoid onnx", "over onnx", "Don't use onnx", nor the prose "(onnxruntime is fine)"
    assert detect("AGENTS.md", AGENTS_MD) == []  # no vocabulary, nothing to look for


# ---------------------------------------------------------------------------------------------
# Mid-edit robustness


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("service.py", PYTHON),
        ("src/App.tsx", JAVASCRIPT),
        ("cmd/main.go", GO),
        ("src/main.rs", RUST),
        ("spread.py", PYTHON_IMPORTS_THROUGHOUT),
        ("requirements.txt", REQUIREMENTS),
        ("requirements.txt", REQUIREMENTS_LINE_SHAPES),
        ("pyproject.toml", PYPROJECT),
        ("package.json", PACKAGE_JSON),
        ("Cargo.toml", CARGO_TOML),
        ("go.mod", GO_MOD),
        ("Dockerfile", DOCKERFILE),
        ("Dockerfile", CONDA_DOCKERFILE),
        ("docs/notes.md", MARKDOWN),
    ],
)
def test_every_truncation_of_a_fixture_yields_exact_ranges(path: str, text: str) -> None:
    # A document being typed is often a prefix of the finished one: each prefix must scan
    # without error, every range covering its name (checked by rows) on a single line.
    for cut in range(0, len(text) + 1, 3):
        for _, _, _, name, key, _, _ in rows(path, text[:cut], VOCABULARY):
            assert name and key
            assert "\n" not in name


@pytest.mark.parametrize(("path", "text"), [("docs/guide.md", MARKDOWN_DOC), ("docs/index.rst", RST_DOC),
                                            ("docs/notes.txt", PLAIN_DOC), ("docs/notes.md", IMPORT_LINES)])
def test_every_truncation_of_a_document_yields_exact_ranges(path: str, text: str) -> None:
    # An unclosed fence, inline code or literal block mid-edit: each prefix scans, each range on one line.
    found = 0
    for cut in range(len(text) + 1):
        for _, _, _, name, _key, _, _ in rows(path, text[:cut], DEAD):
            assert "\n" not in name
            found += 1
    assert found  # the positive control: the prefixes do name the dead ends

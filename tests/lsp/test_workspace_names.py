"""Imports that only the workspace can name: a Go package inside an abandoned module, a crate
renamed in Cargo.toml, a Python module whose distribution the workspace's environment installs,
a conda package in a Dockerfile. Each fixture holds a name that must be flagged beside one that
must not."""

from __future__ import annotations

from tests.conftest import HUMAN
from tests.lsp.conftest import PROJECT, project_folder
from tests.nlp.test_workspace import cargo_workspace, python_environment

GO = """\
package main

import (
\t"github.com/cpuguy83/go-md2man/v2/md2man"
\t"github.com/foo/bar/sub/pkg"
\t"github.com/foo/barbaz/pkg"
\t"github.com/foo/bar"
)
"""

RUST = """\
use memmap::Mmap;
use yaml::Value;
use serde::Serialize;
"""

PYTHON = """\
import yaml_env_tag
import dateutil.tz
import six
"""


def flagged(diagnostics) -> list[tuple[int, int, int, str]]:
    return [(d.range.start.line, d.range.start.character, d.range.end.character, d.data["name"])
            for d in diagnostics]


async def test_go_imports_inside_abandoned_modules(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "github.com/foo/bar", reason="unmaintained", project=PROJECT)
    memory.abandon(HUMAN, "github.com/cpuguy83/go-md2man/v2", reason="we render with goldmark", project=PROJECT)
    session = await serve([folder])
    uri = session.open(folder / "cmd" / "main.go", GO, "go")
    assert flagged(await session.diagnostics(uri)) == [
        (3, 2, 41, "github.com/cpuguy83/go-md2man/v2"),
        (4, 2, 28, "github.com/foo/bar"),
        (6, 2, 20, "github.com/foo/bar"),
    ]  # github.com/foo/barbaz shares a prefix but not a path segment: clear

    # Rust: `use memmap::` is the crate memmap2 (renamed in the workspace root, inherited by
    # the member); an abandoned `memmap` must not match it, an abandoned `memmap2` must.
    document = cargo_workspace(folder)
    memory.abandon(HUMAN, "memmap", reason="unmaintained: use memmap2", project=PROJECT, ecosystem="cargo")
    memory.abandon(HUMAN, "serde_yaml", reason="deprecated upstream", project=PROJECT, ecosystem="cargo")
    rust = session.open(document, RUST, "rust")
    assert flagged(await session.diagnostics(rust)) == [(1, 4, 8, "serde-yaml")]
    memory.abandon(HUMAN, "memmap2", reason="we read files whole", project=PROJECT, ecosystem="cargo")
    assert flagged(await session.diagnostics(rust, lambda d: len(d) == 2)) == [
        (0, 4, 10, "memmap2"), (1, 4, 8, "serde-yaml")]


async def test_python_imports_by_the_distributions_of_the_workspace_environment(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    python_environment(folder)
    memory.abandon(HUMAN, "pyyaml-env-tag", reason="mkdocs dropped it", project=PROJECT, ecosystem="pypi")
    memory.abandon(HUMAN, "python-dateutil", reason="zoneinfo does it", project=PROJECT, ecosystem="pypi")
    # The distribution `yaml-env-tag` is another one than what the environment installs.
    memory.abandon(HUMAN, "yaml-env-tag", reason="a different package", project=PROJECT, ecosystem="pypi")
    session = await serve([folder])
    uri = session.open(folder / "src" / "app.py", PYTHON, "python")
    assert flagged(await session.diagnostics(uri)) == [
        (0, 7, 19, "pyyaml-env-tag"),  # read from the dist-info's top_level.txt
        (1, 7, 15, "python-dateutil"),  # read from the RECORD
    ]  # six: installed, not abandoned

    # A conda package in a Dockerfile matches the PyPI package of its name.
    memory.abandon(HUMAN, "numpy", reason="we moved to polars", project=PROJECT, ecosystem="pypi")
    dockerfile = session.open(folder / "Dockerfile",
                              "FROM mambaorg/micromamba\nRUN micromamba install -y -c conda-forge numpy pandas=2\n")
    assert flagged(await session.diagnostics(dockerfile)) == [(1, 41, 46, "numpy")]

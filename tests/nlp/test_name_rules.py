"""Each ecosystem's name rules (`ecosystems.name_problem`): what its registry takes, what it
refuses, and a name with a version told which part is the name."""

from __future__ import annotations

import pytest

from cenotaph.nlp import ecosystems

TAKEN = {
    "pypi": ["requests", "zope.interface", "Django", "ruamel.yaml", "backports.zoneinfo", "x"],
    "npm": ["left-pad", "@types/node", "@babel/core", "JSONStream", "lodash.merge", "~tilde"],
    "cargo": ["serde", "serde_json", "tokio-util", "r2d2"],
    "go": ["github.com/pkg/errors", "golang.org/x/net/http2", "gopkg.in/yaml.v3", "net/http"],
    "container": ["python", "python:3.12-alpine", "ghcr.io/acme/tool:v1", "localhost:5000/team/app",
                  "docker.io/library/node@sha256:" + "a" * 64],
    "apt": ["libssl-dev", "g++", "python3.11"],
    "apk": ["musl-dev", "py3-pip"],
    "conda": ["numpy", "python_abi", "r-base"],
    "tool": ["ripgrep", "c++", "node.js", "C#"],
    "other": ["redux-toolkit", "Kubernetes"],
}
REFUSED = {
    "pypi": ["a/b/c", "-leading", "trailing.", "🐍", "my_lib!", "x" * 215, "\u212aelvin"],  # a Kelvin sign, not K
    "npm": [".hidden", "_private", "@scope", "@/x", "a/b/c", "ünï"],
    "cargo": ["1abc", "serde.json", "a" * 65],
    "go": ["../../etc", "github.com//x", "github.com/x/.hidden", "/abs"],
    "container": ["../x", "UPPER_/x", "nginx:1.25:latest", "a//b"],
    "apt": ["a", "under_score"],
    "apk": ["-x", "a/b"],
    "conda": ["conda-forge::numpy", "a/b"],
    "tool": ["a/b", "-flag", ".", ".."],
    "other": ["a/b", "🐍"],
}
VERSIONED = [("pypi", "requests==2.0", "requests"), ("pypi", "requests>=2,<3", "requests"),
             ("pypi", "requests[socks]", "requests"), ("npm", "react@18", "react"),
             ("npm", "@types/node@20", "@types/node"), ("cargo", "serde@1", "serde"),
             ("go", "github.com/pkg/errors@v0.9.1", "github.com/pkg/errors"), ("apt", "curl=7.88.1", "curl"),
             ("conda", "numpy>=1.26", "numpy")]


@pytest.mark.parametrize(("ecosystem", "name"), [(e, n) for e, names in TAKEN.items() for n in names])
def test_a_registry_name_is_taken(ecosystem, name):
    assert ecosystems.name_problem(name, ecosystem) is None
    assert ecosystems.name_problem(name, ecosystems.ANY) is None  # some ecosystem takes it


@pytest.mark.parametrize(("ecosystem", "name"), [(e, n) for e, names in REFUSED.items() for n in names])
def test_a_name_the_registry_would_refuse_is_refused(ecosystem, name):
    problem = ecosystems.name_problem(name, ecosystem)
    assert problem and "carries a version" not in problem


@pytest.mark.parametrize(("ecosystem", "name", "bare"), VERSIONED)
def test_a_name_with_a_version_is_told_which_part_is_the_name(ecosystem, name, bare):
    problem = ecosystems.name_problem(name, ecosystem)
    assert problem and f"name is {bare!r}" in problem, problem
    assert ecosystems.name_problem(bare, ecosystem) is None


@pytest.mark.parametrize("ecosystem", [*ecosystems.NAMES, ecosystems.ANY])
@pytest.mark.parametrize("name", ["my lib", "new\nline", "tab\tname", "left\u200bpad", "nul\x00", "\u202eevil", ""])
def test_whitespace_and_control_characters_are_refused_everywhere(ecosystem, name):
    assert ecosystems.name_problem(name, ecosystem)


SPELLED = {"@acme/ui": "npm", "github.com/pkg/errors": "go", "golang.org/x/net/http2": "go",
           "ghcr.io/acme/tool": "go",  # a host path with no tag reads as a Go module
           "ghcr.io/acme/tool:v1": "container", "localhost:5000/team/app:2": "container",
           "docker.io/library/node@sha256:" + "a" * 64: "container",
           "requests": None, "left-pad": None, "python:3.12": None}


@pytest.mark.parametrize("name", SPELLED)
def test_a_spelling_that_gives_the_ecosystem_away_names_it(name):
    assert ecosystems.spelled_ecosystem(name) == SPELLED[name]

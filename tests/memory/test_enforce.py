"""What an agent's tool call would add, read by the hook's detectors alone (no store): the
installers behind a shell command line, and an edit's additions to a manifest or to source."""

from __future__ import annotations

from cenotaph.memory.graveyard.enforce import file_names, installs


def installed(command: str) -> list[tuple[str, str]]:
    return [(n.name, n.ecosystem) for n in installs(command)]


def test_installers_named_by_two_words_and_their_own_options():
    # `uv tool install` is not `uv`'s `add`: the longer name decides. Beside it `uv add` and
    # `uv pip install` still read as before.
    assert installed("uv tool install nose") == [("nose", "pypi")]
    assert installed("uv tool install --from git+https://x/y.git --with rich nose") == [("nose", "pypi")]
    assert installed("uv add requests && uv pip install httpx") == [("requests", "pypi"), ("httpx", "pypi")]
    assert installed("uv tool uninstall nose") == []
    assert installed("pdm add -G test requests") == [("requests", "pypi")]
    assert installed("pdm remove requests") == []
    # pnpm's `-w` is a flag (the workspace root); npm's names a workspace.
    assert installed("pnpm add -w moment") == [("moment", "npm")]
    assert installed("pnpm --filter web add moment") == [("moment", "npm")]
    assert installed("npm install -w web moment") == [("moment", "npm")]


def test_source_adds_only_packages_it_did_not_import_a_manifest_every_new_declaration():
    before = "import os\nimport requests\n"
    assert file_names("app.py", before + "import requests.exceptions\n", before) == []
    assert [n.key for n in file_names("app.py", before + "import nose\n", before)] == ["nose"]
    # A manifest declaring a name a second time (a runtime dependency beside a dev one) adds it.
    manifest = '{"devDependencies": {"moment": "^2"}}'
    both = '{"dependencies": {"moment": "^2"}, "devDependencies": {"moment": "^2"}}'
    assert [n.key for n in file_names("package.json", both, manifest)] == ["moment"]
    assert file_names("package.json", '{"devDependencies": {"moment": "^3"}}', manifest) == []

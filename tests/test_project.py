import subprocess
from pathlib import Path

import pytest

from cenotaph.project import display_name, normalize_remote, resolve


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Acme/App.git", "github.com/acme/app"),
        ("https://github.com/acme/app.git", "github.com/acme/app"),
        ("https://user:secret@github.com/acme/app/", "github.com/acme/app"),
        ("ssh://git@gitlab.example.com:2222/group/sub/app.git", "gitlab.example.com/group/sub/app"),
    ],
)
def test_remote_urls_normalize(url, expected):
    assert normalize_remote(url) == expected


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_resolution_order(tmp_path: Path):
    repo = tmp_path / "work" / "checkout-name"
    (repo / "deep" / "er").mkdir(parents=True)
    _git("init", "-q", cwd=repo)
    # No origin: the repository's absolute path, not the folder name.
    assert resolve(None, repo / "deep" / "er") == str(repo.resolve())
    _git("remote", "add", "origin", "git@github.com:Acme/App.git", cwd=repo)
    assert resolve(None, repo / "deep") == "github.com/acme/app"
    (repo / ".cenotaph.toml").write_text('project = "acme"\n')
    assert resolve(None, repo / "deep") == "acme"
    assert resolve("explicit", repo) == "explicit"


def test_outside_any_repository_uses_the_absolute_path(tmp_path: Path):
    folder = tmp_path / "loose"
    folder.mkdir()
    assert resolve(None, folder) == str(folder.resolve())


@pytest.mark.parametrize(("project", "shown"), [
    ("github.com/acme/crawler", "crawler"), ("/home/jane/src/billing", "billing"), ("/home/jane/src/billing/", "billing"),
    ("C:\\Users\\jane\\billing", "billing"), ("acme", "acme"), ("", "every project"),
])
def test_a_project_is_shown_by_its_last_component_never_its_path(project, shown):
    assert display_name(project) == shown

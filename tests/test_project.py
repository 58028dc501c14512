import subprocess
import sys
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


@pytest.mark.parametrize(("text", "expected"), [
    ('project = "acme"\n', "acme"),
    ('# which project\n\nproject = "acme/app"  # shared\n[hooks]\nagents = ["claude-code"]\n', "acme/app"),
    ('project = "a\\"b"\n', 'a"b'),  # an escape: tomllib reads it
    ("project = 'acme'\n", "acme"),  # a literal string
    ('name = "n"\nproject = "acme"\n', "acme"),  # another key above
    ('[tool]\nproject = "x"\n', None),  # not the top level
    ('project = "   "\n', None),
    ('project = "a"\nproject = "b"\n', None),  # not TOML
    ('project = "a"\n[project]\nname = "b"\n', None),  # not TOML either
])
def test_the_declared_project_is_read_as_toml_reads_it(tmp_path: Path, text, expected):
    from cenotaph.project import _declared_project

    assert _declared_project(text) == expected


def test_the_plain_declaration_is_read_without_tomllib(tmp_path: Path):
    """What an agent's hook pays on every call; the control: a literal string loads tomllib."""
    script = ("import sys; from pathlib import Path; from cenotaph.project import resolve; "
              "print(resolve(None, Path(sys.argv[1])), 'tomllib' in sys.modules)")
    found = {}
    for name, text in (("plain", 'project = "acme"\n'), ("literal", "project = 'acme'\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / ".cenotaph.toml").write_text(text)
        found[name] = subprocess.run([sys.executable, "-c", script, str(tmp_path / name)], capture_output=True,
                                     text=True, check=True).stdout.split()
    assert found == {"plain": ["acme", "False"], "literal": ["acme", "True"]}

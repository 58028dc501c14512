"""Issue 38, point 1: a new user's `cenotaph abandon NAME`, no flag, in real repositories of each
kind records the ecosystem the repository's manifests say, and says which manifest decided."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.conftest import CENOTAPH

REPOSITORIES = {
    "web": {"package.json": json.dumps({"name": "web", "dependencies": {"moment": "^2.30.1"}})},
    "crate": {"Cargo.toml": '[package]\nname = "crate"\nversion = "0.1.0"\n\n[dependencies]\nlazy_static = "1.4"\n'},
    "gosvc": {"go.mod": "module example.com/gosvc\n\ngo 1.22\n\nrequire github.com/sirupsen/logrus v1.9.3\n"},
    "image": {"Dockerfile": "FROM alpine:3.19\nRUN apk add --no-cache curl\n"},
    "service": {"requirements.txt": "markdown-it-py==3.0.0\n", "app.py": "from markdown_it import MarkdownIt\n"},
    # A Python service, a frontend and a Rust crate in one repository.
    "mono": {"services/api/pyproject.toml": '[project]\nname = "api"\ndependencies = ["requests"]\n',
             "frontend/package.json": json.dumps({"name": "frontend", "dependencies": {"moment": "2"}}),
             "crates/core/Cargo.toml": '[package]\nname = "core"\n\n[dependencies]\nserde = "1"\n'},
    "notes": {"README.md": "# notes\n"},
}


def repository(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    for path, text in REPOSITORIES[name].items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def abandon(env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CENOTAPH, "abandon", *args, "--reason", "dropped", "--json"], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_abandon_records_the_ecosystem_the_repository_declares(cli_env, tmp_path):
    cases = [("web", "moment", "npm", "moment", "package.json declares it"),
             ("crate", "lazy_static", "cargo", "lazy-static", "Cargo.toml declares it"),
             ("gosvc", "github.com/sirupsen/logrus", "go", "github.com/sirupsen/logrus", "go.mod declares it"),
             ("image", "curl", "apk", "curl", "Dockerfile declares it"),
             ("image", "alpine", "container", "alpine", "Dockerfile declares it"),
             ("service", "markdown_it", "pypi", "markdown-it-py", "requirements.txt declares it"),
             ("mono", "moment", "npm", "moment", "frontend/package.json declares it"),
             ("mono", "serde", "cargo", "serde", "crates/core/Cargo.toml declares it")]
    found = []
    for repo, name, *_ in cases:
        proc = abandon(cli_env, repository(tmp_path, repo) if not (tmp_path / repo).exists() else tmp_path / repo, name)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        found.append((repo, name, result["approach"]["ecosystem"], result["approach"]["name"], result["decided_by"]))
    assert found == [tuple(case) for case in cases]
    # Not declared: the only ecosystem the repository's manifests make possible.
    undeclared = json.loads(abandon(cli_env, tmp_path / "web", "left-pad").stdout)
    assert undeclared["approach"]["ecosystem"] == "npm"
    assert undeclared["decided_by"] == "no manifest declares it, and the repository's manifests are npm's (package.json)"
    # The text says it too.
    text = subprocess.run([CENOTAPH, "abandon", "lazy_static", "--reason", "OnceLock is in std"], env=cli_env,
                          cwd=tmp_path / "crate", capture_output=True, text=True, timeout=120, check=True).stdout
    assert text.splitlines()[1] == "ecosystem cargo: Cargo.toml declares it"


def test_two_ecosystems_that_fit_are_asked_about_and_no_manifest_means_any(cli_env, tmp_path):
    mono = repository(tmp_path, "mono")
    refused = abandon(cli_env, mono, "left-pad")
    error = json.loads(refused.stdout)["error"]
    assert refused.returncode == 2 and error["field"] == "ecosystem"
    assert error["message"].startswith("ecosystem: no manifest declares 'left-pad'")
    assert error["message"].endswith("say which one (npm, cargo, pypi)")
    settled = json.loads(abandon(cli_env, mono, "left-pad", "--ecosystem", "npm").stdout)
    assert settled["approach"]["ecosystem"] == "npm" and settled["decided_by"] == "chosen: npm"
    bare = json.loads(abandon(cli_env, repository(tmp_path, "notes"), "left_trim").stdout)
    assert bare["approach"]["ecosystem"] == "any"
    assert bare["decided_by"].startswith("no manifest in the repository declares it")


def test_doctor_names_a_record_filed_in_another_ecosystem_and_refile_moves_it(cli_env, tmp_path):
    web = repository(tmp_path, "web")
    # Filed under PyPI as before (the old default), with an effort and a reason to keep.
    subprocess.run([CENOTAPH, "abandon", "moment", "--ecosystem", "pypi", "--effort", "3", "--reason", "use date-fns"],
                   env=cli_env, cwd=web, check=True, capture_output=True, timeout=120)
    subprocess.run([CENOTAPH, "abandon", "left-pad", "--reason", "one line"], env=cli_env, cwd=web, check=True,
                   capture_output=True, timeout=120)  # a control: filed right, under npm
    doctor = subprocess.run([CENOTAPH, "doctor", "--json"], env=cli_env, cwd=web, capture_output=True, text=True,
                            timeout=120, check=True)
    misfiled = json.loads(doctor.stdout)["misfiled"]
    assert [(m["approach"]["name"], m["declared_in"], m["manifest"], m["command"]) for m in misfiled] == [
        ("moment", "npm", "package.json", "cenotaph refile moment --ecosystem npm")]
    refiled = json.loads(subprocess.run([CENOTAPH, *misfiled[0]["command"].split()[1:], "--json"], env=cli_env,
                                        cwd=web, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert (refiled["ecosystem"], refiled["effort"], refiled["reason"]) == ("npm", 3, "use date-fns")
    after = subprocess.run([CENOTAPH, "doctor", "--json"], env=cli_env, cwd=web, capture_output=True, text=True,
                           timeout=120, check=True)
    assert json.loads(after.stdout)["misfiled"] == []
    log = subprocess.run([CENOTAPH, "audit", "log", "--target", f"approach:{refiled['id']}", "--json"], env=cli_env,
                         cwd=web, capture_output=True, text=True, timeout=120, check=True).stdout
    assert '"refile"' in log and '"abandon"' in log  # appended, the abandonment's event kept


# A crate renamed in its member's Cargo.toml (`mmap = { package = "memmap2" }`): the code says
# `use mmap::`, crates.io says memmap2; serde is declared plainly beside it (a control).
RENAMED = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n\n[workspace.dependencies]\n'
                  'yaml = { package = "serde_yaml", version = "0.9" }\n',
    "crates/app/Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\n'
                             'mmap = { package = "memmap2", version = "0.9" }\nyaml = { workspace = true }\n'
                             'serde = "1"\n',
    "crates/app/src/main.rs": "use mmap::Mmap;\nuse yaml::Value;\nuse serde::Serialize;\n\nfn main() {}\n",
}


def test_a_renamed_crate_is_one_entry_by_either_name_and_flags_its_manifest_line_and_its_use(cli_env, tmp_path):
    cases = [("mmap", "memmap2", "mmap"), ("memmap2", "memmap2", "mmap"),
             ("yaml", "serde-yaml", "yaml"), ("serde_yaml", "serde-yaml", "yaml")]
    for i, (typed, recorded, used) in enumerate(cases):
        root = tmp_path / f"renamed{i}"
        for path, text in RENAMED.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        env = {**cli_env, "CENOTAPH_HOME": str(tmp_path / f"home{i}")}  # a graveyard each
        proc = abandon(env, root, typed)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert (result["approach"]["ecosystem"], result["approach"]["name"]) == ("cargo", recorded), typed
        assert re.fullmatch(r"(Cargo.toml, )?(crates/app/)?Cargo.toml declares? it", result["decided_by"]), typed
        lint = subprocess.run([CENOTAPH, "lint", "--json"], env=env, cwd=root, capture_output=True, text=True,
                              timeout=120)
        assert lint.returncode == 1, lint.stdout + lint.stderr
        findings = {(f["path"], f["line"], f["name"], f["approach"]["name"])
                    for f in json.loads(lint.stdout)["findings"]}
        declared = {("crates/app/Cargo.toml", 6, "memmap2", recorded)} if used == "mmap" else {
            ("Cargo.toml", 5, "serde_yaml", recorded),  # the workspace root's rename
            ("crates/app/Cargo.toml", 7, "yaml", recorded)}  # the member's line that inherits it
        # Each manifest line and the `use`; serde, declared and used beside them, stays clear.
        assert findings == {*declared, ("crates/app/src/main.rs", 1 if used == "mmap" else 2, used, recorded)}, typed

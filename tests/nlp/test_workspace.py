"""What a workspace's Cargo.toml files and Python environment say its imports stand for, read
from real folders made here."""

from __future__ import annotations

import os
from pathlib import Path

from cenotaph.nlp.ecosystems.base import NONE
from cenotaph.nlp.workspace import RECHECK_SECONDS, ImportNameCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cargo_workspace(root: Path) -> Path:
    write(root / "Cargo.toml", """\
[workspace]
members = ["crates/*"]

[workspace.dependencies]
memmap = { package = "memmap2", version = "0.9" }
serde = "1"
""")
    write(root / "crates" / "app" / "Cargo.toml", """\
[package]
name = "app"

[dependencies]
memmap = { workspace = true }
serde.workspace = true
yaml = { package = "serde_yaml", version = "0.9" }

[target.'cfg(unix)'.dev-dependencies]
nix_sys = { package = "nix", version = "0.27" }
""")
    return root / "crates" / "app" / "src" / "main.rs"


def test_cargo_renames_from_the_nearest_manifest_and_the_workspace_root(tmp_path: Path) -> None:
    document = cargo_workspace(tmp_path)
    names = ImportNameCache().for_document(str(document), "rust", [tmp_path])
    # serde is inherited without a rename: it stands for itself.
    assert dict(names.cargo) == {"memmap": "memmap2", "yaml": "serde-yaml", "nix-sys": "nix"}
    assert names.resolve("memmap", "cargo") == "memmap2" and names.resolve("serde", "cargo") is None
    assert names.resolve("memmap", "pypi") is None  # a crate's rename says nothing about Python


def test_cargo_renames_follow_edits_and_stay_cached_between_them(tmp_path: Path) -> None:
    document = cargo_workspace(tmp_path)
    clock = Clock()
    cache = ImportNameCache(clock)
    first = cache.for_document(str(document), "rust", [tmp_path])
    clock.now += RECHECK_SECONDS
    assert cache.for_document(str(document), "rust", [tmp_path]) is first  # unchanged files: the same object
    manifest = tmp_path / "crates" / "app" / "Cargo.toml"
    write(manifest, manifest.read_text(encoding="utf-8").replace('package = "serde_yaml", ', ""))
    stat = manifest.stat()
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert cache.for_document(str(document), "rust", [tmp_path]) is first  # not looked at again yet
    clock.now += RECHECK_SECONDS
    edited = cache.for_document(str(document), "rust", [tmp_path])
    assert dict(edited.cargo) == {"memmap": "memmap2", "nix-sys": "nix"}


def test_a_crate_outside_any_manifest_or_the_folder_has_no_renames(tmp_path: Path) -> None:
    cargo_workspace(tmp_path / "outside")
    folder = tmp_path / "outside" / "crates"  # the workspace root's manifest lies above the folder
    names = ImportNameCache().for_document(str(folder / "app" / "src" / "main.rs"), "rust", [folder])
    assert dict(names.cargo) == {"yaml": "serde-yaml", "nix-sys": "nix"}  # the member's own renames only
    assert ImportNameCache().for_document(str(tmp_path / "lone.rs"), "rust", [tmp_path]) is NONE


def python_environment(folder: Path, name: str = ".venv") -> Path:
    environment = folder / name
    write(environment / "pyvenv.cfg", "home = /usr/bin\n")
    site = environment / "lib" / "python3.11" / "site-packages"
    write(site / "pyyaml_env_tag-0.1.dist-info" / "top_level.txt", "yaml_env_tag\n")
    write(site / "PyYAML-6.0.1.dist-info" / "top_level.txt", "_yaml\nyaml\n")
    # No top_level.txt (as wheels built by modern backends): the RECORD's paths say it.
    write(site / "python_dateutil-2.9.dist-info" / "RECORD", "\n".join([
        "dateutil/__init__.py,sha256=x,10",
        "dateutil/tz/tz.py,sha256=x,10",
        "python_dateutil-2.9.dist-info/METADATA,sha256=x,10",
        "../../bin/dateutil-cli,sha256=x,10",
        "__pycache__/six.cpython-311.pyc,,",
    ]) + "\n")
    write(site / "six-1.16.dist-info" / "RECORD", "six.py,sha256=x,10\nsix-1.16.dist-info/RECORD,,\n")
    # Two distributions share the `google` namespace: it stands for neither.
    write(site / "protobuf-4.25.dist-info" / "top_level.txt", "google\n")
    write(site / "google_auth-2.0.dist-info" / "top_level.txt", "google\n")
    return site


def test_python_import_names_from_the_environment_of_the_folder(tmp_path: Path) -> None:
    python_environment(tmp_path)
    names = ImportNameCache().for_document(str(tmp_path / "src" / "app.py"), "python", [tmp_path])
    assert dict(names.pypi) == {
        "yaml-env-tag": "pyyaml-env-tag",
        "yaml": "pyyaml",
        "-yaml": "pyyaml",
        "dateutil": "python-dateutil",
        "six": "six",
    }
    assert names.resolve("yaml_env_tag", "pypi") == "pyyaml-env-tag"
    assert names.resolve("google", "pypi") is None


def test_python_environment_named_venv_or_virtual_env_and_reread_on_install(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    clock = Clock()
    cache = ImportNameCache(clock)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    assert cache.for_document(str(folder / "app.py"), "python", [folder]) is NONE  # no environment at all
    site = python_environment(tmp_path, "elsewhere")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "elsewhere"))
    clock.now += RECHECK_SECONDS
    assert cache.for_document(str(folder / "app.py"), "python", [folder]).resolve("dateutil", "pypi") == "python-dateutil"
    local = python_environment(folder, "venv")  # the folder's own environment comes first
    write(local / "attrs-23.1.dist-info" / "top_level.txt", "attr\nattrs\n")
    clock.now += RECHECK_SECONDS
    assert cache.for_document(str(folder / "app.py"), "python", [folder]).resolve("attr", "pypi") == "attrs"
    assert site.is_dir()
    # A distribution installed later is seen: site-packages' modification time moved.
    before = cache.for_document(str(folder / "app.py"), "python", [folder])
    write(local / "beautifulsoup4-4.12.dist-info" / "top_level.txt", "bs4\n")
    stat = local.stat()
    os.utime(local, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    clock.now += RECHECK_SECONDS
    after = cache.for_document(str(folder / "app.py"), "python", [folder])
    assert after is not before and after.resolve("bs4", "pypi") == "beautifulsoup4"
    assert before.resolve("bs4", "pypi") is None

"""Real git for the team-sharing tests: a bare remote in a temp dir and clones of it, each with
its own person (git user) and its own Cenotaph store (CENOTAPH_HOME)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import CENOTAPH


def git_env(tmp_path: Path) -> dict[str, str]:
    """git with no system or user configuration of this machine (signing, hooks, aliases)."""
    empty = tmp_path / "gitconfig"
    empty.touch()
    return {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(empty), "GIT_TERMINAL_PROMPT": "0"}


@dataclass
class Clone:
    root: Path
    env: dict[str, str]  # for git and for the `cenotaph` command, with this clone's own store

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.root, env=self.env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout

    def cenotaph(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([CENOTAPH, *args], cwd=self.root, env=self.env, capture_output=True, text=True,
                              timeout=120)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    def cenotaph_json(self, *args: str) -> Any:
        return json.loads(self.cenotaph(*args, "--json").stdout)

    def publish(self, message: str) -> None:
        self.git("add", "-A", ".cenotaph")
        self.git("commit", "-q", "-m", message)
        self.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
        self.git("push", "-q", "origin", "HEAD:main")


def team(tmp_path: Path, cli_env: dict[str, str], *people: str) -> list[Clone]:
    """A bare remote with one commit on `main`, and one clone of it per person."""
    base = {**cli_env, **git_env(tmp_path)}
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], env=base, check=True)
    seed = tmp_path / "seed"
    subprocess.run(["git", "init", "-q", "-b", "main", str(seed)], env=base, check=True)
    (seed / "README.md").write_text("# app\n", encoding="utf-8")
    # A Python service: its manifest is what tells `abandon` a name's ecosystem.
    (seed / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["onnxruntime", "requests"]\n',
                                         encoding="utf-8")
    for args in (["add", "README.md", "pyproject.toml"], ["-c", "user.name=seed", "-c", "user.email=seed@example.invalid", "commit",
                                        "-q", "-m", "start"], ["remote", "add", "origin", str(remote)],
                 ["push", "-q", "origin", "main"]):
        subprocess.run(["git", *args], cwd=seed, env=base, check=True)
    clones = []
    for person in people:
        root = tmp_path / person.split()[0].lower()
        subprocess.run(["git", "clone", "-q", str(remote), str(root)], env=base, check=True)
        env = {**base, "CENOTAPH_HOME": str(tmp_path / f"home-{root.name}")}
        env.pop("CENOTAPH_STORE", None)  # a store of their own, in that home
        clone = Clone(root, env)
        clone.git("config", "user.name", person)
        clone.git("config", "user.email", f"{root.name}@example.invalid")
        clones.append(clone)
    return clones

"""Real git repositories built in tests: commits by named authors at given dates."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

JANE = ("Jane Doe", "jane@example.com")
BOB = ("Bob Roe", "bob@example.com")


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        base = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_AUTHOR_NAME": JANE[0], "GIT_AUTHOR_EMAIL": JANE[1],
                "GIT_COMMITTER_NAME": JANE[0], "GIT_COMMITTER_EMAIL": JANE[1]}
        done = subprocess.run(["git", "-C", str(self.root), *args], env={**base, **(env or {})},
                              capture_output=True, text=True, check=True)
        return done.stdout.strip()

    def commit(self, message: str, files: dict[str, str | None], *, author: tuple[str, str] = JANE,
               at: str = "2024-01-01T10:00:00+00:00") -> str:
        """Write (or, for None, delete) `files` and commit them; returns the sha."""
        for path, content in files.items():
            target = self.root / path
            if content is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
        self.git("add", "-A")
        env = {"GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1], "GIT_AUTHOR_DATE": at,
               "GIT_COMMITTER_DATE": at}
        self.git("commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.git("rev-parse", "HEAD")

    def merge(self, branch: str, message: str, *, at: str) -> str:
        self.git("merge", "-q", "--no-ff", branch, "-m", message,
                 env={"GIT_AUTHOR_DATE": at, "GIT_COMMITTER_DATE": at})
        return self.git("rev-parse", "HEAD")

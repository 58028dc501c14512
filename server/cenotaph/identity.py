"""Who every change is made by: a person, named the same way at every door. Each door makes its
actor here, once, when it learns who is there (docs/commands.md, "Who is recorded").

- On PostgreSQL, the person is the database role the session logged in as: the server vouches
  for it, and its roles decide what the person may do (docs/postgresql.md).
- On SQLite, git's `user.email` in the repository or workspace (its own config, else the global
  one), else the operating system's user name.

A person at a door is `<door>:<person>` (`cli:ada@example.com`, `vscode:ada@example.com`,
`console:ada`); an agent acts for the person whose session runs it: `agent:<client> for
<person>` from a shell, `mcp:<client> for <person>` over MCP."""

from __future__ import annotations

import getpass
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cenotaph.memory.models import Actor

if TYPE_CHECKING:
    from cenotaph.memory.service import Memory

MAX_PERSON = 120  # an e-mail address's length in practice; the audit log keeps names short


@lru_cache(maxsize=32)
def git_person(where: Path | None = None) -> str:
    """git's `user.email` as seen from `where` (a repository's own config wins over the global
    one), else the OS user."""
    try:
        email = subprocess.run(["git", "config", "--get", "user.email"], capture_output=True, text=True, timeout=5,
                               check=False, cwd=where if where is not None and where.is_dir() else None).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        email = ""
    try:
        fallback = getpass.getuser()
    except (OSError, KeyError):  # no user name in the environment and no passwd entry (a bare container)
        fallback = "unknown"
    return " ".join((email or fallback).split())[:MAX_PERSON]


def person(memory: Memory, where: Path | None = None) -> str:
    """The person behind a session on `memory`: its database role on PostgreSQL, else git's."""
    return memory.database_role() or git_person(where)


def human(door: str, who: str) -> Actor:
    return Actor(name=f"{door}:{who}", kind="human")


def agent(prefix: str, client: str, who: str) -> Actor:
    return Actor(name=f"{prefix}:{client} for {who}", kind="agent")

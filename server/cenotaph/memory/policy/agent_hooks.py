"""Cenotaph's hooks in a coding agent's settings: where they go, the command they run, which
entries are Cenotaph's, and why installed ones would not run. Light (no compile, no store): the
SessionStart hook reads it.

Where the hooks go, as the agents document their settings: the project's file (committed, so
every teammate's agent is held to the team's graveyard), Claude Code's local one (this person,
this project, not committed) or the user's file under $HOME (every project of this person). The
command names no path of this machine in a file that is committed: it finds `cenotaph` in the
project's `.venv/bin` (from the directory the agent names the project by) or on PATH, and when it
finds none it fails closed and loud: exit 2 blocks the call with its stderr as the reason (both
agents), where a missing program's 127 would let every call through."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

from cenotaph.memory.errors import InvalidInput

SCOPES = ("project", "local", "user")
# Each agent's settings files by scope (relative to the project root; `user`: to the home folder):
# Claude Code keeps settings.local.json out of git; Gemini CLI has no local file.
FILES = {
    "claude-code": {"project": ".claude/settings.json", "local": ".claude/settings.local.json",
                    "user": ".claude/settings.json"},
    "gemini": {"project": ".gemini/settings.json", "user": ".gemini/settings.json"},
}
# The variable each agent sets to the project's root for its hooks.
PROJECT_DIR = {"claude-code": "CLAUDE_PROJECT_DIR", "gemini": "GEMINI_PROJECT_DIR"}

# `cenotaph hook <agent>` as our commands run it: `/x/cenotaph hook …`, `'/a b/cenotaph' hook …`,
# or the portable command's `"$cenotaph" hook …`.
_OURS = re.compile(r"""(?:^|[\s"'/$])cenotaph["']?\s+hook\s+(?P<agent>[\w-]+)(?=$|[\s;&|"'])""")
_PINNED = re.compile(r"""for cenotaph in (?:"\$\{\w+:-\.\}/\.venv/bin/cenotaph") (?P<pinned>'[^']*'|[^\s"]\S*) """)


def settings_path(agent: str, scope: str) -> str:
    if scope not in FILES[agent]:
        raise InvalidInput(f"{agent} has no {scope} settings file (it reads {', '.join(FILES[agent])})", field="scope")
    return FILES[agent][scope]


def command(agent: str, pinned: str | None = None) -> str:
    """The hook's command, the same on every machine: the project's `.venv/bin/cenotaph`, then
    `pinned` (a user-scope install names the `cenotaph` it was made with: the home folder is this
    machine's), then `cenotaph` on PATH. None found, or one that cannot start (126, 127): exit 2
    with the reason, which blocks the call and shows the reason, instead of letting it through."""
    candidates = f'"${{{PROJECT_DIR[agent]}:-.}}/.venv/bin/cenotaph"' + (f" {shlex.quote(pinned)}" if pinned else "")
    cannot = (f"Cenotaph's {agent} hook cannot run here (no cenotaph that starts, in .venv/bin or on PATH), so this "
              f"call is blocked. Tell the person: install Cenotaph on this machine (make setup), or remove its hooks.")
    return (f'for cenotaph in {candidates} "$(command -v cenotaph)"; do [ -x "$cenotaph" ] && break; cenotaph=; '
            f'done; [ -n "$cenotaph" ] && "$cenotaph" hook {agent}; status=$?; '
            f'[ -n "$cenotaph" ] && [ "$status" -lt 126 ] && exit "$status"; echo "{cannot}" >&2; exit 2')


def is_ours(hook: Any, agent: str) -> bool:
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    return any(found.group("agent") == agent for found in _OURS.finditer(hook["command"]))


def problems(agent: str, project: Path, home: Path) -> list[str]:
    """Why Cenotaph's installed hooks for `agent` would not run here, file by file: a program
    that is not on this machine (an exit 127 lets every call through), a portable command that
    finds no `cenotaph` (every call blocked), a path of one machine in the committed file."""
    found = []
    files = [(scope, (home if scope == "user" else project) / relative) for scope, relative in FILES[agent].items()]
    for scope, file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
        commands = {h["command"] for groups in hooks.values() if isinstance(groups, list) for g in groups
                    if isinstance(g, dict) and isinstance(g.get("hooks"), list) for h in g["hooks"] if is_ours(h, agent)}
        for run in sorted(commands):
            if (problem := _unrunnable(run, project, scope)) is not None:
                found.append(f"{file}: {problem}")
    return found


def _unrunnable(run: str, project: Path, scope: str) -> str | None:
    fix = f"propose the portable command with `cenotaph hooks install {'--user ' if scope == 'user' else ''}…`"
    if run.startswith("for cenotaph in "):
        pinned = _PINNED.match(run)
        places = [project / ".venv" / "bin" / "cenotaph",
                  *([Path(shlex.split(pinned.group("pinned"))[0])] if pinned else [])]
        if any(os.access(place, os.X_OK) for place in places) or shutil.which("cenotaph"):
            return None
        return (f"the hook finds no cenotaph in {project / '.venv' / 'bin'} or on PATH: every call of the agent is "
                "blocked until Cenotaph is installed here")
    try:
        program = shlex.split(run)[0]
    except (ValueError, IndexError):
        return f"the hook's command cannot be read: {fix}"
    if "/" not in program:
        if shutil.which(program) is None:
            return (f"the hook runs `{program}`, which is not on PATH: it exits 127, which the agent treats as a "
                    f"non-blocking error, so every call goes ahead unchecked; {fix}")
        return None
    if not os.access(program, os.X_OK):
        return (f"the hook runs {program}, which is not on this machine: it exits 127, which the agent treats as a "
                f"non-blocking error, so every call goes ahead unchecked; {fix}")
    if scope == "project":
        return f"the hook runs {program}, a path of this machine, in a committed file: a teammate's cannot run; {fix}"
    return None

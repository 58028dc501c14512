"""A coding agent's settings file with Cenotaph's hooks merged in or taken out: the person's other
keys and hooks stay as they are, byte for byte (jsonfile.Splice). Cenotaph's entries are the ones
whose command runs `cenotaph hook <agent>` (whatever folder that `cenotaph` is in, or the portable
command below), so an uninstall finds them after the executable moved, and never touches a hook
the person wrote.

Where the hooks go, as the agents document their settings: the project's file (committed, so
every teammate's agent is held to the team's graveyard), Claude Code's local one (this person,
this project, not committed) or the user's file under $HOME (every project of this person). The
command names no path of this machine in a file that is committed: it finds `cenotaph` in the
project's `.venv/bin` (from the directory the agent names the project by) or on PATH, and when it
finds none it fails closed and loud: exit 2 blocks the call with its stderr as the reason (both
agents), where a missing program's 127 would let every call through."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cenotaph.memory.errors import Conflict, InvalidInput
from cenotaph.memory.graveyard.enforce import EDIT_TOOLS, GEMINI_TOOLS, SHELL_TOOLS
from cenotaph.memory.policy.compile.drafts import FileDraft
from cenotaph.memory.policy.compile.jsonfile import Node, Splice

SCOPES = ("project", "local", "user")


@dataclass(frozen=True, slots=True)
class AgentSettings:
    paths: dict[str, str]  # scope → the file, relative to the project root or the home folder
    events: dict[str, str | None]  # event → the tool matcher (None: the event takes none)
    timeout: int  # in the unit the agent reads
    project_dir: str  # the variable the agent sets to the project's root for its hooks

    @property
    def path(self) -> str:
        return self.paths["project"]


AGENTS = {
    # Claude Code: timeouts in seconds; settings.local.json is the one it keeps out of git.
    "claude-code": AgentSettings({"project": ".claude/settings.json", "local": ".claude/settings.local.json",
                                  "user": ".claude/settings.json"}, {
        "PreToolUse": "|".join(sorted(SHELL_TOOLS | EDIT_TOOLS)), "SessionStart": None, "SessionEnd": None,
    }, 30, "CLAUDE_PROJECT_DIR"),
    # Gemini CLI: timeouts in milliseconds; its transcripts are not mined, so no SessionEnd.
    "gemini": AgentSettings({"project": ".gemini/settings.json", "user": ".gemini/settings.json"}, {
        "BeforeTool": "|".join(sorted(GEMINI_TOOLS)), "SessionStart": None,
    }, 30000, "GEMINI_PROJECT_DIR"),
}

# `cenotaph hook <agent>` as our commands run it: `/x/cenotaph hook …`, `'/a b/cenotaph' hook …`,
# or the portable command's `"$cenotaph" hook …`.
_OURS = re.compile(r"""(?:^|[\s"'/$])cenotaph["']?\s+hook\s+(?P<agent>[\w-]+)(?=$|[\s;&|"'])""")
_PINNED = re.compile(r"""for cenotaph in (?:"\$\{\w+:-\.\}/\.venv/bin/cenotaph") (?P<pinned>'[^']*'|[^\s"]\S*) """)


def settings_path(agent: str, scope: str) -> str:
    spec = AGENTS[agent]
    if scope not in spec.paths:
        raise InvalidInput(f"{agent} has no {scope} settings file (it reads {', '.join(spec.paths)})", field="scope")
    return spec.paths[scope]


def command(agent: str, pinned: str | None = None) -> str:
    """The hook's command, the same on every machine: the project's `.venv/bin/cenotaph`, then
    `pinned` (a user-scope install names the `cenotaph` it was made with: the home folder is this
    machine's), then `cenotaph` on PATH. None found, or one that cannot start (126, 127): exit 2
    with the reason, which blocks the call and shows the reason, instead of letting it through."""
    spec = AGENTS[agent]
    candidates = f'"${{{spec.project_dir}:-.}}/.venv/bin/cenotaph"' + (f" {shlex.quote(pinned)}" if pinned else "")
    cannot = (f"Cenotaph's {agent} hook cannot run, so this call is blocked. Tell the person: install Cenotaph on "
              f"this machine (make setup in the project, or pipx install cenotaph), or remove the hooks "
              f"(cenotaph hooks uninstall {agent}).")
    return (f'for cenotaph in {candidates} "$(command -v cenotaph)"; do [ -x "$cenotaph" ] && break; cenotaph=; '
            f'done; [ -n "$cenotaph" ] || {{ echo "{cannot} No cenotaph in .venv/bin or on PATH." >&2; exit 2; }}; '
            f'"$cenotaph" hook {agent}; status=$?; [ "$status" -lt 126 ] || '
            f'{{ echo "{cannot} $cenotaph did not start." >&2; exit 2; }}; exit "$status"')


def is_ours(hook: Any, agent: str) -> bool:
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    return any(found.group("agent") == agent for found in _OURS.finditer(hook["command"]))


def _group_hooks(group: Node) -> Node | None:
    found = group.get("hooks") if isinstance(group.value, dict) else None
    return found if found is not None and isinstance(found.value, list) else None


def _ours_in(event: Node, agent: str) -> list[tuple[int, set[int]]]:
    """Per group of an event's list: its index and the indices of our hooks in it."""
    if not isinstance(event.value, list):
        return []
    found = []
    for i, group in enumerate(event.children):
        hooks = _group_hooks(group)
        mine = {k for k, hook in enumerate(hooks.children) if is_ours(hook.value, agent)} if hooks else set()
        if mine:
            found.append((i, mine))
    return found


def install(agent: str, current: str | None, command: str, path: str | None = None) -> FileDraft:
    """The settings with each event's hook added where it is missing, and ours that run another
    command (an older install's path of one machine) running this one; unchanged when all are."""
    spec = AGENTS[agent]
    path = path or spec.path
    splice = Splice(path, current or "")
    hooks_node = splice.root.get("hooks") if splice.root is not None else None
    if hooks_node is not None and not isinstance(hooks_node.value, dict):
        raise Conflict(f"{path}: hooks is not a JSON object", field="file")
    added: list[tuple[str, Any]] = []
    for event, matcher in spec.events.items():
        event_node = hooks_node.get(event) if hooks_node is not None else None
        ours = _ours_in(event_node, agent) if event_node is not None else []
        for i, mine in ours:
            hooks = _group_hooks(event_node.children[i])
            assert hooks is not None
            for k in mine:
                found = hooks.children[k].get("command")
                if found is not None and found.value != command:
                    splice.replace(found, command)
        if ours:
            continue
        entry: dict[str, Any] = {"type": "command", "command": command, "timeout": spec.timeout}
        if agent == "gemini":
            entry = {"name": "cenotaph", **entry}  # what `/hooks disable` names it by
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [entry]
        if event_node is None:
            added.append((event, [group]))
        elif isinstance(event_node.value, list):
            splice.append(event_node, [group])
        else:
            splice.replace(event_node, [group])
    if added and splice.root is None:
        return FileDraft(path, splice.result({"hooks": dict(added)}))
    if added:
        assert splice.root is not None
        if hooks_node is None:
            splice.add_members(splice.root, [("hooks", dict(added))])
        else:
            splice.add_members(hooks_node, added)
    return FileDraft(path, splice.result(splice.data))


def uninstall(agent: str, current: str | None, path: str | None = None) -> FileDraft:
    """The settings without Cenotaph's hooks, and without the groups, event lists and `hooks`
    object that held nothing else."""
    path = path or AGENTS[agent].path
    if current is None:
        return FileDraft(path, None)
    splice = Splice(path, current)
    hooks_node = splice.root.get("hooks") if splice.root is not None else None
    if hooks_node is None or not isinstance(hooks_node.value, dict):
        return FileDraft(path, current)
    emptied = set()
    inner = []  # edits inside the event lists that stay
    for e, event_node in enumerate(hooks_node.children):
        ours = _ours_in(event_node, agent)
        if not ours:
            continue
        whole = {i for i, mine in ours if len(mine) == len(_group_hooks(event_node.children[i]).children)}
        if len(whole) == len(event_node.children):
            emptied.add(e)
            continue
        if whole:
            inner.append((event_node, whole))
        inner += [(_group_hooks(event_node.children[i]), mine) for i, mine in ours if i not in whole]
    if not emptied and not inner:
        return FileDraft(path, current)
    if len(emptied) == len(hooks_node.children):
        splice.remove(splice.root, {splice.root.keys.index("hooks")})
    else:
        if emptied:
            splice.remove(hooks_node, emptied)
        for parent, indices in inner:
            splice.remove(parent, indices)
    return FileDraft(path, splice.result(splice.data))


def problems(agent: str, project: Path, home: Path) -> list[str]:
    """Why Cenotaph's installed hooks for `agent` would not run here, file by file: a program
    that is not on this machine (an exit 127 lets every call through), a portable command that
    finds no `cenotaph` (every call blocked), a path of one machine in the committed file."""
    found = []
    files = [(scope, (home if scope == "user" else project) / relative) for scope, relative in AGENTS[agent].paths.items()]
    for scope, file in files:
        try:
            data = Splice(str(file), file.read_text(encoding="utf-8")).data if file.is_file() else {}
        except (OSError, Conflict):
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

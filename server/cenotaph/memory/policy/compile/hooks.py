"""A coding agent's settings file with Cenotaph's hooks merged in or taken out: the person's other
keys and hooks stay as they are. Cenotaph's entries are the ones whose command runs
`cenotaph hook <agent>` (whatever folder that `cenotaph` is in), so an uninstall finds them after
the executable moved, and never touches a hook the person wrote."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

from cenotaph.memory.errors import Conflict
from cenotaph.memory.graveyard.enforce import EDIT_TOOLS, GEMINI_TOOLS, NOTEBOOK_TOOLS, SHELL_TOOLS
from cenotaph.memory.policy.compile.jsonfile import dumps_like, loads
from cenotaph.memory.policy.compile.drafts import FileDraft


@dataclass(frozen=True, slots=True)
class AgentSettings:
    path: str  # relative to the project root or the home folder
    events: dict[str, str | None]  # event → the tool matcher (None: the event takes none)
    timeout: int  # in the unit the agent reads


AGENTS = {
    # Claude Code: timeouts in seconds.
    "claude-code": AgentSettings(".claude/settings.json", {
        "PreToolUse": "|".join(sorted(SHELL_TOOLS | EDIT_TOOLS | NOTEBOOK_TOOLS)), "SessionStart": None, "SessionEnd": None,
    }, 30),
    # Gemini CLI: timeouts in milliseconds; its transcripts are not mined, so no SessionEnd.
    "gemini": AgentSettings(".gemini/settings.json", {
        "BeforeTool": "|".join(sorted(GEMINI_TOOLS)), "SessionStart": None,
    }, 30000),
}


def is_ours(hook: Any, agent: str) -> bool:
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    try:
        words = shlex.split(hook["command"])
    except ValueError:
        return False
    return len(words) == 3 and os.path.basename(words[0]) == "cenotaph" and words[1:] == ["hook", agent]


def _groups(hooks: dict, event: str) -> list:
    found = hooks.get(event)
    return found if isinstance(found, list) else []


def _installed(hooks: dict, event: str, agent: str) -> bool:
    return any(is_ours(h, agent) for g in _groups(hooks, event) if isinstance(g, dict)
               for h in (g.get("hooks") if isinstance(g.get("hooks"), list) else []))


def install(agent: str, current: str | None, command: str) -> FileDraft:
    """The settings with each event's hook added where it is missing (unchanged when all are there)."""
    spec = AGENTS[agent]
    data = loads(spec.path, current or "")
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Conflict(f"{spec.path}: hooks is not a JSON object", field="file")
    missing = [(event, matcher) for event, matcher in spec.events.items() if not _installed(hooks, event, agent)]
    if not missing:
        return FileDraft(spec.path, current)  # as it is, byte for byte: nothing to propose
    for event, matcher in missing:
        entry: dict[str, Any] = {"type": "command", "command": command, "timeout": spec.timeout}
        if agent == "gemini":
            entry = {"name": "cenotaph", **entry}  # what `/hooks disable` names it by
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [entry]
        if not isinstance(hooks.get(event), list):
            hooks[event] = []
        hooks[event].append(group)
    return FileDraft(spec.path, dumps_like(current or "", data))


def uninstall(agent: str, current: str | None) -> FileDraft:
    """The settings without Cenotaph's hooks, and without the groups, event lists and `hooks`
    object that held nothing else."""
    spec = AGENTS[agent]
    if current is None:
        return FileDraft(spec.path, None)
    data = loads(spec.path, current)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not any(_installed(hooks, e, agent) for e in hooks):
        return FileDraft(spec.path, current)
    for event in [e for e in hooks if isinstance(hooks[e], list)]:
        kept = []
        for group in hooks[event]:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list) and \
                    any(is_ours(h, agent) for h in group["hooks"]):
                group["hooks"] = [h for h in group["hooks"] if not is_ours(h, agent)]
                if not group["hooks"]:
                    continue
            kept.append(group)
        if kept or not hooks[event]:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks and "hooks" in data:
        del data["hooks"]
    return FileDraft(spec.path, dumps_like(current, data))

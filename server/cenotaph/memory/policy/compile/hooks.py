"""A coding agent's settings file with Cenotaph's hooks merged in or taken out: the person's other
keys and hooks stay as they are, byte for byte (jsonfile.Splice). Cenotaph's entries are the ones
whose command runs `cenotaph hook <agent>` (agent_hooks.is_ours), so an uninstall finds them after
the executable moved, and never touches a hook the person wrote."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cenotaph.memory.errors import Conflict
from cenotaph.memory.graveyard.enforce import EDIT_TOOLS, GEMINI_TOOLS, NOTEBOOK_TOOLS, SHELL_TOOLS
from cenotaph.memory.policy.agent_hooks import SCOPES, is_ours, settings_path
from cenotaph.memory.policy.compile.drafts import FileDraft
from cenotaph.memory.policy.compile.jsonfile import Node, Splice

__all__ = ["AGENTS", "SCOPES", "install", "settings_path", "uninstall"]  # the scopes, for compile.propose_hooks


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

"""Installing Cenotaph's hooks is a reviewed change: `propose_hooks` drafts the agent's settings
file as a compile proposal holding the file's sha256, and only a person's accept writes it, into
real files in the test's folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cenotaph.memory.errors import Conflict
from cenotaph.memory.policy import agent_hooks as hooks
from tests.conftest import HUMAN

PROJECT = "acme/app"
COMMAND = hooks.command("claude-code")
# The person's own settings: a permission, their own PreToolUse guard and a Stop hook.
THEIRS = {
    "permissions": {"allow": ["Bash(ls)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def install(memory, root: Path, agent: str = "claude-code", command: str = COMMAND, *, accept: bool = True):
    result = memory.propose_hooks(HUMAN, agent, install=True, project=PROJECT, root=root, command=command)
    if accept and result.proposal is not None:
        memory.accept_proposal(HUMAN, result.proposal.id)
    return result


def uninstall(memory, root: Path, agent: str = "claude-code"):
    result = memory.propose_hooks(HUMAN, agent, install=False, project=PROJECT, root=root, command=COMMAND)
    if result.proposal is not None:
        memory.accept_proposal(HUMAN, result.proposal.id)
    return result


def settings(root: Path, path: str = ".claude/settings.json") -> dict:
    return json.loads((root / path).read_text(encoding="utf-8"))


def ours(data: dict, event: str) -> list[dict]:
    return [h for g in data["hooks"].get(event, []) for h in g["hooks"] if h["command"] == COMMAND]


def test_install_into_an_absent_file_waits_for_accept_then_writes_every_event(memory, tmp_path):
    result = install(memory, tmp_path, accept=False)
    assert result.proposal is not None and result.proposal.action == "compile"
    assert not (tmp_path / ".claude").exists()  # proposed only
    memory.accept_proposal(HUMAN, result.proposal.id)
    data = settings(tmp_path)
    assert data["hooks"]["PreToolUse"] == [{"matcher": "Bash|Edit|MultiEdit|NotebookEdit|Write", "hooks": [
        {"type": "command", "command": COMMAND, "timeout": 30}]}]
    assert data["hooks"]["SessionStart"] == [{"hooks": [{"type": "command", "command": COMMAND, "timeout": 30}]}]
    assert data["hooks"]["SessionEnd"] == [{"hooks": [{"type": "command", "command": COMMAND, "timeout": 30}]}]


def test_install_keeps_the_persons_keys_and_hooks_and_reinstall_proposes_nothing(memory, tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(THEIRS, indent=4) + "\n")
    install(memory, tmp_path)
    data = settings(tmp_path)
    assert data["permissions"] == THEIRS["permissions"]
    assert data["hooks"]["Stop"] == THEIRS["hooks"]["Stop"]
    assert data["hooks"]["PreToolUse"][0] == THEIRS["hooks"]["PreToolUse"][0]
    assert len(ours(data, "PreToolUse")) == 1 and len(ours(data, "SessionStart")) == 1
    assert (tmp_path / ".claude" / "settings.json").read_text().startswith('{\n    "permissions"')  # its indent
    before = (tmp_path / ".claude" / "settings.json").read_bytes()
    again = install(memory, tmp_path, accept=False)
    assert again.proposal is None and again.files == []
    assert (tmp_path / ".claude" / "settings.json").read_bytes() == before
    # Installed with another command (an older install's path of one machine): ours are found and
    # only their command lines change, in place.
    moved = install(memory, tmp_path, command="cenotaph hook claude-code", accept=False)
    changed = [line for line in moved.files[0].diff.splitlines()[2:] if line[:1] in "+-"]
    assert len(changed) == 6 and all('"command":' in line for line in changed)


def test_uninstall_removes_only_cenotaphs_entries(memory, tmp_path):
    (tmp_path / ".claude").mkdir()
    mine = {**THEIRS, "hooks": {**THEIRS["hooks"], "SessionStart": [
        # The person's hook in the same group as ours stays when ours goes.
        {"hooks": [{"type": "command", "command": "echo hello"}]}]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(mine, indent=2) + "\n")
    install(memory, tmp_path)
    data = settings(tmp_path)
    data["hooks"]["SessionStart"][0]["hooks"].append({"type": "command", "command": "'/a b/cenotaph' hook claude-code"})
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(data, indent=2) + "\n")
    result = uninstall(memory, tmp_path)
    assert result.proposal is not None
    assert settings(tmp_path) == mine  # SessionEnd, which only Cenotaph used, is gone with its list
    assert uninstall(memory, tmp_path).proposal is None  # nothing of ours left: nothing proposed
    # A file holding only Cenotaph's hooks loses its `hooks` object too.
    other = tmp_path / "other"
    other.mkdir()
    install(memory, other)
    uninstall(memory, other)
    assert settings(other) == {}


def test_accept_refuses_when_the_file_changed_since_the_proposal(memory, tmp_path):
    (tmp_path / ".claude").mkdir()
    path = tmp_path / ".claude" / "settings.json"
    path.write_text(json.dumps(THEIRS) + "\n")
    result = install(memory, tmp_path, accept=False)
    path.write_text(json.dumps({**THEIRS, "model": "opus"}) + "\n")  # the person edits it meanwhile
    with pytest.raises(Conflict, match="changed since the proposal"):
        memory.accept_proposal(HUMAN, result.proposal.id)
    assert json.loads(path.read_text()) == {**THEIRS, "model": "opus"}
    # Positive control: proposed again against the file as it is now, it is written.
    install(memory, tmp_path)
    assert settings(tmp_path)["model"] == "opus" and len(ours(settings(tmp_path), "PreToolUse")) == 1


def test_a_settings_file_that_is_not_json_is_refused_naming_it(memory, tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{ // comments\n}\n")
    with pytest.raises(Conflict, match=r"\.claude/settings\.json is not plain JSON"):
        install(memory, tmp_path)


def test_gemini_gets_its_own_file_tool_names_and_milliseconds(memory, tmp_path):
    command = "cenotaph hook gemini"
    install(memory, tmp_path, "gemini", command)
    data = settings(tmp_path, ".gemini/settings.json")
    assert data == {"hooks": {
        "BeforeTool": [{"matcher": "replace|run_shell_command|write_file", "hooks": [
            {"name": "cenotaph", "type": "command", "command": command, "timeout": 30000}]}],
        "SessionStart": [{"hooks": [{"name": "cenotaph", "type": "command", "command": command, "timeout": 30000}]}],
    }}
    assert not (tmp_path / ".claude").exists()
    # Claude Code's hooks are another agent's: uninstalling them leaves Gemini's untouched.
    assert uninstall(memory, tmp_path, "claude-code").proposal is None
    uninstall(memory, tmp_path, "gemini")
    assert settings(tmp_path, ".gemini/settings.json") == {}


# The person's settings as people write them: compact (as `json.dumps` gives it), compact with no
# spaces, 4-space, tab-indented, CRLF line endings, and a file with no `hooks` yet.
FORMATS = {
    "compact": json.dumps(THEIRS),
    "compact-no-spaces": json.dumps(THEIRS, separators=(",", ":")) + "\n",
    "four-spaces": json.dumps(THEIRS, indent=4) + "\n",
    "tabs": json.dumps(THEIRS, indent="\t") + "\n",
    "crlf": json.dumps(THEIRS, indent=2).replace("\n", "\r\n") + "\r\n",
    "no-hooks": json.dumps({"model": "opus", "permissions": {"deny": []}}, indent=2) + "\n",
}


@pytest.mark.parametrize("layout", list(FORMATS))
def test_install_then_uninstall_leaves_the_file_byte_for_byte(memory, tmp_path, layout):
    (tmp_path / ".claude").mkdir()
    path = tmp_path / ".claude" / "settings.json"
    path.write_bytes(FORMATS[layout].encode("utf-8"))  # as written: no newline translation
    before = path.read_bytes()
    install(memory, tmp_path)
    installed = path.read_bytes()
    assert installed.startswith(before.rstrip(b"\r\n}")[:40])  # the person's bytes come first, as they were
    assert len(ours(settings(tmp_path), "PreToolUse")) == 1 and len(ours(settings(tmp_path), "SessionEnd")) == 1
    if layout == "crlf":
        assert installed.count(b"\n") == installed.count(b"\r\n")  # no bare LF added
    if layout.startswith("compact"):
        assert installed.count(b"\n") == before.count(b"\n")  # still one line
    if layout == "tabs":
        assert b"\n\t\t\t{\n\t\t\t\t\"matcher\": \"Bash|Edit|MultiEdit|NotebookEdit|Write\"" in installed
    assert install(memory, tmp_path, accept=False).proposal is None  # installed: nothing more to propose
    uninstall(memory, tmp_path)
    assert path.read_bytes() == before


def test_install_replaces_only_the_command_of_an_older_install(memory, tmp_path):
    """A committed file an older Cenotaph wrote (a path of one machine): the new install rewrites
    that command in place and nothing else."""
    (tmp_path / ".claude").mkdir()
    path = tmp_path / ".claude" / "settings.json"
    install(memory, tmp_path, command="/home/someone/.venv/bin/cenotaph hook claude-code")
    before = path.read_text(encoding="utf-8")
    install(memory, tmp_path)
    after = path.read_text(encoding="utf-8")
    assert after == before.replace("/home/someone/.venv/bin/cenotaph hook claude-code", json.dumps(COMMAND)[1:-1])

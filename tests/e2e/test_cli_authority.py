"""Agent authority holds in the shell: the real `cenotaph` run with the variables an agent's shell
tool sets (Claude Code, Gemini CLI, Codex) files proposals for a person's changes and changes
nothing else; the hook refuses such a call outright; and the installed hook command runs on
another machine (another HOME and PATH) or blocks, saying why."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CENOTAPH, person_of
from tests.e2e.test_cli import run
from tests.e2e.test_cli_enforce import PROJECT, hook, pre_tool_use, repo  # noqa: F401 (the fixture)
from tests.gitrepo import GitRepo

AGENTS = [({"CLAUDECODE": "1"}, "agent:claude-code"), ({"GEMINI_CLI": "1"}, "agent:gemini"),
          ({"CODEX_SANDBOX": "seatbelt"}, "agent:codex"), ({"CODEX_SANDBOX_NETWORK_DISABLED": "1"}, "agent:codex")]
PIP_INSTALL = {"command": "pip install requests"}


def proposals(env, cwd) -> list[dict]:
    return json.loads(run(env, "proposals", "--json", cwd=cwd).stdout)["proposals"]


def verdict(env, cwd, name: str) -> dict:
    return json.loads(run(env, "check", name, "--json", cwd=cwd).stdout)["results"][0]


@pytest.mark.parametrize(("marker", "actor"), AGENTS, ids=[next(iter(m)) for m, _ in AGENTS])
def test_an_agents_shell_files_proposals_and_the_block_holds(cli_env, db_path, repo, marker, actor):  # noqa: F811
    agent = {**cli_env, **marker}
    note = json.loads(run(agent, "remember", "The queue runs on Redis.", "--json", cwd=repo.root).stdout)["id"]
    suppressed = run(agent, "suppress", "requests", "--kind", "diagnostic", "--reason", "I need it", cwd=repo.root)
    reinstated = run(agent, "reinstate-approach", "requests", "--reason", "I need it", cwd=repo.root)
    forgotten = run(agent, "forget", str(note), "--reason", "stale", "--confirm", cwd=repo.root)
    refuted = run(agent, "refute", str(note), "--reason", "wrong", cwd=repo.root)
    unsilenced = run(agent, "unsuppress", "tqdm", "--kind", "diagnostic", "--reason", "noise", cwd=repo.root)
    hooks = run(agent, "hooks", "uninstall", "claude-code", cwd=repo.root)  # nothing installed: nothing to do
    installed = run(agent, "hooks", "install", "claude-code", cwd=repo.root)
    restored = run(agent, "restore", str(repo.root / "backup.db"), cwd=repo.root, check=False)
    assert restored.returncode == 2 and "only a person can restore" in restored.stderr
    for done in (suppressed, reinstated, forgotten, refuted, unsilenced, installed):
        assert "nothing has changed yet" in done.stdout and "Only a person can accept it" in done.stdout
        assert "tell the person what you proposed and why" in done.stdout
    assert "nothing to propose" in hooks.stdout and not (repo.root / ".claude").exists()
    pending = proposals(cli_env, repo.root)
    assert sorted(p["action"] for p in pending) == ["compile", "forget", "refute", "reinstate", "suppress",
                                                    "unsuppress"]
    assert {p["actor"] for p in pending} == {f"{actor} for {person_of(db_path)}"}  # for the person whose shell it is
    # Nor can it accept or reject them, its own or another's.
    for verb in ("accept", "reject"):
        refused = run(agent, verb, str(pending[0]["id"]), "--reason", "go", cwd=repo.root, check=False)
        assert refused.returncode == 2 and "only a person can accept or reject a proposal" in refused.stderr
    # Nothing changed: requests is blocked as before, the memory is there, tqdm still silenced.
    assert pre_tool_use(cli_env, repo, "Bash", PIP_INSTALL) is not None
    assert verdict(cli_env, repo.root, "requests")["status"] == "abandoned"
    assert verdict(cli_env, repo.root, "tqdm")["diagnostic_suppressed"] is True
    assert "The queue runs on Redis." in run(cli_env, "recall", "queue Redis", cwd=repo.root).stdout
    # The person accepts the suppression (in a terminal of their own): now the call passes.
    suppression = next(p["id"] for p in pending if p["action"] == "suppress")
    run(cli_env, "accept", str(suppression), cwd=repo.root)
    assert pre_tool_use(cli_env, repo, "Bash", PIP_INSTALL) is None


def test_a_persons_terminal_changes_at_once(cli_env, repo):  # noqa: F811
    """The positive control: no agent's variable, the same verbs act directly."""
    done = run(cli_env, "suppress", "requests", "--kind", "diagnostic", "--reason", "vendored", cwd=repo.root)
    assert "diagnostic suppression of requests in acme/app: active" in done.stdout
    assert pre_tool_use(cli_env, repo, "Bash", PIP_INSTALL) is None
    assert proposals(cli_env, repo.root) == []
    # An empty variable is no agent's mark either.
    run({**cli_env, "CLAUDECODE": ""}, "reinstate-approach", "moment", "--reason", "back", cwd=repo.root)
    assert verdict(cli_env, repo.root, "moment")["status"] == "reinstated"


REFUSED = [
    "cenotaph suppress requests --kind diagnostic --reason 'I need it'",
    ".venv/bin/cenotaph reinstate-approach requests --reason x",
    "cd app && python -m cenotaph.cli --project acme/app accept 3",
    "env -u CLAUDECODE cenotaph unsuppress tqdm --kind diagnostic --reason x",
    "bash -c 'cenotaph forget 4 --reason x --confirm'",
    "true; /opt/tools/bin/cenotaph hooks uninstall claude-code",
    "uv run cenotaph reject 2 --reason no",
    "(cenotaph share requests)",
    "CLAUDECODE= cenotaph refute 4 --reason x | cat",
]
PASSING = [
    "cenotaph check requests", "cenotaph proposals", "cenotaph recall 'suppress requests'",
    "grep -rn 'cenotaph suppress' docs", "echo cenotaph accept 3", "git commit -m 'cenotaph reinstate-approach'",
    "cenotaph abandon leftpad --reason 'one line'", "cenotaph --json check tqdm",
]


def test_the_hook_refuses_a_person_only_verb_and_passes_the_rest(cli_env, repo):  # noqa: F811
    for command in REFUSED:
        reason = pre_tool_use(cli_env, repo, "Bash", {"command": command})
        assert reason is not None and "is the person's decision, not yours" in reason, command
        assert "ask them to decide" in reason
    for command in PASSING:
        assert pre_tool_use(cli_env, repo, "Bash", {"command": command}) is None, command
    # Gemini CLI's shell tool, in its own shape.
    done = subprocess.run([CENOTAPH, "hook", "gemini"], env=cli_env, cwd=repo.root, capture_output=True, text=True,
                          input=json.dumps({"cwd": str(repo.root), "hook_event_name": "BeforeTool",
                                            "tool_name": "run_shell_command",
                                            "tool_input": {"command": "cenotaph suppress requests --kind "
                                                                      "diagnostic --reason x"}}), timeout=120)
    assert json.loads(done.stdout)["decision"] == "deny"


def test_a_denial_tells_the_agent_to_stop_and_ask_in_whole_sentences(cli_env, repo):  # noqa: F811
    reason = pre_tool_use(cli_env, repo, "Bash", PIP_INSTALL)
    assert reason is not None and reason.startswith("Stop: this call would bring back requests.")
    assert "replaced by httpx. Do not add requests in another way" in reason
    assert "stop and ask the person" in reason and "Do you want to bring it back?" in reason
    assert "cenotaph suppress" not in reason and "reinstate-approach" not in reason
    # No sentence runs into the next one ("… instead Do not …").
    assert not any(word[:1].isupper() and prev[-1:].isalpha() for prev, word in zip(reason.split(), reason.split()[1:])
                   if word in ("Do", "Use", "If", "Stop"))


def _installed_command(root: Path, event: str) -> str:
    data = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    return data["hooks"][event][-1]["hooks"][0]["command"]


def _teammate(cli_env, tmp_path: Path) -> dict[str, str]:
    """Another machine: its own HOME, a PATH without this venv (the store stays the test's)."""
    home = tmp_path / "teammate"
    home.mkdir(exist_ok=True)
    return {**cli_env, "HOME": str(home), "PATH": "/usr/bin:/bin"}


def _run_installed(command: str, env: dict[str, str], root: Path, payload: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps({"cwd": str(root), **payload}), cwd=root,
                          env={**env, "CLAUDE_PROJECT_DIR": str(root)}, capture_output=True, text=True, timeout=120)


def test_the_committed_hook_runs_on_another_machine_or_blocks_saying_why(cli_env, repo, tmp_path):  # noqa: F811
    out = json.loads(run(cli_env, "hooks", "install", "claude-code", "--json", cwd=repo.root).stdout)
    run(cli_env, "accept", str(out["proposal"]["id"]), cwd=repo.root)
    settings = (repo.root / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert str(Path(CENOTAPH).parent) not in settings and str(Path.home()) not in settings  # no path of this machine
    command = _installed_command(repo.root, "PreToolUse")
    teammate = _teammate(cli_env, tmp_path)
    pre = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": PIP_INSTALL}
    # After their `make setup`: the project's .venv/bin/cenotaph answers.
    (repo.root / ".venv" / "bin").mkdir(parents=True)
    (repo.root / ".venv" / "bin" / "cenotaph").symlink_to(CENOTAPH)
    done = _run_installed(command, teammate, repo.root, pre)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # On PATH instead (pipx): found there.
    (repo.root / ".venv" / "bin" / "cenotaph").unlink()
    done = _run_installed(command, {**teammate, "PATH": f"{Path(CENOTAPH).parent}:/usr/bin:/bin"}, repo.root, pre)
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # Nowhere: exit 2, which blocks the call and shows why, for an install that passes too.
    for payload in (pre, {**pre, "tool_input": {"command": "ls"}}, {"hook_event_name": "SessionStart"}):
        done = _run_installed(command, teammate, repo.root, payload)
        assert done.returncode == 2 and done.stdout == ""
        assert "hook cannot run here" in done.stderr and "this call is blocked" in done.stderr
    # One that cannot start (its interpreter is gone): blocked too, not a 127 that lets it through.
    broken = repo.root / ".venv" / "bin" / "cenotaph"
    broken.write_text("#!/nonexistent/python\n", encoding="utf-8")
    broken.chmod(0o755)
    done = _run_installed(command, teammate, repo.root, pre)
    assert done.returncode == 2 and "this call is blocked" in done.stderr
    # doctor, from a terminal whose PATH has no cenotaph, says the installed hook cannot run.
    broken.unlink()
    doctor = subprocess.run([CENOTAPH, "doctor", "--json"], env=teammate, cwd=repo.root, capture_output=True,
                            text=True, timeout=120)
    assert any("finds no cenotaph" in line for line in json.loads(doctor.stdout)["hooks"])
    # Positive control: with cenotaph on PATH, doctor finds nothing to say about the hooks.
    fine = run({**teammate, "PATH": f"{Path(CENOTAPH).parent}:/usr/bin:/bin"}, "doctor", "--json", cwd=repo.root)
    assert json.loads(fine.stdout)["hooks"] == []


def test_an_old_install_with_a_path_of_one_machine_is_reported_and_rewritten(cli_env, repo, tmp_path):  # noqa: F811
    (repo.root / ".claude").mkdir()
    old = {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit|MultiEdit|Write", "hooks": [
        {"type": "command", "command": "/home/someone/app/.venv/bin/cenotaph hook claude-code", "timeout": 30}]}]}}
    (repo.root / ".claude" / "settings.json").write_text(json.dumps(old, indent=2) + "\n", encoding="utf-8")
    doctor = json.loads(run(cli_env, "doctor", "--json", cwd=repo.root).stdout)
    assert any("/home/someone/app/.venv/bin/cenotaph, which is not on this machine" in line for line in doctor["hooks"])
    started = hook(cli_env, {"hook_event_name": "SessionStart", "source": "startup"}, repo.root)
    assert "which is not on this machine" in json.loads(started.stdout)["systemMessage"]
    out = json.loads(run(cli_env, "hooks", "install", "claude-code", "--json", cwd=repo.root).stdout)
    run(cli_env, "accept", str(out["proposal"]["id"]), cwd=repo.root)
    assert _installed_command(repo.root, "PreToolUse").startswith("for cenotaph in ")
    assert "/home/someone" not in (repo.root / ".claude" / "settings.json").read_text(encoding="utf-8")


def test_local_scope_writes_the_uncommitted_file_and_accept_names_the_command_again(cli_env, repo):  # noqa: F811
    out = json.loads(run(cli_env, "hooks", "install", "claude-code", "--local", "--json", cwd=repo.root).stdout)
    local = repo.root / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("{}\n", encoding="utf-8")  # the person's edit meanwhile
    refused = run(cli_env, "accept", str(out["proposal"]["id"]), cwd=repo.root, check=False)
    assert "propose it again with `cenotaph hooks install claude-code --local`" in refused.stderr
    out = json.loads(run(cli_env, "hooks", "install", "claude-code", "--local", "--json", cwd=repo.root).stdout)
    run(cli_env, "accept", str(out["proposal"]["id"]), cwd=repo.root)
    assert "PreToolUse" in json.loads(local.read_text(encoding="utf-8"))["hooks"]
    assert not (repo.root / ".claude" / "settings.json").exists()
    gemini = run(cli_env, "hooks", "install", "gemini", "--local", cwd=repo.root, check=False)
    assert gemini.returncode == 2 and "gemini has no local settings file" in gemini.stderr

"""The graveyard enforced where agents act: the real `cenotaph hook claude-code` fed Claude Code's
hook JSON on stdin, in a real git repository, over the test's store."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CENOTAPH, HUMAN, cli_memory, cli_store
from tests.e2e.test_cli import run
from tests.gitrepo import GitRepo
from tests.memory.test_mine_transcripts import Claude, slug

PROJECT = "acme/app"


@pytest.fixture
def repo(tmp_path: Path, cli_env, embedder, analyzer) -> GitRepo:
    repo = GitRepo(tmp_path / "app")
    repo.commit("Start", {".cenotaph.toml": f'project = "{PROJECT}"\n', "requirements.txt": "flask\n",
                          "app.py": "import os\nimport requests\n"})
    with cli_memory(cli_env, embedder, analyzer) as memory:
        memory.abandon(HUMAN, "requests", ecosystem="pypi", effort=3, project=PROJECT,
                       reason="Blocks the event loop in our async workers; replaced by httpx.")
        memory.abandon(HUMAN, "moment", ecosystem="npm", project=PROJECT,
                       reason="Huge and mutable; replaced by date-fns.")
        memory.abandon(HUMAN, "tqdm", ecosystem="pypi", project=PROJECT, reason="Garbles CI logs.")
        memory.suppress(HUMAN, "tqdm", kind="diagnostic", project=PROJECT, reason="fine in notebooks here")
    return repo


def hook(env, payload: dict, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CENOTAPH, "hook", "claude-code"], input=json.dumps({"cwd": str(cwd), **payload}),
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def pre_tool_use(env, repo: GitRepo, tool_name: str, tool_input: dict) -> str | None:
    """The reason the hook denies the call with, or None when it lets it pass."""
    done = hook(env, {"hook_event_name": "PreToolUse", "session_id": "s1", "transcript_path": "/dev/null",
                      "tool_name": tool_name, "tool_input": tool_input}, repo.root)
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return None
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse" and decision["permissionDecision"] == "deny"
    return decision["permissionDecisionReason"]


def test_installs_of_an_abandoned_package_are_denied_with_the_reason(cli_env, repo):
    reason = pre_tool_use(cli_env, repo, "Bash", {"command": "cd app && uv pip install -U 'requests>=2' rich"})
    assert reason is not None
    assert "requests (pypi) was abandoned in this project after effort 3/5" in reason
    assert "replaced by httpx" in reason and "ask the person" in reason
    # The agent is told to ask, not how to lift the block itself.
    assert "reinstate-approach" not in reason and "cenotaph suppress" not in reason
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "poetry add requests"}) is not None
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "pnpm add -D moment@2"}) is not None
    # Beside them in the same store: another ecosystem's namesake, a silenced name, a removal,
    # a clear package and calls that install nothing pass untouched.
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "npm install requests"}) is None
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "pip install moment"}) is None
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "pip install tqdm"}) is None
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "pip uninstall -y requests"}) is None
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "pip install httpx"}) is None
    assert pre_tool_use(cli_env, repo, "Bash", {"command": "grep -rn 'import requests' ."}) is None
    assert pre_tool_use(cli_env, repo, "Read", {"file_path": str(repo.root / "app.py")}) is None


def test_edits_are_denied_only_for_the_abandoned_names_they_add(cli_env, repo):
    manifest = str(repo.root / "requirements.txt")
    assert pre_tool_use(cli_env, repo, "Edit", {"file_path": manifest, "old_string": "flask\n",
                                                "new_string": "flask\nrequests==2.32\n"}) is not None
    assert pre_tool_use(cli_env, repo, "Edit", {"file_path": manifest, "old_string": "flask\n",
                                                "new_string": "flask\nhttpx\n"}) is None
    # app.py imports requests already: an edit elsewhere in it adds nothing abandoned.
    source = str(repo.root / "app.py")
    assert pre_tool_use(cli_env, repo, "Edit", {"file_path": source, "old_string": "import os\n",
                                                "new_string": "import os\nimport sys\n"}) is None
    assert pre_tool_use(cli_env, repo, "Write", {"file_path": str(repo.root / "client.py"),
                                                 "content": "from requests import Session\n"}) is not None
    assert pre_tool_use(cli_env, repo, "MultiEdit", {"file_path": str(repo.root / "package.json"), "edits": [
        {"old_string": "", "new_string": '{"dependencies": {"moment": "^2.30.0"}}'}]}) is not None
    assert pre_tool_use(cli_env, repo, "Write", {"file_path": str(repo.root / "NOTES.md"),
                                                 "content": "We dropped requests for httpx.\n"}) is None


def test_session_start_briefs_the_graveyard_in_at_most_2000_characters(cli_env, repo, embedder, analyzer):
    with cli_memory(cli_env, embedder, analyzer) as memory:
        for n in range(60):
            memory.abandon(HUMAN, f"legacy-lib-{n}", ecosystem="pypi", project=PROJECT,
                           reason="Unmaintained since 2019. " * 4)
    done = hook(cli_env, {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}, repo.root)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    context = output["additionalContext"]
    assert output["hookEventName"] == "SessionStart"
    assert len(context) <= 2000
    assert "requests (pypi): Blocks the event loop" in context and context.rstrip().endswith("answers for any name.")
    # Hooks alone give the agent no MCP tools: it is told what its shell can do instead.
    assert "`cenotaph check NAME` in the shell" in context


def test_session_start_tells_the_person_when_the_graveyard_is_empty(cli_env, repo, tmp_path):
    empty = GitRepo(tmp_path / "fresh")  # a teammate's clone before anything is shared
    empty.commit("Start", {".cenotaph.toml": 'project = "acme/fresh"\n', "requirements.txt": "flask\n"})
    payload = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}
    for agent in ("claude-code", "gemini"):
        done = subprocess.run([CENOTAPH, "hook", agent], input=json.dumps({"cwd": str(empty.root), **payload}),
                              env=cli_env, cwd=empty.root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"systemMessage": (
            "Cenotaph: the graveyard is empty here (nothing abandoned in this project's store, globally, or shared "
            "in the repository's .cenotaph/), so its hooks block nothing. Record a dead end with `cenotaph abandon "
            "NAME`, or share the team's with `cenotaph share NAME`.")}, agent
    # Positive control: a project with a graveyard is briefed and gets no notice.
    briefed = json.loads(hook(cli_env, payload, repo.root).stdout)
    assert "systemMessage" not in briefed and "requests (pypi)" in briefed["hookSpecificOutput"]["additionalContext"]


def test_session_end_mines_the_transcript_in_the_background(cli_env, repo, tmp_path):
    # The miner takes a bare word for a package only when the project declares it (or the
    # session installed it), so that "remove the file" names nothing.
    repo.commit("Data", {"requirements.txt": "flask\npandas\n"})
    claude = tmp_path / "claude"
    session = Claude(claude / "projects" / slug(repo.root) / "s1.jsonl", "s1", repo.root)
    session.says("stop using pandas, we use polars")
    env = {**cli_env, "CODEX_HOME": str(tmp_path / "no-codex")}
    started = time.monotonic()
    done = hook(env, {"hook_event_name": "SessionEnd", "reason": "exit", "session_id": "s1",
                      "transcript_path": str(session.path)}, repo.root)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    returned = time.monotonic() - started
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        listed = json.loads(run(env, "proposals", "--json", cwd=repo.root).stdout)["proposals"]
        if listed:
            break
        time.sleep(0.5)
    assert [p["arguments"]["name"] for p in listed] == ["pandas"]
    # The cursor moved: nothing is read twice.
    again = json.loads(run(env, "mine", "transcripts", "--json", "--claude-dir", str(claude), cwd=repo.root).stdout)
    assert again["files"] == 1 and again["files_read"] == 0
    # The hook returned before the child's mining was done (a person's exit is not held up).
    assert returned < 30


def test_a_broken_hook_fails_open_with_one_line(cli_env, repo, tmp_path):
    done = subprocess.run([CENOTAPH, "hook", "claude-code"], input="not json", env=cli_env, cwd=repo.root,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("cenotaph hook: not checked, the call goes ahead")
    unreadable = {**cli_env, "CENOTAPH_STORE": str(tmp_path)}  # a folder is no store
    done = hook(unreadable, {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                             "tool_input": {"command": "pip install requests"}}, repo.root)
    assert done.returncode == 1 and done.stderr.startswith("cenotaph hook: not checked")
    # The same broken store is never opened for a call that installs nothing.
    done = hook(unreadable, {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
                repo.root)
    assert done.returncode == 0 and done.stderr == ""


def test_the_hook_loads_neither_the_embedding_model_nor_spacy(cli_env, repo):
    script = ("import sys\nfrom cenotaph.cli import main\nstatus = main(['hook', 'claude-code'])\n"
              "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'onnxruntime', 'fastembed', "
              "'spacy', 'tokenizers'})\nprint('HEAVY', heavy, status)\n")
    # Each event that reads the store: a decision, and the brief a session starts with.
    for payload, answered in (({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                "tool_input": {"command": "pip install requests"}}, '"permissionDecision": "deny"'),
                              ({"hook_event_name": "SessionStart", "source": "startup"}, "requests (pypi): Blocks")):
        done = subprocess.run([sys.executable, "-c", script], input=json.dumps({"cwd": str(repo.root), **payload}),
                              env=cli_env, cwd=repo.root, capture_output=True, text=True, timeout=120)
        assert answered in done.stdout  # it did answer
        assert done.stdout.rstrip().endswith("HEAVY [] 0"), done.stdout + done.stderr


def test_the_hook_imports_its_own_verb_alone(cli_env, repo):
    script = ("import sys\nfrom cenotaph.cli import main\nstatus = main(sys.argv[1:])\n"
              "print('LOADED', sorted(m for m in sys.modules if m.startswith(('cenotaph.cli.commands.', "
              "'cenotaph.memory.models', 'cenotaph.memory.service'))), status)\n")

    def loaded(*argv: str, command: str) -> str:
        done = subprocess.run([sys.executable, "-c", script, *argv], env=cli_env, cwd=repo.root, text=True,
                              input=json.dumps({"cwd": str(repo.root), "hook_event_name": "PreToolUse",
                                                "tool_name": "Bash", "tool_input": {"command": command}}),
                              capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    # The words an agent's settings run: no other verb's module, and for a call that installs
    # nothing not even the domain's models.
    assert loaded("hook", "claude-code", command="ls").endswith("LOADED ['cenotaph.cli.commands.enforce'] 0\n")
    denied = loaded("hook", "claude-code", command="pip install requests")
    # On SQLite the graveyard's file beside the store answered, without even the models
    # (tests/e2e/test_graveyard_file.py); a PostgreSQL store answers itself.
    assert '"permissionDecision": "deny"' in denied
    assert ("'cenotaph.memory.models'" in denied) == ("CENOTAPH_STORE" in cli_env)
    assert "cenotaph.cli.commands.mining" not in denied
    # A global option before the verb takes the whole parser, and answers the same.
    full = loaded("--project", PROJECT, "hook", "claude-code", command="pip install requests")
    assert '"permissionDecision": "deny"' in full and "cenotaph.cli.commands.mining" in full


# What a decision leaves out (issue 42): the argument parser, a child process's module, the settings
# and the embedder's module, the store's other rows, the modules of what its call does not read,
# `ast` (setup.py's reader alone imports it) and `inspect` (tokenize is its import); dataclasses
# too, unless the graveyard's rows are read (a denial).
LEFT_OUT = ("argparse", "subprocess", "configparser", "csv", "cenotaph.cli.parsing", "cenotaph.config",
            "cenotaph.nlp.embedder", "cenotaph.store.records", "cenotaph.nlp.detect", "cenotaph.nlp.ecosystems.tomlscan",
            "ast", "tokenize", "dataclasses")


@pytest.mark.sqlite_only("on PostgreSQL the store answers a denial itself, with the modules it needs")
def test_a_decision_leaves_out_the_parser_and_what_its_call_does_not_read(cli_env, repo):
    script = ("import sys\nfrom cenotaph.cli import main\nstatus = main(sys.argv[1:])\n"
              f"print('LOADED', sorted(m for m in {LEFT_OUT!r} if m in sys.modules), status)\n")

    def decide(tool_name: str, tool_input: dict, *words: str) -> tuple[bool, list[str]]:
        done = subprocess.run([sys.executable, "-c", script, *words], env=cli_env, cwd=repo.root, text=True,
                              input=json.dumps({"cwd": str(repo.root), "hook_event_name": "PreToolUse",
                                                "tool_name": tool_name, "tool_input": tool_input}),
                              capture_output=True, timeout=120, check=False)
        assert done.returncode == 0 and done.stdout.rstrip().endswith(" 0"), done.stdout + done.stderr
        loaded = done.stdout.rstrip().rsplit("LOADED ", 1)[1].rsplit(" ", 1)[0]
        return '"permissionDecision": "deny"' in done.stdout, json.loads(loaded.replace("'", '"'))

    install = {"command": "pip install requests"}
    assert decide("Bash", install, "hook", "claude-code") == (True, ["dataclasses"])
    assert decide("Bash", {"command": "pip list"}, "hook", "claude-code") == (False, [])
    assert decide("Bash", install, "hook", "--db", str(cli_store(cli_env)), "claude-code") == (True, ["dataclasses"])
    # Positive controls: a form of the words the parser reads (an abbreviated option) loads it,
    # and decides the same; an edit of a manifest loads the detectors it reads the file with.
    denied, loaded = decide("Bash", install, "hook", "--proj", PROJECT, "claude-code")
    assert denied and {"argparse", "cenotaph.cli.parsing"} <= set(loaded)
    denied, loaded = decide("Write", {"file_path": str(repo.root / "requirements.txt"), "content": "flask\nrequests\n"},
                            "hook", "claude-code")
    assert denied and loaded == ["cenotaph.nlp.detect", "dataclasses"]
    # setup.py is read with ast.
    denied, loaded = decide("Write", {"file_path": str(repo.root / "setup.py"),
                                      "content": "from setuptools import setup\nsetup(install_requires=['requests'])\n"},
                            "hook", "claude-code")
    assert denied and "ast" in loaded


def test_inspect_put_off_becomes_the_real_module_at_first_use():
    script = ("import sys\nfrom cenotaph.cli.commands.enforce import defer_inspect\ndefer_inspect()\n"
              "import dataclasses\nprint('tokenize' in sys.modules)\n"
              "@dataclasses.dataclass\nclass Row:\n    x: int\n"
              "print(Row.__doc__, 'tokenize' in sys.modules)\n"
              "import inspect\nprint(inspect.signature(Row), inspect.isclass(Row))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    # A class without a docstring is where dataclasses uses inspect: the real one loads then.
    assert done.stdout.splitlines() == ["False", "Row(x: int) True", "(x: int) -> None True"]


@pytest.mark.parametrize("words", [
    ["claude-code"], ["gemini"], ["claude-code", "--db", "x.db"], ["--db=x.db", "gemini"], ["--project=", "gemini"],
    ["claude-code", "--project", "a/b", "--json"], ["--json", "claude-code", "--db", "1", "--db", "2"],
])
def test_the_hooks_words_read_without_argparse_as_the_parser_reads_them(words):
    from cenotaph.cli import build_parser
    from cenotaph.cli.commands.enforce import hook, hook_arguments

    assert vars(hook_arguments(words)) == vars(build_parser((hook,)).parse_args(["hook", *words]))


@pytest.mark.parametrize("words", [
    ["--help"], ["-h"], [], ["codex"], ["claude-code", "gemini"], ["claude-code", "--proj", "a/b"],
    ["claude-code", "--db"], ["claude-code", "--db", "--json"], ["--json=1", "claude-code"], ["claude-code", "--", "x"],
    ["claude-code", "-"],
])
def test_every_other_form_of_the_hooks_words_is_left_to_the_parser(words):
    from cenotaph.cli import build_parser
    from cenotaph.cli.commands.enforce import hook, hook_arguments

    assert hook_arguments(words) is None
    if words == ["claude-code", "--proj", "a/b"]:  # positive control: one the parser reads, abbreviated
        assert build_parser((hook,)).parse_args(["hook", *words]).project == "a/b"


def gemini_before_tool(env, repo: GitRepo, tool_name: str, tool_input: dict) -> str | None:
    """Gemini CLI's BeforeTool answered by `cenotaph hook gemini`: the reason it denies with, or None."""
    done = subprocess.run([CENOTAPH, "hook", "gemini"], env=env, cwd=repo.root, capture_output=True, text=True,
                          input=json.dumps({"cwd": str(repo.root), "hook_event_name": "BeforeTool",
                                            "session_id": "g1", "timestamp": "2026-01-05T10:00:00Z",
                                            "tool_name": tool_name, "tool_input": tool_input}), timeout=120)
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return None
    answer = json.loads(done.stdout)
    assert answer["decision"] == "deny" and set(answer) == {"decision", "reason"}
    return answer["reason"]


def test_gemini_tool_calls_are_translated_and_denied_with_its_decision(cli_env, repo):
    reason = gemini_before_tool(cli_env, repo, "run_shell_command", {"command": "pip install requests"})
    assert reason is not None and "requests (pypi) was abandoned in this project" in reason
    manifest = str(repo.root / "requirements.txt")
    assert gemini_before_tool(cli_env, repo, "replace", {"file_path": manifest, "old_string": "flask\n",
                                                         "new_string": "flask\nrequests\n"}) is not None
    # Positive controls beside them: a clear package, a read, and Claude Code's tool name (not Gemini's).
    assert gemini_before_tool(cli_env, repo, "run_shell_command", {"command": "pip install httpx"}) is None
    assert gemini_before_tool(cli_env, repo, "read_file", {"file_path": manifest}) is None
    assert gemini_before_tool(cli_env, repo, "Bash", {"command": "pip install requests"}) is None


def test_hooks_install_user_proposes_then_accept_writes_under_home(cli_env, repo, tmp_path):
    home = tmp_path / "person"
    home.mkdir()
    env = {**cli_env, "HOME": str(home), "PATH": f"{Path(CENOTAPH).parent}:{cli_env['PATH']}"}
    out = run(env, "hooks", "install", "claude-code", "--user", "--json", cwd=repo.root).stdout
    proposal = json.loads(out)["proposal"]["id"]
    assert not (home / ".claude").exists()
    run(env, "accept", str(proposal), cwd=repo.root)
    written = json.loads((home / ".claude" / "settings.json").read_text())
    # The portable command, which also names the `cenotaph` found on PATH (the home folder is this
    # machine's); and nothing in the repository.
    assert f"'{CENOTAPH}'" in written["hooks"]["PreToolUse"][0]["hooks"][0]["command"] or \
        f" {CENOTAPH} " in written["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert not (repo.root / ".claude").exists()

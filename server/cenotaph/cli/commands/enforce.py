"""The graveyard enforced where agents and CI act: `hook claude-code` and `hook gemini` (Claude
Code's or Gemini CLI's hook events on stdin) and `lint` (a repository's manifests and source, as text, JSON or SARIF). Neither opens
the domain stack behind `Memory`: they read the graveyard alone (`app.open_enforcer`), so a hook
on every tool call stays near a bare Python start."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from cenotaph.cli.common import Subcommands

    Arguments = argparse.Namespace | SimpleNamespace  # the parser's, or `hook_arguments`'

# Each agent's name for the event before a tool call runs.
TOOL_EVENTS = {"claude-code": "PreToolUse", "gemini": "BeforeTool"}
AGENTS = tuple(TOOL_EVENTS)
BRIEF_LIMIT = 2000


def main(args: Arguments) -> int:
    """The entry `cenotaph` hands these verbs to (they open no `Memory`, so not `common.run`)."""
    return args.direct(args)


# --- hook --------------------------------------------------------------------------------------

# The global options (cli/parsing.py), by whether they take a value.
_OPTIONS = {"--db": True, "--project": True, "--json": False}


def hook_arguments(words: list[str]) -> SimpleNamespace | None:
    """The words after `hook` as the parser reads them (`hook` below), for their plain forms
    (the agent, and the global options spelt out, `--db PATH` or `--db=PATH`), without importing
    argparse: an agent runs them on every tool call. None for any other form, which the parser
    then reads (or refuses) itself."""
    found: dict[str, Any] = {"db": None, "project": None, "json": False}
    agents = []
    rest = iter(words)
    for word in rest:
        if not word.startswith("-"):
            agents.append(word)
            continue
        option, equals, value = word.partition("=")
        if option not in _OPTIONS or (equals and not _OPTIONS[option]):
            return None
        if _OPTIONS[option] and not equals:
            value = next(rest, "-")
        if value.startswith("-"):  # missing, or a word argparse reads as an option
            return None
        found[option[2:]] = value if _OPTIONS[option] else True
    if len(agents) != 1 or agents[0] not in AGENTS:
        return None
    return SimpleNamespace(command="hook", agent=agents[0], **found, handler=None, entry=__name__, direct=cmd_hook)


def cmd_hook(args: Arguments) -> int:
    """One hook event. A failure of the hook itself fails open: exit 1 is a non-blocking error
    to both agents, which show the one line and let the call go ahead."""
    try:
        payload = json.load(sys.stdin)
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        event = payload.get("hook_event_name")
        cwd = Path(payload["cwd"]) if isinstance(payload.get("cwd"), str) else Path.cwd()
        if event == TOOL_EVENTS[args.agent]:
            return _pre_tool_use(args, payload, cwd)
        if event == "SessionStart":
            return _session_start(args, cwd)
        if event == "SessionEnd" and args.agent == "claude-code":
            return _session_end(args, payload, cwd)
        return 0
    except Exception as exc:  # noqa: BLE001 - a broken hook must never block unrelated work
        sys.stderr.write(f"cenotaph hook: not checked, the call goes ahead ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())[:200]})\n")
        return 1


def _pre_tool_use(args: Arguments, payload: dict[str, Any], cwd: Path) -> int:
    from cenotaph.memory.graveyard.enforce import from_gemini, tool_call_names

    tool_name = str(payload.get("tool_name", ""))
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    if args.agent == "gemini":
        tool_name, tool_input = from_gemini(tool_name, tool_input)
    if tool_name == "Bash" and isinstance(tool_input.get("command"), str):
        from cenotaph.cli.authority import person_only_verb

        if (verb := person_only_verb(tool_input["command"])) is not None:
            return _deny(args, _person_only(verb))
    named = tool_call_names(tool_name, tool_input, cwd)
    if not named:
        return 0  # neither an install nor an edit that adds a dependency: the store stays closed
    defer_inspect()
    from cenotaph.app import open_enforcer

    enforcer = open_enforcer(cwd, db=args.db, project=args.project)
    try:
        findings = enforcer.judge(named)
    finally:
        enforcer.close()
    if findings:
        return _deny(args, "\n".join(dict.fromkeys(f.denial() for f in findings)))
    return 0


def defer_inspect() -> None:
    """Put off importing `inspect` until something uses it. The graveyard's rows are dataclasses,
    and Python 3.11's dataclasses module imports inspect (with ast, dis and tokenize: ≈ 3.5 ms, a
    tenth of a denial) only to write a docstring for a class that has none; the rows have theirs.
    A stand-in takes inspect's place in `sys.modules` and becomes the real module at first use."""
    if "inspect" in sys.modules:
        return
    import types

    stand_in = types.ModuleType("inspect")

    def load(name: str) -> Any:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
        import inspect

        stand_in.__dict__.update(inspect.__dict__)  # later lookups find it without this function
        return getattr(inspect, name)

    stand_in.__getattr__ = load  # type: ignore[method-assign]  (a module's __getattr__, PEP 562)
    sys.modules["inspect"] = stand_in


def _deny(args: Arguments, reason: str) -> int:
    # Gemini CLI sends a denial's reason to the agent as the tool's error.
    denial = {"decision": "deny", "reason": reason} if args.agent == "gemini" else \
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                "permissionDecisionReason": reason}}
    json.dump(denial, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _person_only(verb: str) -> str:
    """Why an agent may not run `cenotaph VERB`, and what it does instead."""
    return (f"Stop: `cenotaph {verb}` is the person's decision, not yours. It changes what Cenotaph blocks, "
            f"keeps or shares, and from your shell it would only file a proposal for the person. Do not run it "
            f"another way. Tell the person what you wanted to do and why, and ask them to decide (in their editor, "
            f"or in a terminal of their own). Meanwhile `cenotaph check NAME` and `cenotaph proposals` stay open "
            f"to you.")


def _session_start(args: Arguments, cwd: Path) -> int:
    from cenotaph.app import open_enforcer
    from cenotaph.memory.policy.agent_hooks import problems
    from cenotaph.project import repository_root

    from cenotaph.memory.graveyard.enforce import EMPTY_GRAVEYARD

    enforcer = open_enforcer(cwd, db=args.db, project=args.project)
    try:
        brief = enforcer.brief(BRIEF_LIMIT)
        empty = enforcer.size() == 0
    finally:
        enforcer.close()
    # Cenotaph's hooks that are installed but cannot run (here, or on a teammate's machine): the
    # person is told, since a hook that cannot start is silent on every call after this one.
    broken = problems(args.agent, repository_root(cwd) or cwd, Path.home())
    output: dict[str, Any] = {}
    if brief:
        output["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": brief}
    notices = ["Cenotaph's hooks cannot run as installed:\n" + "\n".join(broken)] if broken else []
    if empty:  # the person is told that the hooks are on but hold nothing back
        notices.append(f"Cenotaph: {EMPTY_GRAVEYARD}, so its hooks block nothing. Record a dead end with "
                       "`cenotaph abandon NAME`, or share the team's with `cenotaph share NAME`.")
    if notices:
        output["systemMessage"] = "\n".join(notices)
    if output:
        json.dump(output, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    return 0


def _session_end(args: Arguments, payload: dict[str, Any], cwd: Path) -> int:
    """Mine the session's transcript in a detached child (`cenotaph mine transcripts`, whose
    cursors read each file only once): the agent exits without waiting for it."""
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return 0
    # <claude folder>/projects/<slug>/<session>.jsonl
    claude_dir = Path(transcript).expanduser().parent.parent.parent
    command = [sys.executable, "-m", "cenotaph.cli", "mine", "transcripts", "--claude-dir", str(claude_dir)]
    command += [option for name in ("db", "project") if (value := getattr(args, name)) for option in
                (f"--{name}", value)]
    import subprocess  # here: a decision, on every tool call, starts no process

    subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, env=os.environ.copy())
    return 0


def hook(commands: Subcommands) -> None:
    p = commands.parsers.add_parser(
        "hook", parents=[commands.common], help="answer an agent's hook event (JSON on stdin)",
        description="Answer a coding agent's hook event read from stdin. PreToolUse (Gemini CLI: BeforeTool): deny a shell command that "
                    "installs an abandoned package, or an edit that adds one to a manifest or an import to source. "
                    "SessionStart: the graveyard and open contradictions as context. SessionEnd (Claude Code): "
                    "mine the session's transcript in the background. A failure of the hook exits 1 with one line on "
                    "stderr, which the agent treats as a non-blocking error.")
    p.add_argument("agent", choices=AGENTS)
    p.set_defaults(handler=None, entry=__name__, direct=cmd_hook)

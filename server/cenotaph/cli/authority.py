"""Who is at the command line: a person, or a coding agent running `cenotaph` through its shell
tool. An agent's person-only changes become proposals (memory/proposals.py), as over MCP, and
the agent's hook refuses a shell call that runs one. Nothing here imports the domain: the hook
reads it on every tool call."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping

# What each agent sets in the environment of the commands its shell tool runs (a variable, then
# any of them marks the agent):
# - Claude Code: CLAUDECODE=1 (anthropics/claude-code#33815 shows `env` inside its Bash tool).
# - Gemini CLI: GEMINI_CLI=1 (gitlab-org/cli merge request 3293 runs `env | grep GEMINI` in its shell tool).
# - OpenAI Codex CLI: CODEX_SANDBOX (`seatbelt` under macOS's sandbox) and CODEX_SANDBOX_NETWORK_DISABLED=1
#   (codex-rs core/src/spawn.rs), CODEX_THREAD_ID in newer releases; stripe-cli's agent detection
#   reads the same variables.
MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("claude-code", ("CLAUDECODE",)),
    ("gemini", ("GEMINI_CLI",)),
    ("codex", ("CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID")),
)

# Verbs only a person carries out: from an agent they become proposals (or are refused, as
# accept and reject are), and the hook refuses a shell call that runs them.
PERSON_ONLY = frozenset({
    "suppress", "unsuppress", "reinstate-approach", "forget", "refute", "confirm", "resolve", "accept", "reject",
    "share", "unshare", "hooks", "bless", "restore",
})
# The global options that take a value (cli/parsing.py): what follows them is not the verb.
_VALUED_OPTIONS = frozenset({"--db", "--project"})
# Words that run the command after them (with their options): `sudo`, `env -u X`, `nice -n 10`, `uv run`.
_WRAPPERS = frozenset({"sudo", "env", "nice", "nohup", "time", "exec", "command", "timeout", "xargs", "doas"})
_RUNNERS = {"uv": "run", "poetry": "run", "pdm": "run", "hatch": "run", "pipx": "run", "rye": "run"}
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python[0-9.]*$")


def agent_in(environ: Mapping[str, str]) -> str | None:
    """The agent whose tool runs this process, by the variables it sets; None for a person."""
    for agent, variables in MARKERS:
        if any(environ.get(variable) for variable in variables):
            return agent
    return None


def person_only_verb(command: str) -> str | None:
    """The person-only `cenotaph` verb a shell command line runs (`cenotaph suppress …`,
    `.venv/bin/cenotaph accept 3`, `python -m cenotaph.cli forget …`, in a chain, a pipeline,
    a subshell, behind `env -u CLAUDECODE` or `bash -c "…"`), or None."""
    for words in _simple_commands(command):
        verb = _cenotaph_verb(words)
        if verb is not None:
            return verb
    return None


def _simple_commands(command: str) -> list[list[str]]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"  # a newline ends a command, as `;` does
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: the words as they stand
        tokens = command.split()
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token and set(token) <= set(";&|()<>\n"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _cenotaph_verb(words: list[str]) -> str | None:
    i = 0
    while i < len(words):
        word = words[i]
        program = os.path.basename(word)
        if _ASSIGNMENT.match(word) or word.startswith("-") or word.isdigit():
            i += 1  # `X=1`, a wrapper's options and their numbers (`nice -n 10`, `timeout 5`)
        elif program in _WRAPPERS:
            i += 1
            if program == "env":  # `env -u NAME`: the name is no program
                while i + 1 < len(words) and words[i] in ("-u", "--unset", "-C", "--chdir"):
                    i += 2
        elif program in _RUNNERS and i + 1 < len(words) and words[i + 1] == _RUNNERS[program]:
            i += 2
        elif program in ("uvx", "pipx"):
            i += 1
        elif program in _SHELLS or program == "eval":
            # `bash -c "…"`, `eval "…"`: the script is a command line of its own.
            scripts = words[i + 1:] if program == "eval" else words[words.index("-c", i) + 1:][:1] \
                if "-c" in words[i:] else []
            return next((verb for script in scripts if (verb := person_only_verb(script)) is not None), None)
        elif program == "cenotaph":
            return _verb_after(words[i + 1:])
        elif _PYTHON.match(program):
            if "-m" in words[i:] and words.index("-m", i) + 1 < len(words) and \
                    words[words.index("-m", i) + 1] in ("cenotaph", "cenotaph.cli"):
                return _verb_after(words[words.index("-m", i) + 2:])
            return None
        else:
            return None
    return None


def _verb_after(arguments: list[str]) -> str | None:
    i = 0
    while i < len(arguments) and arguments[i].startswith("-"):
        i += 2 if arguments[i] in _VALUED_OPTIONS else 1
    verb = arguments[i] if i < len(arguments) else None
    return verb if verb in PERSON_ONLY else None

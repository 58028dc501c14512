"""What every verb shares: the global options (from `cli/parsing.py`), the actor, the project, output as JSON or text, and
the one place a domain error becomes a message and an exit status."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cenotaph import identity
from cenotaph import project as project_resolution
from cenotaph.cli.authority import agent_in
from cenotaph.cli.parsing import Subcommands, Verb, global_options  # noqa: F401 (the verbs' modules take them from here)
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import Actor, as_json
from cenotaph.store.connect import StoreUnavailable
from cenotaph.store.migrations import SchemaTooNew

if TYPE_CHECKING:
    from cenotaph.memory.service import Memory



AGENT = agent_in(os.environ)  # one command, one process: its environment does not change under it


def actor(memory: Memory) -> Actor:
    """The person at the command line, or the coding agent whose shell tool runs this command for
    them (cli/authority.py): an agent's person-only changes become proposals a person accepts. No
    option says otherwise, since an agent would pass it; a person whose terminal runs inside
    an agent decides from the editor or a terminal of their own (docs/commands.md)."""
    who = identity.person(memory, Path.cwd())
    return identity.human("cli", who) if AGENT is None else identity.agent("agent", AGENT, who)


REDACT_HELP = "store the text with each secret found in it replaced by [REDACTED:<kind>] instead of refusing it"

Handler = Callable[[argparse.Namespace, "Memory"], None]


class CommandFailed(Exception):
    """A command that ran but could not do what was asked (exit status 1)."""


def writer(args: argparse.Namespace, memory: Memory) -> Actor:
    """Who runs the command, with `--redact` if they gave it (an agent's secrets are refused all the same)."""
    return dataclasses.replace(actor(memory), redact_secrets=args.redact)


def emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    if args.json:
        json.dump(as_json(payload), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def project_of(args: argparse.Namespace) -> str:
    """The project a verb works in: "" (the global scope) under `--global`."""
    if getattr(args, "global_scope", False):
        return ""
    return project_resolution.resolve(args.project, Path.cwd())


def repository_root() -> Path:
    """The repository the command runs in, or the working directory outside one."""
    return project_resolution.repository_root(Path.cwd()) or Path.cwd()


def progress(done: int, total: int | None) -> None:
    if not sys.stderr.isatty() and done not in (total,):
        return
    width = 30
    filled = min(width, int(width * done / total)) if total else width
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    """Open the store, run the verb's handler, and turn what went wrong into an exit status."""
    from cenotaph.app import open_memory

    try:
        memory = open_memory(args.db)
        try:
            _attach_repository(args, memory)
            args.handler(args, memory)
            sys.stdout.flush()  # here, so that a closed pipe is met inside the try
        finally:
            memory.close()
    except CommandFailed:
        return 1
    except CenotaphError as exc:
        _fail(args, str(exc), getattr(exc, "field", None))
        return 2
    except (StoreUnavailable, SchemaTooNew) as exc:
        _fail(args, str(exc), "store")
        return 2
    except BrokenPipeError:
        return _closed_pipe()
    return 0


def _closed_pipe() -> int:
    """The reader of stdout went away (`cenotaph … | head`): end quietly, as other tools do, with
    stdout pointed at /dev/null so the interpreter's last flush does not complain either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # 128 + SIGPIPE, what a shell reports for a program a closed pipe ended


def _attach_repository(args: argparse.Namespace, memory: Memory) -> None:
    """The repository the command runs in: its `.cenotaph/` folder takes part, for its project."""
    root = project_resolution.repository_root(Path.cwd())
    if root is not None:
        memory.attach_repositories([(root, project_resolution.resolve(args.project, Path.cwd()))])


def _fail(args: argparse.Namespace, message: str, field: str | None) -> None:
    if getattr(args, "json", False):
        json.dump({"error": {"message": message, "field": field}}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    sys.stderr.write(f"cenotaph: error: {message}\n")

"""The labelled set of agent tool calls (tests/data/hook_calls/calls.jsonl, and heldout.jsonl
written before the shell parser and never tuned on): Claude Code's PreToolUse input and Gemini
CLI's BeforeTool input as they document them, each labelled by reading it (`block`, and the `abandoned`
name a blocked call brings back), over the repository in tests/data/hook_calls/repo and the
graveyard below. The suite's test and bench/hook_speed.py share it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory

DATA = Path(__file__).resolve().parent / "data" / "hook_calls"
PROJECT = "acme/app"
ROOT = "/home/dev/acme"  # where the calls were written: the repository's root stands in for it
LABELS = ("block", "abandoned", "note")
PERSON = Actor(name="test", kind="human")

# (name, ecosystem, project, reason): abandoned here, everywhere ("") or in another project.
GRAVEYARD = (
    ("requests", "pypi", PROJECT, "Blocks the event loop in our async workers; replaced by httpx."),
    ("nose", "pypi", "", "Unmaintained since 2015; pytest replaced it."),
    ("tqdm", "pypi", PROJECT, "Garbles CI logs."),  # and silenced below
    ("celery", "pypi", "acme/other", "Too heavy for the other service's three jobs."),
    ("moment", "npm", PROJECT, "Huge and mutable; replaced by date-fns."),
    ("@babel/polyfill", "npm", PROJECT, "Deprecated; core-js imports replace it."),
    ("failure", "cargo", PROJECT, "Deprecated crate; anyhow and thiserror replace it."),
    ("github.com/pkg/errors", "go", PROJECT, "Archived; the standard library wraps errors since Go 1.13."),
    ("imagemagick", "apt", PROJECT, "Policy files broke PDF thumbnails twice; libvips replaced it."),
    ("mkl", "conda", PROJECT, "Slower than OpenBLAS on our AMD runners."),
)
SILENCED = ("tqdm",)


def calls(name: str = "calls.jsonl") -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def agent(call: dict[str, Any]) -> str:
    """The `cenotaph hook` agent the call's shape is for."""
    return "gemini" if call["hook_event_name"] == "BeforeTool" else "claude-code"


def repository_files() -> dict[str, str]:
    """The repository the calls were made in, with its `.cenotaph.toml`."""
    tree = DATA / "repo"
    files = {p.relative_to(tree).as_posix(): p.read_text(encoding="utf-8") for p in tree.rglob("*") if p.is_file()}
    return {".cenotaph.toml": f'project = "{PROJECT}"\n', **files}


def seed(memory: Memory) -> None:
    for name, ecosystem, project, reason in GRAVEYARD:
        memory.abandon(PERSON, name, ecosystem=ecosystem, project=project, reason=reason, effort=3)
    for name in SILENCED:
        memory.suppress(PERSON, name, kind="diagnostic", project=PROJECT, reason="fine in notebooks here")


def hook_input(call: dict[str, Any], root: Path) -> str:
    """The call as the hook reads it on stdin, made in `root`: the labels dropped."""
    payload = {key: value for key, value in call.items() if key not in LABELS}
    return json.dumps(payload, ensure_ascii=False).replace(ROOT, str(root))


def denied(stdout: str) -> str | None:
    """The reason the hook's answer (Claude Code's or Gemini CLI's) denies the call with, or None
    when it lets it pass."""
    if not stdout.strip():
        return None
    answer = json.loads(stdout)
    if "decision" in answer:
        assert answer["decision"] == "deny" and set(answer) == {"decision", "reason"}, answer
        return answer["reason"]
    decision = answer["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse" and decision["permissionDecision"] == "deny", decision
    return decision["permissionDecisionReason"]


def confusion(outcomes: list[tuple[dict[str, Any], str | None]]) -> tuple[Counter[str], list[str]]:
    """Counts of true and false blocks and passes, and one line per call that disagrees with its
    label (a blocked call must also name its abandoned package in the reason)."""
    counts: Counter[str] = Counter()
    wrong = []
    for call, reason in outcomes:
        blocked = reason is not None
        counts[("true " if blocked == call["block"] else "false ") + ("block" if blocked else "pass")] += 1
        named = not blocked or not call["block"] or f"{call['abandoned']} (" in reason
        if blocked != call["block"] or not named:
            wrong.append(f"{'blocked' if blocked else 'passed'} (label: {'block' if call['block'] else 'pass'}): "
                         f"{call['tool_name']} {json.dumps(call['tool_input'])[:160]}")
    return counts, wrong

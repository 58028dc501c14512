"""What a renderer hands back: a file's path (relative to the repository root) and its new text."""

from __future__ import annotations

from dataclasses import dataclass

from cenotaph.memory.policy.authored import MESSAGE_MARK


@dataclass(frozen=True, slots=True)
class FileDraft:
    path: str
    draft: str | None  # None: the file goes (a skill Cenotaph wrote whose topic is gone)


def lint_message(name: str, reason: str) -> str:
    return f"{MESSAGE_MARK}{name} was abandoned: {reason}"

"""What a renderer hands back: a file's path (relative to the repository root) and its new text."""

from __future__ import annotations

from dataclasses import dataclass

# Lint entries Cenotaph wrote carry this prefix in their message: a recompile replaces exactly
# those and leaves every entry a person wrote.
MESSAGE_MARK = "cenotaph: "


@dataclass(frozen=True, slots=True)
class FileDraft:
    path: str
    draft: str | None  # None: the file goes (a skill Cenotaph wrote whose topic is gone)


def lint_message(name: str, reason: str) -> str:
    return f"{MESSAGE_MARK}{name} was abandoned: {reason}"

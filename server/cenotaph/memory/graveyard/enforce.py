"""The graveyard enforced where agents and CI act: which abandoned names an agent's tool call
would add (a shell command's installs, an edit's new imports and declarations), and which a
repository's files hold (`cenotaph lint`). Only the editor's detectors and the graveyard's
index: nothing here loads the embedding model or spaCy, so an agent's hook stays quick."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from cenotaph.nlp import ecosystems
from cenotaph.nlp.detect import detect
from cenotaph.nlp.ecosystems import shell

if TYPE_CHECKING:  # the graveyard's modules load only for a call that names something (most name nothing)
    from cenotaph.memory.graveyard.approaches import Graveyard
    from cenotaph.memory.graveyard.verdicts import GraveyardIndex, Verdict
    from cenotaph.store.records import ApproachRow

# Records that match a name whatever ecosystem it is met in: a name recorded without one, a
# command-line tool, a name met in prose.
_ANY_ECOSYSTEM = frozenset({ecosystems.ANY, "tool", "other"})
# The tools that change a file, and where their input holds its path.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit"})
SHELL_TOOLS = frozenset({"Bash"})
# Gemini CLI's tools that install or edit, by the Claude Code tool that takes the same input
# (Gemini's `replace` counts its replacements instead of a replace_all flag).
GEMINI_TOOLS = {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit"}


class Named(NamedTuple):
    """A name a tool call or a file would put in place: a shell command's install, or an import
    or declaration in a file (with its range, 0-based, UTF-16 columns as editors and SARIF count)."""

    name: str  # as written
    key: str  # what the graveyard is asked about
    ecosystem: str
    kind: str  # `install`, `import` or `declaration`
    path: str = ""
    line: int = 0
    start: int = 0
    end: int = 0


@dataclass(frozen=True, slots=True)
class Finding:
    """An abandoned name where a call or a file would put it."""

    named: Named
    approach: ApproachRow
    scope: str  # `project` or `global`

    def message(self) -> str:
        """What the agent (or the person reading CI) is told: the package, why, what it cost,
        what replaced it (the reason says), and how a person lifts it."""
        a = self.approach
        where = "in this project" if self.scope == "project" else "everywhere"
        effort = f" after effort {a.effort}/5" if a.effort else ""
        return (f"{a.display_name} ({a.ecosystem}) was abandoned {where}{effort}: {a.reason.strip()} "
                f"Do not bring {self.named.name} back; use what the reason names instead. A person lifts this with "
                f"`cenotaph reinstate-approach {a.name} --reason …`, or silences it in this project with "
                f"`cenotaph suppress {a.name} --kind diagnostic --reason …`.")


def installs(command: str) -> list[Named]:
    """Every package a shell command line installs or adds, with every installer the registry
    knows (a project's and a system's)."""
    installers = tuple(dict.fromkeys((*ecosystems.project_installers(), *ecosystems.system_installers())))
    return [Named(name, ecosystems.normalize(name, found.ecosystem), found.ecosystem, "install")
            for found in shell.package_commands(command, installers) if not found.removes for name in found.names]


def file_names(path: str, text: str, before: str | None = None) -> list[Named]:
    """The imports and declarations in a file's text; with `before` (the file as it was), only
    the edit's additions. A manifest adds a name it declares more often than before (a second
    group, a new stage), wherever the edit moved it; source adds a package it did not import at
    all (`import requests.exceptions` beside `import requests` brings in nothing new)."""
    old: Counter[tuple[str, str]] = Counter()
    if before is not None:
        old.update((m.key, m.ecosystem) for m in detect(path, before) if m.kind != "mention")
    document = ecosystems.document_for(path)
    manifest = document is not None and document.manifest
    found = []
    for m in detect(path, text):
        if m.kind == "mention":
            continue
        if old[(m.key, m.ecosystem)] > 0:
            if manifest:
                old[(m.key, m.ecosystem)] -= 1
            continue
        found.append(Named(m.name, m.key, m.ecosystem, m.kind, path, m.line, m.start, m.end))
    return found


def edited_text(tool_name: str, tool_input: Mapping[str, Any], before: str) -> str | None:
    """The file's text once an Edit, Write or MultiEdit call has run, or None when the input is
    not what that tool takes."""
    if tool_name == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits = tool_input.get("edits") if tool_name == "MultiEdit" else [tool_input]
    if not isinstance(edits, list):
        return None
    text = before
    for edit in edits:
        if not isinstance(edit, Mapping):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if old == "":
            text = new + text  # an edit of an empty or new file
        else:
            text = text.replace(old, new, -1 if edit.get("replace_all") else 1)
    return text


def from_gemini(tool_name: str, tool_input: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """A Gemini CLI tool call as the Claude Code call that does the same. `replace` fails unless
    it finds exactly `expected_replacements` occurrences, so more than one means all of them."""
    name = GEMINI_TOOLS.get(tool_name, "")  # any other tool of Gemini's installs and edits nothing
    expected = tool_input.get("expected_replacements")
    if name == "Edit" and isinstance(expected, int) and expected > 1:
        tool_input = {**tool_input, "replace_all": True}
    return name, tool_input


def tool_call_names(tool_name: str, tool_input: Mapping[str, Any], cwd: Path) -> list[Named]:
    """What an agent's tool call would install or add to a manifest or source file; [] for
    every other call. Reads the edited file, never the store."""
    if tool_name in SHELL_TOOLS:
        command = tool_input.get("command")
        return installs(command) if isinstance(command, str) else []
    file_path = tool_input.get("file_path")
    if tool_name not in EDIT_TOOLS or not isinstance(file_path, str) or ecosystems.document_for(file_path) is None:
        return []
    path = cwd / file_path
    try:
        before = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        before = ""
    after = edited_text(tool_name, tool_input, before)
    return [] if after is None else file_names(file_path, after, before)


class Enforcer:
    """Verdicts on names for one project, from the graveyard's index: abandoned here or
    everywhere, in the ecosystem the name is met in, and not silenced."""

    def __init__(self, graveyard: Graveyard | Callable[[], Graveyard], project: str, *,
                 index: GraveyardIndex | None = None) -> None:
        """`index`: the graveyard as its file beside the store holds it, current when read (the
        verdicts come from it, and the store opens only if `graveyard` is asked for); else
        `graveyard`, or what makes it at first use."""
        self._graveyard = graveyard
        self.project = project
        self._index = index
        self._verdicts: dict[tuple[str, str], Verdict | None] = {}

    @property
    def graveyard(self) -> Graveyard:
        if callable(self._graveyard):
            self._graveyard = self._graveyard()
        return self._graveyard

    def close(self) -> None:
        if not callable(self._graveyard):
            self._graveyard.ctx.store.close()

    def abandoned(self, ecosystem: str, key: str) -> Verdict | None:
        from cenotaph.memory.graveyard.verdicts import verdicts

        if (ecosystem, key) not in self._verdicts:
            index = self._index if self._index is not None else self.graveyard.index()
            verdict = verdicts(index, [key], self.project, include_other_projects=False, ecosystem=ecosystem)[0]
            a = verdict.approach
            # Another ecosystem's namesake (npm's `requests` when PyPI's was abandoned) passes.
            live = verdict.status == "abandoned" and a is not None and not verdict.diagnostic_suppressed and \
                (a.ecosystem == ecosystem or a.ecosystem in _ANY_ECOSYSTEM)
            self._verdicts[(ecosystem, key)] = verdict if live else None
        return self._verdicts[(ecosystem, key)]

    def judge(self, named: Iterable[Named]) -> list[Finding]:
        """The findings among names: those abandoned here or everywhere."""
        found = []
        for n in named:
            if (verdict := self.abandoned(n.ecosystem, n.key)) is not None:
                assert verdict.approach is not None
                found.append(Finding(n, verdict.approach, verdict.scope or "project"))
        return found

    def brief(self, limit: int = 2000) -> str:
        """The project's graveyard and open contradictions in at most `limit` characters: what an
        agent is told as its session starts."""
        from cenotaph.store import contradictions

        rows = sorted(self.graveyard.in_scope(self.project), key=lambda a: (-(a.effort or 0), a.name))
        with self.graveyard.ctx.store.read() as conn:
            disputes = contradictions.listing(conn, project=self.project, status="open")
        if not rows and not disputes:
            return ""
        lines = ["Cenotaph: approaches abandoned in this project (installing or importing them is blocked; "
                 "call check_approaches before proposing a package):"]
        lines += [f"- {a.display_name} ({a.ecosystem}{', everywhere' if a.project == '' else ''}): "
                  f"{' '.join(a.reason.split())[:160]}" for a in rows]
        if disputes:
            lines.append(f"Open contradictions between memories ({len(disputes)}; `cenotaph contradictions`):")
            lines += [f"- #{c.id}: {' '.join(c.explanation.split())[:160]}" for c in disputes]
        text = ""
        for line in lines:
            if len(text) + len(line) + 1 > limit - 80:  # room for the closing line
                return text + "… and more: `cenotaph check NAME` answers for any name.\n"
            text += line + "\n"
        return text

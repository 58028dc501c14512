"""The graveyard enforced where agents and CI act: which abandoned names an agent's tool call
would add (a shell command's installs, an edit's new imports and declarations), and which a
repository's files hold (`cenotaph lint`). Only the editor's detectors and the graveyard's
index: nothing here loads the embedding model or spaCy, so an agent's hook stays quick."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from cenotaph.nlp import ecosystems
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
# What `lint` and the SessionStart hook say when there is nothing to check against (a CI runner's
# store, a teammate's clone before anything is shared): passing everything must not look clean.
EMPTY_GRAVEYARD = ("the graveyard is empty here (nothing abandoned in this project's store, globally, or shared in "
                   "the repository's .cenotaph/)")
NOTEBOOK_TOOLS = frozenset({"NotebookEdit"})  # Claude Code's: a Jupyter notebook's cell
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


class Finding(NamedTuple):
    """An abandoned name where a call or a file would put it."""

    named: Named
    approach: ApproachRow
    scope: str  # `project` or `global`

    def fact(self) -> str:
        """The package, where and after what effort it was abandoned, and why (the reason names
        what replaced it), as one sentence."""
        a = self.approach
        where = "in this project" if self.scope == "project" else "everywhere"
        effort = f" after effort {a.effort}/5" if a.effort else ""
        return f"{a.display_name} ({a.ecosystem}) was abandoned {where}{effort}: {_sentence(a.reason)}"

    def message(self) -> str:
        """What the person reading `lint` or CI is told: the fact, and how they lift it."""
        a = self.approach
        return (f"{self.fact()} Use what the reason names instead. To bring it back, run "
                f"`cenotaph reinstate-approach {a.name} --reason …`, or silence it in this project with "
                f"`cenotaph suppress {a.name} --kind diagnostic --reason …`.")

    def denial(self) -> str:
        """What an agent whose call is denied is told: stop, why, and what to ask the person.
        Not how to lift the block: that is the person's decision (cli/authority.py)."""
        name = self.named.name
        return (f"Stop: this call would bring back {name}. {self.fact()} Do not add {name} in another way, and "
                f"do not try to lift this block yourself. Use what the reason names instead. If you think {name} "
                f"is needed after all, stop and ask the person, for example: \"Cenotaph blocks {name} because it "
                f"was abandoned ({_clause(self.approach.reason)}). I think we need it because <your reason>. "
                f"Do you want to bring it back?\"")


def _clause(text: str) -> str:
    return " ".join(text.split()).rstrip(".!?;:, ")


def _sentence(text: str) -> str:
    """`text` ending as a sentence does, so that the next one does not run into it."""
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _also(named: Named, same: tuple[str, str] | None) -> list[Named]:
    """The name, and the same library in the ecosystem its packager took it from (conda-forge's
    `requests` is PyPI's), so that an abandoned PyPI library is met in either."""
    if same is None:
        return [named]
    ecosystem, name = same
    return [named, named._replace(name=name, key=ecosystems.normalize(name, ecosystem), ecosystem=ecosystem)]


def installs(command: str) -> list[Named]:
    """Every package a shell command line installs or adds, with every installer the registry
    knows (a project's and a system's) that the line may run."""
    found = []
    for package in shell.package_commands(command, ecosystems.installers_in(command)):
        if not package.removes:
            for name, same in zip(package.names, package.same_as):
                found += _also(Named(name, ecosystems.normalize(name, package.ecosystem), package.ecosystem,
                                     "install"), same)
    return found


def file_names(path: str, text: str, before: str | None = None) -> list[Named]:
    """The imports and declarations in a file's text; with `before` (the file as it was), only
    the edit's additions. A manifest adds a name it declares more often than before (a second
    group, a new stage), wherever the edit moved it; source adds a package it did not import at
    all (`import requests.exceptions` beside `import requests` brings in nothing new)."""
    # Imported here: most shell commands an agent runs write into no file.
    from cenotaph.nlp.detect import detect

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
        same = _same_as(m.ecosystem)
        found += _also(Named(m.name, m.key, m.ecosystem, m.kind, path, m.line, m.start, m.end),
                       same(m.name) if same else None)
    return found


@cache
def _same_as(ecosystem: str) -> Callable[[str], tuple[str, str] | None] | None:
    """Where `ecosystem`'s packages' libraries come from (an environment.yml's conda names), if
    elsewhere: what its installers say."""
    described = ecosystems.get(ecosystem)
    return next((installer.same_as for installer in reversed((*described.project_installers,
                                                                *described.system_installers)) if installer.same_as),
                None)


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
        command, folder = tool_input.get("command"), tool_input.get("directory")  # Gemini's folder
        where = cwd / folder if isinstance(folder, str) else cwd
        return shell_names(command, where) if isinstance(command, str) else []
    if tool_name in NOTEBOOK_TOOLS:
        return notebook_names(tool_input, cwd)
    file_path = tool_input.get("file_path")
    if tool_name not in EDIT_TOOLS or not isinstance(file_path, str) or ecosystems.document_for(file_path) is None:
        return []
    before = _read(cwd / file_path)
    after = edited_text(tool_name, tool_input, before)
    return [] if after is None else file_names(file_path, after, before)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return ""


# A file a command line may write into: the word after `>`, `>>`, `tee` or anywhere in a `sed -i`.
_WRITTEN = re.compile(r"(?:>>?|\btee\b(?:[ \t]+-\w+)*)[ \t]*[\"']?([^\s\"'<>|;&()]+)")
_PATH_WORD = re.compile(r"[^\s\"'<>|;&()=]+")


def _may_write(command: str) -> bool:
    """The cheap test before a line is parsed for what it writes: a redirection or `tee` into a
    file the graveyard reads, or a `sed -i` on one."""
    targets = _WRITTEN.findall(command) if ">" in command or "tee" in command else []
    if "sed" in command and "-i" in command:
        targets += _PATH_WORD.findall(command)
    return any(ecosystems.document_for(target) is not None for target in targets)


def shell_names(command: str, cwd: Path) -> list[Named]:
    """What a shell command line installs, and what it writes into manifests and source files
    (`echo x >> requirements.txt`, a heredoc into a .py file, `sed -i` on a manifest). A line
    that names no installer and writes no such file is not parsed at all."""
    found = installs(command) if shell.may_install(command, ecosystems.installers_in(command)) else []
    if not _may_write(command):
        return found
    for write in shell.file_writes(command):
        if ecosystems.document_for(write.path) is None:
            continue
        before = _read(cwd / write.path)
        if write.sed is not None:
            scripts, extended = write.sed
            after = shell.sed_edited(scripts, extended, before)
            # A script the reader does not follow is judged by the text it puts in.
            after = after if after is not None else before + "\n" + shell.sed_additions(scripts)
        else:
            assert write.text is not None
            after = (before + ("" if before.endswith("\n") or not before else "\n") if write.appends else "") + write.text
        found += file_names(write.path, after, before)
    return found


# A notebook cell's shell escapes: `!pip install x`, `%pip install x`, `%conda install x`.
_CELL_COMMAND = re.compile(r"^[ \t]*(?:!|%(?=pip|conda|mamba|micromamba\b))(.+)$", re.MULTILINE)


def notebook_names(tool_input: Mapping[str, Any], cwd: Path) -> list[Named]:
    """What a NotebookEdit adds: a code cell read as Python source (the imports the rest of the
    notebook lacks) and the installs of its `!pip` and `%pip` lines. Markdown cells and deletions add nothing."""
    path, source = tool_input.get("notebook_path"), tool_input.get("new_source")
    mode, cell_id = tool_input.get("edit_mode") or "replace", tool_input.get("cell_id")
    if not isinstance(path, str) or not isinstance(source, str) or mode == "delete" or not path.endswith(".ipynb"):
        return []
    try:
        cells = json.loads(_read(cwd / path) or "{}").get("cells", [])
    except (ValueError, AttributeError):
        cells = []
    cells = [cell for cell in cells if isinstance(cell, dict)]
    replaced = next((cell for cell in cells if mode == "replace" and cell.get("id") == cell_id), None)
    if (tool_input.get("cell_type") or (replaced or {}).get("cell_type") or "code") != "code":
        return []
    def text(cell: dict) -> str:
        return "".join(map(str, cell["source"])) if isinstance(cell.get("source"), list) else str(cell.get("source", ""))

    rest = "\n".join(text(cell) for cell in cells if cell.get("cell_type") == "code" and cell is not replaced)
    found = [named for line in _CELL_COMMAND.findall(source) for named in installs(line)]
    script = _CELL_COMMAND.sub("", source)
    before = rest + "\n" + (text(replaced) if replaced else "")
    return found + file_names(str(Path(path).with_suffix(".py")), rest + "\n" + script, before)


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

    def size(self) -> int:
        """How many approaches the project's verdicts can come from (0: nothing is ever flagged)."""
        return len(self.graveyard.in_scope(self.project))

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
        lines = ["Cenotaph: approaches abandoned in this project. Installing or importing them is blocked. "
                 "Before you propose a package, run `cenotaph check NAME` in the shell (or call check_approaches "
                 "when Cenotaph's MCP tools are there). Lifting a block is the person's decision: ask them."]
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

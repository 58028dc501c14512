"""From memory to policy in the editor: the `cenotaph/compile` request proposes a target's files
(shared_schema/compile.schema.json) for the client to show as a diff with Accept / Reject
(`cenotaph.acceptProposal`, `cenotaph.rejectProposal`); an instruction file whose managed block
is behind the memory gets an Information diagnostic, with the code action "Propose an update"
(the client's `cenotaph.proposeUpdate`, which sends the request)."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types
from pydantic import Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from cenotaph import project as project_resolution
from cenotaph.lsp.convert import SOURCE, Wire, code_action, file_path, plain, rpc_error
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import COMPILE_TARGETS

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext
    from cenotaph.store.records import ProposalRow

log = logging.getLogger(__name__)

REQUEST = "cenotaph/compile"
CLIENT_COMMAND = "cenotaph.proposeUpdate"  # run by the client: it sends REQUEST and opens the diff
CODE_LESSONS_CHANGED = "lessons-changed"
# The instruction files with a managed block, by the path's last parts.
_INSTRUCTION_FILES = {("AGENTS.md",): "agents-md", ("CLAUDE.md",): "claude-md",
                      (".github", "copilot-instructions.md"): "copilot"}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


Target = Literal[COMPILE_TARGETS]  # type: ignore[valid-type]


class CompileParams(Wire):
    target: Target
    uri: str | None = None  # a document in the repository to compile for
    project: str | None = None


class ProposedFile(Wire):
    path: str  # relative to the repository root
    uri: str  # the file on disk (it may not exist yet)
    base_sha256: str  # of the file as diffed, or "absent"
    draft: str | None  # None: accepting deletes the file
    diff: str


class CompileResult(Wire):
    target: Target
    proposal_id: int | None = None  # None when every file is up to date
    lessons: int = Field(ge=0)
    files: list[ProposedFile]


class LessonsChangedData(Wire):
    type: Literal["lessons"]
    target: Literal["agents-md", "claude-md", "copilot"]
    project: str
    changed: int = Field(ge=1)


def instruction_target(uri: str) -> str | None:
    path = file_path(uri)
    if path is None:
        return None
    for tail, target in _INSTRUCTION_FILES.items():
        if path.parts[-len(tail):] == tail:
            return target
    return None


def _root_for(ls: ServerContext, uri: str | None, project: str | None) -> tuple[Path, str]:
    """The repository to compile for and its project: the one around `uri`, else the workspace
    folder of `project`."""
    if uri is not None:
        path = file_path(uri)
        found = ls.project_for(uri)
        if path is None or found is None:
            raise JsonRpcInvalidParams(message=f"uri: {uri!r} is outside the workspace folders")
        return project_resolution.repository_root(path.parent) or path.parent, project or found
    for folder, folder_project in reversed(ls.folders):
        if project is None or folder_project == project:
            return project_resolution.repository_root(folder) or folder, folder_project
    raise JsonRpcInvalidParams(message=f"project: no workspace folder holds {project!r}")


def _lesson_keys(ls: ServerContext, project: str) -> frozenset[str] | None:
    """The keys of the project's reinforced lessons as of the store's head. They take the model to
    compute, so that happens off the loop; until then the last known keys (or None) answer, and
    the instruction files are republished when the keys arrive."""
    seq = ls.memory.change_seq()
    cached = ls.lesson_keys.get(project)
    if (cached is None or cached[0] != seq) and project not in ls.lessons_computing:
        ls.lessons_computing.add(project)
        ls.spawn(_compute_keys(ls, project, seq))
    return cached[1] if cached is not None else None


async def _compute_keys(ls: ServerContext, project: str, seq: int) -> None:
    try:
        keys = await asyncio.to_thread(lambda: frozenset(l.key for l in ls.memory.lessons(project) if l.reinforced))
    except CenotaphError as exc:
        log.warning("lessons of %s: %s", project, exc)
        return
    finally:
        ls.lessons_computing.discard(project)
    previous = ls.lesson_keys.get(project)
    ls.lesson_keys[project] = (seq, keys)
    if previous is None or previous[1] != keys:
        for uri in list(ls.workspace.text_documents):
            if instruction_target(uri) is not None and ls.project_for(uri) == project:
                ls.publish_diagnostics(uri, only_changed=True)


def diagnostics(ls: ServerContext, uri: str) -> list[types.Diagnostic]:
    """"N lessons changed since this block was written" on the begin marker of a managed block."""
    target = instruction_target(uri)
    document = ls.workspace.text_documents.get(uri)
    project = ls.project_for(uri)
    if target is None or document is None or project is None:
        return []
    from cenotaph.memory.policy.compile import instructions  # numpy and tomlkit: only for instruction files

    if instructions.BEGIN not in document.source:
        return []
    keys = _lesson_keys(ls, project)
    if keys is None:
        return []
    text = document.source
    found = instructions.changed_since_written(text, keys)
    if found is None or found[0] == 0:
        return []
    changed, (start, _) = found
    before = _LINE_BREAK.split(text[:start])
    line, character = len(before) - 1, len(before[-1])
    data = LessonsChangedData(type="lessons", target=target, project=project, changed=changed)
    return [types.Diagnostic(
        range=types.Range(start=types.Position(line=line, character=character),
                          end=types.Position(line=line, character=character + len(instructions.BEGIN))),
        message=f"{changed} lesson{'s' if changed != 1 else ''} changed since this block was written",
        severity=types.DiagnosticSeverity.Information, source=SOURCE, code=CODE_LESSONS_CHANGED,
        data=data.dump())]


def code_actions(ls: ServerContext, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    actions: dict[str, types.CodeAction] = {}
    for diagnostic in [*params.context.diagnostics, *ls.published.get(uri, ())]:
        if diagnostic.source != SOURCE or diagnostic.code != CODE_LESSONS_CHANGED:
            continue
        if not (diagnostic.range.start.line <= params.range.end.line
                and params.range.start.line <= diagnostic.range.end.line):
            continue
        try:
            data = LessonsChangedData.from_wire(plain(diagnostic.data))
        except ValidationError:
            continue
        actions.setdefault(data.target, code_action("Propose an update", CLIENT_COMMAND,
                                                    {"target": data.target, "uri": uri}, diagnostic=diagnostic))
    return list(actions.values())


def register(server: ServerContext) -> None:
    @server.feature(REQUEST)
    async def compile_request(ls: ServerContext, params: Any) -> dict[str, Any]:
        try:
            request = CompileParams.from_wire(plain(params))
        except ValidationError as exc:
            problem = exc.errors()[0]
            raise JsonRpcInvalidParams(
                message=f"{REQUEST}: {'.'.join(str(p) for p in problem['loc'])}: {problem['msg']}") from None
        root, project = _root_for(ls, request.uri, request.project)
        try:
            result = await asyncio.to_thread(
                lambda: ls.memory.compile(ls.actor, request.target, project=project, root=root))
        except CenotaphError as exc:
            raise rpc_error(exc) from None
        if result.proposal is not None:
            ls.store_changed()
        return CompileResult(
            target=result.target, proposal_id=result.proposal.id if result.proposal else None,
            lessons=result.lessons,
            files=[ProposedFile(path=f.path, uri=from_fs_path(str(Path(result.root) / f.path)) or "",
                                base_sha256=f.base_sha256, draft=f.draft, diff=f.diff) for f in result.files],
        ).dump()


def unsaved_file(ls: ServerContext, proposal: ProposalRow) -> str | None:
    """A file of a compile proposal that is open in the editor with unsaved edits: written on
    disk under the editor, the editor's next save would fail or overwrite the accepted change."""
    root = proposal.arguments.get("root")
    for change in proposal.arguments.get("files", []) if root else []:
        path = Path(root) / change["path"]
        for uri, document in list(ls.workspace.text_documents.items()):
            if file_path(uri) == path:
                try:
                    on_disk = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    on_disk = None
                if document.source != on_disk:
                    return change["path"]
    return None

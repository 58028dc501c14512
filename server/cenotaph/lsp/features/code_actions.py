"""Code actions: quick fixes on a flagged name (silence, reinstate, show why, mark wrong), and on
a selection (remember it, record it as abandoned). Each runs a command (commands.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types
from pydantic import ValidationError

from cenotaph.lsp.convert import CODE_ABANDONED, SOURCE, ApproachDiagnosticData, code_action, plain, to_range
from cenotaph.lsp.features import compile as compile_feature
from cenotaph.lsp.features import ANNOUNCED, anchors, diagnostics, ledger
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.team.folder import source_of
from cenotaph.memory.validate import MAX_CONTENT
from cenotaph.nlp import names

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

_NAME_SHAPED = re.compile(r"^[@\w][\w@./:+~-]{0,199}$")


def approach_actions(data: ApproachDiagnosticData, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    name = data.display_name
    actions = [
        code_action(f"Silence '{name}' in this project", "cenotaph.silence",
                    {"name": data.name, "scope": "project", "project": data.document_project}, diagnostic=diagnostic),
        code_action(f"Silence '{name}' everywhere", "cenotaph.silence", {"name": data.name, "scope": "everywhere"},
                    diagnostic=diagnostic),
        code_action(f"Reinstate '{name}' (it works now)", "cenotaph.reinstate",
                    {"name": data.name, "project": data.project}, diagnostic=diagnostic),
        code_action(f"Show why '{name}' was abandoned", "cenotaph.showWhy", {"approachId": data.approach_id},
                    diagnostic=diagnostic),
        code_action("Mark this record wrong", "cenotaph.markWrong", {"approachId": data.approach_id},
                    diagnostic=diagnostic),
    ]
    if data.source == "repo":
        # The repository's file is the record: silencing is each person's own, changing it is
        # unsharing (below), not a verb on the store.
        actions = [a for a in actions if a.command and a.command.command not in ("cenotaph.reinstate",
                                                                                 "cenotaph.markWrong")]
    return actions


def sharing_actions(ls: ServerContext, data: ApproachDiagnosticData,
                    diagnostic: types.Diagnostic | None) -> list[types.CodeAction]:
    """"Share with the team" on a name abandoned in the store, "Stop sharing" on one the
    repository shares; none outside a repository."""
    project = data.document_project
    if ls.memory.shared.for_project(project) is None:
        return []
    verdict = ls.memory.check_approaches([data.name], project=project, include_other_projects=False,
                                         detected=True)[0]
    records = [a for a in (verdict.approach, *verdict.also) if a is not None]
    argument = {"name": data.name, "project": project}
    if any(source_of(a) == "repo" for a in records):
        return [code_action(f"Stop sharing '{data.display_name}' with the team", "cenotaph.unshare", argument,
                            diagnostic=diagnostic)]
    if any(a.status == "abandoned" for a in records):
        return [code_action(f"Share '{data.display_name}' with the team", "cenotaph.share", argument,
                            diagnostic=diagnostic)]
    return []


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


Flagged = tuple[ApproachDiagnosticData, types.Diagnostic]


def _flagged(ls: ServerContext, params: types.CodeActionParams) -> list[Flagged]:
    """Our diagnostics in the request's context, and those published under its range (a client may
    send none)."""
    published = [d for d in ls.published.get(params.text_document.uri, ()) if _overlaps(d.range, params.range)]
    found: dict[int, Flagged] = {}
    for diagnostic in [*params.context.diagnostics, *published]:
        if diagnostic.source != SOURCE or diagnostic.code != CODE_ABANDONED:
            continue
        try:
            data = ApproachDiagnosticData.from_wire(plain(diagnostic.data))
        except ValidationError:
            continue
        found.setdefault(data.approach_id, (data, diagnostic))
    return list(found.values())


def _package_at(ls: ServerContext, uri: str, selection: types.Range) -> str | None:
    """The package an import or declaration under the selection names: `pygments` for a
    selection of `pygments.lexer` in `from pygments.lexer import Lexer`, the distribution an
    import name stands for (`markdown-it-py` for `markdown_it`), never a submodule."""
    found = diagnostics.scan(ls, uri)
    for mention in found.mentions if found is not None else ():
        place = to_range(mention.line, mention.start, mention.end)
        if mention.kind != "mention" and _overlaps(place, selection):
            resolved = mention.kind == "import" and mention.key != names.fold(mention.name)
            return mention.key if resolved else mention.name
    return None


def selection_actions(ls: ServerContext, params: types.CodeActionParams, project: str) -> list[types.CodeAction]:
    document = ls.workspace.text_documents.get(params.text_document.uri)
    if document is None:
        return []
    uri = params.text_document.uri
    start, end = (document.offset_at_position(p) for p in (params.range.start, params.range.end))
    selected = document.source[start:end]
    actions = []
    if selected.strip() and len(selected) <= MAX_CONTENT:
        # The selection's lines go with it (an end at a line's start ends the line before).
        first, last = params.range.start.line, params.range.end.line
        last -= 1 if params.range.end.character == 0 and last > first else 0
        where = {"uri": uri, "lines": {"start": first + 1, "end": last + 1}}
        actions.append(code_action("Remember this", "cenotaph.remember", {"text": selected, "project": project, **where},
                                   kind=types.CodeActionKind.Refactor))
    # On an import or a declaration (a selection in it, or the cursor), the package it names.
    name = _package_at(ls, uri, params.range) or selected.strip()
    if _NAME_SHAPED.match(name):
        actions.append(code_action(f"Record '{name}' as an abandoned approach", "cenotaph.abandon",
                                   {"name": name, "project": project, "uri": uri}, kind=types.CodeActionKind.Refactor))
    return actions


def register(server: ServerContext) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, ANNOUNCED[types.TEXT_DOCUMENT_CODE_ACTION])
    def code_action(ls: ServerContext, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        if ledger.is_ledger(uri):
            try:
                return ledger.code_actions(ls, params)
            except CenotaphError:  # the client's copy names a record that has gone since
                return None
        project = ls.project_for(uri)
        if project is None:
            return None
        flagged = _flagged(ls, params)
        actions = [action for data, diagnostic in flagged
                   for action in [*approach_actions(data, diagnostic), *sharing_actions(ls, data, diagnostic)]]
        # A selection that is exactly a flagged name asks about that name, not for a new record.
        if not any(diagnostic.range == params.range for _, diagnostic in flagged):
            actions += selection_actions(ls, params, project)
        actions += compile_feature.code_actions(ls, params)
        actions += anchors.code_actions(ls, params)
        return actions or None

"""The ledger: a read-only Markdown document per project (`cenotaph:ledger/<project>.md`) served
by the `cenotaph/ledger` request (shared_schema/ledger.schema.json), rendered by `cenotaph.ledger`
(the graveyard, open contradictions side by side, deprioritised memories with their hints,
pending proposals, the candidates mined from history); when the client opens it, each open
contradiction gets a diagnostic and each entry code actions."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import asdict
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from lsprotocol import types
from pydantic import Field, ValidationError, model_validator
from pygls.exceptions import JsonRpcInvalidParams

from cenotaph.ledger import Ledger, one_line, render_for
from cenotaph.lsp.convert import (
    CODE_CONTRADICTION,
    SOURCE,
    ContradictionDiagnosticData,
    Wire,
    code_action,
    plain,
    rpc_error,
    to_range,
)
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import ContradictionView
from cenotaph.memory.team.folder import source_of
from cenotaph.nlp.ecosystems.base import utf16_column
from cenotaph.store.records import MemoryRow

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)

REQUEST = "cenotaph/ledger"
DID_CHANGE = "cenotaph/ledgerDidChange"
_PREFIX = "cenotaph:ledger/"
_SUFFIX = ".md"
_ENTRY = re.compile(r"^(?:- |### )(approach|contradiction|memory|proposal|candidate|silence) #(\d+)\b")
_SECTION = re.compile(r"^#{1,2} ")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LedgerParams(Wire):
    project: str | None = None
    uri: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> LedgerParams:
        if self.project is None and self.uri is None:
            raise ValueError("give `project` or `uri`")
        return self


class LedgerCounts(Wire):
    graveyard: int = Field(ge=0)
    contradictions: int = Field(ge=0)
    deprioritised: int = Field(ge=0)
    proposals: int = Field(ge=0)
    candidates: int = Field(ge=0)
    silences: int = Field(ge=0)


class LedgerResult(Wire):
    uri: str = Field(pattern=r"^cenotaph:ledger/")
    project: str
    text: str
    seq: int = Field(ge=0)
    counts: LedgerCounts


class LedgerDidChange(Wire):
    uri: str = Field(pattern=r"^cenotaph:ledger/")
    project: str
    seq: int = Field(ge=0)


# --- URIs ----------------------------------------------------------------------------------------


def ledger_uri(project: str) -> str:
    # Percent-encoded as VS Code re-encodes a URI path (unreserved characters and '/' kept), so
    # the URI the client shows is the one the server publishes on.
    return _PREFIX + quote(project, safe="/") + _SUFFIX


# Neovim keeps a buffer name as a URI only in the `scheme://` form: accept that spelling too.
_PREFIXES = (_PREFIX, "cenotaph://ledger/")


def is_ledger(uri: str) -> bool:
    return uri.startswith(_PREFIXES) and uri.endswith(_SUFFIX)


def project_of(uri: str) -> str:
    if not is_ledger(uri):
        raise JsonRpcInvalidParams(message=f"uri: {uri!r} is not a ledger URI ({_PREFIX}<project>{_SUFFIX})")
    prefix = next(p for p in _PREFIXES if uri.startswith(p))
    return unquote(uri[len(prefix):-len(_SUFFIX)])


def _complete(views: list[ContradictionView]) -> dict[int, tuple[ContradictionView, MemoryRow, MemoryRow]]:
    """Open contradictions by id, with both sides (a side the store no longer has cannot be judged)."""
    return {v.id: (v, v.memory_a, v.memory_b) for v in views if v.memory_a is not None and v.memory_b is not None}


def render(ls: ServerContext, project: str) -> Ledger:
    return render_for(ls.memory, project)


def result(ledger: Ledger) -> LedgerResult:
    """What the `cenotaph/ledger` request answers for a rendered ledger."""
    return LedgerResult(uri=ledger_uri(ledger.project), project=ledger.project, text=ledger.text, seq=ledger.seq,
                        counts=LedgerCounts(**asdict(ledger.counts)))


# --- what the client's copy shows ------------------------------------------------------------------


def _text_of(ls: ServerContext, uri: str) -> str | None:
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        return document.source
    return ls.ledgers.get(uri, (None, None))[1]


def entry_at(lines: list[str], line: int) -> tuple[str, int] | None:
    """The entry a line of the ledger belongs to: the nearest entry start above it in its section."""
    for i in range(min(line, len(lines) - 1), -1, -1):
        if match := _ENTRY.match(lines[i]):
            return match[1], int(match[2])
        if _SECTION.match(lines[i]):
            return None
    return None


def diagnostics(ls: ServerContext, uri: str) -> list[types.Diagnostic]:
    """A Warning on each open contradiction in the client's copy of the ledger."""
    text = _text_of(ls, uri)
    if text is None:
        return []
    project = project_of(uri)
    views = _complete(ls.memory.contradictions(project))
    lines = _LINE_BREAK.split(text)
    found = []
    for number, line in enumerate(lines):
        match = _ENTRY.match(line)
        if not (match and match[1] == "contradiction" and int(match[2]) in views):
            continue
        view, a, b = views[int(match[2])]
        last, cursor = number, number + 1  # the header through its side-by-side table
        while cursor < len(lines) and not lines[cursor].strip():
            cursor += 1
        while cursor < len(lines) and lines[cursor].startswith("|"):
            last, cursor = cursor, cursor + 1
        data = ContradictionDiagnosticData(type="contradiction", contradiction_id=view.id, memory_a=a.memory_id,
                                           memory_b=b.memory_id, project=view.project)
        found.append(types.Diagnostic(
            range=to_range(number, 0, utf16_column(lines[last], len(lines[last])), end_line=last),
            severity=types.DiagnosticSeverity.Warning, source=SOURCE, code=CODE_CONTRADICTION, data=data.dump(),
            message=f"Open contradiction between memory #{data.memory_a} and #{data.memory_b}: "
                    f"{one_line(view.explanation)}"))
    return found


def _data(diagnostic: types.Diagnostic) -> dict[str, Any]:
    data = plain(diagnostic.data)
    return data if isinstance(data, dict) else {}


def _short(row: MemoryRow) -> str:
    return one_line(row.content, 60)


def _contradiction_actions(ls: ServerContext, project: str, contradiction_id: int, line: str, character: int,
                           diagnostic: types.Diagnostic | None) -> list[types.CodeAction]:
    found = _complete(ls.memory.contradictions(project)).get(contradiction_id)
    if found is None:
        return []
    view, row_a, row_b = found
    a, b = row_a.memory_id, row_b.memory_id
    separators = [utf16_column(line, m.start()) for m in _CELL_SEPARATOR.finditer(line)] \
        if line.startswith("|") else []
    # In the side-by-side table the cursor's column says which side "this" is.
    this_side = ("b" if character > separators[1] else "a") if len(separators) == 3 else None
    argument = {"contradictionId": view.id}
    if this_side is None:
        keep = [(f"Keep #{a}: {_short(row_a)}", "a"), (f"Keep #{b}: {_short(row_b)}", "b")]
    else:
        this, other = (a, b) if this_side == "a" else (b, a)
        keep = [(f"Keep this (#{this})", this_side), (f"Keep the other (#{other})", "b" if this_side == "a" else "a")]
    actions = [code_action(title, "cenotaph.resolveContradiction", {**argument, "keep": side}, diagnostic=diagnostic)
               for title, side in keep]
    actions.append(code_action("Both were true (each at its time)", "cenotaph.resolveContradiction",
                               {**argument, "keep": "both"}, diagnostic=diagnostic))
    actions.append(code_action("Not a contradiction", "cenotaph.dismissContradiction", argument, diagnostic=diagnostic))
    return actions


def code_actions(ls: ServerContext, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    text = _text_of(ls, uri)
    if text is None:
        return None
    project = project_of(uri)
    lines = _LINE_BREAK.split(text)
    position = params.range.start
    found = entry_at(lines, position.line)
    if found is None:
        return None
    kind, entry_id = found
    line = lines[position.line] if position.line < len(lines) else ""
    if kind == "contradiction":
        diagnostic = next((d for d in params.context.diagnostics
                           if d.code == CODE_CONTRADICTION and _data(d).get("contradictionId") == entry_id), None)
        return _contradiction_actions(ls, project, entry_id, line, position.character, diagnostic) or None
    in_repository = ls.memory.shared.for_project(project) is not None
    if kind == "approach":
        approach = ls.memory.graveyard.get(entry_id)
        name = approach.display_name
        why = code_action(f"Show why '{name}' was abandoned", "cenotaph.showWhy", {"approachId": approach.id})
        if source_of(approach) == "repo":
            return [why, code_action(f"Stop sharing '{name}' with the team", "cenotaph.unshare",
                                     {"path": approach.path, "project": project})]  # type: ignore[attr-defined]
        target = {"name": approach.name, "project": approach.project}
        actions = [code_action(f"Reinstate '{name}' (it works now)", "cenotaph.reinstate", target), why,
                   code_action(f"Set what '{name}' cost (effort 1–5)", "cenotaph.setEffort", target)]
        shared = any(source_of(a) == "repo" and a.name == approach.name for a in ls.memory.graveyard.in_scope(project))
        if shared:  # its shared copy is a mark on this entry, not an entry of its own
            actions.append(code_action(f"Stop sharing '{name}' with the team", "cenotaph.unshare",
                                       {"name": approach.name, "project": project}))
        elif in_repository:
            actions.append(code_action(f"Share '{name}' with the team", "cenotaph.share",
                                       {"name": approach.name, "project": project}))
        return actions
    if kind == "memory":
        argument = {"memoryId": entry_id}
        actions = [code_action(f"Reinstate memory #{entry_id}", "cenotaph.reinstateMemory", argument),
                   code_action(f"Archive memory #{entry_id}", "cenotaph.archive", argument),
                   code_action(f"Confirm memory #{entry_id}", "cenotaph.setTrust", {**argument, "trust": "confirmed"}),
                   code_action(f"Refute memory #{entry_id}", "cenotaph.setTrust", {**argument, "trust": "refuted"}),
                   code_action(f"Bless memory #{entry_id} (its lessons compile now)", "cenotaph.bless", argument)]
        if in_repository:
            actions.append(code_action(f"Share memory #{entry_id} with the team", "cenotaph.share",
                                       {**argument, "project": project}))
        return actions
    if kind == "silence":
        silence = next((s for s in ls.memory.suppressions(project) if s.id == entry_id), None)
        if silence is None:  # lifted since the ledger was drawn
            return None
        return [code_action(f"Lift the silence of '{silence.value}' ({'everywhere' if silence.project == '' else 'here'})",
                            "cenotaph.liftSilence",
                            {"name": silence.value, "kind": silence.kind, "project": silence.project})]
    argument = {"proposalId": entry_id}
    if kind == "candidate":
        return _candidate_actions(ls, project, entry_id)
    return [code_action(f"Accept proposal #{entry_id}", "cenotaph.acceptProposal", argument),
            code_action(f"Reject proposal #{entry_id}", "cenotaph.rejectProposal", argument)]


def _candidate_actions(ls: ServerContext, project: str, proposal_id: int) -> list[types.CodeAction] | None:
    from cenotaph.memory.mining.candidates import ACTION as CANDIDATE_ACTION  # the domain loads after `initialize`

    proposal = next((p for p in ls.memory.proposals(project) if p.id == proposal_id), None)
    if proposal is None or proposal.action != CANDIDATE_ACTION:
        return None
    name = one_line(str(proposal.arguments.get("name", "?")), 60)
    argument = {"proposalId": proposal.id}
    return [code_action(f"Accept: '{name}' is abandoned (as drafted)", "cenotaph.acceptProposal", argument),
            code_action(f"Edit the reason, then accept '{name}'", "cenotaph.acceptCandidate",
                        {**argument, "draft": proposal.reason}),
            code_action(f"Reject: '{name}' was not abandoned", "cenotaph.rejectProposal", argument)]


def notify_changed(ls: ServerContext) -> None:
    """Tell the client which ledgers it asked for now read differently. Rendered off the event
    loop (the concepts section alone takes ≈ 60 ms at 10,000 memories and grows with the store),
    one refresh at a time: changes that arrive meanwhile make it render once more."""
    if not ls.ledgers:
        return
    if ls.ledger_refreshing:
        ls.ledger_stale = True
        return
    ls.ledger_refreshing = True
    ls.spawn(_refresh(ls))


async def _refresh(ls: ServerContext) -> None:
    try:
        while True:
            ls.ledger_stale = False
            for uri, (project, _shown) in list(ls.ledgers.items()):
                try:
                    ledger = await asyncio.to_thread(render, ls, project)
                except CenotaphError as exc:
                    log.warning("ledger %s: %s", uri, exc)
                    continue
                # Told even when the text reads the same: the client's last word is then as of the
                # store's last event, whichever of a burst's writes the text last showed.
                ls.ledgers[uri] = (project, ledger.text)
                ls.protocol.notify(DID_CHANGE, LedgerDidChange(uri=uri, project=project, seq=ledger.seq).dump())
            if not ls.ledger_stale:
                return
    finally:
        ls.ledger_refreshing = False


def register(server: ServerContext) -> None:
    @server.feature(REQUEST)
    async def ledger_request(ls: ServerContext, params: Any) -> dict[str, Any]:
        try:
            request = LedgerParams.from_wire(plain(params))
        except ValidationError as exc:
            raise JsonRpcInvalidParams(message=f"{REQUEST}: {exc.errors()[0]['msg']}") from None
        if request.project is not None:
            project = request.project.strip()
        elif is_ledger(request.uri or ""):
            project = project_of(request.uri or "")
        else:
            project = ls.project_for(request.uri or "")
            if project is None:
                raise JsonRpcInvalidParams(message=f"uri: {request.uri!r} is outside the workspace folders")
        try:
            ledger = await asyncio.to_thread(render, ls, project)  # off the loop, as notify_changed's
        except CenotaphError as exc:
            raise rpc_error(exc) from None
        answer = result(ledger)
        ls.ledgers[answer.uri] = (project, ledger.text)
        return answer.dump()

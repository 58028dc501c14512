"""Domain records → LSP types and wire models. The wire models mirror shared_schema/ (a test
validates one against the other)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote

from lsprotocol import types
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.uris import to_fs_path

from cenotaph.ledger import one_line, shared_by, where
from cenotaph.memory.errors import CenotaphError, Unavailable
from cenotaph.memory.models import ApproachCheck
from cenotaph.memory.team.folder import RepoApproach, source_of
from cenotaph.store.connect import StoreUnavailable
from cenotaph.store.records import ApproachRow, MemoryRow

if TYPE_CHECKING:
    from cenotaph.nlp.detect import Mention

SOURCE = "cenotaph"
CODE_ABANDONED = "abandoned-approach"
CODE_CONTRADICTION = "open-contradiction"
CODE_SHARED_FILE = "shared-file-invalid"

SEVERITIES: dict[str, types.DiagnosticSeverity | None] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
    "off": None,
}


class Wire(BaseModel):
    """A JSON object of the contract: camelCase on the wire, strict types, unknown keys refused."""

    # Built at first use, not at import: `initialize` needs only the settings model.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True,
                              frozen=True, defer_build=True)

    @classmethod
    def from_wire(cls, data: Any) -> Any:
        """Validate what a client sent: camelCase names only, as the schema says."""
        return cls.model_validate(data, by_alias=True, by_name=False)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class ApproachDiagnosticData(Wire):
    type: Literal["approach"]
    approach_id: int = Field(ge=1)
    name: str
    display_name: str
    project: str
    scope: Literal["project", "global", "other_project"]
    document_project: str
    kind: Literal["import", "declaration", "mention", "recommendation"]
    source: Literal["store", "repo"] = "store"


class ContradictionDiagnosticData(Wire):
    type: Literal["contradiction"]
    contradiction_id: int = Field(ge=1)
    memory_a: int = Field(ge=1)
    memory_b: int = Field(ge=1)
    project: str


def file_path(uri: str) -> Path | None:
    """The file a `file:` URI names; None for any other scheme."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(os.path.normpath(unquote(path))) if path else None


def to_range(line: int, start: int, end: int, end_line: int | None = None) -> types.Range:
    return types.Range(start=types.Position(line=line, character=start),
                       end=types.Position(line=line if end_line is None else end_line, character=end))


def approach_summary(approach: ApproachRow, scope: str | None) -> str:
    """`onnxruntime was abandoned here (effort 4/5, 2026-03-01): SIGILL crash on Alpine musl libc`"""
    facts = [f"effort {approach.effort}/5"] if approach.effort else []
    facts.append(shared_by(approach) or approach.updated_at[:10])
    facts_text = ", ".join(facts)
    return f"{approach.display_name} was abandoned {where(approach, scope)} ({facts_text}): {one_line(approach.reason)}"


def approach_payload(verdict: ApproachCheck, document_project: str, kind: str) -> tuple[str, dict[str, Any]]:
    """The message and `data` of a diagnostic on an abandoned approach: the same for each mention,
    with the reasons of every record that abandons it here (the person's and the repository's)."""
    approach = verdict.approach
    assert approach is not None and verdict.scope is not None
    data = ApproachDiagnosticData(type="approach", approach_id=approach.id, name=approach.name,
                                  display_name=approach.display_name, project=approach.project, scope=verdict.scope,
                                  document_project=document_project, kind=kind, source=source_of(approach))
    message = approach_summary(approach, verdict.scope)
    told = {one_line(approach.reason)}
    for other in verdict.also:
        origin = shared_by(other) or ("everywhere" if other.project == "" else "by you")
        # A record that says what was said already (the person's own, shared with the team): once,
        # with where else it is.
        reason = one_line(other.reason)
        message += f"; also {origin}" if reason in told else f"; also abandoned ({origin}): {reason}"
        told.add(reason)
    return message, data.dump()


def approach_diagnostic(mention: Mention, payload: tuple[str, dict[str, Any]], severity: types.DiagnosticSeverity,
                        kind: str) -> types.Diagnostic:
    message, data = payload
    if kind == "recommendation":
        message = f"This line recommends {mention.name}, but {message}"
    return types.Diagnostic(range=to_range(mention.line, mention.start, mention.end), message=message,
                            severity=severity, source=SOURCE, code=CODE_ABANDONED, data=dict(data))


def code_action(title: str, command: str, argument: dict[str, Any], *, kind: str = types.CodeActionKind.QuickFix,
                diagnostic: types.Diagnostic | None = None) -> types.CodeAction:
    """A code action that runs one of our commands (commands.schema.json) with its one argument."""
    return types.CodeAction(title=title, kind=kind, diagnostics=[diagnostic] if diagnostic else None,
                            command=types.Command(title=title, command=command, arguments=[argument]))


def approach_story(approach: ApproachRow, scope: str | None, record: MemoryRow | None) -> str:
    """The whole story of an abandoned approach, as Markdown: what, why, at what cost, when, by
    whom, what replaced it, its gotchas and the memory behind it."""
    status = "abandoned" if approach.status == "abandoned" else f"reinstated ({one_line(approach.status_reason or '')})"
    lines = [f"**{approach.display_name}** ({approach.ecosystem}) — {status} {where(approach, scope)}", "",
             approach.reason.strip(), ""]
    if isinstance(approach, RepoApproach):
        # Shared in the repository: the file is the record (no memory behind it in this store).
        facts = [f"effort {approach.effort}/5"] if approach.effort else []
        lines += ["*" + " · ".join([*facts, shared_by(approach), f"`{approach.path}`"]) + "*", ""]
        if approach.breakthrough:
            lines += [f"**What replaced it:** {approach.breakthrough.strip()}", ""]
        if approach.gotchas:
            lines += ["**Gotchas:**", *[f"- {one_line(g, 300)}" for g in approach.gotchas], ""]
        if approach.aliases:
            lines += ["Also known as: " + ", ".join(f"`{a}`" for a in approach.aliases)]
        return "\n".join(lines).strip() + "\n"
    facts = []
    if approach.effort:
        facts.append(f"effort {approach.effort}/5")
    outcome = (record.outcome if record else None) or approach.outcome
    facts.append(f"outcome: {outcome}")
    if record and record.iterations:
        facts.append(f"{record.iterations} iterations")
    facts.append(f"{approach.created_at[:10]} by {approach.actor}")
    lines += ["*" + " · ".join(facts) + "*", ""]
    if record and record.breakthrough:
        lines += [f"**What replaced it:** {record.breakthrough.strip()}", ""]
    if record and record.gotchas:
        lines += ["**Gotchas:**", *[f"- {one_line(g, 300)}" for g in record.gotchas], ""]
    if record is not None:
        # The story memory `abandon` wrote says the reason again: cited, not repeated.
        content = "" if approach.reason.strip() in record.content else f": {one_line(record.content, 300)}"
        lines += ["**The memory behind it:**",
                  f"- memory #{record.memory_id} · {record.kind} · {record.trust} · {record.recorded_at[:10]} "
                  f"by {record.actor}{content}"]
    if approach.aliases:
        lines += ["", "Also known as: " + ", ".join(f"`{a}`" for a in approach.aliases)]
    return "\n".join(lines).strip() + "\n"


def rpc_error(exc: CenotaphError | StoreUnavailable) -> JsonRpcException:
    """A domain refusal as a JSON-RPC error the client can show: the message names the field. A
    store that cannot be used (busy past the wait, a full disk, read-only) says so in the words
    the command line prints."""
    if isinstance(exc, StoreUnavailable):
        return JsonRpcInternalError(message=str(exc), data={"field": "store"})
    if isinstance(exc, Unavailable):
        return JsonRpcInternalError(message=str(exc), data={"field": exc.field})
    return JsonRpcInvalidParams(message=str(exc), data={"field": exc.field, "error": type(exc).__name__})


def plain(value: Any) -> Any:
    """pygls hands custom requests' params over as namedtuples: back to JSON values."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value

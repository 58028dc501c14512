"""Diagnostics: each import, declaration or mention of an abandoned approach in an open
document, at its exact range. Imports and manifests need neither the model nor spaCy; an
instruction-file line is checked for a recommendation once spaCy has loaded."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from cenotaph.lsp.convert import SEVERITIES, approach_diagnostic, approach_payload, file_path
from cenotaph.lsp.features import compile as compile_feature
from cenotaph.lsp.features import anchors, ledger, shared_folder
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import ApproachCheck
from cenotaph.memory.policy import authored
from cenotaph.nlp import ecosystems
from cenotaph.nlp.detect import Mention, detect
from cenotaph.nlp.ecosystems.base import line_starts

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.15
MAX_NAME = 300  # longer "names" are not package names; the domain refuses them
CHECK_BATCH = 1000
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(slots=True)
class Scan:
    """The mentions in one version of a document."""

    key: tuple
    project: str
    kind: str
    text: str
    mentions: list[Mention]


def preload() -> threading.Thread:
    """Load the ecosystems' detectors off the event loop: compiling their patterns takes 80 ms
    of CPU, which the first document opened would otherwise wait for."""
    thread = threading.Thread(target=ecosystems.load, name="cenotaph-detect", daemon=True)
    thread.start()
    return thread


def scan(ls: ServerContext, uri: str) -> Scan | None:
    """The document's mentions, or None when it is not scanned: outside the workspace, a kind
    the settings leave out, too large, or binary."""
    document = ls.workspace.text_documents.get(uri)
    project = ls.project_for(uri)
    if document is None or project is None:
        return None
    path = str(file_path(uri))
    kind = ecosystems.document_kind(path)
    if kind is None or kind not in ls.settings.file_kinds:
        return None
    text = document.source
    if len(text) > ls.settings.max_file_size or "\x00" in text:
        log.info("not scanning %s: %s", uri, "too large" if len(text) > ls.settings.max_file_size else "binary")
        return None
    vocabulary = ls.memory.graveyard.vocabulary() if ecosystems.document(kind).prose else frozenset()
    # What the document's workspace folder (its Cargo.toml files, its Python environment) says
    # the document's imports stand for.
    import_names = ls.import_names.for_document(path, kind, (folder for folder, _project in ls.folders))
    key = (document.version, len(text), project, kind, vocabulary, import_names)
    cached = ls.scans.get(uri)
    if cached is not None and cached.key == key:
        return cached
    found = Scan(key, project, kind, text, _not_authored(text, detect(path, text, vocabulary, import_names)))
    ls.scans[uri] = found
    return found


def _not_authored(text: str, mentions: list[Mention]) -> list[Mention]:
    """The mentions outside what Cenotaph wrote (its managed block, a file it compiled, its lint
    entries): its own "Don't: flask" is the graveyard speaking, not the person choosing flask."""
    written = authored.spans(text)
    if not written or not mentions:
        return mentions
    starts = line_starts(text)
    lines = [(bisect_right(starts, start) - 1, bisect_right(starts, end - 1) - 1) for start, end in written]
    return [m for m in mentions if not any(first <= m.line <= last for first, last in lines)]


def _verdicts(ls: ServerContext, found: Scan) -> dict[tuple[str, str], ApproachCheck]:
    """The verdict per (name, ecosystem) for each abandoned name the document holds, unless its
    diagnostic is suppressed. Verdicts are kept until the store moves, so re-scans while
    typing and other documents naming the same packages only check what is new."""
    seq = (ls.memory.change_seq(), ls.memory.shared.generation)
    if ls.verdicts[0] != seq:
        ls.verdicts = (seq, {}, {})
    cache = ls.verdicts[1]
    scope = (found.project, ls.settings.other_projects)
    named = {(mention.key, mention.ecosystem) for mention in found.mentions}  # a file repeats names
    missing: dict[str, set[str]] = defaultdict(set)
    for name, ecosystem in named:
        if (scope, ecosystem, name) not in cache and len(name) <= MAX_NAME and name.strip():
            missing[ecosystem].add(name)
    for ecosystem, group in missing.items():
        ordered = sorted(group)
        for start in range(0, len(ordered), CHECK_BATCH):
            batch = ordered[start:start + CHECK_BATCH]
            checked = ls.memory.check_approaches(batch, project=found.project, ecosystem=ecosystem,
                                                 include_other_projects=ls.settings.other_projects, detected=True)
            cache.update(((scope, ecosystem, name), verdict) for name, verdict in zip(batch, checked, strict=True))
    return {(name, ecosystem): verdict for name, ecosystem in named
            if (verdict := cache.get((scope, ecosystem, name))) is not None and verdict.status == "abandoned"
            and verdict.approach is not None and not verdict.diagnostic_suppressed}


def _recommends(ls: ServerContext, line: str) -> bool:
    analyzer = ls.memory.ctx.analyzer
    return analyzer.loaded and analyzer.analyze(line).polarity > 0


def compute(ls: ServerContext, uri: str) -> list[types.Diagnostic]:
    if (in_shared_folder := shared_folder.file_diagnostics(ls, uri)) is not None:
        return in_shared_folder
    found = scan(ls, uri)
    if found is None or not found.mentions:
        return []
    severity = ls.settings.severity
    by_scope = {"project": severity.project, "global": severity.global_, "other_project": severity.other_project}
    flagged = _verdicts(ls, found)
    if not flagged:
        return []
    payloads = ls.verdicts[2]  # message and data per approach, kept as long as the verdicts
    lines: list[str] | None = None
    diagnostics = []
    for mention in found.mentions:
        verdict = flagged.get((mention.key, mention.ecosystem))
        if verdict is None:
            continue
        kind: str = mention.kind
        if kind == "mention":
            if ecosystems.document(found.kind).instructions:
                lines = lines if lines is not None else _LINE_BREAK.split(found.text)
                if _recommends(ls, lines[mention.line]):
                    kind = "recommendation"
            level = severity.instruction if kind == "recommendation" else severity.mention
        else:
            level = by_scope[verdict.scope or "project"]
        if (lsp_severity := SEVERITIES[level]) is not None:
            key = (verdict.approach.id, verdict.scope, found.project, kind)
            if (payload := payloads.get(key)) is None:
                payload = payloads[key] = approach_payload(verdict, found.project, kind)
            diagnostics.append(approach_diagnostic(mention, payload, lsp_severity, kind))
    return diagnostics


def publish(ls: ServerContext, uri: str, *, only_changed: bool = False) -> None:
    """Compute and send a document's diagnostics; with `only_changed`, stay silent when they are
    what the client already has."""
    try:
        diagnostics = ledger.diagnostics(ls, uri) if ledger.is_ledger(uri) else \
            compute(ls, uri) + compile_feature.diagnostics(ls, uri) + anchors.diagnostics(ls, uri)
    except CenotaphError as exc:
        log.warning("diagnostics for %s: %s", uri, exc)
        return
    except Exception:  # noqa: BLE001 - one document's failure must not stop the others' refresh
        log.exception("diagnostics for %s", uri)
        return
    if only_changed and ls.published.get(uri, []) == diagnostics:
        return
    ls.published[uri] = diagnostics
    document = ls.workspace.text_documents.get(uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
        uri=uri, diagnostics=diagnostics, version=document.version if document else None))


def forget(ls: ServerContext, uri: str) -> None:
    if (timer := ls.pending.pop(uri, None)) is not None:
        timer.cancel()
    ls.scans.pop(uri, None)
    ls.published.pop(uri, None)


def register(server: ServerContext) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ServerContext, params: types.DidOpenTextDocumentParams) -> None:
        anchors.opened(ls, params.text_document.uri)
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ServerContext, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        anchors.edited(ls, params)
        if (timer := ls.pending.pop(uri, None)) is not None:
            timer.cancel()

        def rescan() -> None:
            ls.pending.pop(uri, None)
            if uri in ls.workspace.text_documents:
                publish(ls, uri, only_changed=True)

        ls.pending[uri] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, rescan)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ServerContext, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        had_diagnostics = bool(ls.published.get(uri))
        forget(ls, uri)
        anchors.closed(ls, uri)
        if had_diagnostics:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

"""The repositories' shared folders (`.cenotaph/`, memory/team/folder.py) kept live: a `git pull`, a
branch switch or an edit that changes a folder reaches open documents within a second. Clients
that watch files tell us at once (`workspace/didChangeWatchedFiles`, registered for
`**/.cenotaph/**`); for the others, the live refresh (refresh.py) checks the folders' state on
each round. A file that cannot be read gets one diagnostic, on that file; the others still work."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from cenotaph.lsp.convert import CODE_SHARED_FILE, SOURCE, file_path, to_range

if TYPE_CHECKING:
    from cenotaph.lsp.features import ServerContext

log = logging.getLogger(__name__)

WATCH_GLOB = "**/.cenotaph/**"
REGISTRATION_ID = "cenotaph-shared-folder"


def _problems(ls: ServerContext) -> dict[str, list[types.Diagnostic]]:
    """One diagnostic per malformed file, by URI."""
    found: dict[str, list[types.Diagnostic]] = {}
    for state in ls.memory.shared.states():
        for problem in state.problems:
            found[(state.root / problem.path).as_uri()] = [types.Diagnostic(
                range=to_range(problem.line, 0, 0, end_line=problem.line + 1), severity=types.DiagnosticSeverity.Error,
                source=SOURCE, code=CODE_SHARED_FILE,
                message=f"Cenotaph cannot read this shared entry (the others still work): {problem.message}")]
    return found


def file_diagnostics(ls: ServerContext, uri: str) -> list[types.Diagnostic] | None:
    """The diagnostics of a file in a shared folder (its problem, or none); None for any other file.
    A shared file is not scanned for mentions: the memory that explains a dead end names it."""
    path = file_path(uri)
    if path is None or ls.memory.shared.containing(path) is None:
        return None
    return _problems(ls).get(path.as_uri(), [])


def publish_problems(ls: ServerContext) -> None:
    """Publish the problems of shared files that are not open (open ones are published with the
    other documents), and clear those fixed or gone."""
    current = _problems(ls)
    for uri in sorted(set(ls.shared_problem_uris) | set(current)):
        if uri in ls.workspace.text_documents:
            continue
        diagnostics = current.get(uri, [])
        if ls.published.get(uri, []) != diagnostics:
            ls.published[uri] = diagnostics
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))
    ls.shared_problem_uris = set(current)


async def watch_files(ls: ServerContext, capabilities: types.ClientCapabilities) -> None:
    """Ask the client to tell us about changes under `.cenotaph/`, when it can."""
    workspace = capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not (watched and watched.dynamic_registration):
        return
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id=REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=WATCH_GLOB)]))]))
    except Exception as exc:  # noqa: BLE001 - the live refresh still checks the folders
        log.info("the client did not register the file watcher for %s (%s): polling only", WATCH_GLOB, exc)


def register(server: ServerContext) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(ls: ServerContext, params: types.DidChangeWatchedFilesParams) -> None:
        ls.spawn(ls.refresh_if_changed())

"""The language server's features, one a module. Each module that answers the client declares its
handlers in `register(server)`, which server.py calls; the others (refresh, endpoint, mining) are
started by server.py's life-cycle handlers. A feature asks of the server only what
`ServerContext` offers, and never imports server.py: the server depends on its features, not the
other way round."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from pygls.protocol import LanguageServerProtocol
    from pygls.workspace import Workspace

    from cenotaph.lsp.settings import Settings
    from cenotaph.memory.models import Actor
    from cenotaph.memory.service import Memory
    from cenotaph.nlp.workspace import ImportNameCache

# What `initialize` announces of the modules' handlers: the protocol's methods they answer, each
# with the options announced for it, and their commands. `cenotaph serve` answers `initialize` from
# these alone and imports the modules at `initialized` (server.build); tests/lsp/test_start.py holds
# them to what the modules register. Their own methods (`cenotaph/…`) are announced to no one.
ANNOUNCED: dict[str, Any] = {
    types.TEXT_DOCUMENT_DID_OPEN: None,
    types.TEXT_DOCUMENT_DID_CHANGE: None,
    types.TEXT_DOCUMENT_DID_CLOSE: None,
    types.TEXT_DOCUMENT_DID_SAVE: types.SaveOptions(include_text=False),
    types.TEXT_DOCUMENT_HOVER: None,
    types.TEXT_DOCUMENT_CODE_ACTION: types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]),
    types.TEXT_DOCUMENT_CODE_LENS: types.CodeLensOptions(resolve_provider=False),
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: None,
    types.WORKSPACE_DID_CHANGE_WATCHED_FILES: None,
}
ANNOUNCED_COMMANDS = (
    "cenotaph.silence", "cenotaph.reinstate", "cenotaph.liftSilence", "cenotaph.showWhy", "cenotaph.markWrong",
    "cenotaph.remember", "cenotaph.abandon", "cenotaph.resolveContradiction", "cenotaph.dismissContradiction",
    "cenotaph.setTrust", "cenotaph.archive", "cenotaph.reinstateMemory", "cenotaph.acceptProposal",
    "cenotaph.rejectProposal", "cenotaph.acceptCandidate", "cenotaph.mine", "cenotaph.decideCandidates",
    "cenotaph.reopenCandidates", "cenotaph.showLocation", "cenotaph.share", "cenotaph.unshare", "cenotaph.bless",
    "cenotaph.setEffort", "cenotaph.reconfirmAnchor", "cenotaph.retireAnchored", "cenotaph.showAnchor",
)

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]  # pygls's `feature` and `command`


class ServerContext(Protocol):
    """The server as its features see it (server.CenotaphServer is the one implementation)."""

    # The domain, the person at the editor, the settings and the workspace's projects.
    explicit_project: str | None
    actor: Actor
    settings: Settings
    folders: list[tuple[Path, str]]  # (folder, project), deepest folder first

    @property
    def import_names(self) -> ImportNameCache: ...

    @property
    def memory(self) -> Memory: ...

    def project_for(self, uri: str) -> str | None: ...

    # After changes: diagnostics to send, everything open to bring up to date, background work.
    def publish_diagnostics(self, uri: str, *, only_changed: bool = False) -> None: ...

    def republish_all(self, *, only_changed: bool = False) -> None: ...

    def store_changed(self) -> None: ...

    async def refresh_if_changed(self) -> None: ...

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None: ...

    # State the features keep on the server, one server's worth (what each holds: server.py).
    published: dict[str, list[types.Diagnostic]]
    scans: dict[str, Any]
    pending: dict[str, asyncio.TimerHandle]
    verdicts: tuple[Any, dict[Any, Any], dict[Any, Any]]
    ledgers: dict[str, tuple[str, str]]
    ledger_refreshing: bool
    ledger_stale: bool
    shared_problem_uris: set[str]
    mcp_endpoint: Any
    lesson_keys: dict[str, tuple[int, frozenset[str]]]
    lessons_computing: set[str]
    anchored: dict[str, Any]
    lens_refresh_due: bool

    # pygls: registering handlers, the client's documents and capabilities, messages to the client.
    protocol: LanguageServerProtocol

    @property
    def workspace(self) -> Workspace: ...

    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...

    @property
    def work_done_progress(self) -> Any: ...  # pygls.progress.Progress

    def feature(self, feature_name: str, options: Any | None = None) -> Decorator: ...

    def command(self, command_name: str) -> Decorator: ...

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None: ...

    def window_show_message(self, params: types.ShowMessageParams) -> None: ...

    def workspace_code_lens_refresh(self, params: None) -> Any: ...  # a Future of the client's answer

    async def window_show_message_request_async(
            self, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None: ...

    async def window_show_document_async(self, params: types.ShowDocumentParams) -> types.ShowDocumentResult: ...

    async def workspace_configuration_async(self, params: types.ConfigurationParams) -> Sequence[Any | None]: ...

    async def client_register_capability_async(self, params: types.RegistrationParams) -> None: ...

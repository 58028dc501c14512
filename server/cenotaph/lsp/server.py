"""`cenotaph serve`: the language server, over stdio. Each workspace folder is a project; the
features live in features/, one module each; this module wires them and owns the state they share
(what they may ask of it: features.ServerContext)."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cattrs
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method

from cenotaph import __version__
from cenotaph.lsp import features, stdio

if TYPE_CHECKING:
    from cenotaph.lsp.features import anchors
    from cenotaph.lsp.settings import Settings
    from cenotaph.memory.models import Actor
    from cenotaph.memory.service import Memory
    from cenotaph.nlp.workspace import ImportNameCache

# VS Code and its builds report different client names; the audit log calls them all `vscode`.
_CLIENT_ACTORS = {"visual studio code": "vscode", "visual studio code - insiders": "vscode", "code-server": "vscode",
                  "vscodium": "vscode", "neovim": "nvim", "nvim": "nvim"}


def door_for(client: types.ClientInfo | None) -> str:
    """The audit log's name for this editor: `vscode`, `nvim`, or the client's name."""
    name = (client.name if client else "") or "editor"
    slug = _CLIENT_ACTORS.get(name.strip().lower()) or re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "editor"
    return slug[:40]


class _Protocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        # Every column this server computes is in UTF-16 code units, the encoding all clients
        # support: do not let pygls pick another one the client prefers (Neovim offers UTF-8 first).
        if params.capabilities.general is not None:
            params.capabilities.general.position_encodings = None
        return (yield from super().lsp_initialize(params))

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request whose parameters do not fit the protocol's types (a negative position, a
        number for a URI) is answered with an error naming the field: pygls would drop it, and
        the client would wait for an answer forever."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                cause = exc.__cause__
                problems = cattrs.transform_error(cause) if isinstance(cause, ClassValidationError) else [str(cause)]
                self._send_response(data["id"], error=JsonRpcInvalidParams(
                    message=f"{data['method']}: " + "; ".join(p.replace("$.params.", "") for p in problems[:5]),
                ).to_response_error())
            raise


def _converter() -> cattrs.Converter:
    """pygls's converter, writing a diagnostic out directly: a 2,000-line manifest publishes
    hundreds, and cattrs' generic way through their optional fields and `data` was a quarter of
    the didOpen (docs/benchmarks-history.md). What it leaves out goes the generic way."""
    converter = default_converter()
    generic = converter.get_unstructure_hook(types.Diagnostic)

    def diagnostic(d: types.Diagnostic) -> dict[str, Any]:
        if d.code_description is not None or d.tags is not None or d.related_information is not None:
            return generic(d)
        start, end = d.range.start, d.range.end
        out: dict[str, Any] = {"range": {"start": {"line": start.line, "character": start.character},
                                         "end": {"line": end.line, "character": end.character}},
                               "message": d.message}
        if d.severity is not None:
            out["severity"] = d.severity.value
        if d.code is not None:
            out["code"] = d.code
        if d.source is not None:
            out["source"] = d.source
        if d.data is not None:
            out["data"] = d.data  # JSON already, or written by the protocol's `default` (this converter)
        return out

    converter.register_unstructure_hook(types.Diagnostic, diagnostic)
    return converter


class CenotaphServer(LanguageServer):
    def __init__(self, memory: Memory | Callable[[], Memory], *, project: str | None = None) -> None:
        super().__init__("cenotaph", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=_Protocol, converter_factory=_converter)
        self._memory = memory
        self.explicit_project = project
        self._settings: Settings | None = None  # the defaults until the client's are applied
        self.initialization_options: Any = None  # the client's settings, applied at `initialized`
        self.features_loaded = False  # whether the feature modules' handlers are registered (load_features)
        self.door = "editor"  # the client's name for the audit log (door_for), from `initialize`
        self._actor: Actor | None = None
        self.folders: list[tuple[Path, str]] = []  # (folder, project), deepest folder first
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.scans: dict[str, Any] = {}  # uri → diagnostics.Scan, the mentions of its current version
        self.pending: dict[str, asyncio.TimerHandle] = {}  # debounced re-scans while typing
        self._import_names: ImportNameCache | None = None  # what Cargo.toml files and Python environments say
        # ((event seq, shared folders' generation), graveyard verdicts then, diagnostic message and
        # data per approach then)
        self.verdicts: tuple[Any, dict[Any, Any], dict[Any, Any]] = (-1, {}, {})
        self.ledgers: dict[str, tuple[str, str]] = {}  # ledger URI the client asked for → (project, text sent)
        self.ledger_refreshing = False  # a re-render of the ledgers is running (ledger.notify_changed)
        self.ledger_stale = False  # and the store changed again meanwhile
        self.seen_seq = 0  # the event log position the open documents reflect
        self.seen_generation = -1  # the shared folders' state the open documents reflect
        self.shared_problem_uris: set[str] = set()  # shared files published with a problem
        self.background: set[asyncio.Future] = set()
        self.mcp_endpoint: Any = None  # cenotaph.mcp.listener.HttpEndpoint once listening
        self.anchored: dict[str, anchors.OpenAnchors] = {}  # uri → the open document's anchors, as edits moved them
        self.lens_refresh_due = False  # a workspace/codeLens/refresh is about to be sent (anchors.refresh_lenses)
        self.lesson_keys: dict[str, tuple[int, frozenset[str]]] = {}  # project → (event seq, reinforced lesson keys)
        self.lessons_computing: set[str] = set()  # projects whose lesson keys are being computed

    # The settings' models (pydantic) and the detectors load at first use, after `initialize`.
    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from cenotaph.lsp.settings import Settings

            self._settings = Settings()
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self._settings = settings

    @property
    def import_names(self) -> ImportNameCache:
        if self._import_names is None:
            from cenotaph.nlp.workspace import ImportNameCache

            self._import_names = ImportNameCache()
        return self._import_names

    @property
    def memory(self) -> Memory:
        """The domain, made at first use when the server was given a way to make it: `cenotaph
        serve` answers `initialize` before importing it."""
        if callable(self._memory):
            self._memory = self._memory()
            self._memory.attach_repositories(self.repositories())
        return self._memory

    @property
    def actor(self) -> Actor:
        """The person at this editor (`vscode:<person>`): found at the first change they make,
        once the store is open (cenotaph.identity)."""
        if self._actor is None:
            from cenotaph import identity

            where = self.folders[-1][0] if self.folders else None  # the outermost workspace folder
            self._actor = identity.human(self.door, identity.person(self.memory, where))
        return self._actor

    # --- projects ----------------------------------------------------------------------------

    def refresh_folders(self) -> None:
        from cenotaph import project as project_resolution
        from cenotaph.lsp.convert import file_path

        uris = [folder.uri for folder in self.workspace.folders.values()]
        if not uris and self.workspace.root_uri:
            uris = [self.workspace.root_uri]
        folders = []
        for uri in uris:
            path = file_path(uri)
            if path is not None:
                folders.append((path, project_resolution.resolve(self.explicit_project, path)))
        self.folders = sorted(folders, key=lambda f: len(f[0].parts), reverse=True)
        if not callable(self._memory):
            self._memory.attach_repositories(self.repositories())

    def repositories(self) -> list[tuple[Path, str]]:
        """The repository of each workspace folder, with that folder's project: their `.cenotaph/`
        folders take part in the graveyard and recall."""
        from cenotaph import project as project_resolution

        found: dict[Path, str] = {}
        for folder, project in self.folders:
            root = project_resolution.repository_root(folder)
            if root is not None:
                found.setdefault(root, project)
        return list(found.items())

    def project_for(self, uri: str) -> str | None:
        """The project of a workspace document; None for anything outside the workspace folders."""
        from cenotaph.lsp.convert import file_path

        path = file_path(uri)
        if path is None:
            return None
        for folder, project in self.folders:
            if path.is_relative_to(folder):
                return project
        return None

    # --- after changes -----------------------------------------------------------------------

    def publish_diagnostics(self, uri: str, *, only_changed: bool = False) -> None:
        from cenotaph.lsp.features import diagnostics

        diagnostics.publish(self, uri, only_changed=only_changed)

    def republish_all(self, *, only_changed: bool = False) -> None:
        from cenotaph.lsp.features import diagnostics

        for uri in list(self.workspace.text_documents):
            diagnostics.publish(self, uri, only_changed=only_changed)

    def store_changed(self) -> None:
        """The store or a shared folder moved (here or in another process): bring every open
        document and ledger up to date."""
        from cenotaph.lsp.features import ledger, shared_folder

        self.seen_seq = self.memory.change_seq()
        self.seen_generation = self.memory.shared.generation
        self.republish_all(only_changed=True)
        shared_folder.publish_problems(self)
        ledger.notify_changed(self)

    async def refresh_if_changed(self) -> None:
        """One round of the live refresh: the event log's head, and the shared folders' files,
        read off the event loop (a slow store or file system must not hold up the editor)."""
        if await asyncio.to_thread(self._moved):
            self.store_changed()

    def _moved(self) -> bool:
        seq = self.memory.change_seq()
        self.memory.shared.refresh()
        return seq != self.seen_seq or self.memory.shared.generation != self.seen_generation

    def close_store(self, store: Any) -> None:
        """At exit: what reads recorded is written (a bounded wait), then the store closes."""
        if callable(self._memory):
            store.close()
        else:
            self._memory.close()

    def spawn(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)


def build(memory: Memory | Callable[[], Memory], *, project: str | None = None,
          announce_only: bool = False) -> CenotaphServer:
    """The server with its features. With `announce_only` (`cenotaph serve`), `initialize` is
    answered from what the features announce (features.ANNOUNCED), and their modules load at
    `initialized`, the client's next message: pydantic, the domain's models and the detectors
    stay out of the editor's wait for the first answer."""
    server = CenotaphServer(memory, project=project)

    @server.feature(types.INITIALIZE)
    def initialize(ls: CenotaphServer, params: types.InitializeParams) -> None:
        ls.door = door_for(params.client_info)
        ls.initialization_options = params.initialization_options

    @server.feature(types.INITIALIZED)
    def initialized(ls: CenotaphServer, params: types.InitializedParams) -> None:
        load_features(ls)
        from cenotaph.lsp.features import (
            configuration,
            diagnostics,
            endpoint,
            knowledge,
            mining,
            refresh,
            shared_folder,
        )

        configuration.apply(ls, ls.initialization_options)
        ls.refresh_folders()
        # `initialize` has been answered: now load the detectors, the model and spaCy, off the
        # event loop.
        diagnostics.preload()
        ls.memory.ctx.embedder.preload()
        analyzer = ls.memory.ctx.analyzer.preload()
        ls.seen_seq = ls.memory.change_seq()
        ls.seen_generation = ls.memory.shared.generation
        shared_folder.publish_problems(ls)
        ls.spawn(refresh.watch(ls))
        ls.spawn(shared_folder.watch_files(ls, ls.client_capabilities))

        async def once_analyzer_loaded() -> None:
            # Polled, not joined: a thread blocked in join() would hold up the loop's shutdown.
            while analyzer.is_alive():
                await asyncio.sleep(0.1)
            ls.republish_all(only_changed=True)  # instruction files: recommendations need spaCy

        ls.spawn(once_analyzer_loaded())
        ls.spawn(endpoint.start(ls))
        ls.spawn(knowledge.pull_feeds(ls))
        ls.spawn(mining.on_open(ls))

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: CenotaphServer, params: None) -> None:
        if ls.features_loaded:
            from cenotaph.lsp.features import endpoint

            await endpoint.stop(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: CenotaphServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        from cenotaph.lsp.features import mining, shared_folder

        known = {folder for folder, _ in ls.folders}
        ls.refresh_folders()
        ls.republish_all()
        shared_folder.publish_problems(ls)
        if any(folder not in known for folder, _ in ls.folders):
            ls.spawn(mining.on_open(ls))

    if announce_only:
        for method, options in features.ANNOUNCED.items():
            server.feature(method, options)(_not_initialized)
        for name in features.ANNOUNCED_COMMANDS:
            server.command(name)(_not_initialized)
    else:
        load_features(server)
    return server


def _not_initialized(*args: Any) -> None:
    """What answers before `initialized` (which the protocol has the client send first)."""
    raise JsonRpcServerNotInitialized(message="the client has not sent `initialized` yet")


def load_features(server: CenotaphServer) -> None:
    """Import the feature modules and register their handlers, in place of what was announced."""
    if server.features_loaded:
        return
    from cenotaph.lsp.features import (
        anchors,
        code_actions,
        commands,
        configuration,
        diagnostics,
        hover,
        knowledge,
        ledger,
        recall,
        shared_folder,
    )
    from cenotaph.lsp.features import compile as compile_feature

    manager = server.protocol.fm
    for method in features.ANNOUNCED:
        manager.features.pop(method, None)
        manager.feature_options.pop(method, None)
    for name in features.ANNOUNCED_COMMANDS:
        manager.commands.pop(name, None)
    for feature in (configuration, diagnostics, hover, code_actions, commands, ledger, knowledge, recall,
                    compile_feature, shared_folder, anchors):
        feature.register(server)
    server.features_loaded = True


def main(args: argparse.Namespace) -> int:
    from cenotaph.app import memory_for, open_store
    from cenotaph.store.connect import StoreUnavailable
    from cenotaph.store.migrations import SchemaTooNew

    # The protocol owns stdout: anything else that writes to file descriptor 1 (a library's
    # print, a native warning) goes to stderr instead of corrupting the stream.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        store = open_store(args.db)  # a store that cannot be used stops the server before it starts
    except (StoreUnavailable, SchemaTooNew) as exc:
        sys.stderr.write(f"cenotaph: error: {exc}\n")
        return 2
    server = build(lambda: memory_for(store), project=args.project, announce_only=True)
    try:
        stdio.serve(server, sys.stdin.buffer, protocol_out)
    finally:
        server.close_store(store)
    # The loader threads may still be inside native code (onnxruntime, spaCy's import), where
    # interpreter finalization would abort the process: leave without it.
    sys.stderr.flush()
    os._exit(0 if server.protocol._shutdown else 1)

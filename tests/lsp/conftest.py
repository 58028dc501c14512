"""The real `cenotaph serve` process, driven by pytest-lsp's client, on a private store that the
test prepares through the domain API (in this process) or the CLI."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Union

import jsonschema
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

from tests.conftest import CENOTAPH, REPO

PROJECT = "acme/app"
SCHEMAS = REPO / "shared_schema"


def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def conforms(name: str, instance: Any, definition: str | None = None) -> None:
    """A payload the real server sent matches the contract in shared_schema/."""
    schema = load_schema(name)
    if definition is not None:
        schema = {"$defs": schema["$defs"], **schema["$defs"][definition]}
    jsonschema.validate(instance, schema)


def project_folder(root: Path, name: str, project: str) -> Path:
    """A workspace folder whose `.cenotaph.toml` names its project."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".cenotaph.toml").write_text(f'project = "{project}"\n', encoding="utf-8")
    return folder


class Session:
    """A started server and the helpers the tests share."""

    def __init__(self, client: LanguageClient, initialized: types.InitializeResult) -> None:
        self.client = client
        self.initialized = initialized
        self.versions: dict[str, int] = {}

    def open(self, path: Path, text: str, language: str = "plaintext") -> str:
        return self.open_uri(path.as_uri(), text, language)

    def open_uri(self, uri: str, text: str, language: str = "plaintext") -> str:
        self.client.diagnostics.pop(uri, None)
        self.versions[uri] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
        return uri

    def replace(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, uri: str, until: Callable[[Sequence[types.Diagnostic]], bool] = lambda d: True,
                          timeout: float = 20.0) -> list[types.Diagnostic]:
        """The diagnostics published for `uri` once they satisfy `until`. The generous default
        only bounds a stuck test on a loaded machine; latency targets live in bench/."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = self.client.diagnostics.get(uri)
            if found is not None and until(found):
                return list(found)
            if loop.time() > deadline:
                raise AssertionError(f"diagnostics for {uri} never satisfied the condition; last: {found}")
            await asyncio.sleep(0.01)

    async def message(self, kind: types.MessageType, timeout: float = 15.0) -> types.ShowMessageParams:
        """The first `window/showMessage` of this kind (the settings are read at `initialized`,
        after the session's start)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (found := [m for m in self.client.messages if m.type == kind]):
            if loop.time() > deadline:
                raise AssertionError(f"the server never showed a message of type {kind}")
            await asyncio.sleep(0.02)
        return found[0]

    async def endpoint(self, timeout: float = 15.0) -> dict[str, Any]:
        """The MCP endpoint the server reported (`cenotaph/mcpEndpoint`)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.client.endpoints:  # type: ignore[attr-defined]
            if loop.time() > deadline:
                raise AssertionError("the server never reported its MCP endpoint")
            await asyncio.sleep(0.02)
        return self.client.endpoints[-1]  # type: ignore[attr-defined]

    async def execute(self, command: str, argument: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=[argument]))

    async def code_actions(self, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        actions = await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic])))
        return list(actions or [])

    async def hover(self, uri: str, line: int, character: int) -> types.Hover | None:
        return await self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character)))


def abandoned(diagnostics: Sequence[types.Diagnostic], name: str) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == "abandoned-approach" and d.data["name"] == name]


@pytest.fixture
async def serve(cli_env: dict[str, str], db_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Start `cenotaph serve` on the test's store: `await serve(folders, init_options=…)`."""
    clients: list[LanguageClient] = []

    async def start(folders: Sequence[Path], *, init_options: Any = None, client_name: str = "Visual Studio Code",
                    message_answers: Sequence[str | None] = (), position_encodings: Sequence[str] | None = None,
                    ) -> Session:
        client = make_test_lsp_client()
        # lsprotocol 2025.0.0 structures every code action that carries a command as a bare
        # Command; decide on the shape of `command` instead (a string only in a Command).
        converter = client.protocol._converter
        converter.register_structure_hook(
            Union[types.Command, types.CodeAction],
            lambda value, _: converter.structure(
                value, types.Command if isinstance(value.get("command"), str) else types.CodeAction))
        answers = list(message_answers)
        client.message_requests: list[types.ShowMessageRequestParams] = []  # type: ignore[misc]

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def show_message_request(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
            client.message_requests.append(params)  # type: ignore[attr-defined]
            title = answers.pop(0) if answers else None
            return types.MessageActionItem(title=title) if title else None

        client.registrations: list[types.Registration] = []  # type: ignore[misc]

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register_capability(params: types.RegistrationParams) -> None:
            client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

        client.endpoints: list[dict[str, Any]] = []  # type: ignore[misc]

        @client.feature("cenotaph/mcpEndpoint")
        def mcp_endpoint(params: Any) -> None:
            # pygls hands unknown notifications over as named tuples.
            client.endpoints.append(params._asdict() if hasattr(params, "_asdict") else dict(params))  # type: ignore[attr-defined]

        await client.start_io(CENOTAPH, "serve", "--db", str(db_path), env=cli_env)
        clients.append(client)
        capabilities = client_capabilities("visual-studio-code")
        if position_encodings is not None:
            capabilities.general = types.GeneralClientCapabilities(position_encodings=list(position_encodings))
        result = await client.initialize_session(types.InitializeParams(
            capabilities=capabilities,
            client_info=types.ClientInfo(name=client_name, version="1"),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
            root_uri=folders[0].as_uri() if folders else None,
            initialization_options=init_options,
        ))
        return Session(client, result)

    yield start
    for client in clients:
        await client.shutdown_session()
        await client.stop()

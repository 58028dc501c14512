"""The editor's start (issue 42): `cenotaph serve` answers `initialize` from what the features
announce (features.ANNOUNCED), before it imports them, pydantic or the domain's models; they load
at `initialized`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder

from cenotaph.lsp import features
from cenotaph.lsp.server import CenotaphServer, build, load_features
from tests.conftest import CENOTAPH
from tests.lsp.conftest import PROJECT, project_folder

# What the features' modules bring: none of it is needed to answer `initialize`.
LAZY = ("pydantic", "cenotaph.lsp.convert", "cenotaph.lsp.settings", "cenotaph.lsp.features.diagnostics",
        "cenotaph.lsp.features.commands", "cenotaph.lsp.features.ledger", "cenotaph.memory.models",
        "cenotaph.nlp.detect", "cenotaph.project", "tomllib")


def _capabilities(server: CenotaphServer) -> types.ServerCapabilities:
    manager = server.protocol.fm
    return ServerCapabilitiesBuilder(
        types.ClientCapabilities(), set({**manager.features, **manager.builtin_features}), manager.feature_options,
        list(manager.commands), types.TextDocumentSyncKind.Incremental, None, types.PositionEncodingKind.Utf16,
    ).build()


def test_what_is_announced_is_what_the_features_register():
    announced, whole = build(lambda: None, announce_only=True), build(lambda: None)
    assert _capabilities(announced) == _capabilities(whole)
    assert set(announced.protocol.fm.commands) == set(whole.protocol.fm.commands)
    # At `initialized` the features' handlers take the announced places.
    load_features(announced)
    for method in features.ANNOUNCED:
        handler = announced.protocol.fm.features[method]
        assert getattr(handler, "func", handler).__module__.startswith("cenotaph.lsp.features.")  # pygls's partial
    for name in features.ANNOUNCED_COMMANDS:
        handler = announced.protocol.fm.commands[name]
        assert getattr(handler, "func", handler).__module__ == "cenotaph.lsp.features.commands"
    assert _capabilities(announced) == _capabilities(whole)


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(out: Any) -> dict[str, Any]:
    length = 0
    while (line := out.readline().strip()):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(out.read(length))


def _imported(env: dict[str, str], db: Path, folder: Path, *, open_document: bool) -> set[str]:
    """The modules a real `cenotaph serve` imported over a session of `initialize`, then (with
    `open_document`) `initialized` and a requirements file until its diagnostics, then shutdown."""
    server = subprocess.Popen([CENOTAPH, "serve", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env={**env, "PYTHONPROFILEIMPORTTIME": "1"})
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any], until: Any = None) -> None:
        server.stdin.write(_frame({"jsonrpc": "2.0", **message}))
        server.stdin.flush()
        while until is not None and not until(_read(server.stdout)):
            pass

    try:
        send({"id": 1, "method": "initialize", "params": {
            "processId": None, "capabilities": {}, "workspaceFolders": [{"uri": folder.as_uri(), "name": "app"}]}},
            until=lambda m: m.get("id") == 1)
        if open_document:
            uri = (folder / "requirements.txt").as_uri()
            send({"method": "initialized", "params": {}})
            send({"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "pip-requirements", "version": 1, "text": "requests\n"}}},
                until=lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        send({"id": 2, "method": "shutdown"}, until=lambda m: m.get("id") == 2)
        send({"method": "exit"})
        _, stderr = server.communicate(timeout=60)
    finally:
        server.kill()
    return {line.rsplit("|", 1)[1].strip() for line in stderr.decode().splitlines() if line.startswith("import time:")}


@pytest.mark.sqlite_only("the store's kind does not change what the language server imports")
def test_initialize_is_answered_before_the_features_load(cli_env, db_path, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    before = _imported(cli_env, db_path, folder, open_document=False)
    assert {"cenotaph.lsp.stdio", "lsprotocol.types"} <= before  # the measure sees the server's imports
    assert not before & set(LAZY)
    # The positive control: once a document is open, everything the features need is there.
    after = _imported(cli_env, db_path, folder, open_document=True)
    assert set(LAZY) <= after

"""What the server writes for a diagnostic: its own unstructuring (server._converter, for speed)
gives what pygls's converter gives, for the diagnostics it publishes and for the fields it leaves
to the generic way."""

from __future__ import annotations

import json

from lsprotocol import types
from pygls.protocol import default_converter

from cenotaph.lsp.server import _converter

RANGE = types.Range(start=types.Position(line=3, character=0), end=types.Position(line=3, character=12))


def _written(converter, diagnostics: list[types.Diagnostic]) -> dict:
    params = types.PublishDiagnosticsParams(uri="file:///app/requirements.txt", diagnostics=diagnostics, version=4)
    message = types.PublishDiagnosticsNotification(params=params)
    return json.loads(json.dumps(message, default=converter.unstructure))


def test_a_diagnostic_is_written_as_pygls_writes_it():
    ours = [
        types.Diagnostic(range=RANGE, message="requests: abandoned", severity=types.DiagnosticSeverity.Warning,
                         code="abandoned-approach", source="cenotaph",
                         data={"type": "approach", "approachId": 7, "scope": "project"}),
        types.Diagnostic(range=RANGE, message="a hint", severity=types.DiagnosticSeverity.Hint, code=3),
        types.Diagnostic(range=RANGE, message="bare"),
        # `data` that is not JSON yet goes through the converter, as before.
        types.Diagnostic(range=RANGE, message="nested", data={"at": types.Position(line=1, character=2)}),
    ]
    assert _written(_converter(), ours) == _written(default_converter(), ours)


def test_what_it_leaves_out_goes_the_generic_way():
    rare = [types.Diagnostic(
        range=RANGE, message="deprecated", tags=[types.DiagnosticTag.Deprecated],
        code_description=types.CodeDescription(href="https://example.com/why"),
        related_information=[types.DiagnosticRelatedInformation(
            location=types.Location(uri="file:///app/x.py", range=RANGE), message="here")])]
    written = _written(_converter(), rare)
    assert written == _written(default_converter(), rare)
    assert written["params"]["diagnostics"][0]["tags"] == [2]  # the control: those fields are there

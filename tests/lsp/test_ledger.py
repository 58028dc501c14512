"""The ledger: a read-only virtual document per project, with diagnostics on open contradictions
and code actions that judge its entries."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.conftest import AGENT, HUMAN
from cenotaph.lsp.convert import plain
from tests.lsp.conftest import PROJECT, conforms, project_folder


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


async def test_the_ledger_lists_judges_and_refreshes(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "onnxruntime", reason="SIGILL crash on Alpine musl libc", project=PROJECT, effort=4)
    always = memory.remember(HUMAN, "Always use pytest fixtures for database setup in this repo", project=PROJECT)
    never = memory.remember(HUMAN, "Never use pytest fixtures for database setup in this repo", project=PROJECT,
                            force=True)
    (warning,) = never.contradictions
    staging = memory.remember(HUMAN, "The staging server listens on port 8080", project=PROJECT)
    memory.deprioritise(HUMAN, staging.id, reason="staging is rarely used", hints=["staging", "port"])
    doubtful = memory.remember(HUMAN, "Deploys happen on Fridays", project=PROJECT)
    proposal = memory.set_trust(AGENT, doubtful.id, "refuted", reason="the deploy log shows Tuesdays")
    other = memory.remember(HUMAN, "Another project's note", project="acme/other")
    memory.deprioritise(HUMAN, other.id, reason="not ours")

    session = await serve([folder])
    changes: list[dict] = []
    session.client.feature("cenotaph/ledgerDidChange")(lambda params: changes.append(params))
    requirements = session.open(folder / "requirements.txt", "onnxruntime\n")

    ledger = await session.client.protocol.send_request_async("cenotaph/ledger", {"uri": requirements})
    conforms("ledger.schema.json", plain(ledger), "result")
    assert ledger.uri == "cenotaph:ledger/acme/app.md" and ledger.project == PROJECT
    assert ledger.counts._asdict() == {"graveyard": 1, "contradictions": 1, "deprioritised": 1, "proposals": 1}
    text = ledger.text
    assert "SIGILL crash on Alpine musl libc" in text and "effort 4/5" in text
    assert "reinstate when: staging, port" in text and "Another project's note" not in text
    assert f"proposal #{proposal.id}" in text and "the deploy log shows Tuesdays" in text
    table = _line(text, "| Always use pytest fixtures")  # both sides on one row
    assert "Never use pytest fixtures" in text.splitlines()[table]

    uri = session.open_uri(ledger.uri, text, "markdown")
    (contradiction,) = await session.diagnostics(uri)
    assert contradiction.code == "open-contradiction" and contradiction.severity == types.DiagnosticSeverity.Warning
    conforms("diagnostic-data.schema.json", contradiction.data)
    assert contradiction.data == {"type": "contradiction", "contradictionId": warning.contradiction_id,
                                  "memoryA": always.id, "memoryB": never.id, "project": PROJECT}
    assert contradiction.range.start.line == _line(text, "### contradiction") and contradiction.range.end.line == table

    # On the right-hand cell, "this" is the other side.
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=table, character=len(text.splitlines()[table]) - 3),
                          end=types.Position(line=table, character=len(text.splitlines()[table]) - 3)),
        context=types.CodeActionContext(diagnostics=[contradiction])))
    for action in actions:
        command = action.command
        conforms("commands.schema.json", {"command": command.command, "arguments": plain(command.arguments)})
    assert [a.title for a in actions] == [f"Keep this (#{never.id})", f"Keep the other (#{always.id})",
                                         "Both were true (each at its time)", "Not a contradiction"]
    keep_never = actions[0].command
    assert keep_never.arguments[0] == {"contradictionId": warning.contradiction_id, "keep": "b"}
    result = await session.execute(keep_never.command, {**keep_never.arguments[0], "reason": "we moved to factories"})
    assert result["done"]
    assert memory.get(always.id).trust == "refuted"

    # The client is told, asks again, and its copy loses the contradiction and its warning.
    while not changes:
        await asyncio.sleep(0.01)
    assert changes[-1].uri == ledger.uri
    conforms("ledger.schema.json", plain(changes[-1]), "didChange")
    fresh = await session.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    assert fresh.counts.contradictions == 0 and "_none_" in fresh.text
    session.replace(uri, fresh.text)
    assert await session.diagnostics(uri, lambda d: not d) == []

    # Entries' own actions: a deprioritised memory, a proposal, a graveyard entry.
    async def actions_at(needle: str) -> dict[str, types.Command]:
        line = _line(fresh.text, needle)
        found = await session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=2), end=types.Position(line=line, character=2)),
            context=types.CodeActionContext(diagnostics=[])))
        return {a.title: a.command for a in found}

    memory_actions = await actions_at(f"memory #{staging.id}")
    assert list(memory_actions) == [f"Reinstate memory #{staging.id}", f"Archive memory #{staging.id}",
                                    f"Confirm memory #{staging.id}", f"Refute memory #{staging.id}",
                                    f"Share memory #{staging.id} with the team"]
    command = memory_actions[f"Reinstate memory #{staging.id}"]
    assert (await session.execute(command.command, {**command.arguments[0], "reason": "staging is back"}))["done"]
    assert memory.get(staging.id).state == "active"

    proposal_actions = await actions_at(f"proposal #{proposal.id}")
    command = proposal_actions[f"Accept proposal #{proposal.id}"]
    assert (await session.execute(command.command, command.arguments[0]))["done"]
    assert memory.get(doubtful.id).trust == "refuted"

    graveyard_actions = await actions_at("**onnxruntime**")
    assert list(graveyard_actions) == ["Reinstate 'onnxruntime' (it works now)",
                                       "Show why 'onnxruntime' was abandoned", "Share 'onnxruntime' with the team"]

"""The ledger: a read-only virtual document per project, with diagnostics on open contradictions
and code actions that judge its entries."""

from __future__ import annotations

import asyncio

from cenotaph.lsp.convert import plain
from lsprotocol import types

from tests.conftest import AGENT, HUMAN
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
    assert ledger.counts._asdict() == {"graveyard": 1, "contradictions": 1, "deprioritised": 1, "proposals": 1,
                                      "candidates": 0, "silences": 1}  # effort 4 keeps onnxruntime out of recall
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
                                    f"Bless memory #{staging.id} (its lessons compile now)",
                                    f"Share memory #{staging.id} with the team"]
    command = memory_actions[f"Bless memory #{staging.id} (its lessons compile now)"]
    assert command.arguments[0] == {"memoryId": staging.id}
    command = memory_actions[f"Reinstate memory #{staging.id}"]
    assert (await session.execute(command.command, {**command.arguments[0], "reason": "staging is back"}))["done"]
    assert memory.get(staging.id).state == "active"

    proposal_actions = await actions_at(f"proposal #{proposal.id}")
    command = proposal_actions[f"Accept proposal #{proposal.id}"]
    assert (await session.execute(command.command, command.arguments[0]))["done"]
    assert memory.get(doubtful.id).trust == "refuted"

    graveyard_actions = await actions_at("**onnxruntime**")
    assert list(graveyard_actions) == ["Reinstate 'onnxruntime' (it works now)",
                                       "Show why 'onnxruntime' was abandoned",
                                       "Set what 'onnxruntime' cost (effort 1–5)", "Share 'onnxruntime' with the team"]
    command = graveyard_actions["Set what 'onnxruntime' cost (effort 1–5)"]
    assert (await session.execute(command.command, {**command.arguments[0], "effort": 3}))["done"]
    assert memory.graveyard.find("onnxruntime", PROJECT).effort == 3


async def test_a_burst_of_changes_ends_with_the_ledger_as_of_the_last(memory, serve, tmp_path):
    """The ledger re-renders off the event loop, one render at a time; changes made while one
    runs make it render again, so the last word the client gets is the store's last state."""
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    changes: list = []
    session.client.feature("cenotaph/ledgerDidChange")(lambda params: changes.append(params))
    ledger = await session.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    assert ledger.counts.graveyard == 0
    for n in range(8):  # another process's writes, one after another
        memory.abandon(HUMAN, f"pkg-{n}", reason=f"reason {n}", project=PROJECT)
    last = memory.change_seq()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while not any(c.seq >= last for c in changes):
        assert loop.time() < deadline, f"no ledgerDidChange as of event {last}: {changes}"
        await asyncio.sleep(0.02)
    fresh = await session.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    assert fresh.counts.graveyard == 8 and fresh.seq == changes[-1].seq


def _candidate(name: str, reason: str, confidence: float, replacement: str | None = None):
    from cenotaph.memory.mining.candidates import Candidate, Evidence

    return Candidate(name=name, ecosystem="pypi", reason=reason, confidence=confidence, replacement=replacement,
                     evidence=(Evidence(origin="claude", role="rejected", ref="s1/u1/t1", summary=f"no {name}",
                                        at="2026-03-02T10:01:00Z", path="/t/s1.jsonl"),))


async def test_candidates_from_history_are_accepted_edited_or_rejected_in_the_ledger(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    pandas, requests = memory.propose_candidates(HUMAN, PROJECT, [
        _candidate("pandas", 'rejected in a Claude Code session on 2026-03-02: "no pandas"', 0.8, "polars"),
        _candidate("requests", "said in a Claude Code session on 2026-03-02", 0.5)]).proposed
    doubtful = memory.remember(HUMAN, "Deploys happen on Fridays", project=PROJECT)
    agents = memory.set_trust(AGENT, doubtful.id, "refuted", reason="the deploy log shows Tuesdays")

    session = await serve([folder], message_answers=["Later"])  # the notice of candidates waiting
    ledger = await session.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    conforms("ledger.schema.json", plain(ledger), "result")
    assert (ledger.counts.candidates, ledger.counts.proposals) == (2, 1)  # an agent's proposal stays apart
    lines = ledger.text.splitlines()
    section = lines.index("## Candidates from history (2)")
    assert lines[section + 2] == (f"- candidate #{pandas.id} · **pandas** (pypi) · confidence 0.80 · replaced by polars"
                                  f' — rejected in a Claude Code session on 2026-03-02: "no pandas"')
    assert lines[section + 3] == "  - claude · rejected · 2026-03-02 · s1/u1/t1 — no pandas"
    assert lines[section + 4].startswith(f"- candidate #{requests.id} · **requests**")  # by confidence
    assert f"proposal #{agents.id}" in ledger.text and f"proposal #{pandas.id}" not in ledger.text

    uri = session.open_uri(ledger.uri, ledger.text, "markdown")

    async def actions_at(line: int) -> dict[str, types.Command]:
        found = await session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=4), end=types.Position(line=line, character=4)),
            context=types.CodeActionContext(diagnostics=[])))
        return {a.title: a.command for a in found}

    on_evidence = await actions_at(section + 3)  # the evidence line belongs to its candidate
    assert list(on_evidence) == ["Accept: 'pandas' is abandoned (as drafted)", "Edit the reason, then accept 'pandas'",
                                 "Reject: 'pandas' was not abandoned"]
    for command in on_evidence.values():
        conforms("commands.schema.json", {"command": command.command, "arguments": plain(command.arguments)})
    edit = on_evidence["Edit the reason, then accept 'pandas'"]
    assert edit.arguments[0] == {"proposalId": pandas.id, "draft": pandas.reason}
    # A client that asks passes the edited reason; the effort goes with it.
    result = await session.execute(edit.command, {**edit.arguments[0], "reason": "pandas was too slow for us",
                                                  "effort": 3})
    assert result["done"]
    verdict = memory.check_approaches(["pandas"], project=PROJECT)[0]
    assert verdict.status == "abandoned" and verdict.approach.reason == "pandas was too slow for us"
    assert verdict.approach.effort == 3

    fresh = await session.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    line = fresh.text.splitlines().index(next(t for t in fresh.text.splitlines() if t.startswith("- candidate #")))
    session.replace(uri, fresh.text)
    reject = (await actions_at(line))["Reject: 'requests' was not abandoned"]
    assert (await session.execute(reject.command, {**reject.arguments[0], "reason": "we still use it"}))["done"]
    assert memory.check_approaches(["requests"], project=PROJECT)[0].status == "clear"
    again = memory.propose_candidates(HUMAN, PROJECT, [_candidate("requests", "said again", 0.5)])
    assert again.dismissed == ["requests"]


async def test_candidates_are_mined_on_open_and_told_once_per_workspace(memory, serve, tmp_path, cli_env):
    import json
    import re

    folder = project_folder(tmp_path, "app", PROJECT)
    (folder / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["tqdm"]\n')
    claude = tmp_path / "claude-home"
    session_dir = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(folder))
    session_dir.mkdir(parents=True)
    (session_dir / "s1.jsonl").write_text(json.dumps({
        "type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-03-02T10:00:00Z", "cwd": str(folder),
        "message": {"role": "user", "content": "stop using tqdm please"}}) + "\n")
    cli_env["CLAUDE_CONFIG_DIR"] = str(claude)
    cli_env["CODEX_HOME"] = str(tmp_path / "no-codex")

    # Off (the default): nothing is mined on open, and there is nothing to tell.
    quiet = await serve([folder])
    first = await quiet.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    await asyncio.sleep(0.5)
    assert first.counts.candidates == 0 and quiet.client.message_requests == []
    # Run by command, the same miner finds it (the positive control).
    mined = await quiet.execute("cenotaph.mine", {"project": PROJECT})
    assert mined["done"] and "1 new candidate" in mined["message"]
    (proposal,) = memory.proposals(PROJECT)
    assert proposal.arguments["name"] == "tqdm"
    memory.reject_proposal(HUMAN, proposal.id, reason="we still want it")

    # On: mined in the background on open; told once, and "Review" opens the ledger.
    (session_dir / "s1.jsonl").open("a").write(json.dumps({
        "type": "user", "uuid": "u2", "sessionId": "s1", "timestamp": "2026-03-02T10:05:00Z", "cwd": str(folder),
        "message": {"role": "user", "content": "and don't use `orjson` either"}}) + "\n")
    session = await serve([folder], init_options={"mine": {"onOpen": True}}, message_answers=["Review"])
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not session.client.shown_documents and loop.time() < deadline:
        await asyncio.sleep(0.05)
    (request,) = session.client.message_requests
    assert "1 candidate from history" in request.message
    assert [a.title for a in request.actions] == ["Review", "Later"]
    assert session.client.shown_documents[0].uri == "cenotaph:ledger/acme/app.md"
    assert [p.arguments["name"] for p in memory.proposals(PROJECT)] == ["orjson"]

    again = await serve([folder], init_options={"mine": {"onOpen": True}})
    await again.client.protocol.send_request_async("cenotaph/ledger", {"project": PROJECT})
    await asyncio.sleep(1.0)
    assert again.client.message_requests == []  # the same workspace is not told twice


async def test_silences_are_listed_in_the_ledger_and_lifted_there(memory, serve, tmp_path):
    folder = project_folder(tmp_path, "app", PROJECT)
    memory.abandon(HUMAN, "poetry", reason="lock files drifted", project=PROJECT, ecosystem="tool")
    memory.suppress(HUMAN, "poetry", kind="diagnostic", project=PROJECT, reason="the docs may mention it")
    memory.suppress(HUMAN, "left-pad", kind="diagnostic", project="", reason="everyone knows")
    memory.suppress(HUMAN, "lodash", kind="diagnostic", project="acme/other", reason="not ours")
    session = await serve([folder], message_answers=["It should be flagged again"])
    notes = session.open(folder / "notes.md", "We tried `poetry`.\n", "markdown")
    assert await session.diagnostics(notes) == []  # silenced here

    ledger = await session.client.protocol.send_request_async("cenotaph/ledger", {"uri": notes})
    conforms("ledger.schema.json", plain(ledger), "result")
    assert ledger.counts.silences == 2  # this project's and the global one, not another project's
    text = ledger.text
    entry = _line(text, "· **poetry** · not flagged")
    assert " · **poetry** · not flagged in editors · here · " in text.splitlines()[entry]
    assert text.splitlines()[entry].endswith(" — the docs may mention it")
    assert "**left-pad** · not flagged in editors · everywhere" in text and "lodash" not in text

    uri = session.open_uri(ledger.uri, text, "markdown")
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=entry, character=2), end=types.Position(line=entry, character=2)),
        context=types.CodeActionContext(diagnostics=[])))
    (lift,) = actions
    assert lift.title == "Lift the silence of 'poetry' (here)"
    conforms("commands.schema.json", {"command": lift.command.command, "arguments": plain(lift.command.arguments)})
    done = plain(await session.execute(lift.command.command, lift.command.arguments[0]))
    assert done["done"] and done["message"] == "'poetry' is flagged in editors again in this project"
    (flagged,) = await session.diagnostics(notes, bool, timeout=30)
    assert flagged.data["name"] == "poetry"


def test_the_ledger_lists_the_projects_top_concepts_with_aliases_and_neighbours(memory):
    from cenotaph.ledger import render_for

    for text in ("Redis connection pool size is 50", "The HTTP connection pool holds 10 sockets",
                 "PostgreSQL needs pgbouncer", "The pg dump runs nightly"):
        memory.remember(HUMAN, text, project=PROJECT)
    memory.remember(HUMAN, "Kafka topics are compacted", project="acme/other")
    memory.concept_verdict(HUMAN, "merge", "pg", "postgresql", project=PROJECT)
    lines = render_for(memory, PROJECT).text.splitlines()
    section = next(i for i, line in enumerate(lines) if line.startswith("## Top concepts ("))
    assert lines[section + 2].startswith("- concept **connection** · 2 memories · with pool ×2") or \
        lines[section + 2].startswith("- concept **pool** · 2 memories · with connection ×2")
    assert "- concept **postgresql** · 2 memories · also pg" in "\n".join(lines)
    assert not any("kafka" in line for line in lines)  # another project's concepts stay out

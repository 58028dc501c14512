"""Hostile and broken input through every door — the domain (hypothesis properties), the MCP
tools (the SDK's in-process client), the command line (`cenotaph.cli.main` in this process) and
the language server (requests and commands to the real `cenotaph serve`): oversized, empty, NUL,
invalid UTF-8 and lone surrogates, FTS5 operators and quotes, SQL fragments, path traversal,
wrong types, unknown ids, dates out of range, deeply nested JSON. Each is answered with a clear
error naming the field (no traceback reaches the caller) and a refusal writes nothing; what is
accepted reads back byte for byte. CENOTAPH_RELIABILITY_SEED replays a fuzz run."""

from __future__ import annotations

import asyncio
import json
import os
import random
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from mcp import Client
from mcp.types import Implementation
from pygls.exceptions import JsonRpcException

from cenotaph.mcp.server import build_server
from cenotaph.memory.errors import CenotaphError, InvalidInput
from cenotaph.nlp import ecosystems
from cenotaph.store.backup import is_sqlite
from tests.conftest import AGENT, HUMAN, REPO
from tests.gitrepo import GitRepo
from tests.lsp.conftest import project_folder
from tests.reliability import hostile
from tests.reliability.support import PROJECT, assert_in_step, count, record, scale

SEED = int(os.environ.get("CENOTAPH_RELIABILITY_SEED") or random.randrange(10**6))
MCP_INPUTS = scale(9_000, 40_000)
CLI_INPUTS = scale(2_000, 10_000)
LSP_INPUTS = scale(2_000, 20_000)
EXAMPLES = scale(60, 500)
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                                  HealthCheck.too_slow])


@dataclass
class Seeded:
    memory_id: int
    approach_id: int
    contradiction_id: int
    proposal_id: int


def _seed(memory) -> Seeded:
    """Something for every id to point at."""
    note = memory.remember(HUMAN, "The release job signs artifacts with the 2026 key.", project=PROJECT)
    approach = memory.abandon(HUMAN, "left-pad", reason="one line of code", project=PROJECT, effort=2)
    memory.remember(HUMAN, "Always use ruff for linting the monorepo", project=PROJECT)
    second = memory.remember(HUMAN, "Never use ruff for linting the monorepo", project=PROJECT)
    (warning,) = second.contradictions
    proposal = memory.forget(AGENT, note.id, reason="stale", confirm=True)
    return Seeded(note.id, approach.approach.id, warning.contradiction_id, proposal.id)


# --- the domain: properties ------------------------------------------------------------------------

ANY_TEXT = st.one_of(st.text(st.characters(codec=None, exclude_categories=()), max_size=300),
                     st.sampled_from(hostile.TEXTS), st.integers(49_990, 50_010).map(lambda n: "y" * n))


@PROPERTY
@given(content=ANY_TEXT)
def test_any_text_is_stored_verbatim_or_refused_by_name(memory, content):
    count("hostile input", "domain_examples")
    before, rows = memory.change_seq(), _count(memory)
    try:
        result = memory.remember(HUMAN, content, project=PROJECT, force=True)
    except InvalidInput as refused:
        assert refused.field == "content"
        assert (memory.change_seq(), _count(memory)) == (before, rows)  # nothing half-written
        return
    assert memory.get(result.id).content == content  # byte for byte
    assert memory.history(result.id).versions[0].content.encode() == content.encode()


@PROPERTY
@given(query=st.one_of(ANY_TEXT, st.lists(st.sampled_from(hostile.TEXTS[14:45]), min_size=1, max_size=6)
                       .map(" ".join)))
def test_any_query_is_answered_or_refused_by_name(memory, query):
    count("hostile input", "domain_examples")
    try:
        response = memory.recall(HUMAN, query, project=PROJECT, k=5, log=False)
    except InvalidInput as refused:
        assert refused.field == "query"
        return
    assert len(response.results) <= 5 + len(memory.graveyard.vocabulary())


@PROPERTY
@given(moment=st.one_of(st.sampled_from(hostile.DATES), st.text(max_size=40),
                        st.datetimes().map(lambda d: d.isoformat()), st.dates().map(str)),
       field=st.sampled_from(["as_of", "valid_at", "valid_from", "valid_to"]))
def test_any_date_is_read_or_refused_by_name(memory, moment, field):
    count("hostile input", "domain_examples")
    before = memory.change_seq()
    try:
        if field in ("as_of", "valid_at"):
            memory.recall(HUMAN, "release key", project=PROJECT, log=False, **{field: moment})
        else:
            memory.remember(HUMAN, f"A fact valid from a date ({len(moment)})", project=PROJECT, force=True,
                            **{field: moment})
    except InvalidInput as refused:
        assert refused.field == field
        assert memory.change_seq() == before


@PROPERTY
@given(identifier=st.one_of(st.integers(), st.sampled_from(hostile.NUMBERS), st.text(max_size=20)),
       verb=st.sampled_from(["get", "history", "deprioritise", "set_trust", "resolve", "accept"]))
def test_any_id_names_a_record_or_is_refused_by_name(memory, identifier, verb):
    count("hostile input", "domain_examples")
    if not memory.change_seq():
        _seed(memory)
    before = memory.change_seq()
    calls = {
        "get": lambda: memory.get(identifier),
        "history": lambda: memory.history(identifier),
        "deprioritise": lambda: memory.deprioritise(HUMAN, identifier, reason="fuzz"),
        "set_trust": lambda: memory.set_trust(HUMAN, identifier, "disputed", reason="fuzz"),
        "resolve": lambda: memory.resolve_contradiction(HUMAN, identifier, keep="a", reason="fuzz"),
        "accept": lambda: memory.accept_proposal(HUMAN, identifier),
    }
    try:
        calls[verb]()
    except CenotaphError as refused:
        assert refused.field in ("memory_id", "contradiction_id", "proposal_id")
        assert memory.change_seq() == before
        return
    assert isinstance(identifier, (int, str)) and int(identifier) >= 1


def _count(memory) -> int:
    return memory.ctx.store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]


WRITTEN_TABLES = ("memories", "approaches", "approach_aliases", "suppressions", "proposals", "events", "recall_log")


def _state(memory, repository: Path | None = None) -> tuple[Any, ...]:
    """What a command may write: the rows of every table a verb writes, the event chain's head,
    and each file under the repository's `.cenotaph/` folder with its bytes."""
    with memory.ctx.store.read() as conn:
        rows = tuple(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in WRITTEN_TABLES)
    folder = repository / ".cenotaph" if repository else None
    files = sorted((str(p.relative_to(folder)), p.read_bytes() if p.is_file() else b"/")
                   for p in folder.rglob("*")) if folder and folder.exists() else []
    return memory.change_seq(), rows, files


# --- names: each ecosystem's rules, at the domain's front door ----------------------------------------

VALID_NAMES = ["requests", "zope.interface", "left-pad", "@types/node", "serde_json", "github.com/pkg/errors",
               "ghcr.io/acme/tool:v1", "libssl-dev", "ripgrep", "c++"]


@PROPERTY
@given(name=st.one_of(st.sampled_from(hostile.NAMES), st.sampled_from(VALID_NAMES), st.text(max_size=30)),
       ecosystem=st.sampled_from([None, *ecosystems.NAMES]))
@example(name="ghcr.io/acme/tool:v1", ecosystem=None)  # a tagged image once read as a Go path and cut
@example(name="github.com/pkg/errors", ecosystem="npm")  # a deep npm import: its package is `github.com`
def test_any_name_is_recorded_as_its_ecosystem_reads_it_or_refused_by_name(memory, name, ecosystem):
    count("hostile input", "domain_examples")
    before = _state(memory)
    try:
        result = memory.abandon(HUMAN, name, reason="fuzz", project=PROJECT, ecosystem=ecosystem)
    except InvalidInput as refused:
        assert refused.field == "name"
        assert _state(memory) == before  # nothing half-written
        return
    recorded = result.approach.ecosystem
    # As typed, or the package a deeper name lies in (`lodash/fp` → lodash): a name its registry takes.
    shown = result.approach.display_name
    assert shown in (name.strip(), *ecosystems.enclosing(name.strip(), recorded)), (name, recorded)
    assert ecosystems.name_problem(shown, recorded) is None, (name, recorded)
    # What was stored is what `check` finds: never `requests==2-0` stored while `requests` is clear.
    (verdict,) = memory.check_approaches([name], project=PROJECT, ecosystem=recorded)
    # (The store lives across examples: a record of the very name typed, from an earlier one, is nearer.)
    found = {a.id for a in (verdict.approach, *verdict.also)}
    assert verdict.status == "abandoned"
    assert result.approach.id in found or verdict.approach.display_name == name.strip(), (name, recorded)


# --- MCP: the tools ----------------------------------------------------------------------------


def _mcp_arguments(tool: str, seeded: Seeded) -> dict[str, Any]:
    """Valid values for a tool's required arguments."""
    valid = {"content": "The cache lives in ~/.cache/shop.", "query": "cache", "memory_id": seeded.memory_id,
             "reason": "checked by hand", "topic": "left-pad", "names": ["left-pad"], "name": "left-pad",
             "summary": "Tried a sidecar cache", "outcome": "failed", "effort": 2,
             "contradiction_id": seeded.contradiction_id, "keep": "a", "verb": "remove",
             "a": "left-pad"}
    # The verb-grouping tools' `action` (or `what`), and a `kind` for suppress.
    chosen = {"change": {"action": "dispute"}, "inspect": {"what": "history"},
              "approach": {"action": "suppress", "kind": "diagnostic"}}.get(tool, {})
    required = {
        "remember": ["content"], "recall": ["query"], "check_approaches": ["names"], "abandon": ["name", "reason"],
        "record_experience": ["summary", "outcome", "effort"], "change": ["memory_id", "reason"],
        "inspect": ["memory_id", "topic"], "approach": ["name", "reason"],
        "settle": ["contradiction_id", "keep", "reason"],
        "review_concept": ["verb", "a", "reason"],
    }.get(tool, [])
    return {name: valid[name] for name in required} | chosen


def _as_json_delivers(text: str) -> str:
    """The wire is JSON, which reads an escaped surrogate pair as the one character it encodes:
    that character, not the two halves the client held, is what the server receives."""
    return json.loads(json.dumps(text))


def _names_a_field(text: str, fields: list[str]) -> bool:
    return any(field in text for field in fields)


async def test_mcp_tools_answer_hostile_arguments_with_an_error_naming_the_field(memory):
    rng = random.Random(SEED)
    seeded = _seed(memory)
    tried = refused = accepted = 0
    async with Client(build_server(memory, project=PROJECT),
                      client_info=Implementation(name="fuzzer", version="1")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for _ in range(MCP_INPUTS):
            name = rng.choice(sorted(tools))
            fields = list(tools[name].input_schema.get("properties", {}))
            arguments = _mcp_arguments(name, seeded)
            roll = rng.random()
            if fields and roll < 0.85:
                field = rng.choice(fields)
                arguments[field] = hostile.value(rng, json_only=True)
            elif fields and roll < 0.92 and arguments:
                field = rng.choice(sorted(arguments))
                del arguments[field]
            else:
                field = None
                arguments["unknown_argument"] = hostile.value(rng, json_only=True)
            before = memory.change_seq()
            result = await client.call_tool(name, arguments)
            tried += 1
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            assert "Traceback" not in text and 'File "' not in text, (name, arguments, text)
            if result.is_error:
                refused += 1
                assert _names_a_field(text, fields), (name, arguments, text)
                assert memory.change_seq() == before, (name, arguments, text)  # nothing half-written
                continue
            accepted += 1
            out = result.structured_content
            if name == "remember" and out["stored"]:
                assert memory.get(out["id"]).content == arguments["content"]
    assert refused and accepted
    assert_in_step(memory)
    record("hostile input", mcp_inputs=tried, mcp_refused=refused, mcp_accepted=accepted)


# --- the command line ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """An argument the fuzzer may replace, with a valid value."""

    field: str
    valid: str


def _cli_templates(seeded: Seeded, backups: Path) -> list[list[str | Slot]]:
    m, c, p = str(seeded.memory_id), str(seeded.contradiction_id), str(seeded.proposal_id)
    reason = Slot("reason", "checked by hand")
    return [
        ["remember", Slot("content", "The build cache is in ~/.cache/b."), "--valid-from", Slot("valid_from", "2026-01-01"),
         "--tag", Slot("tags", "ops"), "--force"],
        ["recall", Slot("query", "cache"), "-k", Slot("k", "5"), "--as-of", Slot("as_of", "2026-03-01")],
        ["recall", Slot("query", "--flag-like"), "--valid-at", Slot("valid_at", "2026-03-01")],
        ["abandon", Slot("name", "is-odd"), "--reason", reason, "--effort", Slot("effort", "2"),
         "--alias", Slot("aliases", "isodd")],
        ["reinstate-approach", Slot("name", "left-pad"), "--reason", reason],
        ["experience", "--summary", Slot("summary", "Tried a cache"), "--outcome", Slot("outcome", "failed"),
         "--effort", Slot("effort", "2"), "--abandoned", Slot("abandoned", "is-even=pointless"),
         "--gotcha", Slot("gotchas", "cold start")],
        ["abandon", Slot("name", "@acme/is-odd"), "--ecosystem", Slot("ecosystem", "npm"), "--reason", reason],
        ["abandon", Slot("name", "is-odd"), "--reason", reason, "--share"],  # outside a repository: refused
        ["remember", Slot("content", "Shared: the cache is in ~/.cache/b."), "--force", "--share"],
        ["check", Slot("names", "requests"), "--ecosystem", Slot("ecosystem", "pypi")],
        ["suppress", Slot("name", "is-even"), "--ecosystem", Slot("ecosystem", "pypi"), "--kind", "recall",
         "--reason", reason],
        ["deprioritise", Slot("id", m), "--reason", reason, "--hint", Slot("hints", "deploy")],
        ["archive", Slot("id", m), "--reason", reason],
        ["reinstate", Slot("id", m), "--reason", reason],
        ["forget", Slot("id", m), "--reason", reason],
        ["dispute", Slot("id", m), "--reason", reason],
        ["contradictions", "--status", Slot("status", "open")],
        ["resolve", Slot("id", c), "--keep", Slot("keep", "both"), "--reason", reason],
        ["dismiss", Slot("id", c), "--reason", reason],
        ["suppress", Slot("name", "left-pad"), "--kind", Slot("kind", "diagnostic"), "--reason", reason],
        ["unsuppress", Slot("name", "left-pad"), "--kind", Slot("kind", "recall"), "--reason", reason],
        ["update", Slot("id", m), "--content", Slot("content", "The build cache moved."), "--reason", reason],
        ["history", Slot("id", m)],
        ["audit", "log", "--target", Slot("target", f"memory:{m}"), "--since", Slot("since", "2026-01-01"),
         "--limit", Slot("limit", "5")],
        ["why", Slot("topic", "left-pad")],
        ["backup", Slot("path", str(backups / "b.db"))],
        ["restore", Slot("path", str(backups / "missing.db"))],
        ["proposals", "--status", Slot("status", "all")],
        ["reject", Slot("id", p), "--reason", reason],
        ["accept", Slot("id", p), "--reason", reason],
        ["mine", "git", Slot("path", str(REPO)), "--since", Slot("since", "2026-11-01"),
         "--max-commits", Slot("max_commits", "3")],
    ]


@pytest.mark.sqlite_only("its backup commands write SQLite file backups, which a PostgreSQL store leaves to pg_dump")
def test_the_command_line_answers_hostile_arguments_with_an_error_naming_the_field(memory, db_path, in_process_cli,
                                                                                   tmp_path):
    rng = random.Random(SEED + 1)
    seeded = _seed(memory)
    backups = tmp_path / "backups"
    backups.mkdir()
    templates = _cli_templates(seeded, backups)
    backed_up: list[str] = []
    tried = refused = accepted = 0
    for _ in range(CLI_INPUTS):
        template = rng.choice(templates)
        slots = [token for token in template if isinstance(token, Slot)]
        target = rng.choice(slots) if slots and rng.random() < 0.9 else None
        argv = [hostile.text(rng) if token is target else token.valid if isinstance(token, Slot) else token
                for token in template]
        if template[0] == "backup" and target is None:
            argv[1] = str(backups / f"b-{tried}.db")
        before = _state(memory)
        # The global options where people put them: after the verb, or before it.
        options = ["--db", str(db_path), "--project", PROJECT, "--json"]
        status, out, err = in_process_cli([*argv, *options] if rng.random() < 0.5 else [*options, *argv])
        tried += 1
        assert "Traceback" not in err and status in (0, 1, 2), (argv, status, err)
        if status == 0:
            accepted += 1
            if template[0] == "backup":
                backed_up.append(json.loads(out)["path"])
            if template[0] == "remember":
                assert memory.get(json.loads(out)["id"]).content == argv[1]
            continue
        refused += 1
        if out:  # the domain's refusal, as JSON: it names the field
            assert json.loads(out)["error"]["field"], (argv, out)
        else:  # argparse's: it names the argument, or the command it cannot read
            assert "error:" in err, (argv, err)
        if template[0] not in ("backup",):
            assert _state(memory) == before, (argv, out, err)  # rows, events: nothing half-written
    assert refused and accepted
    # Backups land only where a successful backup said, whole; no partial file is left behind.
    written = {Path(p).resolve() for p in backed_up}
    assert all(path.resolve() in written for path in Path.cwd().iterdir()), sorted(set(Path.cwd().iterdir()) - written)
    assert all(is_sqlite(path) for path in written) and not list(tmp_path.rglob("*.partial"))
    assert_in_step(memory)
    record("hostile input", cli_inputs=tried, cli_refused=refused, cli_accepted=accepted)


READ_VERBS = [["doctor"], ["recall", "cache"], ["check", "requests"], ["audit", "verify"], ["why", "left-pad"]]
WRITE_VERBS = [["remember", "The cache is in ~/.cache/b."], ["abandon", "is-odd", "--reason", "r"]]


@pytest.mark.sqlite_only("the valid store of the positive control is the SQLite file; the refused ones name no store")
def test_an_address_that_names_no_store_is_refused_and_nothing_is_created(memory, db_path, in_process_cli, tmp_path):
    folder = tmp_path / "addresses"
    folder.mkdir()
    addresses = hostile.store_addresses(folder)
    before = {p: p.read_bytes() if p.is_file() else None for p in folder.rglob("*")}
    cwd_before = sorted(Path.cwd().iterdir())
    tried = 0
    for address in addresses:
        for verb in READ_VERBS + WRITE_VERBS:
            for argv in (["--db", address, *verb], [*verb, "--db", address, "--json"]):
                status, out, err = in_process_cli(argv)
                tried += 1
                assert status == 2 and "Traceback" not in err, (argv, status, err)
                assert "hunter2" not in err + out, (argv, err)  # a typo's password is not repeated
                if "://" in address:
                    assert "postgresql://" in err and "postgres://" in err, (argv, err)  # the schemes accepted
    # Untouched: the file that is not a store, no folder created, nothing new where the command ran.
    assert {p: p.read_bytes() if p.is_file() else None for p in folder.rglob("*")} == before
    assert not (folder / "missing").exists() and sorted(Path.cwd().iterdir()) == cwd_before
    # The positive control: the same verbs on a real store, the options before the verb.
    for verb in READ_VERBS:
        status, _, err = in_process_cli(["--db", str(db_path), "--project", PROJECT, "--json", *verb])
        assert status == 0, (verb, err)
    record("hostile input", store_addresses=len(addresses), store_address_commands=tried)


def test_a_refused_share_leaves_the_store_its_events_and_the_folder_as_they_were(memory, db_path, in_process_cli,
                                                                                tmp_path, monkeypatch):
    rng = random.Random(SEED + 3)
    _seed(memory)
    repository = GitRepo(tmp_path / "repo").root
    monkeypatch.chdir(repository)
    options = ["--db", str(db_path), "--project", PROJECT, "--json"]
    # The positive control: a valid share writes its file and its record.
    status, _, err = in_process_cli(["abandon", "is-odd", "--ecosystem", "pypi", "--reason", "one line", "--share", *options])
    assert status == 0, err
    assert (repository / ".cenotaph" / "graveyard" / "pypi" / "is-odd.toml").is_file()
    # A share that fails after every check passed (the file's folder is a file): the record goes too.
    (repository / ".cenotaph" / "graveyard" / "npm").write_text("in the way\n")
    before = _state(memory, repository)
    status, out, _ = in_process_cli(["abandon", "is-even", "--ecosystem", "npm", "--reason", "r", "--share", *options])
    assert status == 2 and json.loads(out)["error"]["field"] == "target"
    assert _state(memory, repository) == before
    assert memory.check_approaches(["is-even"], project=PROJECT, ecosystem="npm")[0].status == "clear"
    templates = [
        ["abandon", Slot("name", "is-even"), "--ecosystem", Slot("ecosystem", "npm"), "--reason", "r", "--share"],
        ["remember", Slot("content", "A note for the team"), "--force", "--share"],
        ["experience", "--summary", Slot("summary", "Tried a cache"), "--outcome", "failed", "--effort", "2",
         "--abandoned", Slot("abandoned", "is-even=pointless"), "--share"],
    ]
    refused = 0
    for _ in range(scale(60, 400)):
        template = rng.choice(templates)
        slots = [token for token in template if isinstance(token, Slot)]
        target = rng.choice(slots) if rng.random() < 0.8 else None
        argv = [hostile.text(rng) if token is target else token.valid if isinstance(token, Slot) else token
                for token in template]
        before = _state(memory, repository)
        status, out, err = in_process_cli([*argv, *options])
        assert "Traceback" not in err and status in (0, 1, 2), (argv, status, err)
        if status != 0:
            refused += 1
            assert _state(memory, repository) == before, (argv, out, err)
    assert refused
    record("hostile input", share_commands_refused=refused)


# --- the language server -----------------------------------------------------------------------------

LSP_COMMANDS = {
    "cenotaph.silence": {"name": "left-pad", "scope": "project", "project": PROJECT, "reason": "r"},
    "cenotaph.reinstate": {"name": "left-pad", "project": PROJECT, "reason": "r"},
    "cenotaph.showWhy": {"approachId": 0},
    "cenotaph.markWrong": {"approachId": 0, "reason": "r"},
    "cenotaph.remember": {"text": "The deploy key rotates monthly.", "project": PROJECT},
    "cenotaph.abandon": {"name": "is-odd", "scope": "project", "project": PROJECT, "reason": "r", "effort": 2},
    "cenotaph.resolveContradiction": {"contradictionId": 0, "keep": "a", "reason": "r"},
    "cenotaph.dismissContradiction": {"contradictionId": 0, "reason": "r"},
    "cenotaph.setTrust": {"memoryId": 0, "trust": "disputed", "reason": "r"},
    "cenotaph.archive": {"memoryId": 0, "reason": "r"},
    "cenotaph.reinstateMemory": {"memoryId": 0, "reason": "r"},
    "cenotaph.acceptProposal": {"proposalId": 0, "reason": "r"},
    "cenotaph.rejectProposal": {"proposalId": 0, "reason": "r"},
}
BROKEN_MESSAGES = [
    b'{"jsonrpc": "2.0", "id": "b1", "method": "cenotaph/ledger", "params": {"project": "\xff\xfe\xc3("}}',
    b'{"jsonrpc": "2.0", "id": "b2", "method": "cenotaph/ledger", "params": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b"this is not JSON", b'{"jsonrpc": "2.0", "id": "b3", ', b"[1, 2, 3]", b'"a string"', b"{}", b"null",
    b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 5}}',
]
FILE_NAMES = ["requirements.txt", "package.json", "pyproject.toml", "go.mod", "Cargo.toml", "Dockerfile", "main.py",
              "index.ts", "README.md", "AGENTS.md", "notes.txt"]


def _lsp_request(rng: random.Random, seeded: Seeded, uri: str) -> tuple[str, Any]:
    """(method, params) of one hostile request: a command, the ledger, a hover or code actions."""
    ids = {"approachId": seeded.approach_id, "contradictionId": seeded.contradiction_id,
           "memoryId": seeded.memory_id, "proposalId": seeded.proposal_id}
    roll = rng.random()
    if roll < 0.7:
        command = rng.choice(sorted(LSP_COMMANDS))
        argument: Any = {k: ids.get(k, v) for k, v in LSP_COMMANDS[command].items()}
        mutation = rng.random()
        if mutation < 0.75:
            argument[rng.choice(sorted(argument))] = hostile.value(rng, json_only=True)
        elif mutation < 0.85:
            del argument[rng.choice(sorted(argument))]
        elif mutation < 0.9:
            argument["unknownKey"] = 1
        else:
            argument = hostile.value(rng, json_only=True)
        arguments = [argument] if rng.random() < 0.95 else [argument, argument]
        return "workspace/executeCommand", {"command": command, "arguments": arguments}
    if roll < 0.8:
        key = rng.choice(["project", "uri"])
        return "cenotaph/ledger", {key: hostile.value(rng, json_only=True)}
    position = {"line": rng.choice([0, 1, -1, 2**31, hostile.value(rng, json_only=True)]),
                "character": rng.choice([0, 3, -5, 10**9, hostile.value(rng, json_only=True)])}
    target = rng.choice([uri, hostile.value(rng, json_only=True), "cenotaph:ledger/acme%2Fapp.md"])
    if roll < 0.9:
        return "textDocument/hover", {"textDocument": {"uri": target}, "position": position}
    return "textDocument/codeAction", {"textDocument": {"uri": target}, "range": {"start": position, "end": position},
                                       "context": {"diagnostics": [{"range": {"start": position, "end": position},
                                                                    "message": "x", "source": "cenotaph",
                                                                    "code": "abandoned-approach",
                                                                    "data": hostile.value(rng, json_only=True)}]}}


async def _raw_request(client, method: str, params: Any) -> Any:
    """A request sent as the JSON it is: pygls's client would first check (and refuse) a typed
    request's parameters, and those are what this test sends broken."""
    protocol = client.protocol
    msg_id = str(uuid.uuid4())
    future: Future[Any] = Future()
    protocol._request_futures[msg_id] = future
    protocol._result_types[msg_id] = None
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), 30)
    except TimeoutError:
        raise AssertionError(f"no answer to {method} {params!r:.500}") from None


async def test_the_language_server_answers_hostile_requests_with_an_error_naming_the_field(memory, serve, tmp_path):
    rng = random.Random(SEED + 2)
    seeded = _seed(memory)
    folder = project_folder(tmp_path, "app", PROJECT)
    session = await serve([folder])
    client = session.client
    uri = session.open(folder / "requirements.txt", "left-pad==1.3\nrequests\n")
    tried = refused = accepted = opened = 0
    for n in range(LSP_INPUTS):
        if rng.random() < 0.15:  # a document with hostile content, opened or changed
            path = folder / f"f{n % 20}" / rng.choice(FILE_NAMES)
            text = "\n".join(str(hostile.value(rng, json_only=True)) for _ in range(rng.randrange(1, 8)))
            if path.as_uri() in session.versions:
                session.replace(path.as_uri(), text)
            else:
                session.open(path, text)
            opened += 1
            tried += 1
            continue
        method, params = _lsp_request(rng, seeded, uri)
        before = memory.change_seq()
        try:
            result = await _raw_request(client, method, params)
        except JsonRpcException as error:
            refused += 1
            assert error.code != -32603 and not (error.data and "traceback" in str(error.data)), (method, params, error)
            assert error.message, (method, params)
            assert memory.change_seq() == before, (method, params, error.message)
        else:
            accepted += 1
            answer = result._asdict() if hasattr(result, "_asdict") else result
            if params.get("command") == "cenotaph.remember" and isinstance(answer, dict) and answer.get("done"):
                assert memory.get(answer["id"]).content == _as_json_delivers(params["arguments"][0]["text"])
        tried += 1
    assert refused and accepted
    # Broken messages on the wire itself: the server reads past them.
    for body in BROKEN_MESSAGES:
        client.protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        tried += 1
    # The positive control: still serving, and what it serves is right (a name no input touched).
    memory.abandon(HUMAN, "control-pkg", reason="the control", project=PROJECT)
    uri = session.open(folder / "control" / "requirements.txt", "control-pkg==1.0\n")
    (flagged,) = await session.diagnostics(uri, lambda d: bool(d), timeout=30)
    assert flagged.data["name"] == "control-pkg"
    assert isinstance(await session.hover(uri, 0, 2), types.Hover)
    # Two halves of one astral character, as a client holding UTF-16 would send them.
    halves = "key \ud83d\udd11 rotates monthly"
    answer = await _raw_request(client, "workspace/executeCommand", {
        "command": "cenotaph.remember", "arguments": [{"text": halves, "project": PROJECT}]})
    assert memory.get(answer._asdict()["id"]).content == _as_json_delivers(halves) == "key \U0001f511 rotates monthly"
    assert_in_step(memory)
    record("hostile input", lsp_inputs=tried, lsp_documents=opened, lsp_refused=refused, lsp_accepted=accepted)

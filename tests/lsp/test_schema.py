"""shared_schema/ is the contract between the server and both editor clients: the server's own
models must say the same thing (fields, required fields, allowed values, defaults), and accept
and refuse the same instances."""

from __future__ import annotations

import dataclasses
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError
from pygls.exceptions import JsonRpcInvalidParams

from cenotaph.lsp import settings
from cenotaph.lsp.convert import ApproachDiagnosticData, ContradictionDiagnosticData
from cenotaph.lsp.features import commands, endpoint, ledger, recall
from cenotaph.memory.models import ContradictionWarning, RecallResponse, RecallResult, RememberResult, ScoreComponents
from cenotaph.store.records import MemoryRow
from tests.lsp.conftest import SCHEMAS, load_schema as load


def values(root: dict[str, Any], node: Any) -> set[Any]:
    """Every enum or const value under a schema node, following `$ref`s into `root`."""
    found: set[Any] = set()
    if isinstance(node, dict):
        if "$ref" in node:
            target: Any = root
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            found |= values(root, target)
        found.update(node.get("enum", []))
        if "const" in node:
            found.add(node["const"])
        for key, child in node.items():
            if key not in ("$ref", "properties"):
                found |= values(root, child)
    elif isinstance(node, list):
        for child in node:
            found |= values(root, child)
    return found


def assert_same_shape(model: type[BaseModel], schema: dict[str, Any], node: dict[str, Any]) -> None:
    """Same fields, same required fields, same strictness about unknown keys, same allowed values."""
    mine = model.model_json_schema(by_alias=True)
    assert set(mine["properties"]) == set(node["properties"]), model.__name__
    assert set(mine.get("required", [])) == set(node.get("required", [])), model.__name__
    assert (model.model_config.get("extra") == "forbid") == (node.get("additionalProperties") is False), model.__name__
    for name, theirs in node["properties"].items():
        assert values(mine, mine["properties"][name]) - {None} == values(schema, theirs), f"{model.__name__}.{name}"


def assert_same_fields(cls: type, schema: dict[str, Any], node: dict[str, Any]) -> None:
    """A domain result as `as_json` prints it: every field, always present, nothing else, the same
    allowed values."""
    mine = TypeAdapter(cls).json_schema()
    names = {f.name for f in dataclasses.fields(cls)}
    assert set(node["properties"]) == names == set(node["required"]), cls.__name__
    assert node["additionalProperties"] is False, cls.__name__
    for name, theirs in node["properties"].items():
        assert values(mine, mine["properties"][name]) - {None} == values(schema, theirs), f"{cls.__name__}.{name}"


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    for part in node["$ref"].removeprefix("#/").split("/") if "$ref" in node else ():
        schema = schema[part]
    return schema if "$ref" in node else node


@pytest.mark.parametrize("name", sorted(p.name for p in SCHEMAS.glob("*.schema.json")))
def test_every_schema_is_valid_json_schema(name):
    jsonschema.Draft202012Validator.check_schema(load(name))


def test_settings_model_matches_its_schema():
    schema = load("settings.schema.json")
    assert_same_shape(settings.Settings, schema, schema)
    for name, model in (("severity", settings.SeveritySettings), ("documents", settings.DocumentSettings),
                        ("feeds", settings.FeedSettings), ("mine", settings.MineSettings)):
        assert_same_shape(model, schema, schema["properties"][name])
    defaults = settings.Settings().model_dump(by_alias=True)
    for name, node in schema["properties"].items():
        if node.get("type") == "object":
            for key, nested in node["properties"].items():
                assert defaults[name][key] == nested["default"], f"{name}.{key}"
        else:
            assert defaults[name] == node["default"], name
    valid = {"severity": {"project": "error", "global": "off"}, "otherProjects": True, "fileKinds": ["python"],
             "maxFileSize": 4096, "trace": {"server": "verbose"}, "mine": {"onOpen": True}}
    jsonschema.validate(valid, schema)
    assert settings.parse(valid)[1] == []
    for invalid in ({"severity": {"project": "loud"}}, {"otherProjects": "yes"}, {"fileKinds": ["cobol"]},
                    {"documents": {"include": "docs/*.md"}}, {"feeds": {"interval": -1}},
                    {"fileKinds": ["python", "python"]}, {"maxFileSize": 10}, {"mine": {"onOpen": "yes"}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invalid, schema)
        assert settings.parse(invalid)[1], invalid


def test_diagnostic_data_models_match_their_schema():
    schema = load("diagnostic-data.schema.json")
    assert_same_shape(ApproachDiagnosticData, schema, schema["$defs"]["approach"])
    assert_same_shape(ContradictionDiagnosticData, schema, schema["$defs"]["contradiction"])
    approach = ApproachDiagnosticData(type="approach", approach_id=3, name="onnxruntime", display_name="onnxruntime",
                                      project="", scope="global", document_project="acme/app", kind="import")
    contradiction = ContradictionDiagnosticData(type="contradiction", contradiction_id=1, memory_a=2, memory_b=3,
                                                project="p")
    for instance in (approach.dump(), contradiction.dump()):
        jsonschema.validate(instance, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**approach.dump(), "scope": "galaxy"}, schema)
    with pytest.raises(ValidationError):
        ApproachDiagnosticData.from_wire({**approach.dump(), "scope": "galaxy"})


def test_ledger_models_match_their_schema():
    schema = load("ledger.schema.json")
    defs = schema["$defs"]
    assert_same_shape(ledger.LedgerParams, schema, defs["params"])
    assert_same_shape(ledger.LedgerResult, schema, defs["result"])
    assert_same_shape(ledger.LedgerCounts, schema, defs["result"]["properties"]["counts"])
    assert_same_shape(ledger.LedgerDidChange, schema, defs["didChange"])
    result = ledger.LedgerResult(uri=ledger.ledger_uri("github.com/acme/app"), project="github.com/acme/app",
                                 text="# x\n", seq=4, counts=ledger.LedgerCounts(graveyard=1, contradictions=0,
                                                                                 deprioritised=0, proposals=0,
                                                                                 candidates=2, silences=1))
    jsonschema.validate(result.dump(), defs["result"])
    assert result.uri == "cenotaph:ledger/github.com/acme/app.md"
    assert ledger.project_of(ledger.ledger_uri("/home/me/my project")) == "/home/me/my project"
    for params in ({"project": "p"}, {"uri": "file:///x"}):
        jsonschema.validate(params, defs["params"])
        ledger.LedgerParams.from_wire(params)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({}, defs["params"])
    with pytest.raises(ValidationError):
        ledger.LedgerParams.from_wire({})


def test_endpoint_model_matches_its_schema():
    schema = load("endpoint.schema.json")
    assert_same_shape(endpoint.EndpointReport, schema, schema)
    report = endpoint.EndpointReport(url="http://127.0.0.1:49152/mcp", token="t" * 43, project="acme/app")
    jsonschema.validate(report.dump(), schema)
    for bad in ({"url": "http://0.0.0.0:1/mcp"}, {"token": "short"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**report.dump(), **bad}, schema)
        with pytest.raises(ValidationError):
            endpoint.EndpointReport.from_wire({**report.dump(), **bad})


COMMAND_SAMPLES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    # command: (valid arguments, invalid arguments)
    "cenotaph.silence": ([{"name": "x", "scope": "project", "project": "p"}, {"name": "x", "scope": "everywhere"},
                          {"name": "x", "scope": "project", "uri": "file:///a", "reason": "r"}],
                         [{"name": "x", "scope": "project"}, {"name": "", "scope": "everywhere"},
                          {"name": "x", "scope": "here", "project": "p"},
                          {"name": "x", "scope": "everywhere", "z": 1}]),
    "cenotaph.reinstate": ([{"name": "x", "project": ""}],
                           [{"name": "x"}, {"name": "x", "project": "p", "reason": ""}]),
    "cenotaph.liftSilence": ([{"name": "x", "kind": "diagnostic", "project": ""},
                              {"name": "x", "kind": "recall", "project": "p", "reason": "r"}],
                             [{"name": "x", "kind": "diagnostic"}, {"name": "x", "kind": "loud", "project": "p"},
                              {"name": "", "kind": "recall", "project": "p"}]),
    "cenotaph.showWhy": ([{"approachId": 1}], [{"approachId": 0}, {"approachId": "1"}, {}, {"approach_id": 1}]),
    "cenotaph.markWrong": ([{"approachId": 1, "reason": "r"}], [{"reason": "r"}]),
    "cenotaph.remember": ([{"text": "t", "project": "p", "kind": "fact"}, {"text": "t", "uri": "file:///a"},
                           {"text": "t", "uri": "file:///a", "lines": {"start": 3, "end": 3}}],
                          [{"text": "t"}, {"text": "", "project": "p"},
                           {"text": "t", "project": "p", "kind": "gossip"},
                           {"text": "t", "project": "p", "lines": {"start": 1, "end": 2}},
                           {"text": "t", "uri": "file:///a", "lines": {"start": 0, "end": 2}},
                           {"text": "t", "uri": "file:///a", "lines": {"start": 1}}]),
    "cenotaph.abandon": ([{"name": "x", "project": "p", "effort": 5, "ecosystem": "npm"},
                          {"name": "x", "scope": "everywhere"}],
                         [{"name": "x"}, {"name": "x", "project": "p", "effort": 6},
                          {"name": "x", "project": "p", "ecosystem": "cpan"}]),
    "cenotaph.resolveContradiction": ([{"contradictionId": 1, "keep": "both"}], [{"contradictionId": 1, "keep": "c"}]),
    "cenotaph.dismissContradiction": ([{"contradictionId": 1}], [{"contradictionId": -1}]),
    "cenotaph.setTrust": ([{"memoryId": 1, "trust": "refuted", "reason": "r"}], [{"memoryId": 1, "trust": "true"}]),
    "cenotaph.archive": ([{"memoryId": 1}], [{"memoryId": 1, "hints": []}]),
    "cenotaph.reinstateMemory": ([{"memoryId": 1, "reason": "r"}], [{"memory": 1}]),
    "cenotaph.acceptProposal": ([{"proposalId": 2}, {"proposalId": 2, "reason": "ok"}], [{"proposalId": True}]),
    "cenotaph.rejectProposal": ([{"proposalId": 2, "reason": "no"}], [{"proposalId": 2, "reason": ""}]),
    "cenotaph.acceptCandidate": ([{"proposalId": 2, "draft": "removed in a1b2c3d"}, {"proposalId": 2, "reason": "slow",
                                                                                     "effort": 3}],
                                 [{"proposalId": 2, "effort": 6}, {"proposalId": 2, "reason": ""}, {"draft": "d"}]),
    "cenotaph.mine": ([{"project": "p"}, {"uri": "file:///a"}], [{}, {"project": "p", "since": "2026"}]),
    "cenotaph.decideCandidates": ([{"decision": "reject", "proposalIds": [3, 4]},
                                   {"decision": "accept", "project": "p", "commit": "a1b2c3d", "preview": True},
                                   {"decision": "reject", "uri": "file:///a", "classes": ["dev"], "below": 0.5,
                                    "path": "docs/**", "reason": "noise"}],
                                  [{"decision": "reject"}, {"decision": "reject", "proposalIds": []},
                                   {"decision": "drop", "proposalIds": [1]}, {"decision": "reject", "commit": "a1b2"},
                                   {"decision": "reject", "project": "p", "commit": "xyz1"},
                                   {"decision": "reject", "project": "p", "below": 2},
                                   {"decision": "reject", "project": "p", "classes": ["weird"]}]),
    "cenotaph.reopenCandidates": ([{"batch": 7}, {"proposalIds": [1, 2]}], [{}, {"batch": 0}, {"proposalIds": []}]),
    "cenotaph.showLocation": ([{"memoryId": 4}], [{"memoryId": 0}, {"path": "README.md"}]),
    "cenotaph.share": ([{"name": "x", "project": "p"}, {"memoryId": 3, "uri": "file:///a"}],
                       [{"name": "x"}, {"name": "x", "memoryId": 3, "project": "p"}, {"project": "p"},
                        {"memoryId": 0, "project": "p"}]),
    "cenotaph.unshare": ([{"name": "x", "project": "p"}, {"path": ".cenotaph/memories/a-0123456789.md", "project": "p"},
                          {"memoryId": 3, "uri": "file:///a"}],
                         [{"path": "", "project": "p"}, {"name": "x", "path": "y", "project": "p"}, {"project": "p"}]),
    "cenotaph.bless": ([{"memoryId": 1}, {"memoryId": 1, "reason": "checked"}],
                       [{"memoryId": 0}, {"memoryId": 1, "reason": ""}, {"memoryId": 1, "trust": "confirmed"}]),
    "cenotaph.setEffort": ([{"name": "x", "project": "", "effort": 4}, {"name": "x", "project": "p", "reason": "r"}],
                           [{"name": "x", "effort": 3}, {"name": "x", "project": "p", "effort": 6},
                            {"name": "", "project": "p", "effort": 1}, {"name": "x", "project": "p", "effort": "3"}]),
    "cenotaph.reconfirmAnchor": ([{"memoryId": 1}], [{"memoryId": 0}, {"memoryId": 1, "at": "a.py:1"}]),
    "cenotaph.retireAnchored": ([{"memoryId": 1, "reason": "rewritten"}], [{"memoryId": 1, "reason": ""}]),
    "cenotaph.showAnchor": ([{"memoryId": 1}], [{"memoryId": 0}, {"memoryId": 1, "reason": "why"}]),
}


def test_command_models_match_their_schema():
    schema = load("commands.schema.json")
    assert schema["properties"]["command"]["enum"] == list(commands.COMMANDS) == list(COMMAND_SAMPLES)
    branches = {b["if"]["properties"]["command"]["const"]: b["then"]["properties"]["arguments"]["prefixItems"][0]
                for b in schema["allOf"]}
    validator = jsonschema.Draft202012Validator(schema)
    for name, (model, _) in commands.COMMANDS.items():
        assert_same_shape(model, schema, resolve(schema, branches[name]))
        valid, invalid = COMMAND_SAMPLES[name]
        for argument in valid:
            validator.validate({"command": name, "arguments": [argument]})
            commands.parse(name, model, (argument,))
        for argument in invalid:
            with pytest.raises(jsonschema.ValidationError):
                validator.validate({"command": name, "arguments": [argument]})
            with pytest.raises(JsonRpcInvalidParams):
                commands.parse(name, model, (argument,))
    assert_same_shape(commands.CommandResult, schema, schema["$defs"]["result"])
    jsonschema.validate(commands.CommandResult(done=True, message="m", id=3).dump(), schema["$defs"]["result"])


RECALL_SAMPLES = {
    # request: (params model, valid params, invalid params)
    recall.RECALL: (recall.RecallParams,
                    [{"query": "q", "uri": "file:///a"}, {"query": "q", "project": "", "k": 200, "kinds": ["fact"]}],
                    [{"query": "q"}, {"query": "", "project": "p"}, {"query": "q", "project": "p", "k": 0},
                     {"query": "q", "project": "p", "kinds": ["gossip"]}, {"query": "q", "project": "p", "z": 1}]),
    recall.REMEMBER: (recall.RememberParams,
                      [{"content": "c", "uri": "file:///a"}, {"content": "c", "project": "p", "kind": "decision",
                                                              "tags": ["t"]}],
                      [{"content": "c"}, {"content": "", "project": "p"}, {"content": "c", "project": "p", "kind": "x"},
                       {"text": "c", "project": "p"}]),
}


def test_recall_and_remember_models_match_their_schema():
    schema = load("recall.schema.json")
    defs = schema["$defs"]
    assert_same_shape(recall.RecallParams, schema, defs["recallParams"])
    assert_same_shape(recall.RememberParams, schema, defs["rememberParams"])
    assert defs["recallParams"]["properties"]["k"]["default"] == recall.RecallParams.model_fields["k"].default
    assert defs["rememberParams"]["properties"]["kind"]["default"] == recall.RememberParams.model_fields["kind"].default
    for cls, name in ((RecallResponse, "recallResult"), (RecallResult, "recalled"), (ScoreComponents, "components"),
                      (RememberResult, "rememberResult"), (ContradictionWarning, "contradictionWarning"),
                      (MemoryRow, "memory")):
        assert_same_fields(cls, schema, defs[name])
    for method, (model, valid, invalid) in RECALL_SAMPLES.items():
        params = defs["recallParams" if method == recall.RECALL else "rememberParams"]
        for instance in valid:
            jsonschema.validate(instance, params)
            commands.parse(method, model, (instance,))
        for instance in invalid:
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(instance, params)
            with pytest.raises(JsonRpcInvalidParams):
                commands.parse(method, model, (instance,))


def test_the_readme_names_every_schema():
    readme = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    for path in SCHEMAS.glob("*.schema.json"):
        assert path.name in readme
    for method in (ledger.REQUEST, ledger.DID_CHANGE, endpoint.NOTIFICATION, recall.RECALL, recall.REMEMBER,
                   *commands.COMMANDS):
        assert method in readme

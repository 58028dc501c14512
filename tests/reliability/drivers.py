"""The workload's operations through each door: an MCP tool call (HTTP or stdio) or a command line."""

from __future__ import annotations

from typing import Any

from mcp import Client

from tests.reliability.workload import Op

MCP_STATE_ACTIONS = {"deprioritised": "deprioritise", "archived": "archive", "active": "reinstate"}
CLI_STATE_VERBS = {"deprioritised": "deprioritise", "archived": "archive", "active": "reinstate"}


class DoorError(AssertionError):
    """A door answered an operation with an error: the many-writers property allows none."""


async def mcp_perform(client: Client, op: Op) -> dict[str, Any]:
    a = op.args
    if op.verb == "remember":
        out = await _call(client, "remember", content=a["content"], force=True)
        return {"id": out["id"]}
    if op.verb == "recall":
        return {"count": len((await _call(client, "recall", query=a["query"], k=5))["results"])}
    if op.verb == "abandon":
        out = await _call(client, "abandon", name=a["name"], reason=a["reason"], effort=a["effort"])
        return {"approach_id": out["approach"]["id"], "recall_suppressed": out["recall_suppressed"]}
    if op.verb == "transition":
        out = await _call(client, "change", action=MCP_STATE_ACTIONS[a["to"]], memory_id=a["memory_id"],
                          reason=a["reason"])
        return {"state": out["memory"]["state"]}
    if op.verb == "dispute":
        out = await _call(client, "change", action="dispute", memory_id=a["memory_id"], reason=a["reason"])
        return {"trust": out["memory"]["trust"]}
    if op.verb == "check":
        return {"count": len((await _call(client, "check_approaches", names=a["names"]))["results"])}
    if op.verb == "resolve":
        out = await _call(client, "settle", contradiction_id=a["contradiction_id"], keep="a", reason=a["reason"])
        return {"proposal_id": out["proposal"]["id"]} if out["status"] == "proposed" else {"status": out["status"]}
    if op.verb == "suppress":
        out = await _call(client, "approach", action="suppress", name=a["name"], kind="diagnostic",
                          reason=a["reason"])
        # An agent's silence lifts a block: it is a proposal a person accepts (memory/proposals.py).
        return {"proposal_id": out["proposal"]["id"]} if out["status"] == "proposed" else \
            {"suppression_id": out["suppression"]["id"]}
    if op.verb == "briefing":
        return {"count": len((await _call(client, "briefing"))["graveyard"])}
    raise ValueError(op.verb)


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    if result.is_error or result.structured_content is None:
        raise DoorError(f"{tool}({arguments}) → " + " ".join(getattr(c, "text", "") for c in result.content))
    return result.structured_content


def cli_argv(op: Op) -> list[str]:
    a = op.args
    if op.verb == "remember":
        return ["remember", a["content"], "--force"]
    if op.verb == "recall":
        return ["recall", a["query"], "-k", "5"]
    if op.verb == "abandon":
        return ["abandon", a["name"], "--ecosystem", "pypi", "--reason", a["reason"], "--effort", str(a["effort"])]
    if op.verb == "transition":
        return [CLI_STATE_VERBS[a["to"]], str(a["memory_id"]), "--reason", a["reason"]]
    if op.verb == "dispute":
        return ["dispute", str(a["memory_id"]), "--reason", a["reason"]]
    if op.verb in ("check", "briefing"):
        return ["check", *(a.get("names") or ["numpy"])]
    if op.verb == "resolve":
        return ["resolve", str(a["contradiction_id"]), "--keep", "a", "--reason", a["reason"]]
    if op.verb == "suppress":
        return ["suppress", a["name"], "--kind", "diagnostic", "--reason", a["reason"]]
    raise ValueError(op.verb)


def cli_result(op: Op, out: dict[str, Any]) -> dict[str, Any]:
    """The command's --json answer, reduced as mcp_perform reduces a tool's."""
    if op.verb == "remember":
        return {"id": out["id"]}
    if op.verb == "recall":
        return {"count": len(out["results"])}
    if op.verb == "abandon":
        return {"approach_id": out["approach"]["id"], "recall_suppressed": out["recall_suppressed"]}
    if op.verb == "transition":
        return {"state": out["state"]}
    if op.verb == "dispute":
        return {"trust": out["trust"]}
    if op.verb in ("check", "briefing"):
        return {"count": len(out["results"])}
    if op.verb == "resolve":
        return {"status": out["status"]}
    if op.verb == "suppress":
        return {"suppression_id": out["id"]}
    raise ValueError(op.verb)

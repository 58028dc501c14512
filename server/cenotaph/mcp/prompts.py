"""Prompts a client can offer the person directly: the briefing at the start of a session, the
graveyard check before a dependency goes in, and the record of what a session did at its end.
Each fills in what Cenotaph knows now, by the same code the tools run."""

from __future__ import annotations

import json
import re
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from cenotaph.mcp.tools.briefing import brief_of
from cenotaph.mcp.tools.graveyard import verdicts
from cenotaph.memory.models import OUTCOMES

_NAME_SEPARATORS = re.compile(r"[\s,;]+")


def _json(model) -> str:
    return json.dumps(model.model_dump(mode="json", exclude_none=True), ensure_ascii=False, indent=2)


def session_start(ctx: Context) -> str:
    """What to know before working on this project: the briefing, and how to use the memory."""
    brief = brief_of(ctx)
    return (f"We are starting a session on the project {brief.project or '(global scope)'}. This is what "
            "Cenotaph, the memory this project's people and agents share, holds for it now:\n\n"
            f"```json\n{_json(brief)}\n```\n\n"
            "Do not suggest an approach from the graveyard without telling me why it was abandoned. Call "
            "`check_approaches` before you suggest or add a library or tool, `recall` before you re-derive a "
            "decision, and record what we settle with `remember`.")


def before_adding_a_dependency(
    ctx: Context,
    names: Annotated[str, Field(description="The packages, libraries or tools to check, separated by commas or spaces.")],
) -> str:
    """Check dependencies against the graveyard before adding them."""
    wanted = [n for n in _NAME_SEPARATORS.split(names) if n]
    checks = verdicts(ctx, wanted) if wanted else None
    lines = []
    for verdict in checks.results if checks else []:
        scope = f" ({verdict.scope.replace('_', ' ')})" if verdict.scope else ""
        reason = f" — {verdict.reason}" if verdict.reason else ""
        lines.append(f"- {verdict.name}: {verdict.status}{scope}{reason}")
    found = "\n".join(lines) or "- (no names given)"
    return ("I am about to add these dependencies. Cenotaph's graveyard says:\n\n"
            f"{found}\n\n"
            "Do not add an `abandoned` one: tell me its reason and propose an alternative. Add the others, and "
            "if one turns out to be a dead end, record it with `abandon` and the reason.")


def wrap_up(ctx: Context) -> str:
    """Record what this session did before it ends."""
    return ("We are wrapping up this session. Record it in Cenotaph so the next session does not repeat it: "
            "call `record_experience` once with a verbatim `summary` of what we attempted and what happened, "
            f"the `outcome` ({', '.join(OUTCOMES)}), the `effort` it took (1–5), what broke "
            "through, the gotchas, and every approach we dropped on the way in `abandoned`, each with its reason. "
            "Record any decision or preference we settled that is not in it yet with `remember`.")


PROMPTS = (("session-start", session_start), ("before-adding-a-dependency", before_adding_a_dependency),
           ("wrap-up", wrap_up))


def register(server: MCPServer) -> None:
    for name, fn in PROMPTS:
        server.prompt(name=name)(fn)

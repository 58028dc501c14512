"""What every tool module shares: the store it serves, who is calling, and the one place where
domain errors become MCP error results."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from cenotaph import identity
from cenotaph.memory.errors import CenotaphError
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory
from cenotaph.store.connect import StoreUnavailable

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)

MAX_CLIENT_NAME = 100  # the name is the client's to choose; the audit log keeps it short

# Argument types shared by several tools; the SDK checks them and names the field on failure.
MemoryId = Annotated[int, Field(ge=1, description="The memory's id (as returned by remember or recall).")]
Reason = Annotated[str, Field(min_length=1, max_length=2000, description="Why: kept with the change in the audit log.")]
GlobalScope = Annotated[bool, Field(description="True: applies in every project, not only this one.")]


class ToolGroup:
    """A module's tool functions and their annotations. The SDK turns each into a `Tool` (its
    schemas) once per process; every server instance shares them and finds its own `ToolEnv`
    in its lifespan context."""

    def __init__(self) -> None:
        self.entries: list[tuple[Callable[..., object], ToolAnnotations]] = []

    def add(self, annotations: ToolAnnotations) -> Callable[[Callable[..., object]], Callable[..., object]]:
        def decorator(fn: Callable[..., object]) -> Callable[..., object]:
            self.entries.append((fn, annotations))
            return fn

        return decorator


@dataclass(slots=True)
class ToolEnv:
    """The store and project a server instance works on, and the folder its clients work in (its
    manifests tell which ecosystem an abandoned name belongs to). Tool calls are serialised: sync
    tools run on worker threads, and the domain objects share one SQLite connection."""

    memory: Memory
    project: str
    actor_prefix: str = "mcp"
    workspace: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @staticmethod
    def of(ctx: Context) -> ToolEnv:
        return ctx.request_context.lifespan_context

    def actor(self, ctx: Context) -> Actor:
        """`mcp:<client name> for <person>`: the client's `clientInfo`, and the person whose session
        runs it (cenotaph.identity)."""
        params = ctx.session.client_params
        name = params.client_info.name.strip()[:MAX_CLIENT_NAME] if params is not None else ""
        return identity.agent(self.actor_prefix, name or "unknown", identity.person(self.memory, self.workspace))

    def scope(self, global_scope: bool = False) -> str:
        return "" if global_scope else self.project

    @contextmanager
    def domain(self) -> Iterator[Memory]:
        """Run domain calls; a domain error becomes an error result that names its field."""
        with self._lock:
            try:
                # A `git pull` or a branch switch may have changed the repository's shared folder.
                self.memory.shared.refresh()
                yield self.memory
            except (CenotaphError, StoreUnavailable) as exc:  # a store fault in the words the CLI prints
                raise ToolError(str(exc)) from None


class PlainTool(Tool):
    """A tool whose failures read as the CLI's do (`field: what is allowed`): the SDK's prefix and
    pydantic's text (its error counts, model names and links) never reach the agent."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(plain_words(cause)) from cause
            raise ToolError(str(cause) if isinstance(cause, ToolError) else str(exc)) from cause


def plain_words(error: ValidationError) -> str:
    """One line per wrong argument, `field: what is allowed`, in the domain's wording
    (memory/validate.py), which the CLI prints too."""
    return "\n".join(f"{'.'.join(str(part) for part in e['loc']) or 'arguments'}: {_allowed(e)}"
                     for e in error.errors(include_url=False))


def _allowed(e: Any) -> str:
    kind, ctx, value = e["type"], e.get("ctx") or {}, e.get("input")
    if kind == "missing":
        return "is required"
    if kind in ("literal_error", "enum"):
        return f"{value!r} is not one of {ctx['expected'].replace(' or ', ', ').replace(chr(39), '')}"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        bound = {"greater_than_equal": "at least", "less_than_equal": "at most",
                 "greater_than": "above", "less_than": "below"}[kind]
        limit = next(iter(ctx.values()))
        return f"{value} is outside the allowed range (must be {bound} {limit})"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "expected a whole number"
    if kind in ("bool_parsing", "bool_type"):
        return "expected true or false"
    if kind in ("string_type", "string_unicode"):
        return "expected text"
    if kind == "list_type":
        return "expected a list"
    if kind == "string_too_short":
        return "must not be empty" if ctx.get("min_length") == 1 else f"must be at least {ctx['min_length']} characters"
    if kind == "string_too_long":
        return f"is {len(value):,} characters; at most {ctx['max_length']:,} are allowed"
    if kind == "too_short":
        return "must not be empty" if ctx.get("min_length") == 1 else f"must hold at least {ctx['min_length']} items"
    if kind == "too_long":
        return f"holds {ctx.get('actual_length')} items; at most {ctx['max_length']} are allowed"
    if kind == "extra_forbidden":
        return "is not an argument of this tool"
    return str(e["msg"]).removeprefix("Value error, ").lower()

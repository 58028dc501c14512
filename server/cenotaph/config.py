"""User settings from `config.toml` (see paths.config_path) and the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cenotaph.nlp.embedder import DEFAULT_MODEL
from cenotaph.paths import config_path

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    # logging is imported only to warn: an agent's hook reads the store's location on every tool call.
    import logging

    return logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Settings:
    model: str = DEFAULT_MODEL
    # onnxruntime threads for one embedding. One by default: every editor, agent and terminal runs
    # its own process, and they share the cores. Two take a sentence from ≈ 7 to ≈ 4.5 ms on an
    # idle 2-core machine (docs/benchmarks-history.md, "Against the targets").
    model_threads: int = 1
    # Verbs an agent may perform directly instead of proposing them to a person.
    agent_allowed: frozenset[str] = field(default_factory=frozenset)
    # MCP over Streamable HTTP from the language server process ([mcp] in config.toml).
    mcp_enabled: bool = True
    mcp_host: str = "127.0.0.1"
    mcp_port: int = 0
    mcp_token: str | None = None
    mcp_allow_remote: bool = False


def load(path: Path | None = None) -> Settings:
    path = path or config_path()
    data: dict = {}
    if path.is_file():
        import tomllib  # only for a config.toml: its patterns take milliseconds that a server's start would wait for

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            _log().warning("ignoring %s: %s", path, exc)
    model = os.environ.get("CENOTAPH_MODEL") or data.get("model") or DEFAULT_MODEL
    threads = _threads(os.environ.get("CENOTAPH_MODEL_THREADS") or data.get("model_threads", 1))
    allowed = data.get("agent_policy", {}).get("allow", [])
    mcp = data.get("mcp", {})
    token = mcp.get("token")
    return Settings(
        model=str(model), model_threads=threads, agent_allowed=frozenset(str(v) for v in allowed),
        mcp_enabled=bool(mcp.get("enabled", True)), mcp_host=str(mcp.get("host", "127.0.0.1")),
        mcp_port=int(mcp.get("port", 0)), mcp_token=None if token is None else str(token),
        mcp_allow_remote=bool(mcp.get("allow_remote", False)),
    )


def _threads(value: object) -> int:
    try:
        threads = int(str(value))
    except ValueError:
        threads = 0
    if not 1 <= threads <= 64:
        _log().warning("ignoring model_threads = %r: a whole number from 1 to 64 is expected", value)
        return 1
    return threads


def store_location(path: Path | None = None) -> str | None:
    """Where the store is when `--db` does not say: `CENOTAPH_STORE`, else `store = "…"` in
    config.toml (a file path, or a `postgresql://` URL), else None (the default file)."""
    value = os.environ.get("CENOTAPH_STORE")
    if value:
        return value
    path = path or config_path()
    if not path.is_file():
        return None
    import tomllib

    try:
        value = tomllib.loads(path.read_text(encoding="utf-8")).get("store")
    except (tomllib.TOMLDecodeError, OSError):
        return None  # load() warns about it
    return str(value) if value else None

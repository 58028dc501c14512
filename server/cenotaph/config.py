"""User settings from `config.toml` (see paths.config_path) and the environment."""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from cenotaph.nlp.embedder import DEFAULT_MODEL
from cenotaph.paths import config_path

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Settings:
    model: str = DEFAULT_MODEL
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
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            log.warning("ignoring %s: %s", path, exc)
    model = os.environ.get("CENOTAPH_MODEL") or data.get("model") or DEFAULT_MODEL
    allowed = data.get("agent_policy", {}).get("allow", [])
    mcp = data.get("mcp", {})
    token = mcp.get("token")
    return Settings(
        model=str(model), agent_allowed=frozenset(str(v) for v in allowed),
        mcp_enabled=bool(mcp.get("enabled", True)), mcp_host=str(mcp.get("host", "127.0.0.1")),
        mcp_port=int(mcp.get("port", 0)), mcp_token=None if token is None else str(token),
        mcp_allow_remote=bool(mcp.get("allow_remote", False)),
    )

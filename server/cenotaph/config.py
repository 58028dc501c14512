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
    return Settings(model=str(model), agent_allowed=frozenset(str(v) for v in allowed))

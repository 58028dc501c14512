"""Where Cenotaph keeps its files (XDG base directories, overridable with CENOTAPH_HOME)."""

from __future__ import annotations

import os
from pathlib import Path


def _xdg(variable: str, fallback: str) -> Path:
    value = os.environ.get(variable)
    return Path(value) if value and os.path.isabs(value) else Path.home() / fallback


def default_db_path() -> Path:
    home = os.environ.get("CENOTAPH_HOME")
    if home:
        return Path(home) / "cenotaph.db"
    return _xdg("XDG_DATA_HOME", ".local/share") / "cenotaph" / "cenotaph.db"


def cache_dir() -> Path:
    return _xdg("XDG_CACHE_HOME", ".cache") / "cenotaph"


def state_dir() -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state") / "cenotaph"


def config_path() -> Path:
    home = os.environ.get("CENOTAPH_HOME")
    if home:
        return Path(home) / "config.toml"
    return _xdg("XDG_CONFIG_HOME", ".config") / "cenotaph" / "config.toml"


def claude_home() -> Path:
    """Claude Code's folder (its transcripts are under `projects/`)."""
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value) if value else Path.home() / ".claude"


def codex_home() -> Path:
    """Codex's folder (its transcripts are under `sessions/`)."""
    value = os.environ.get("CODEX_HOME")
    return Path(value) if value else Path.home() / ".codex"

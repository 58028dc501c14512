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


def configured_store(path: Path | None = None) -> str | None:
    """Where the store is when `--db` does not say: `CENOTAPH_STORE`, else `store = "…"` in
    config.toml (a file path, or a `postgresql://` URL), else None (the default file). Here
    rather than with the other settings (config.py): an agent's hook asks it on every decision."""
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
        return None  # config.load() warns about it
    return str(value) if value else None


def claude_home() -> Path:
    """Claude Code's folder (its transcripts are under `projects/`)."""
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value) if value else Path.home() / ".claude"


def codex_home() -> Path:
    """Codex's folder (its transcripts are under `sessions/`)."""
    value = os.environ.get("CODEX_HOME")
    return Path(value) if value else Path.home() / ".codex"

"""The settings (shared_schema/settings.schema.json) and their reading from a client's JSON: an
invalid value falls back to its default, and the problems say which and why. The server holds one
`Settings`; features/configuration.py receives them from the client."""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from cenotaph.lsp.convert import Wire, plain

SECTION = "cenotaph"
Severity = Literal["error", "warning", "information", "hint", "off"]
FileKind = Literal["python", "javascript", "go", "rust", "requirements", "pyproject", "package_json", "cargo_toml",
                   "go_mod", "setup_py", "setup_cfg", "tox_ini", "pipfile", "environment_yml", "pre_commit", "dockerfile",
                   "markdown", "restructuredtext", "plaintext", "instructions"]
ALL_FILE_KINDS: tuple[str, ...] = FileKind.__args__  # type: ignore[attr-defined]


class _Lenient(Wire):
    # Clients put their own keys beside ours (e.g. VS Code's `trace.server`): ignore them.
    model_config = ConfigDict(extra="ignore")


class SeveritySettings(_Lenient):
    project: Severity = "warning"
    global_: Severity = Field(default="information", alias="global")
    other_project: Severity = "information"
    mention: Severity = "hint"
    instruction: Severity = "warning"


DEFAULT_DOCUMENTS = ["README.md", "docs/**/*.md", "**/adr/**/*.md", "ARCHITECTURE.md"]


class DocumentSettings(_Lenient):
    include: list[str] = Field(default_factory=lambda: list(DEFAULT_DOCUMENTS))


class FeedSettings(_Lenient):
    interval: float = Field(default=6.0, ge=0, le=24 * 365)


class MineSettings(_Lenient):
    on_open: bool = False


class Settings(_Lenient):
    severity: SeveritySettings = SeveritySettings()
    documents: DocumentSettings = DocumentSettings()
    feeds: FeedSettings = FeedSettings()
    other_projects: bool = False
    file_kinds: list[FileKind] = Field(default_factory=lambda: list(ALL_FILE_KINDS))
    max_file_size: int = Field(default=2_000_000, ge=1024, le=100_000_000)
    mine: MineSettings = MineSettings()


def _unwrap(raw: Any) -> Any:
    raw = plain(raw)
    if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
        return raw[SECTION]
    return raw


def names_ours(raw: Any) -> bool:
    """Whether pushed settings carry ours: `{}` or another tool's section only says "changed"."""
    raw = plain(raw)
    keys = {field.alias or name for name, field in Settings.model_fields.items()}
    return isinstance(raw, dict) and (SECTION in raw or bool(keys & set(raw)))


def parse(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from a client's JSON, each invalid value replaced by its default; the problems say which."""
    raw = _unwrap(raw)
    if raw is None:
        return Settings(), []
    if not isinstance(raw, dict):
        return Settings(), [f"settings must be an object, not {type(raw).__name__}; using the defaults"]
    values = copy.deepcopy(raw)
    problems: list[str] = []
    for _ in range(32):  # each round drops at least one invalid value
        try:
            settings = Settings.from_wire(values)
            if len(set(settings.file_kinds)) != len(settings.file_kinds):
                problems.append("fileKinds: repeats a kind; using the default")
                values.pop("fileKinds", None)
                continue
            return settings, problems
        except ValidationError as exc:
            for error in exc.errors():
                location = [str(part) for part in error["loc"]]
                nested = values.get(location[0])
                if len(location) > 1 and isinstance(nested, dict):
                    nested.pop(location[1], None)
                    path = ".".join(location[:2])
                else:
                    values.pop(location[0], None)
                    path = location[0]
                problems.append(f"{path}: {error['msg']} (got {str(error['input'])[:80]!r}); using the default")
    return Settings(), [*problems, "using the default settings"]

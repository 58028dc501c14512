"""Domain errors. Each edge (CLI, LSP, MCP) translates them once."""

from __future__ import annotations


class CenotaphError(Exception):
    """Base of every error the domain raises on purpose."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class InvalidInput(CenotaphError):
    """A caller's argument is out of bounds; names the field."""


class Ambiguous(InvalidInput):
    """More than one value fits where the caller gave none: `choices` lists them, so that a door
    can ask the person (the editor) or name them (CLI, MCP)."""

    def __init__(self, message: str, *, field: str, choices: tuple[str, ...]) -> None:
        super().__init__(message, field=field)
        self.choices = choices


class NotFound(CenotaphError):
    """An id that names nothing."""


class Conflict(CenotaphError):
    """The operation does not apply to the record as it is now (e.g. a forbidden transition)."""


class AlreadyDecided(Conflict):
    """A proposal a person (or a stale notification of an editor) decides on a second time."""


class Unavailable(CenotaphError):
    """A component this operation needs cannot run here (model, SQLite binding)."""

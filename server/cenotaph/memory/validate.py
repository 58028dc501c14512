"""Checks on what callers send, each naming the field it rejects."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cenotaph.memory.errors import InvalidInput
from cenotaph.nlp import ecosystems

MAX_CONTENT = 50_000
MAX_SHORT_TEXT = 2_000
MAX_QUERY = 10_000
MAX_TAGS = 50
MAX_NAME = 300  # a graveyard name; a tag holds one too, since an abandoned name's story is tagged with it


def text(value: Any, field: str, *, max_length: int = MAX_SHORT_TEXT, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"expected text, got {type(value).__name__}", field=field)
    if not allow_empty and not value.strip():
        raise InvalidInput("must not be empty", field=field)
    if len(value) > max_length:
        raise InvalidInput(f"is {len(value):,} characters; at most {max_length:,} are allowed", field=field)
    if "\x00" in value:
        raise InvalidInput("contains a NUL character", field=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("is not valid Unicode (a lone surrogate)", field=field) from None
    return value


def optional_text(value: Any, field: str, *, max_length: int = MAX_SHORT_TEXT) -> str | None:
    return None if value is None else text(value, field, max_length=max_length)


def choice(value: Any, field: str, allowed: Iterable[str]) -> str:
    options = tuple(allowed)
    if value not in options:
        raise InvalidInput(f"{value!r} is not one of {', '.join(options)}", field=field)
    return value


def integer(value: Any, field: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            else:
                raise ValueError
        except ValueError:
            raise InvalidInput(f"expected a whole number from {low} to {high}", field=field) from None
    if not low <= value <= high:
        raise InvalidInput(f"{value} is outside {low}–{high}", field=field)
    return value


def optional_integer(value: Any, field: str, *, low: int, high: int) -> int | None:
    return None if value is None else integer(value, field, low=low, high=high)


def text_list(values: Any, field: str, *, max_items: int = MAX_TAGS, max_length: int = MAX_NAME) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        raise InvalidInput("expected a list of text", field=field)
    if len(values) > max_items:
        raise InvalidInput(f"has {len(values)} items; at most {max_items} are allowed", field=field)
    return [text(v, f"{field}[{i}]", max_length=max_length) for i, v in enumerate(values)]


def project(value: Any, field: str = "project") -> str:
    """A project id; `""` is the global scope."""
    if not isinstance(value, str):
        raise InvalidInput(f"expected text, got {type(value).__name__}", field=field)
    return text(value, field, max_length=1000, allow_empty=True).strip()


def package_name(value: Any, field: str = "name", *, ecosystem: str | None) -> str:
    """A name its ecosystem's registry would take (`ecosystems.name_problem`), stripped; `None`
    for the ecosystem: a name some ecosystem takes."""
    name = text(value, field, max_length=MAX_NAME).strip()
    if problem := ecosystems.name_problem(name, ecosystems.ANY if ecosystem is None else ecosystem):
        raise InvalidInput(problem, field=field)
    return name

"""One module per page group. Each lists `PAGES` (path, render: GET, a whole page) and `ACTIONS`
(path, run: POST, one domain verb as the person logged in, returning a notice or a page of its own:
a preview asking for confirmation)."""

from cenotaph.memory.errors import InvalidInput


def number(value: str, field: str) -> int:
    """A number from an address or a form, refused naming its field."""
    try:
        return int(value)
    except ValueError:
        raise InvalidInput("expected a whole number", field=field) from None

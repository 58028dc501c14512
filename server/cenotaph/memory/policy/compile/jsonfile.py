"""JSON configuration files rewritten with the indentation they already have (tabs for a Biome
`biome init` file, two spaces elsewhere), keys in their order, one trailing newline; and
`Splice`, which edits a person's file in place: every byte outside the values it adds, removes
or replaces stays as it was (their indentation, line endings, key order, compact lines)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from cenotaph.memory.errors import Conflict

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)
_WHITESPACE = re.compile(r"[ \t\r\n]*")
_BLANKS = re.compile(r"[ \t]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def loads(path: str, text: str) -> dict:
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise Conflict(f"{path} is not plain JSON ({exc.msg} at line {exc.lineno}): fix it first", field="file") \
            from None
    if not isinstance(data, dict):
        raise Conflict(f"{path} does not hold a JSON object", field="file")
    return data


def dumps_like(current: str, data: dict) -> str:
    found = _INDENT.search(current or "")
    indent: str | int = found.group(1) if found else 2
    return json.dumps(data, ensure_ascii=False, indent=indent) + "\n"


@dataclass(slots=True)
class Node:
    """A value in the text: where it starts and ends, what it holds, and its children (an
    object's values by key, an array's items) with where each starts (a member at its key)."""

    start: int
    end: int
    value: Any
    keys: list[str] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        return next((node for k, node in zip(self.keys, self.children) if k == key), None)


def _parse(text: str, at: int) -> Node:
    """The value at `at` (after whitespace), with the span of every value inside it. The text
    was read by `json.loads` first, so it is valid JSON here."""
    start = _WHITESPACE.match(text, at).end()
    opener = text[start]
    if opener == '"':
        value, end = json.decoder.scanstring(text, start + 1)
        return Node(start, end, value)
    if opener not in "{[":
        match = _SCALAR.match(text, start)
        assert match is not None
        return Node(start, match.end(), json.loads(match.group()))
    node = Node(start, 0, {} if opener == "{" else [])
    i = start + 1
    closer = "}" if opener == "{" else "]"
    while True:
        i = _WHITESPACE.match(text, i).end()
        if text[i] == closer:
            node.end = i + 1
            return node
        if text[i] == ",":
            i += 1
            continue
        node.starts.append(i)
        if opener == "{":
            key, i = json.decoder.scanstring(text, i + 1)
            i = _WHITESPACE.match(text, i).end() + 1  # the colon
            child = _parse(text, i)
            node.keys.append(key)
            node.value[key] = child.value
        else:
            child = _parse(text, i)
            node.value.append(child.value)
        node.children.append(child)
        i = child.end


class Splice:
    """Edits to a JSON object's text, each given against the text as read and applied together.
    Added values take the file's own indentation unit, line ending and separators; a compact
    (one-line) file gets compact values. Removing a value takes out what adding it put in, so an
    add and a remove are byte for byte a round trip."""

    def __init__(self, path: str, text: str) -> None:
        self.data = loads(path, text)
        self.text = text
        self.root = _parse(text, 0) if text.strip() else None
        self.newline = "\r\n" if "\r\n" in text else "\n"
        found = _INDENT.search(text)
        self.unit = found.group(1) if found else "  "
        self.compact = self.root is not None and "\n" not in text[self.root.start:self.root.end]
        self.colon = ": " if self.root is None or re.search(r'"\s*:\s', text) else ":"
        self._edits: list[tuple[int, int, str]] = []

    def result(self, data: dict) -> str:
        """The text with the edits made (`data`, the whole object, when the file was empty)."""
        if self.root is None:
            return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        text = self.text
        for start, end, replacement in sorted(self._edits, reverse=True):
            text = text[:start] + replacement + text[end:]
        return text

    def replace(self, node: Node, value: Any) -> None:
        self._edits.append((node.start, node.end, self._dumps(value, self._line_indent(node.start))))

    def add_members(self, parent: Node, members: list[tuple[str, Any]]) -> None:
        indent = self._child_indent(parent)
        self._add(parent, [f"{json.dumps(key, ensure_ascii=False)}{self.colon}{self._dumps(value, indent)}"
                           for key, value in members])

    def append(self, parent: Node, values: list[Any]) -> None:
        indent = self._child_indent(parent)
        self._add(parent, [self._dumps(value, indent) for value in values])

    def remove(self, parent: Node, indices: set[int]) -> None:
        """Take out the members (of an object) or items (of an array) at `indices`."""
        children = parent.children
        spans = list(zip(parent.starts, [node.end for node in children]))
        if len(indices) == len(children):
            self._edits.append((parent.start + 1, parent.end - 1, ""))
            return
        i = 0
        while i < len(children):
            if i not in indices:
                i += 1
                continue
            last = i
            while last + 1 in indices:
                last += 1
            if i > 0:  # from the end of the value before, as an append put it there
                self._edits.append((spans[i - 1][1], spans[last][1], ""))
            else:
                self._edits.append((spans[0][0], spans[last + 1][0], ""))
            i = last + 1

    def _add(self, parent: Node, pieces: list[str]) -> None:
        children = parent.children
        if not children:
            if self.compact:
                inner = ", ".join(pieces)
            else:
                child = self._child_indent(parent)
                inner = "".join(f"{self.newline}{child}{piece}" + ("," if k < len(pieces) - 1 else "")
                                for k, piece in enumerate(pieces)) + self.newline + self._line_indent(parent.start)
            self._edits.append((parent.start + 1, parent.end - 1, inner))
            return
        if len(children) > 1:  # what separates the children already there
            sep = self.text[children[-2].end:parent.starts[-1]].split(",", 1)[1]
        else:
            sep = self.text[parent.start + 1:parent.starts[0]]
        sep = sep or ("" if self.compact else " ")
        self._edits.append((children[-1].end, children[-1].end, "".join(f",{sep}{piece}" for piece in pieces)))

    def _line_indent(self, offset: int) -> str:
        return _BLANKS.match(self.text, self.text.rfind("\n", 0, offset) + 1).group()

    def _child_indent(self, parent: Node) -> str:
        if parent.children:
            return self._line_indent(parent.starts[0])
        return self._line_indent(parent.start) + self.unit

    def _dumps(self, value: Any, indent: str) -> str:
        if self.compact:
            return json.dumps(value, ensure_ascii=False, separators=(", " if self.colon == ": " else ",", self.colon))
        text = json.dumps(value, ensure_ascii=False, indent=self.unit, separators=(",", self.colon))
        return text.replace("\n", self.newline + indent)

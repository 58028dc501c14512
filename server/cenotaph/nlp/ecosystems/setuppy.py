"""setup.py's requirements, read with `ast` (never executed): a module of its own, imported when a
setup.py is read, so that what reads other files (an agent's hook, on every tool call) does not
load `ast`."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

from cenotaph.nlp.ecosystems import base, pep508
from cenotaph.nlp.ecosystems.base import Hit, LazyPattern

_STRING_OPENER = LazyPattern(r"""[rRbBuUfF]{0,2}(?:'''|\"\"\"|'|")""")


def requirement_hits(text: str, keyword_groups: Mapping[str, str]) -> Iterator[Hit]:
    """The requirements a `setup(...)` call declares: string literals in the keywords of
    `keyword_groups` (each in its group) and in `extras_require`, given directly or through names
    bound at module level. A file that does not parse declares nothing."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    bound: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                bound[target.id] = statement.value
    line_starts = base.line_starts(text)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_setup_call(node.func)):
            continue
        for keyword in node.keywords:
            if keyword.arg in keyword_groups:
                group = keyword_groups[keyword.arg]
                for literal in _string_literals(keyword.value, bound):
                    yield from _literal_requirement_hits(text, line_starts, literal, group)
            elif keyword.arg == "extras_require":
                extras = _resolved(keyword.value, bound)
                if not isinstance(extras, ast.Dict):
                    continue
                for extra, value in zip(extras.keys, extras.values):
                    if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
                        for literal in _string_literals(value, bound):
                            yield from _literal_requirement_hits(text, line_starts, literal, f"extra:{extra.value}")


def _is_setup_call(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "setup") or (
        isinstance(func, ast.Attribute) and func.attr == "setup")


def _resolved(node: ast.expr, bound: Mapping[str, ast.expr]) -> ast.expr:
    return bound.get(node.id, node) if isinstance(node, ast.Name) else node


def _string_literals(node: ast.expr, bound: Mapping[str, ast.expr], depth: int = 0) -> Iterator[ast.Constant]:
    """The string literals of a list or tuple (or a `+` of them, or one string), names followed
    to what they are bound to."""
    if depth > 8:  # `a = a + b`: a name followed this deep is a loop
        return
    node = _resolved(node, bound)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, (ast.List, ast.Tuple)):
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _string_literals(node.left, bound, depth + 1)
        yield from _string_literals(node.right, bound, depth + 1)


def _literal_requirement_hits(text: str, line_starts: list[int], literal: ast.Constant, group: str) -> Iterator[Hit]:
    """A string literal holds one requirement per line (setuptools splits a string on lines)."""
    line_start = line_starts[literal.lineno - 1]
    # ast columns count UTF-8 bytes.
    line = text[line_start : line_start + literal.col_offset]
    start = line_start + len(line.encode("utf-8")[: literal.col_offset].decode("utf-8", "ignore"))
    opener = _STRING_OPENER.match(text, start)
    if opener is None:
        return
    position = opener.end()
    for requirement in literal.value.splitlines(keepends=True):
        content = requirement.split("#", 1)[0]
        indent = len(content) - len(content.lstrip())
        if span := pep508.name_span(content.strip()):
            name = content.strip()[span[0] : span[1]]
            name_start = position + indent + span[0]
            # An escape or an implicit concatenation moves the source away from the value: left out.
            if text[name_start : name_start + len(name)] == name:
                yield Hit(name_start, name_start + len(name), "pypi", "declaration", group)
        position += len(requirement)


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True

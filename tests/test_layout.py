"""The house's shape (docs/architecture.md): modules small enough to read, the domain grouped by
capability, and imports that run one way. Imports under `if TYPE_CHECKING:` are annotations only
and do not count, except inside the language server: its features do not name the server even
in annotations."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "cenotaph"
MAX_MODULE_LINES = 800
MAX_MEMORY_TOP_LEVEL = 15


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _runtime_imports(tree: ast.AST, package: str) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    yield from _all_imports(tree, package)


def _all_imports(tree: ast.AST, package: str) -> Iterator[str]:
    """Every import, those under `if TYPE_CHECKING:` included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(imports: Callable[[ast.AST, str], Iterator[str]] = _runtime_imports) -> dict[str, set[str]]:
    """Module → the project's modules it imports (at run time, unless told otherwise)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = {t for t in imports(ast.parse(path.read_text()), package) if t in known}
        graph[name] = targets - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def package_of(module: str, depth: int) -> str:
    return ".".join(module.split(".")[:depth])


def package_graph(graph: dict[str, set[str]], depth: int, within: str = "cenotaph") -> dict[str, set[str]]:
    """The graph folded onto packages `depth` names deep (cenotaph.memory.core is depth 3)."""
    folded: dict[str, set[str]] = {}
    for source, targets in graph.items():
        if not source.startswith(within + ".") or source.count(".") < depth - 1:
            continue
        a = package_of(source, depth)
        for target in targets:
            if target.startswith(within + ".") and target.count(".") >= depth - 1:
                b = package_of(target, depth)
                if a != b:
                    folded.setdefault(a, set()).add(b)
        folded.setdefault(a, set())
    return folded


def test_the_cycle_finder_finds_a_cycle_and_passes_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_import_graph_sees_function_level_imports_and_skips_type_checking_ones():
    graph = import_graph()
    # Control: the service imports the domain's packages at the top of its module.
    assert "cenotaph.memory.core.recall" in graph["cenotaph.memory.service"]
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import cenotaph.x\n"
              "def f():\n    import cenotaph.y\n")
    assert set(_runtime_imports(ast.parse(source), "cenotaph")) == {"typing", "typing.TYPE_CHECKING", "cenotaph.y"}
    assert set(_all_imports(ast.parse(source), "cenotaph")) == {"typing", "typing.TYPE_CHECKING", "cenotaph.x",
                                                                "cenotaph.y"}


@pytest.mark.parametrize("depth", [2, 3])
def test_no_import_circle_between_packages(depth):
    assert cycles(package_graph(import_graph(), depth)) == []


def test_no_import_circle_between_modules():
    assert cycles(import_graph()) == []


def test_the_language_server_features_do_not_import_the_server():
    """Not even for annotations (they annotate with features.ServerContext): the server wires the
    features, and no import circle runs inside the language server."""
    graph = import_graph(_all_imports)
    lsp = {name: targets for name, targets in graph.items() if (name + ".").startswith("cenotaph.lsp.")}
    features = [name for name in lsp if name.startswith("cenotaph.lsp.features.")]
    # Controls: the server imports the features it wires, and annotation-only imports are counted.
    assert {"cenotaph.lsp.features.diagnostics", "cenotaph.lsp.features.compile"} <= graph["cenotaph.lsp.server"]
    assert "cenotaph.lsp.features" in graph["cenotaph.lsp.features.refresh"]
    assert "cenotaph.lsp.features" not in import_graph()["cenotaph.lsp.features.refresh"]
    assert len(features) >= 10
    assert [name for name in features if "cenotaph.lsp.server" in graph[name]] == []
    assert cycles({name: targets & lsp.keys() for name, targets in lsp.items()}) == []


def test_the_layers_run_one_way():
    graph = package_graph(import_graph(), 2)
    assert "cenotaph.memory" not in graph["cenotaph.store"]
    for edge in ("cenotaph.lsp", "cenotaph.mcp", "cenotaph.cli"):
        assert edge not in graph["cenotaph.memory"] and edge not in graph["cenotaph.store"]


def test_no_module_is_longer_than_a_sitting():
    lengths = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    assert max(lengths.values()) > 100  # control: the counter reads real files
    assert {name: n for name, n in lengths.items() if n > MAX_MODULE_LINES} == {}


def test_the_domain_top_level_is_grouped_by_capability():
    top = [p for p in (PACKAGE / "memory").iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()]
    assert len(top) <= MAX_MEMORY_TOP_LEVEL, sorted(p.name for p in top)
    for package in (p for p in top if p.is_dir()):
        assert ast.get_docstring(ast.parse((package / "__init__.py").read_text())), f"{package.name} says what it owns"

"""The import graph of ``narrator/`` keeps its layers.

Every import counts, the ones inside functions too: a lazy import hides a cycle from
Python, not from the reader. The graph is read from the source with ``ast``, so a module
that is never imported at run time is checked all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "narrator"

# A layer that may never import the ones named: the edges of the program (sound, voice,
# listening) know nothing of the table, the screen or the command line.
FORBIDDEN = {
    "narrator.sound": ("narrator.host", "narrator.screen", "narrator.app", "narrator.cli"),
    "narrator.voice": ("narrator.host", "narrator.screen", "narrator.app", "narrator.cli"),
    "narrator.listen": ("narrator.host", "narrator.screen", "narrator.app", "narrator.cli"),
    "narrator.phones": ("narrator.host", "narrator.screen", "narrator.app", "narrator.cli"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _known(name: str) -> str | None:
    """The module of ours an imported name lives in (``a.b.c`` may be a name in ``a.b``)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


def imported(module: str, source: str | None = None) -> Iterator[tuple[str, int]]:
    """Each module of ours that ``module`` imports, anywhere in its source, with the line."""
    path = modules().get(module, PACKAGE / "new.py")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            found = _known(name)
            if found is not None and found != module and not module.startswith(found + "."):
                yield found, node.lineno


@cache
def graph() -> dict[str, frozenset[str]]:
    return {module: frozenset(target for target, _ in imported(module)) for module in modules()}


def cycles(edges: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected parts of a graph with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part: list[str] = []
            while not part or part[-1] != node:
                part.append(stack.pop())
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read_from_every_module() -> None:
    assert "narrator.rules.core" in graph()
    assert "narrator.rules.core" in graph()["narrator.drive"]


def test_there_is_no_import_cycle() -> None:
    assert cycles(graph()) == []


def test_the_rules_import_only_the_rules() -> None:
    outside = {
        (module, target, line)
        for module in modules()
        if module.startswith("narrator.rules")
        for target, line in imported(module)
        if not target.startswith("narrator.rules")
    }
    assert outside == set()


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_an_edge_of_the_program_never_imports_the_table(layer: str) -> None:
    wrong = {
        (module, target, line)
        for module in modules()
        if module == layer or module.startswith(layer + ".")
        for target, line in imported(module)
        if any(target == up or target.startswith(up + ".") for up in FORBIDDEN[layer])
    }
    assert wrong == set()


def test_a_cycle_is_found_where_there_is_one() -> None:
    """The finder itself: two modules that import each other, beside the real graph."""
    edges = {**graph(), "narrator.a": frozenset({"narrator.b"})}
    edges["narrator.b"] = frozenset({"narrator.c", "narrator.rules.core"})
    edges["narrator.c"] = frozenset({"narrator.a"})
    assert ["narrator.a", "narrator.b", "narrator.c"] in cycles(edges)


def test_a_lazy_import_counts() -> None:
    """An import inside a function is an edge like one at the top, relative ones too."""
    source = (
        "import narrator.rules.codec\n"
        "def later():\n"
        "    from narrator.screen import tui\n"
        "    from ..rules.core import Game\n"
        "    from . import catalog\n"
    )
    found = {target for target, _ in imported("narrator.voice.new", source)}
    assert found == {
        "narrator.rules.codec",
        "narrator.screen.tui",
        "narrator.rules.core",
        "narrator.voice.catalog",
    }

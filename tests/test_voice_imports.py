"""The import graph of the voice and the listening: no cycles, nothing from above.

Every import counts, wherever it stands (a function's own import, one under
``TYPE_CHECKING``): a cycle behind a lazy import is still a cycle.  Importing a
module also imports the packages it is in, so those count as edges too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "narrator"
OWN = ("narrator.voice", "narrator.listen")
# What the voice and the listening may never import: the table, the screen, the program.
ABOVE = ("narrator.host", "narrator.screen", "narrator.app", "narrator.cli")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _with_packages(name: str) -> Iterator[str]:
    """``name`` and the packages it is in, those that are modules of the tree."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in MODULES:
            yield prefix


def imports(module: str) -> set[str]:
    """Every module of the tree that ``module`` imports, anywhere in its text."""
    tree = ast.parse(MODULES[module].read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(_with_packages(alias.name))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(_with_packages(node.module))
            for alias in node.names:  # ``from narrator.voice import engines``: a module
                found.update(_with_packages(f"{node.module}.{alias.name}"))
    found.discard(module)
    return found


GRAPH = {name: imports(name) for name in MODULES}


def _ours(name: str) -> bool:
    return name.startswith(OWN)


def _cycle_from(start: str) -> list[str] | None:
    """A path of imports from ``start`` back to it, if there is one."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        here, path = stack.pop()
        for there in sorted(GRAPH[here]):
            if there == start:
                return [*path, start]
            if there not in seen:
                seen.add(there)
                stack.append((there, [*path, there]))
    return None


def test_the_graph_sees_lazy_imports() -> None:
    """The checker reads imports inside functions: the registry's engines are among them."""
    assert "narrator.voice.engines.festival" in GRAPH["narrator.voice.voices"]
    assert "narrator.voice.engines" in GRAPH["narrator.voice.engines.festival"]


def test_no_import_cycle_runs_through_the_voice_or_the_listening() -> None:
    cycles = [c for name in MODULES if _ours(name) and (c := _cycle_from(name)) is not None]
    assert not cycles, "\n".join(" → ".join(cycle) for cycle in cycles)


def test_the_voice_and_the_listening_never_import_the_table_the_screen_or_the_program() -> None:
    upward = {
        name: sorted(m for m in GRAPH[name] if m.startswith(ABOVE))
        for name in MODULES
        if _ours(name)
    }
    assert not {name: found for name, found in upward.items() if found}

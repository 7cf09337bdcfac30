"""The module import graph of ``carcassonne_env`` has no cycle, and the package never imports the
``agents`` or ``training`` packages built on it.

The graph is read from the source with ``ast``: every ``import`` and ``from … import`` anywhere in a
module, at module level or inside a function, is an edge. Importing ``a.b.c`` also runs the
``__init__`` of ``a.b`` (and ``a``), so it is an edge to those packages too, unless they enclose
the importing module (they are being imported already). Imports under ``if TYPE_CHECKING:`` are
type annotations, never run, and are no edges.
"""

from __future__ import annotations

import ast
from pathlib import Path

import carcassonne_env

ROOT = Path(carcassonne_env.__file__).parent
PACKAGE = "carcassonne_env"


def _module_names() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    out: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """Absolute names of the modules ``node`` imports (submodules named in a ``from`` included)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if not is_package:
            base.pop()
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    return [source] + [f"{source}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    """Module of ``carcassonne_env`` → the modules (in or out of the package) it imports."""
    modules = _module_names()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        enclosing = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 2)}
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path))):
            for target in _targets(name, path.name == "__init__.py", node):
                parts = target.split(".")
                for k in range(1, len(parts) + 1):
                    prefix = ".".join(parts[:k])
                    if prefix not in enclosing and (prefix in modules or not prefix.startswith(PACKAGE)):
                        edges.add(prefix)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among the package's modules, as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert "carcassonne_env.engine.game" in graph["carcassonne_env.engine"]  # from .game import …
    assert "carcassonne_env.environment" in graph[PACKAGE]  # an import inside a function
    assert "carcassonne_env.engine" in graph["carcassonne_env.environment.aec"]  # from ..engine import …
    assert "numpy" in graph["carcassonne_env.engine.game"]


def test_the_package_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_a_cycle_is_found() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "x"}, "b": set()}) is None


def test_the_package_never_imports_agents_or_training() -> None:
    offenders = {
        (module, target)
        for module, targets in import_graph().items()
        for target in targets
        if target.split(".")[0] in ("agents", "training")
    }
    assert not offenders

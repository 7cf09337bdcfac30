"""The import graph of the project's code has no cycle between files, and its arrows point down the
layers: ``carcassonne_env`` (the engine and env) < ``agents`` < ``training`` < the maintainer scripts
and the docs site's hooks. A module imports modules of its own layer or a lower one, never a higher
one, so each layer runs without those above it.

The graph is read from the source with ``ast``: every ``import`` and ``from … import`` anywhere in a
module, at module level or inside a function, is an edge. Importing ``a.b.c`` also runs the
``__init__`` of ``a.b`` (and ``a``), so it is an edge to those packages too, unless they enclose
the importing module (they are being imported already). Imports under ``if TYPE_CHECKING:`` are
type annotations, never run, and are no edges. A file of ``scripts/`` or ``docs/hooks/`` is named by
its path (``scripts.maintainer.bench_cluster``), as a package module is.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The layers, lowest first, each with the source folders (relative to the repository) of its modules.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("carcassonne_env",),
    ("agents",),
    ("training",),
    ("scripts", "docs/hooks"),
)
#: The layer (index in :data:`LAYERS`) of each top-level name of the project's modules.
LAYER_OF: dict[str, int] = {folder.split("/")[0]: i for i, folders in enumerate(LAYERS) for folder in folders}


def _module_names() -> dict[str, Path]:
    """Every module of the layers' folders, by its dotted name."""
    out = {}
    for folders in LAYERS:
        for folder in folders:
            for path in (REPO / folder).rglob("*.py"):
                parts = list(path.relative_to(REPO).with_suffix("").parts)
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
    """Module of the project → the modules (the project's or others') it imports. A name under one of
    the project's top-level names is an edge only if it is a module (``from pkg import function``
    names no module)."""
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
                    if prefix not in enclosing and (prefix in modules or parts[0] not in LAYER_OF):
                        edges.add(prefix)
        graph[name] = edges
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle among the graph's modules, as a path that ends where it starts, or None."""
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


def upward_imports(graph: Mapping[str, set[str]]) -> set[tuple[str, str]]:
    """The edges ``(module, target)`` from a layer to a higher one (:data:`LAYER_OF`)."""
    return {
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if LAYER_OF.get(target.split(".")[0], -1) > LAYER_OF[module.split(".")[0]]
    }


def test_the_graph_covers_every_layer() -> None:
    tops = {module.split(".")[0] for module in import_graph()}
    assert tops == set(LAYER_OF) == {"carcassonne_env", "agents", "training", "scripts", "docs"}


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert "carcassonne_env.engine.game" in graph["carcassonne_env.engine"]  # from .game import …
    assert "carcassonne_env.environment" in graph["carcassonne_env"]  # an import inside a function
    assert "carcassonne_env.engine" in graph["carcassonne_env.environment.aec"]  # from ..engine import …
    assert "numpy" in graph["carcassonne_env.engine.game"]
    assert "training.arena.ray_support" in graph["training.arena.backends"]  # inside a function
    assert "agents.rllib" in graph["agents"]  # inside a function
    assert "training.arena.backends" in graph["scripts.maintainer.bench_cluster"]  # a script, inside main()
    assert "agents.spec" in graph["docs.hooks.agent_specs"]  # a docs hook
    assert "agents.spec.make_agent" not in graph["scripts.maintainer.choice_regret"]  # a function, no module


def test_the_project_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_a_cycle_is_found() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "x"}, "b": set()}) is None


def test_no_layer_imports_a_higher_one() -> None:
    offenders = upward_imports(import_graph())
    assert not offenders, "imports up the layers: " + ", ".join(f"{m} -> {t}" for m, t in sorted(offenders))


def test_an_upward_import_is_found() -> None:
    graph = {"carcassonne_env.players": {"numpy", "agents.spec"}, "training.cli": {"agents", "scripts.x"},
             "scripts.x": {"training.cli", "carcassonne_env"}}
    assert upward_imports(graph) == {("carcassonne_env.players", "agents.spec"), ("training.cli", "scripts.x")}

"""A missing optional dependency names the extra that installs it (agents/extras.py).

Read from the source: every import of an optional package (torch, stable_baselines3, sb3_contrib,
tensorboard, tyro, ray) made inside a function of ``agents`` or ``training``, or of a module of
theirs that imports one at its top, runs inside ``optional_imports(...)``. Run: with the package
made missing (``sys.modules[name] = None``, as if it were not installed), the ``carcassonne``
command says so in one line naming the extra, with no traceback.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.extras import OPTIONAL, MissingExtra, missing_extra, optional_imports
from tests.faults.helpers import in_a_fresh_process
from training.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agents", "training")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _trees() -> dict[str, ast.Module]:
    return {_module_name(path): ast.parse(path.read_text(encoding="utf-8"))
            for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _imported(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """The absolute module names ``node`` (in ``module``) imports."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")[: len(module.split(".")) - node.level + (module in _PACKAGE_INITS)]
        stem = ".".join([*base, node.module] if node.module else base)
        return [stem, *(f"{stem}.{alias.name}" for alias in node.names)]
    assert node.module is not None
    return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]


_PACKAGE_INITS = {_module_name(path) for package in PACKAGES for path in (ROOT / package).rglob("__init__.py")}


def _top_level_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when imported: at its top, and in its top-level try/if blocks
    (not under ``if TYPE_CHECKING:``)."""
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            stack.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            stack.extend([*node.body, *node.orelse, *node.finalbody, *(s for h in node.handlers for s in h.body)])


def _optional(name: str) -> bool:
    return name.partition(".")[0] in OPTIONAL


def needing_modules(trees: dict[str, ast.Module]) -> set[str]:
    """The modules of ``trees`` that import an optional package when imported, directly or through
    another such module."""
    needing: set[str] = set()
    while True:
        more = {module for module, tree in trees.items() if module not in needing and any(
            _optional(name) or name in needing
            for node in _top_level_imports(tree) for name in _imported(node, module))}
        if not more:
            return needing
        needing |= more


def _guarded(node: ast.With) -> bool:
    return any(isinstance(item.context_expr, ast.Call) and isinstance(item.context_expr.func, ast.Name)
               and item.context_expr.func.id == "optional_imports" for item in node.items)


def unguarded_imports(trees: dict[str, ast.Module]) -> list[str]:
    """``module:line name`` of every import inside a function of an optional package or of a needing
    module, not inside ``with optional_imports(...)``, in the modules that do not need one themselves."""
    needing = needing_modules(trees)
    found: list[str] = []

    def visit(node: ast.AST, module: str, in_function: bool, guarded: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and in_function and not guarded:
            names = _imported(node, module)
            if any(_optional(name) or name in needing for name in names):
                found.append(f"{module}:{node.lineno} {names[0]}")
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        in_function = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        guarded = guarded or (isinstance(node, ast.With) and _guarded(node))
        for child in ast.iter_child_nodes(node):
            visit(child, module, in_function, guarded)

    for module, tree in trees.items():
        if module not in needing:
            visit(tree, module, False, False)
    return found


def test_every_lazy_import_of_an_optional_package_names_its_extra() -> None:
    assert unguarded_imports(_trees()) == []


def test_the_source_check_finds_an_unguarded_import() -> None:
    trees = {
        "agents.nets.nn": ast.parse("import torch\n"),
        "agents.user": ast.parse("def f():\n    import tyro\n    from .nets.nn import X\n"
                                 "def g():\n    with optional_imports('g'):\n        import torch\n"),
    }
    assert needing_modules(trees) == {"agents.nets.nn"}
    assert unguarded_imports(trees) == ["agents.user:2 tyro", "agents.user:3 agents.nets.nn"]


# ------------------------------------------------------------------------------ the helper
def test_a_missing_optional_package_names_the_extra() -> None:
    with pytest.raises(MissingExtra) as missing, optional_imports("the ppo: agents", "train"):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")
    assert str(missing.value) == ("torch is not installed (needed by the ppo: agents): install the train extra: "
                                  "pip install 'carcassonne-env[train]'")
    assert missing.value.name == "torch" and missing.value.extra == "train"


def test_a_submodule_counts_as_its_package_and_the_package_names_its_own_extra() -> None:
    error = ModuleNotFoundError("No module named 'ray.rllib'", name="ray.rllib")
    missing = missing_extra(error, "--backend ray")
    assert missing is not None and missing.extra == "ray"


def test_a_missing_module_that_is_not_optional_is_left_alone() -> None:
    """A module of the project or of a required dependency that is missing is a broken install."""
    with pytest.raises(ModuleNotFoundError) as missing, optional_imports("the ppo: agents", "train"):
        raise ModuleNotFoundError("No module named 'agents.nets.policy'", name="agents.nets.policy")
    assert not isinstance(missing.value, MissingExtra)


# ------------------------------------------------------------------------------ the command
@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """torch, Stable-Baselines3 and tyro missing (an install without the train extra): each is None
    in ``sys.modules``, and the modules that imported them are forgotten, so importing one again
    fails as it would without them (all restored afterwards)."""
    missing = ("torch", "stable_baselines3", "sb3_contrib", "tyro")
    needing = needing_modules(_trees())
    for name in list(sys.modules):
        top = name.partition(".")[0]
        if name in needing or (top in missing and name != top) or name.startswith("training.sb3."):
            monkeypatch.delitem(sys.modules, name)
    for name in missing:
        monkeypatch.setitem(sys.modules, name, None)
    yield


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(("argv", "needed_by"), [
    (["play", "ppo:pretrained", "random"], "the ppo: agents"),
    (["play", "random", "az:pretrained"], "the az: agents"),
    (["tournament", "random", "ppo:distilled", "--seeds", "1"], "the ppo: agents"),
    (["evaluate", "random", "--seeds", "1"], "az:pretrained,guide_tree=0 of the 2-player ladder"),
    (["evaluate", "ppo:pooled", "--seeds", "1", "--players", "3"], "the ppo: agents"),
])
def test_an_agent_whose_extra_is_missing_is_refused_in_one_line(argv: list[str], needed_by: str,
                                                                tmp_path: Path) -> None:
    # in a fresh interpreter: one that imported torch before (an agent registered, a network cached)
    # keeps references to it that no sys.modules entry removes
    out = [] if argv[0] == "play" else ["--out", str(tmp_path / "out")]
    in_a_fresh_process(_refused_without_torch, [*argv, *out], needed_by)


def _refused_without_torch(argv: list[str], needed_by: str) -> None:
    """``carcassonne ARGV`` with torch, Stable-Baselines3 and tyro missing: status 2, one line naming the extra."""
    import contextlib
    import io

    for name in ("torch", "stable_baselines3", "sb3_contrib", "tyro"):
        sys.modules[name] = None  # type: ignore[assignment]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    assert lines[0].startswith(f"carcassonne {argv[0]}: error: ") and lines[0].endswith(
        f"torch is not installed (needed by {needed_by}): install the train extra: "
        "pip install 'carcassonne-env[train]'"), lines[0]


@pytest.mark.parametrize("trainer", ["ppo", "afterstate", "distill"])
def test_a_trainer_whose_extra_is_missing_is_refused_in_one_line(
        trainer: str, without: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", trainer, "--help"]) == 2
    line = _one_line(capsys)
    assert line.startswith(f"carcassonne train {trainer}: error: ") and line.endswith(
        "is not installed (needed by carcassonne train " + trainer + "): install the train extra: "
        "pip install 'carcassonne-env[train]'")


"""Every list of two or more expansions comes from the registry by name
(:data:`~carcassonne_env.engine.registry.TOWER_VARIANT`,
:func:`~carcassonne_env.engine.registry.with_requirements`), never spelled out: no tuple, list or set
literal outside ``carcassonne_env/engine/registry.py`` names two or more expansions (this file's own
literals pin the registry's lists and feed the rule its examples). The rule reads the project's
Python with ``ast``: the packages, the scripts, the docs hooks, the tests, the notebooks' code cells
and the Python programs written as string constants (a test's subprocess).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from carcassonne_env.engine import ConfigError, GameConfig
from carcassonne_env.engine.registry import EXPANSIONS, PLUGINS, TOWER_VARIANT, with_requirements

REPO = Path(__file__).resolve().parent.parent
#: The folders of the project's Python (every ``*.py`` under them) and its notebooks.
FOLDERS = ("carcassonne_env", "agents", "training", "scripts", "docs", "tests", "notebooks")
#: The files that may spell out expansion lists: the registry, and this test.
EXEMPT = (REPO / "carcassonne_env" / "engine" / "registry.py", Path(__file__).resolve())


def spelled_out_lists(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each tuple, list or set literal of ``source`` with two or more expansion names
    among its items, in it or in a Python program written as one of its string constants."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            named = [e for e in node.elts if isinstance(e, ast.Constant) and e.value in EXPANSIONS]
            if len(named) >= 2:
                yield node.lineno, ast.get_source_segment(source, node) or ""
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value:
            try:
                inner = list(spelled_out_lists(node.value))
            except SyntaxError:  # prose, not a program
                continue
            yield from ((node.lineno + line - 1, text) for line, text in inner)


def _sources() -> Iterator[tuple[str, str]]:
    """(where, Python source) of every file of :data:`FOLDERS` and ``setup.py``, and of every notebook
    code cell (IPython's ``%`` and ``!`` lines dropped)."""
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            if path.resolve() not in EXEMPT:
                yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8")
        for path in sorted((REPO / folder).rglob("*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for i, cell in enumerate(cells):
                if cell["cell_type"] == "code":
                    lines = "".join(cell["source"]).splitlines()
                    code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
                    yield f"{path.relative_to(REPO)} cell {i}", code
    yield "setup.py", (REPO / "setup.py").read_text(encoding="utf-8")


def test_no_expansion_list_is_spelled_out() -> None:
    found = [f"{where}:{line}: {text}" for where, source in _sources() for line, text in spelled_out_lists(source)]
    assert not found, "expansion lists spelled out instead of named by the registry:\n" + "\n".join(found)


def test_the_rule_sees_lists_and_programs_in_strings() -> None:
    source = '''
a = ("tower", "black_tower")
b = ["watchtowers", "base", "tower"]
c = ("tower",)
d = with_requirements("tower", "watchtowers")
e = ("tower", f"{x}")
PROGRAM = """
import sys
expansions = {"black_tower", "watchtowers"}
"""
PROSE = """Two names, "tower" and "watchtowers", in a sentence."""
'''
    assert [line for line, _ in spelled_out_lists(source)] == [2, 3, 9]


def test_the_sources_include_every_kind() -> None:
    where = {name.split(" cell ")[0] for name, _ in _sources()}
    assert {"agents/rllib.py", "training/arena/ladder.py", "scripts/maintainer/choice_regret.py",
            "docs/hooks/agent_specs.py", "tests/test_env_api.py", "notebooks/01_environment_tour.ipynb",
            "setup.py"} <= where
    assert not {"carcassonne_env/engine/registry.py", "tests/test_expansion_names.py"} & where


def test_the_tower_variant_is_every_expansion_of_the_tower_games() -> None:
    assert TOWER_VARIANT == ("tower", "black_tower", "watchtowers")
    assert GameConfig(expansions=TOWER_VARIANT).expansions == TOWER_VARIANT  # valid and in registry order


@pytest.mark.parametrize("names", [(), *((name,) for name in EXPANSIONS), EXPANSIONS, ("watchtowers", "tower")])
def test_with_requirements_is_the_smallest_valid_list_with_the_names(names: tuple[str, ...]) -> None:
    expansions = with_requirements(*names)
    assert set(names) <= set(expansions) and GameConfig(expansions=expansions).expansions == expansions
    for name in expansions:
        if name not in names:  # brought in by a requirement: the list is invalid without it
            with pytest.raises(ConfigError):
                GameConfig(expansions=tuple(e for e in expansions if e != name))


def test_with_requirements_follows_the_plugins() -> None:
    assert with_requirements("black_tower") == ("tower", "black_tower") == (*PLUGINS["black_tower"].requires,
                                                                             "black_tower")
    assert with_requirements("watchtowers", "tower") == ("tower", "watchtowers")
    with pytest.raises(KeyError):
        with_requirements("inns")

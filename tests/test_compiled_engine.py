"""The compiled engine core (mypyc, ``setup.py``) plays exactly the games of its Python source.

``pip install -e .`` compiles the engine's hot modules where it can; ``CARCASSONNE_PURE_PYTHON=1``
runs the source instead, and so does a compiled module older than its source file
(:mod:`carcassonne_env.engine.compiled_core`). Here the games of this process's engine are compared
with the same games played by the Python source in a subprocess: random playouts on every expansion
combination and player count, greedy and MCTS agents, every action, score and score-log event. CI
(``scripts/test.sh``) requires the compiled core (``CARCASSONNE_REQUIRE_COMPILED=1``) and runs the
rules tests once more on the source.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agents
import agents.greedy as greedy_module
import carcassonne_env.engine as engine
from carcassonne_env.engine import compiled_core
from carcassonne_env.engine import game as game_module

PURE = {**os.environ, compiled_core.PURE_PYTHON_VARIABLE: "1"}
ROOT = Path(__file__).parents[1]


def _compiled_by_setup(name: str) -> list[str]:
    """The module names of ``setup.py``'s list ``name`` (``ENGINE_MODULES``, ``AGENT_MODULES``)."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return [path.removesuffix(".py").replace("/", ".") for path in ast.literal_eval(node.value)]
    raise AssertionError(f"setup.py has no {name}")

#: Played by both engines; prints one JSON line per game.
PLAY = r"""
import json, random, sys
from carcassonne_env.engine import COMPILED, Game, GameConfig
from carcassonne_env.engine.playout import random_playout
import agents
from agents.spec import make_agent

COMBINATIONS = [(), ("tower",), ("tower", "black_tower"), ("watchtowers",), ("tower", "black_tower", "watchtowers")]
print(json.dumps({"compiled": COMPILED, "agents": agents.COMPILED}))

def report(game):
    log = [list(e) for e in game.score_log]
    print(json.dumps({"record": game.record().to_dict(), "scores": list(game.scores), "log": log}))

for i in range(40):
    config = GameConfig(players=2 + i % 5, expansions=COMBINATIONS[i % 5])
    game = Game(config, seed=900 + i)
    game.keep_score_log()
    random_playout(game, random.Random(i))
    report(game)
for spec in ("greedy", "greedy:value=linear", "mcts:sims=30,rollout_turns=0,value=linear"):
    game = Game(GameConfig(players=2, expansions=COMBINATIONS[-1]), seed=77)
    game.keep_score_log()
    agents = [make_agent(spec, seed=s) for s in range(2)]
    for _ in range(60 if spec.startswith("mcts") else 400):
        if game.is_over:
            break
        game.apply(agents[game.current_player].choose_action(game))
    report(game)
"""


def _play(env: dict[str, str] | None) -> list[dict[str, object]]:
    out = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True, timeout=600,
                         check=True, cwd=Path(__file__).parents[1])
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_compiled_reports_the_modules_that_run() -> None:
    """``COMPILED`` says how every module setup.py compiles runs: the engine's hot modules and its
    expansion plug-ins (``expansion.py``, ``tower.py``, …), and the search agents' loops."""
    for package, listed in ((engine, "ENGINE_MODULES"), (agents, "AGENT_MODULES")):
        names = _compiled_by_setup(listed)
        assert names, listed
        for name in names:
            suffix = Path(importlib.import_module(name).__file__ or "").suffix
            runs_compiled = suffix != ".py"
            assert runs_compiled == package.COMPILED, f"{package.__name__}.COMPILED, {name} from {suffix}"
    assert "carcassonne_env.engine.tower" in _compiled_by_setup("ENGINE_MODULES")


def test_the_compiled_core_runs_wherever_a_fresh_build_is_there_and_ci_has_one() -> None:
    """A build next to the sources, not older than them, runs unless the source was asked for; where
    CI asks for it (``CARCASSONNE_REQUIRE_COMPILED=1``, set by ``scripts/test.sh``) the install must
    have built it (a failed build falls back to the source quietly: pip shows it only with -v)."""
    built = bool(compiled_core.compiled_modules()) and not compiled_core.stale_modules()
    wanted = os.environ.get(compiled_core.PURE_PYTHON_VARIABLE, "") in ("", "0")
    assert (built and wanted) == engine.COMPILED
    search = Path(greedy_module.__file__ or "").parent
    search_built = bool(compiled_core.compiled_modules(search)) and not compiled_core.stale_modules(search)
    assert (search_built and wanted and engine.COMPILED) == agents.COMPILED
    if os.environ.get("CARCASSONNE_REQUIRE_COMPILED", "") not in ("", "0"):
        assert engine.COMPILED, f"the compiled engine does not run: {game_module.__file__}"
        assert agents.COMPILED, f"the compiled search agents do not run: {greedy_module.__file__}"


def test_pure_python_variable_runs_the_source() -> None:
    code = ("import carcassonne_env.engine as e, carcassonne_env.engine.game as g, agents as a, agents.mcts as m, "
            "carcassonne_env.engine.tower as t; "
            "print(e.COMPILED, g.__file__.endswith('.py'), a.COMPILED, m.__file__.endswith('.py'), "
            "t.__file__.endswith('.py'))")
    out = subprocess.run([sys.executable, "-c", code], env=PURE, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "False", "True", "True"]


@pytest.mark.skipif(not engine.COMPILED, reason="the compiled engine is not built here: nothing to compare")
def test_compiled_and_source_play_the_same_games() -> None:
    compiled, source = _play(None), _play(PURE)
    assert compiled[0] == {"compiled": True, "agents": agents.COMPILED}
    assert source[0] == {"compiled": False, "agents": False}
    assert len(compiled) == len(source) == 1 + 40 + 3
    for i, (a, b) in enumerate(zip(compiled[1:], source[1:], strict=True)):
        assert a == b, f"game {i} differs between the compiled engine and its source"


def _touch(path: Path, mtime: float) -> None:
    path.write_text("")
    os.utime(path, (mtime, mtime))


def test_a_compiled_module_older_than_its_source_is_stale(tmp_path: Path) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    _touch(tmp_path / "fresh.py", 1_000)
    _touch(tmp_path / f"fresh{suffix}", 2_000)
    _touch(tmp_path / "edited.py", 3_000)
    _touch(tmp_path / f"edited{suffix}", 2_000)
    _touch(tmp_path / "plain.py", 1_000)
    _touch(tmp_path / f"orphan{suffix}", 1_000)  # no source: not one of the engine's modules
    assert set(compiled_core.compiled_modules(tmp_path)) == {"fresh", "edited"}
    assert compiled_core.stale_modules(tmp_path) == ["edited"]


def test_a_package_compiled_against_the_engine_runs_its_source_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``choose_compiled(package, requires=False)`` (the search agents when the engine runs its
    source) hands the package a source-only finder: its module loads from the ``.py`` file though a
    fresh extension lies beside it; with ``requires`` the extension is kept."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("needs_engine", "with_engine"):
        package = tmp_path / name
        package.mkdir()
        _touch(package / "__init__.py", 1_000)
        (package / "search.py").write_text("WHERE = 'source'\n")
        os.utime(package / "search.py", (1_000, 1_000))
        _touch(package / f"search{suffix}", 2_000)  # not a real extension: importing it would fail
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(compiled_core.PURE_PYTHON_VARIABLE, raising=False)
    try:
        __import__("needs_engine")
        __import__("with_engine")
        assert compiled_core.choose_compiled("needs_engine", requires=False) is False
        assert __import__("needs_engine.search").search.WHERE == "source"
        assert compiled_core.choose_compiled("with_engine", requires=True) is True
    finally:
        for name in ("needs_engine", "needs_engine.search", "with_engine"):
            sys.modules.pop(name, None)
        for name in ("needs_engine", "with_engine"):
            sys.path_importer_cache.pop(str(tmp_path / name), None)

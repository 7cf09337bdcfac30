"""The compiled engine core (mypyc, ``setup.py``) plays exactly the games of its Python source.

``pip install -e .`` compiles the engine's hot modules where it can; ``CARCASSONNE_PURE_PYTHON=1``
runs the source instead, and so does a compiled module not built from its source file as it is now
(the SHA-256 of the build record, :mod:`carcassonne_env.engine.compiled_core`); a build that could
not compile says so once at import (``tests/test_wheel_install.py``: the same on a wheel). Here the
games of this process's engine are compared with the same games played by the Python source in a
subprocess: random playouts on every expansion combination and player count, greedy and MCTS
agents, every action, score and score-log event. CI
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
import warnings
from pathlib import Path

import pytest

import agents
import agents.greedy as greedy_module
import carcassonne_env.engine as engine
from carcassonne_env.engine import build_record, compiled_core
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
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements
import agents
from agents.spec import make_agent

COMBINATIONS = [(), ("tower",), with_requirements("black_tower"), ("watchtowers",), TOWER_VARIANT]
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
        if package.COMPILED:  # the build recorded the source of every module it compiled, and of no other
            record = build_record.read(Path(package.__file__ or "").parent)
            assert record is not None and record.failure is None
            assert {f"{package.__name__}.{module}" for module in record.sources} == set(names)
    assert "carcassonne_env.engine.tower" in _compiled_by_setup("ENGINE_MODULES")


#: The game's hot path: ``game.py`` and the job modules its every turn calls (laying tiles, the
#: union-find, the frontier's tables, followers, valuing features, the undo journal, copies, the pile).
HOT_PATH = ("game", "board", "union_find", "frontier", "followers", "valuation", "undo", "copying", "pile")


def test_the_game_s_hot_path_is_compiled_where_the_compiled_core_runs() -> None:
    """Every module of the hot path is in setup.py's compiled group (one mypyc library: calls between
    them stay native) and, where the compiled core runs (CI requires it), runs as its extension."""
    listed = set(_compiled_by_setup("ENGINE_MODULES"))
    for name in HOT_PATH:
        module = f"carcassonne_env.engine.{name}"
        assert module in listed, f"{module} is not compiled by setup.py"
        assert (Path(importlib.import_module(module).__file__ or "").suffix != ".py") == engine.COMPILED, module


def test_the_compiled_core_runs_wherever_a_fresh_build_is_there_and_ci_has_one() -> None:
    """A build next to the sources, built from them as they are now, runs unless the source was asked
    for; where CI asks for it (``CARCASSONNE_REQUIRE_COMPILED=1``, set by ``scripts/test.sh``) the
    install must have built it (a failed build falls back to the source: pip shows why only with -v,
    the import with one warning)."""
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


def test_a_compiled_module_is_stale_unless_built_from_its_source_as_it_is_now(tmp_path: Path) -> None:
    """The SHA-256 of the build record decides, not file times: a wheel unpacks ``game.so`` before
    ``game.py``, so a fresh install has every source newer than its extension."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("fresh", "edited", "unrecorded"):
        (tmp_path / f"{name}.py").write_text(f"WHO = {name!r}\n")
        _touch(tmp_path / f"{name}{suffix}", 1_000)  # older than every source
    (tmp_path / "plain.py").write_text("")
    _touch(tmp_path / f"orphan{suffix}", 1_000)  # no source: not one of the engine's modules
    build_record.write(tmp_path, [tmp_path / "fresh.py", tmp_path / "edited.py"], None)
    (tmp_path / "edited.py").write_text("WHO = 'edited after the build'\n")
    assert set(compiled_core.compiled_modules(tmp_path)) == {"fresh", "edited", "unrecorded"}
    assert compiled_core.stale_modules(tmp_path) == ["edited", "unrecorded"]
    (tmp_path / "fresh.py").write_text("WHO = 'edited, then the extension touched'\n")
    _touch(tmp_path / f"fresh{suffix}", 2.0**32)  # newer than its source: still judged by the record
    assert compiled_core.stale_modules(tmp_path) == ["edited", "fresh", "unrecorded"]
    (tmp_path / build_record.RECORD_NAME).write_text("not json")  # unreadable: built from unknown sources
    assert compiled_core.stale_modules(tmp_path) == ["edited", "fresh", "unrecorded"]


def _package(root: Path, name: str, failure: str | None) -> None:
    """A package without compiled modules whose build record says ``failure``."""
    (root / name).mkdir()
    (root / name / "__init__.py").write_text("")
    build_record.write(root / name, [], failure)


def test_a_failed_build_is_said_once_at_import_unless_the_source_was_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pip shows the build's output only under -v: the install that could not compile says why at
    the first import, one warning; not when the source was asked for (at install: no failure
    recorded; or now), nor for a package that needs the compiled engine (the engine has said it)."""
    _package(tmp_path, "failed_build", "the C build failed (CompileError: command 'cc' failed)")
    _package(tmp_path, "asked_for_source", None)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(compiled_core.PURE_PYTHON_VARIABLE, raising=False)
    try:
        __import__("failed_build")
        __import__("asked_for_source")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert compiled_core.choose_compiled("failed_build") is False
            assert compiled_core.choose_compiled("failed_build", requires=False) is False
            assert compiled_core.choose_compiled("asked_for_source") is False
            monkeypatch.setenv(compiled_core.PURE_PYTHON_VARIABLE, "1")
            assert compiled_core.choose_compiled("failed_build") is False
        assert [str(w.message) for w in caught] == [
            "failed_build: the compiled core was not built when this package was installed (the C build failed "
            "(CompileError: command 'cc' failed)): running the Python source (same games, 2-3x slower); to "
            "compile it, install a C compiler and the Python headers and reinstall, or set "
            "CARCASSONNE_PURE_PYTHON=1 to silence this"
        ]
        assert caught[0].category is RuntimeWarning
    finally:
        for name in ("failed_build", "asked_for_source"):
            sys.modules.pop(name, None)


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
        (package / "__init__.py").write_text("")
        (package / "search.py").write_text("WHERE = 'source'\n")
        (package / f"search{suffix}").write_text("")  # not a real extension: importing it would fail
        build_record.write(package, [package / "search.py"], None)
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

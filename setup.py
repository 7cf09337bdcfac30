"""The optional compiled core: the engine's hot modules and the search agents' loops built with
mypyc on install.

Everything else about the package is in ``pyproject.toml``. ``pip install .`` (or ``-e .``) compiles
:data:`ENGINE_MODULES` and :data:`AGENT_MODULES` to C extensions with mypyc (a build dependency,
pinned there) when a C compiler is available; the compiled modules are the same Python source, so
they play exactly the same games, 1.8–2.6× faster (README, "Search speed"). Where the build cannot
compile (no compiler, no Python headers) the install goes on with the pure-Python source and says
so; so does ``CARCASSONNE_PURE_PYTHON=1`` at install time. At run time the same variable makes an
installed compiled core step aside (:mod:`carcassonne_env.engine.compiled_core`, :mod:`agents.compiled_search`).
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: The engine modules compiled: the game and what its inner loops call (placing tiles, legal actions,
#: union-find, end-now scoring, the tower's capture areas), and the expansion plug-ins, whose hooks
#: the game calls at every turn (``expansion.py`` and the plug-ins of the registry: the tower's T3
#: options were a quarter of an all-expansion game while they ran interpreted). Their classes stay
#: open to subclasses written in Python (``mypyc_attr(allow_interpreted_subclasses=True)``): users
#: write expansions by subclassing ``Expansion``. The registry, persistence and the env stay interpreted.
ENGINE_MODULES = [
    "carcassonne_env/engine/actions.py",
    "carcassonne_env/engine/black_tower.py",
    "carcassonne_env/engine/capture_area.py",
    "carcassonne_env/engine/expansion.py",
    "carcassonne_env/engine/game.py",
    "carcassonne_env/engine/geometry.py",
    "carcassonne_env/engine/playout.py",
    "carcassonne_env/engine/scoring.py",
    "carcassonne_env/engine/tiles.py",
    "carcassonne_env/engine/tower.py",
    "carcassonne_env/engine/watchtowers.py",
]
#: The search agents' loops (greedy's turn search, MCTS's tree, the end-now value, the linear value's
#: features at every leaf), compiled against the engine's compiled classes. Their agents stay open to
#: subclasses written in Python.
AGENT_MODULES = ["agents/evaluation.py", "agents/greedy.py", "agents/mcts.py", "agents/value.py"]
#: Where mypyc writes the C sources it generates.
C_SOURCES = "build/mypyc"
#: Each group's modules share one mypyc library inside their package (``compiled__mypyc.*.so``).
GROUPS = [(ENGINE_MODULES, "carcassonne_env.engine.compiled"), (AGENT_MODULES, "agents.compiled")]

PURE = os.environ.get("CARCASSONNE_PURE_PYTHON", "") not in ("", "0")


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to the pure-Python engine when the C build fails: all or
    nothing, since a compiled module without mypyc's shared library of the group cannot be imported,
    so whatever it had written is removed."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # any compiler or platform failure: the pure engine works
            for output in self.get_outputs():
                if os.path.exists(output):
                    os.remove(output)
            _warn(f"the C build failed ({type(e).__name__}: {e})")


def _warn(reason: str) -> None:
    print(f"carcassonne-env: {reason}; installing the pure-Python engine (same games, slower)", file=sys.stderr)


def _extensions() -> list[Any]:
    if PURE:
        _warn("CARCASSONNE_PURE_PYTHON is set")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not installed")
        return []
    # The build environment has no numpy, gymnasium or pettingzoo: what the compiled modules import
    # from them is typed Any here (the strict type check is scripts/test.sh's), and the modules they
    # import but that are not compiled are read for their types only (errors there are not this
    # build's concern).
    options = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
    try:
        modules = [path for paths, _ in GROUPS for path in paths]
        # mypyc's C sources are written afresh: headers left by an earlier build with other groups
        # break the C build (it then falls back to the source, quietly under pip -q)
        shutil.rmtree(C_SOURCES, ignore_errors=True)
        return list(mypycify([*options, *modules], opt_level="3", separate=GROUPS, target_dir=C_SOURCES))
    except (Exception, SystemExit) as e:  # mypy exits on a type error
        _warn(f"mypyc could not compile the engine ({type(e).__name__}: {e})")
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})

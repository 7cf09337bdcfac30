"""The optional compiled core: the engine's hot modules and the search agents' loops built with
mypyc on install.

Everything else about the package is in ``pyproject.toml``. ``pip install .`` (or ``-e .``, or
``pip wheel .``) compiles :data:`ENGINE_MODULES` and :data:`AGENT_MODULES` to C extensions with mypyc
(a build dependency, pinned there) when a C compiler is available; the compiled modules are the same
Python source, so they play exactly the same games, 1.8–2.6× faster (docs/experiments/2026-11-search-speed.md). Each
compiled package gets a build record next to its extensions
(:mod:`carcassonne_env.engine.build_record`): the SHA-256 of every source compiled, by which a
compiled module runs only with the source it was built from. Where the build cannot compile (no
compiler, no Python headers) the install goes on with the pure-Python source, and the record says
why: pip shows build output only under ``-v``, so the first import says it once
(:mod:`carcassonne_env.engine.compiled_core`). ``CARCASSONNE_PURE_PYTHON=1`` at install time builds
nothing, quietly; at run time the same variable makes an installed compiled core step aside
(:mod:`carcassonne_env.engine.compiled_core`, :mod:`agents.compiled_search`).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from setuptools import setup
from setuptools.command.build import build
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
    "carcassonne_env/engine/board.py",
    "carcassonne_env/engine/capture_area.py",
    "carcassonne_env/engine/copying.py",
    "carcassonne_env/engine/expansion.py",
    "carcassonne_env/engine/followers.py",
    "carcassonne_env/engine/frontier.py",
    "carcassonne_env/engine/game.py",
    "carcassonne_env/engine/game_setup.py",
    "carcassonne_env/engine/geometry.py",
    "carcassonne_env/engine/pile.py",
    "carcassonne_env/engine/playout.py",
    "carcassonne_env/engine/record.py",
    "carcassonne_env/engine/scoring.py",
    "carcassonne_env/engine/tiles.py",
    "carcassonne_env/engine/tower.py",
    "carcassonne_env/engine/undo.py",
    "carcassonne_env/engine/union_find.py",
    "carcassonne_env/engine/valuation.py",
    "carcassonne_env/engine/views.py",
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
HERE = Path(__file__).parent


def _load_build_record() -> ModuleType:
    """:mod:`carcassonne_env.engine.build_record`, loaded by path: importing the package would need
    its dependencies, which the build environment lacks."""
    spec = importlib.util.spec_from_file_location("build_record", HERE / "carcassonne_env/engine/build_record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


build_record = _load_build_record()


class Build(build):
    """``build`` that runs ``build_ext`` even with no extension to build: it writes the build record
    that says why."""

    sub_commands: ClassVar = [(name, None if name == "build_ext" else test) for name, test in build.sub_commands]


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to the pure-Python engine when the C build fails: all or
    nothing, since a compiled module without mypyc's shared library of the group cannot be imported,
    so whatever it had written is removed. Then it writes each group's build record."""

    def run(self) -> None:
        failure = NOT_COMPILED
        inplace = self.inplace  # setuptools' run clears it while building, and a failure leaves it so
        try:
            super().run()
        except Exception as e:  # any compiler or platform failure: the pure engine works
            for output in self.get_outputs():
                if os.path.exists(output):
                    os.remove(output)
            _warn(f"the C build failed ({type(e).__name__}: {e})")
            failure = f"the C build failed: {type(e).__name__}"  # the record's: the command line is pip -v's
        compiled = bool(self.extensions) and failure is None
        build_py = self.get_finalized_command("build_py")
        for paths, group in GROUPS:
            package = group.rpartition(".")[0]
            # in place (pip install -e .) the extensions sit in the source tree
            where = Path(build_py.get_package_dir(package)) if inplace else Path(self.build_lib, *package.split("."))
            build_record.write(where, [HERE / path for path in paths] if compiled else [], failure)


def _warn(reason: str) -> None:
    print(f"carcassonne-env: {reason}; installing the pure-Python engine (same games, slower)", file=sys.stderr)


def _not_compiled(reason: str) -> tuple[list[Any], str]:
    _warn(reason)
    return [], reason


def _metadata_only() -> bool:
    """Whether setup.py runs only for metadata: pip's hooks for the build requirements and the
    metadata (``egg_info``, ``dist_info``) need no extensions, and mypyc's type check and C
    generation take a minute or more."""
    commands = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    return bool(commands) and commands[0] in ("egg_info", "dist_info")


def _extensions() -> tuple[list[Any], str | None]:
    """The extensions to build, and why there are none (None: there are, or CARCASSONNE_PURE_PYTHON
    asked for none), which the build records keep."""
    if PURE:
        _warn("CARCASSONNE_PURE_PYTHON is set")
        return [], None
    try:
        from mypyc.build import mypycify
    except ImportError:
        return _not_compiled("mypyc is not installed")
    # The build environment has no numpy, gymnasium or pettingzoo: what the compiled modules import
    # from them is typed Any here (the strict type check is scripts/test.sh's), and the modules they
    # import but that are not compiled are read for their types only (errors there are not this
    # build's concern).
    options = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
    try:
        modules = [path for paths, _ in GROUPS for path in paths]
        # mypyc's C sources are written afresh: headers left by an earlier build with other groups
        # break the C build (it then falls back to the source)
        shutil.rmtree(C_SOURCES, ignore_errors=True)
        return list(mypycify([*options, *modules], opt_level="3", separate=GROUPS, target_dir=C_SOURCES)), None
    except (Exception, SystemExit) as e:  # mypy exits on a type error
        return _not_compiled(f"mypyc could not compile the engine ({type(e).__name__}: {e})")


EXTENSIONS, NOT_COMPILED = ([], None) if _metadata_only() else _extensions()
setup(ext_modules=EXTENSIONS, cmdclass={"build": Build, "build_ext": OptionalBuildExt})

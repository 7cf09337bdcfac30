"""Which engine runs: the compiled core (mypyc, built on install by ``setup.py``) or its Python source.

The compiled modules are C extensions built from the same source files and sit next to them
(``game.py`` and ``game.cpython-311-….so``); Python prefers the extension. This module, imported
before any other engine module, keeps that choice only when it is sound and wanted:

* ``CARCASSONNE_PURE_PYTHON=1`` (any value but empty or ``0``) runs the Python source (the tests run
  the rules on both; a profiler sees the Python lines);
* a compiled module older than its source file (the source was edited or checked out after the
  build, as Python's own ``.pyc`` files are judged) would run code that is not the source's: the
  Python source runs instead, with a warning saying how to rebuild (``pip install -e .``).

:data:`COMPILED` says which one runs. The choice covers one package: it hands the package's
directory a finder that knows source files alone. The search agents' hot modules are compiled too
(``agents/greedy.py``, ``agents/mcts.py``, ``agents/evaluation.py``, ``agents/value.py``): the ``agents`` package makes
the same choice with :func:`choose_compiled`, and runs its source whenever the engine runs its own.
"""

from __future__ import annotations

import importlib.machinery as machinery
import os
import sys
import warnings
from pathlib import Path

__all__ = ["COMPILED", "PURE_PYTHON_VARIABLE", "choose_compiled", "compiled_modules", "stale_modules"]

#: The environment variable that asks for the Python source.
PURE_PYTHON_VARIABLE = "CARCASSONNE_PURE_PYTHON"

_HERE = Path(__file__).parent


def compiled_modules(directory: Path = _HERE) -> dict[str, Path]:
    """Module name → its compiled extension file, for the source files of ``directory`` that have one."""
    out: dict[str, Path] = {}
    for suffix in machinery.EXTENSION_SUFFIXES:
        for path in directory.glob(f"*{suffix}"):
            name = path.name[: -len(suffix)]
            if (directory / f"{name}.py").is_file():
                out.setdefault(name, path)
    return out


def stale_modules(directory: Path = _HERE) -> list[str]:
    """The compiled modules of ``directory`` whose source file is newer than the extension."""
    return sorted(name for name, path in compiled_modules(directory).items()
                  if (directory / f"{name}.py").stat().st_mtime > path.stat().st_mtime)


def _source_only(package: str) -> None:
    """Make imports of ``package``'s modules find their source files, never an extension: the
    package's directories get a finder without the extension loader (submodule imports ask
    ``sys.path_importer_cache`` for the finder of each entry of the package's ``__path__``)."""
    for entry in sys.modules[package].__path__:
        sys.path_importer_cache[entry] = machinery.FileFinder(
            entry,
            (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES),
            (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES),
        )


def choose_compiled(package: str, *, requires: bool = True) -> bool:
    """Whether the compiled modules of ``package`` (being imported: call it from its ``__init__``
    before importing any of its modules) run; if not, its modules load from their source files.

    They run when the build put them there, the source was not asked for
    (:data:`PURE_PYTHON_VARIABLE`), none is older than its source file, and ``requires`` holds: a
    package compiled against this engine's compiled classes (``agents``) passes ``COMPILED``, since
    its compiled code cannot take the source engine's objects.
    """
    directory = Path(sys.modules[package].__file__ or "").parent
    if not compiled_modules(directory):
        return False
    if os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0") or not requires:
        _source_only(package)
        return False
    stale = stale_modules(directory)
    if stale:
        warnings.warn(
            f"{package}: the compiled modules are older than their source ({', '.join(stale)}): running the "
            f"Python source instead (same games, slower); rebuild them with `pip install -e .`",
            RuntimeWarning, stacklevel=2,
        )
        _source_only(package)
        return False
    return True


#: True when the engine's compiled modules run, False when its Python source does.
COMPILED: bool = choose_compiled(__package__ or "carcassonne_env.engine")


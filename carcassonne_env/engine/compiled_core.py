"""Which engine runs: the compiled core (mypyc, built on install by ``setup.py``) or its Python source.

The compiled modules are C extensions built from the same source files and sit next to them
(``game.py`` and ``game.cpython-311-….so``); Python prefers the extension. This module, imported
before any other engine module, keeps that choice only when it is sound and wanted:

* ``CARCASSONNE_PURE_PYTHON=1`` (any value but empty or ``0``) runs the Python source (the tests run
  the rules on both; a profiler sees the Python lines);
* a compiled module built from other source than its file holds now (edited or checked out after
  the build: the SHA-256 in the package's build record, :mod:`.build_record`, differs; file times
  prove nothing, since pip unpacks a wheel's ``.so`` before its ``.py``) would run code that is not
  the source's: the Python source runs instead, with a warning saying how to rebuild
  (``pip install -e .``);
* where the install could not compile (no C compiler, no Python headers: the build record says
  why), the source runs and the first import says so once, since pip shows the build's own message
  only under ``-v``; not when ``CARCASSONNE_PURE_PYTHON`` asked for the source, at install or now.

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

from . import build_record

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
    """The compiled modules of ``directory`` not built from their source file as it is now: its
    SHA-256 is not the one of ``directory``'s build record (or there is no record)."""
    record = build_record.read(directory)
    built = record.sources if record is not None else {}
    return sorted(name for name in compiled_modules(directory)
                  if built.get(name) != build_record.source_hash(directory / f"{name}.py"))


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
    (:data:`PURE_PYTHON_VARIABLE`), each was built from its source file as it is now
    (:func:`stale_modules`), and ``requires`` holds: a package compiled against this engine's
    compiled classes (``agents``) passes ``COMPILED``, since its compiled code cannot take the source
    engine's objects. Without compiled modules, a build record that says the build failed is warned
    of (once: a package is imported once), unless the source was asked for or ``requires`` fails
    (the engine has warned already).
    """
    directory = Path(sys.modules[package].__file__ or "").parent
    pure = os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0")
    if not compiled_modules(directory):
        record = build_record.read(directory)
        if record is not None and record.failure is not None and requires and not pure:
            warnings.warn(
                f"{package}: the compiled core was not built when this package was installed ({record.failure}): "
                f"running the Python source (same games, 2-3x slower); to compile it, install a C compiler and "
                f"the Python headers and reinstall, or set {PURE_PYTHON_VARIABLE}=1 to silence this",
                RuntimeWarning, stacklevel=2,
            )
        if pure:  # nor any extension a build running beside this process writes later (scripts/test.sh)
            _source_only(package)
        return False
    if pure or not requires:
        _source_only(package)
        return False
    stale = stale_modules(directory)
    if stale:
        warnings.warn(
            f"{package}: the compiled modules were not built from their source as it is now ({', '.join(stale)}): "
            f"running the Python source instead (same games, slower); rebuild them with `pip install -e .`",
            RuntimeWarning, stacklevel=2,
        )
        _source_only(package)
        return False
    return True


COMPILED: bool = choose_compiled(__package__ or "carcassonne_env.engine")
"""True when the engine's compiled modules run, False when its Python source does."""


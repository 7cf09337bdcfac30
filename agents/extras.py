"""The optional dependencies and the install extra that brings each one (pyproject.toml's
``[project.optional-dependencies]``): every import of an optional package that is not at a module's
top runs inside :func:`optional_imports`, so that a missing package is reported as one line naming
what needs it and the extra to install, e.g. ::

    torch is not installed (needed by the ppo: agents): install the train extra: pip install 'carcassonne-env[train]'

instead of ``No module named 'torch'``. The ``carcassonne`` command prints a :class:`MissingExtra`
as its one-line error (no traceback). A module that imports an optional package at its top (the
networks of :mod:`agents.nets`, ...) is itself imported inside :func:`optional_imports` by whoever
imports it lazily (tests/test_extras.py checks both rules on the source).

Example::

    with optional_imports("the ppo: agents", "train"):
        import torch
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping

__all__ = ["DISTRIBUTION", "OPTIONAL", "MissingExtra", "install_hint", "missing_extra", "optional_imports"]

#: The project's name on the package index (``pip install 'carcassonne-env[EXTRA]'``).
DISTRIBUTION = "carcassonne-env"
#: Each optional top-level package and the extra that installs it when the caller names none (torch
#: and tyro are also in the ``ray`` extra, for the RLlib trainer and the rllib: agents).
OPTIONAL: Mapping[str, str] = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "tyro": "train",
    "ray": "ray",
}


class MissingExtra(ModuleNotFoundError):
    """An optional package is not installed: the message names what needs it, the package and the
    extra that installs it (``name`` is the missing package, as ``ModuleNotFoundError`` has it)."""

    def __init__(self, package: str, extra: str, needed_by: str) -> None:
        super().__init__(f"{package} is not installed (needed by {needed_by}): {install_hint(extra)}", name=package)
        self.extra = extra


def install_hint(extra: str) -> str:
    """``install the EXTRA extra: pip install 'carcassonne-env[EXTRA]'``."""
    return f"install the {extra} extra: pip install '{DISTRIBUTION}[{extra}]'"


def missing_extra(error: ModuleNotFoundError, needed_by: str, extra: str | None = None) -> MissingExtra | None:
    """``error`` as a :class:`MissingExtra` when the module it did not find is an optional package
    (:data:`OPTIONAL`; ``extra`` overrides the package's own), else None (a module of the project or
    of a required dependency that is missing is another problem: a broken install). A MissingExtra is
    named anew (an outer caller knows better what needs the package)."""
    package = (error.name or "").partition(".")[0]
    if package not in OPTIONAL:
        return None
    return MissingExtra(package, extra or OPTIONAL[package], needed_by)


@contextlib.contextmanager
def optional_imports(needed_by: str, extra: str | None = None) -> Iterator[None]:
    """Run the imports of the block; one of an optional package that is not installed raises
    :class:`MissingExtra` naming ``needed_by`` (what needs it: "the ppo: agents", "--backend ray") and
    ``extra`` (default: the package's own, :data:`OPTIONAL`). Other errors pass unchanged."""
    try:
        yield
    except MissingExtra:  # an inner block named it already
        raise
    except ModuleNotFoundError as e:
        missing = missing_extra(e, needed_by, extra)
        if missing is None:
            raise
        raise missing from None

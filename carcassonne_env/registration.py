"""The env's names in the Gymnasium and PettingZoo registries, registered by ``import carcassonne_env``.

After ``import carcassonne_env``, ``gymnasium.make("carcassonne_env/Carcassonne-v1", **config)`` (or
``gymnasium.make("carcassonne_env:carcassonne_env/Carcassonne-v1")``, which imports the package
itself) makes the single-agent view, and ``pettingzoo.make("aec", "carcassonne_v1", **config)`` the
AEC env. Version 1 plays the tower variant unless ``expansions`` says otherwise; the version-0 names
stay registered with their old default, the base game (Gymnasium warns that a newer version exists,
:mod:`carcassonne_env.carcassonne_v0` with a DeprecationWarning).

Neither library has a plugin hook any more (Gymnasium 1.0 dropped its entry points), so the
package registers in them itself, without importing them: ``import carcassonne_env.engine`` must
not pull in any RL library. :func:`register_on_import` registers at once with whichever is imported
already, and for each other one puts a finder on ``sys.meta_path`` that registers as soon as that
library has been imported, then steps aside. The entry points are strings: the env's modules load
on the first ``make``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Sequence

__all__ = ["AEC_ENTRY_POINT", "ENV_NAME", "GYM_ENTRY_POINT", "GYM_ID", "LEGACY_ENV_NAME", "LEGACY_GYM_ID",
           "register_on_import"]

#: The PettingZoo name of the AEC env.
ENV_NAME = "carcassonne_v1"
#: The Gymnasium id of the single-agent view.
GYM_ID = "carcassonne_env/Carcassonne-v1"
#: The version-0 names, kept for their users: the same env with the base game as its default game.
LEGACY_ENV_NAME = "carcassonne_v0"
LEGACY_GYM_ID = "carcassonne_env/Carcassonne-v0"
AEC_ENTRY_POINT = "carcassonne_env.environment.aec:env"
GYM_ENTRY_POINT = "carcassonne_env.environment.single_agent:SingleAgentEnv"
LEGACY_AEC_ENTRY_POINT = "carcassonne_env.carcassonne_v0:env"


def _register_gymnasium() -> None:
    import gymnasium

    # version 0's default game passed as the keyword version 1 would otherwise default
    for gym_id, kwargs in ((GYM_ID, {}), (LEGACY_GYM_ID, {"expansions": ()})):
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=GYM_ENTRY_POINT, kwargs=kwargs)


def _register_pettingzoo() -> None:
    import pettingzoo
    from pettingzoo.env_registry.exceptions import PettingZooRegistryError

    for name, entry_point in ((ENV_NAME, AEC_ENTRY_POINT), (LEGACY_ENV_NAME, LEGACY_AEC_ENTRY_POINT)):
        try:
            pettingzoo.spec("aec", name)
        except PettingZooRegistryError:
            pettingzoo.register("aec", name, entry_point=entry_point)


#: Library → what registers the env with it (once it is imported).
_REGISTRARS: dict[str, Callable[[], None]] = {"gymnasium": _register_gymnasium, "pettingzoo": _register_pettingzoo}


class _RegisteringLoader(importlib.abc.Loader):
    """The library's own loader, followed by its registrar once the library's module has run."""

    def __init__(self, loader: importlib.abc.Loader, registrar: Callable[[], None]) -> None:
        self._loader, self._registrar = loader, registrar

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        # the module keeps its own loader (importlib.resources and pickling ask it)
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._registrar()


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a library still to register with, it takes the spec the other
    finders give and makes its loader register after the import; gone once none is left."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        registrar = _PENDING.pop(fullname, None)
        if registrar is None:
            return None
        if not _PENDING:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            if finder is self:
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RegisteringLoader(spec.loader, registrar)
                return spec
        return None


#: The libraries not imported yet when the package was: each registers on its import.
_PENDING: dict[str, Callable[[], None]] = {}


def register_on_import() -> None:
    """Register the env with Gymnasium and PettingZoo: now with those imported, and with each other
    one as soon as it is (called once, by ``carcassonne_env/__init__.py``)."""
    for library, registrar in _REGISTRARS.items():
        if library in sys.modules:
            registrar()
        else:
            _PENDING[library] = registrar
    if _PENDING:
        sys.meta_path.insert(0, _RegisterOnImport())

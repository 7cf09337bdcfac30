"""The PettingZoo environment ``carcassonne_v0`` over the rules engine (documentation: docs/env.md).

``carcassonne_env.env(**config)`` is the wrapped AEC env and ``carcassonne_env.raw_env(**config)``
the unwrapped one. Because ``carcassonne_env.env`` is also the name of this package, the package
module itself is callable: ``carcassonne_env.env(**config)`` works whether or not the package has
been imported, and ``carcassonne_env.env.raw_env`` names the class.

Importing this package registers ``carcassonne_v0`` with PettingZoo
(``pettingzoo.make("aec", "carcassonne_v0", **config)``) and the single-agent view with Gymnasium
(``gymnasium.make("carcassonne_env/Carcassonne-v0", **config)``).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import gymnasium
import pettingzoo
from pettingzoo.env_registry.exceptions import PettingZooRegistryError

from .aec import ENV_NAME, CarcassonneAEC, env, raw_env
from .codec import ActionCodec
from .options import DEFAULT_WINDOW, EnvOptions
from .single_agent import SingleAgentEnv

__all__ = ["DEFAULT_WINDOW", "ENV_NAME", "GYM_ID", "ActionCodec", "EnvOptions", "SingleAgentEnv", "env", "raw_env"]

#: Gymnasium id of the single-agent view.
GYM_ID = "carcassonne_env/Carcassonne-v0"


def _register() -> None:
    try:
        pettingzoo.spec("aec", ENV_NAME)
    except PettingZooRegistryError:
        pettingzoo.register("aec", ENV_NAME, entry_point="carcassonne_env.env.aec:env")
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(GYM_ID, entry_point="carcassonne_env.env.single_agent:SingleAgentEnv")


class _CallableModule(types.ModuleType):
    """This package's module type: calling it builds the wrapped env, like :func:`.aec.env`."""

    def __call__(self, **config: Any) -> CarcassonneAEC:
        return env(**config)


_register()
sys.modules[__name__].__class__ = _CallableModule

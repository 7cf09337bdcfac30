"""The PettingZoo environment ``carcassonne_v0`` over the rules engine (documentation: docs/env.md).

``env(**config)`` is the wrapped AEC env and ``raw_env(**config)`` the unwrapped one; the top-level
``carcassonne_env.env`` / ``carcassonne_env.raw_env`` and :mod:`carcassonne_env.carcassonne_v0`
give the same envs.

Importing this package registers ``carcassonne_v0`` with PettingZoo
(``pettingzoo.make("aec", "carcassonne_v0", **config)``) and the single-agent view with Gymnasium
(``gymnasium.make("carcassonne_env/Carcassonne-v0", **config)``).
"""

from __future__ import annotations

import gymnasium
import pettingzoo
from pettingzoo.env_registry.exceptions import PettingZooRegistryError

from .aec import ENV_NAME, env, raw_env
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
        pettingzoo.register("aec", ENV_NAME, entry_point="carcassonne_env.environment.aec:env")
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(GYM_ID, entry_point="carcassonne_env.environment.single_agent:SingleAgentEnv")


_register()

"""The PettingZoo environment ``carcassonne_v1`` over the rules engine (documentation: docs/env.md).

``env(**config)`` is the wrapped AEC env and ``raw_env(**config)`` the unwrapped one; the top-level
``carcassonne_env.env`` / ``carcassonne_env.raw_env`` and :mod:`carcassonne_env.carcassonne_v1`
give the same envs (:mod:`carcassonne_env.carcassonne_v0`: version 0, the base game by default, deprecated).

``import carcassonne_env`` (and so this package's import) registers ``carcassonne_v1`` with PettingZoo
(``pettingzoo.make("aec", "carcassonne_v1", **config)``) and the single-agent view with Gymnasium
(``gymnasium.make("carcassonne_env/Carcassonne-v1", **config)``): :mod:`carcassonne_env.registration`.
"""

from __future__ import annotations

from ..registration import ENV_NAME, GYM_ID
from .aec import env, raw_env
from .codec import ActionCodec
from .options import DEFAULT_WINDOW, EnvOptions
from .single_agent import SingleAgentEnv

__all__ = ["DEFAULT_WINDOW", "ENV_NAME", "GYM_ID", "ActionCodec", "EnvOptions", "SingleAgentEnv", "env", "raw_env"]

"""carcassonne_env: Carcassonne with The Tower, Black Tower and The Watchtowers for RL.

The rules engine is :mod:`carcassonne_env.engine` (no RL dependencies). The PettingZoo
environment lives in :mod:`carcassonne_env.environment`; the two factories below import it (and
with it gymnasium and pettingzoo) on first call, so ``import carcassonne_env.engine`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .environment.aec import CarcassonneAEC

__version__ = "0.1.0"
__all__ = ["__version__", "env", "raw_env"]


def env(**config: Any) -> CarcassonneAEC:
    """The wrapped PettingZoo AEC env ``carcassonne_v0`` (see docs/env.md)."""
    from .environment import env as make_env

    return make_env(**config)


def raw_env(**config: Any) -> CarcassonneAEC:
    """The unwrapped AEC env: an illegal action raises IllegalActionError."""
    from .environment import raw_env as make_raw_env

    return make_raw_env(**config)

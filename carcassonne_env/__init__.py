"""carcassonne_env: Carcassonne with The Tower, Black Tower and The Watchtowers for RL.

The rules engine is :mod:`carcassonne_env.engine` (no RL dependencies). The PettingZoo
environment lives in :mod:`carcassonne_env.environment`; the two factories below import it (and
with it gymnasium and pettingzoo) on first call, so ``import carcassonne_env.engine`` stays light.
Importing the package registers the env with Gymnasium (``gymnasium.make("carcassonne_env/Carcassonne-v1")``)
and PettingZoo (``pettingzoo.make("aec", "carcassonne_v1")``) without importing either
(:mod:`carcassonne_env.registration`).

``__version__`` is the package's one version: ``pyproject.toml`` reads it from here (setuptools
``attr:``) for the metadata of wheels and editable installs, and ``carcassonne --version`` prints it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registration import register_on_import

if TYPE_CHECKING:
    from .environment.aec import CarcassonneAEC

__version__ = "0.1.0"
__all__ = ["__version__", "env", "raw_env"]

register_on_import()


def env(**config: Any) -> CarcassonneAEC:
    """The wrapped PettingZoo AEC env ``carcassonne_v1``: the tower variant unless ``expansions`` says
    otherwise (see docs/env.md)."""
    from .environment import env as make_env

    return make_env(**config)


def raw_env(**config: Any) -> CarcassonneAEC:
    """The unwrapped AEC env: an illegal action raises IllegalActionError."""
    from .environment import raw_env as make_raw_env

    return make_raw_env(**config)

"""carcassonne_env: Carcassonne with The Tower, Black Tower and The Watchtowers for RL.

The rules engine is :mod:`carcassonne_env.engine` (no RL dependencies). The PettingZoo
environment is imported lazily so that ``import carcassonne_env.engine`` stays light:
``carcassonne_env.env(**config)`` (wrapped) and ``carcassonne_env.raw_env(**config)`` load
:mod:`carcassonne_env.env` (and with it gymnasium and pettingzoo) on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "env", "raw_env"]


def __getattr__(name: str) -> Any:
    if name == "env":
        return importlib.import_module(".env", __name__)
    if name == "raw_env":
        return importlib.import_module(".env", __name__).raw_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

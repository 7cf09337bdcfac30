"""PettingZoo-style versioned entry point: ``from carcassonne_env import carcassonne_v1``."""

from .environment.aec import env, raw_env

__all__ = ["env", "raw_env"]

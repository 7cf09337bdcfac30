"""Version 0 of the env, deprecated: ``carcassonne_v1`` with the base game as its default game.

Version 1 changed one thing: the game a config without ``expansions`` plays is the tower variant, the
game every command of the project defaults to (CHANGELOG.md, "Changed"). These names keep version 0's
behaviour for code written against it, and warn (DeprecationWarning) on every env made.
"""

from __future__ import annotations

import warnings
from typing import Any

from .environment import aec
from .registration import ENV_NAME, LEGACY_ENV_NAME

__all__ = ["env", "raw_env"]


class raw_env(aec.raw_env):
    """``carcassonne_v1``'s raw env whose default game is the base game (``expansions=()``)."""

    metadata = {**aec.raw_env.metadata, "name": LEGACY_ENV_NAME}  # noqa: RUF012 (as the parent's)

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        warnings.warn(f"{LEGACY_ENV_NAME} is deprecated: {ENV_NAME} is the same env with the tower variant as "
                      f"its default game (pass expansions=() for the base game)", DeprecationWarning, stacklevel=2)
        super().__init__(render_mode, **{"expansions": (), **config})


def env(**config: Any) -> aec.CarcassonneAEC:
    """The wrapped version-0 env (as :func:`carcassonne_env.carcassonne_v1.env`, base game by default)."""
    return aec.wrap(raw_env(**config))

"""Env configuration: the engine's :class:`GameConfig` fields plus the env's own options.

``raw_env(**config)`` takes one flat set of keyword arguments; :func:`split_config` separates the
env options below from the game fields (anything else must be a ``GameConfig`` field, or a
:class:`~carcassonne_env.engine.ConfigError` names it). A config that names no ``expansions`` plays
:data:`DEFAULT_EXPANSIONS`, the tower variant: the game every command of the project defaults to
(``expansions=()`` is the base game, the default of the version-0 names).

==============  ==============  =================================================================
option          default         meaning
==============  ==============  =================================================================
window          31              board window W (cells per side), MIN_WINDOW ≤ W ≤ MAX_WINDOW;
                                docs/env.md
reward          ``"win_loss"``  terminal reward: ``"win_loss"`` (+1/−1/0) or ``"score_diff"``
shaping         0.0             weight of the per-step score-delta shaping reward (0 = off)
shaping_scores  ``"current"``   the scores whose changes shaping pays: ``"current"`` (points
                                scored) or ``"end_now"`` (``Game.scores_if_ended_now()``: a
                                potential-based shaping that also values incomplete features,
                                farmers and followers in place)
==============  ==============  =================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal

from ..engine import ConfigError, GameConfig
from ..engine.config import as_int
from ..engine.registry import TOWER_VARIANT

__all__ = [
    "DEFAULT_EXPANSIONS",
    "DEFAULT_WINDOW",
    "MAX_WINDOW",
    "MIN_WINDOW",
    "REWARD_MODES",
    "SHAPING_SCORES",
    "EnvOptions",
    "RewardMode",
    "ShapingScores",
    "split_config",
]

#: The expansions of the env's default game: the tower variant (The Tower, Black Tower, The Watchtowers).
DEFAULT_EXPANSIONS: tuple[str, ...] = TOWER_VARIANT
#: Default board window: the measured worst case of 10,000 random games (29) plus one cell of margin
#: on every side (docs/env.md).
DEFAULT_WINDOW = 31
#: Smallest window: the smallest W with which fewer than half of the decisions of random games with
#: every expansion have a legal action outside the window (measured in docs/env.md; W = 9: 60 %).
MIN_WINDOW = 11
#: Largest window: every board of the 102 tiles there are (all tile sets) fits with its frontier,
#: even all of them in one line (extent 102, W = 105), so a larger W only costs memory.
MAX_WINDOW = 105
RewardMode = Literal["win_loss", "score_diff"]
REWARD_MODES: tuple[RewardMode, ...] = ("win_loss", "score_diff")
ShapingScores = Literal["current", "end_now"]
SHAPING_SCORES: tuple[ShapingScores, ...] = ("current", "end_now")


@dataclass(frozen=True)
class EnvOptions:
    """The env's own options (module docstring), validated on construction."""

    window: int = DEFAULT_WINDOW
    reward: RewardMode = "win_loss"
    shaping: float = 0.0
    shaping_scores: ShapingScores = "current"

    def __post_init__(self) -> None:
        window = as_int(self.window)
        if window is None or not MIN_WINDOW <= window <= MAX_WINDOW:
            raise ConfigError("window", f"must be an int in {MIN_WINDOW}..{MAX_WINDOW}, got {self.window!r}")
        object.__setattr__(self, "window", window)
        if self.reward not in REWARD_MODES:
            raise ConfigError("reward", f"must be one of {', '.join(REWARD_MODES)}, got {self.reward!r}")
        shaping = self.shaping
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not math.isfinite(shaping):
            raise ConfigError("shaping", f"must be a finite number, got {self.shaping!r}")
        if self.shaping_scores not in SHAPING_SCORES:
            raise ConfigError("shaping_scores", f"must be one of {', '.join(SHAPING_SCORES)}, "
                              f"got {self.shaping_scores!r}")


_OPTION_NAMES = frozenset(f.name for f in fields(EnvOptions))


def split_config(config: dict[str, Any]) -> tuple[GameConfig, EnvOptions]:
    """(game config, env options) from one flat keyword dict; lists are accepted for tuples, and a
    dict without ``expansions`` plays :data:`DEFAULT_EXPANSIONS`."""
    options = EnvOptions(**{k: v for k, v in config.items() if k in _OPTION_NAMES})
    game = GameConfig.from_dict({"expansions": DEFAULT_EXPANSIONS,
                                 **{k: v for k, v in config.items() if k not in _OPTION_NAMES}})
    return game, options

"""Env configuration: the engine's :class:`GameConfig` fields plus the env's own options.

``raw_env(**config)`` takes one flat set of keyword arguments; :func:`split_config` separates the
env options below from the game fields (anything else must be a ``GameConfig`` field, or a
:class:`~carcassonne_env.engine.ConfigError` names it).

==========  ==============  =====================================================================
option      default         meaning
==========  ==============  =====================================================================
window      31              board window W (cells per side); see docs/env.md for the measurement
reward      ``"win_loss"``  terminal reward: ``"win_loss"`` (+1/−1/0) or ``"score_diff"``
shaping     0.0             weight of the per-step score-delta shaping reward (0 = off)
==========  ==============  =====================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal

from ..engine import ConfigError, GameConfig

__all__ = ["DEFAULT_WINDOW", "REWARD_MODES", "EnvOptions", "RewardMode", "split_config"]

#: Default board window: the measured worst case of 10,000 random games (29) plus one cell of margin
#: on every side (docs/env.md).
DEFAULT_WINDOW = 31
RewardMode = Literal["win_loss", "score_diff"]
REWARD_MODES: tuple[RewardMode, ...] = ("win_loss", "score_diff")


@dataclass(frozen=True)
class EnvOptions:
    """The env's own options (module docstring), validated on construction."""

    window: int = DEFAULT_WINDOW
    reward: RewardMode = "win_loss"
    shaping: float = 0.0

    def __post_init__(self) -> None:
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 3:
            raise ConfigError("window", f"must be an int ≥ 3, got {self.window!r}")
        if self.reward not in REWARD_MODES:
            raise ConfigError("reward", f"must be one of {', '.join(REWARD_MODES)}, got {self.reward!r}")
        shaping = self.shaping
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not math.isfinite(shaping):
            raise ConfigError("shaping", f"must be a finite number, got {self.shaping!r}")


_OPTION_NAMES = frozenset(f.name for f in fields(EnvOptions))


def split_config(config: dict[str, Any]) -> tuple[GameConfig, EnvOptions]:
    """(game config, env options) from one flat keyword dict; lists are accepted for tuples."""
    options = EnvOptions(**{k: v for k, v in config.items() if k in _OPTION_NAMES})
    game = GameConfig.from_dict({k: v for k, v in config.items() if k not in _OPTION_NAMES})
    return game, options

"""Whether an agent built from a trained model can play a game configuration.

Invariant: a model's observation space fixes the game configuration it was made for (players,
expansions, rules change the planes and the vector); :func:`check_fits` refuses an agent whose
model's observation space differs from the one of ``config`` with a ValueError naming both, before
any game is played (instead of a shape error in the middle of the first game).
"""

from __future__ import annotations

from typing import Any

from carcassonne_env.engine import GameConfig

__all__ = ["check_fits"]


def _describe(config: GameConfig) -> str:
    return f"{config.players} players, expansions {', '.join(config.expansions) or 'none'}"


def _shapes(space: Any) -> dict[str, tuple[int, ...]]:
    return {k: tuple(v.shape) for k, v in getattr(space, "spaces", {}).items() if k in ("board", "cells", "vector")}


def check_fits(agent: Any, config: GameConfig, spec: str) -> None:
    """ValueError when ``agent`` (built from ``spec``) plays through a model whose observation space is
    not ``config``'s (module docstring); agents without a model always fit."""
    model = getattr(agent, "policy", None)  # a PolicyAgent's policy (a PPOAgent) ...
    sb3_policy = getattr(model, "policy", None)  # ... and its network's policy
    space = getattr(sb3_policy, "observation_space", None)
    window = getattr(agent, "window", None)
    if space is None or window is None:
        return
    from carcassonne_env.environment.layout import Layout

    wanted = _shapes(Layout(config, int(window)).observation_space())
    have = _shapes(space)
    if have and wanted and have != wanted:
        made_for = "another game configuration"
        for players in range(GameConfig.MIN_PLAYERS, GameConfig.MAX_PLAYERS + 1):
            for expansions in (config.expansions, (), ("tower",), ("tower", "black_tower", "watchtowers")):
                try:
                    other = GameConfig(players=players, expansions=expansions)
                except ValueError:
                    continue
                if _shapes(Layout(other, int(window)).observation_space()) == have:
                    made_for = f"a game of {_describe(other)}"
                    break
            else:
                continue
            break
        raise ValueError(f"{spec}: the model was made for {made_for}, not for this game of {_describe(config)}")

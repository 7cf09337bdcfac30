"""Whether an agent built from a trained model can play a game configuration.

Invariant: a model's observation space fixes the game configuration it was made for (players,
expansions, rules change the planes and the vector); :func:`check_fits` refuses an agent whose
model's observation space differs from the one of ``config`` with a ValueError naming both, before
any game is played (instead of a shape error in the middle of the first game). The same holds for
the position values of the searching agents (``greedy:value=...``, ``mcts:...,value=...``,
``afterstate:...``): a value network (:class:`~agents.nets.value_net.ValueNet`) records the whole
configuration it was trained on, a linear value file (:class:`~agents.value.LinearValue`) the
number of players of the games it was fitted on; another configuration is refused naming both.
"""

from __future__ import annotations

from typing import Any

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT

__all__ = ["check_fits", "check_value_fits"]


def _describe(config: GameConfig, other: GameConfig | None = None) -> str:
    """Players and expansions of ``config``, and its variant flags that differ from ``other``'s."""
    text = f"{config.players} players, expansions {', '.join(config.expansions) or 'none'}"
    if other is not None:
        mine, theirs = config.to_dict(), other.to_dict()
        rest = [f"{k}={mine[k]}" for k in mine if k not in ("players", "expansions") and mine[k] != theirs.get(k)]
        text += "".join(f", {r}" for r in rest)
    return text


def check_value_fits(value: Any, config: GameConfig, spec: str) -> None:
    """ValueError naming both configurations when the position ``value`` of a searching agent (built
    from ``spec``) was made for another game configuration than ``config`` (module docstring);
    values that record none (the end-now margin, an old weights file) always fit. A family of shipped
    values (:class:`~agents.shipped_values.PerPlayerCount`) is checked by its member for the game's
    player count, and refused when it has none."""
    for_players = getattr(value, "for_players", None)
    if callable(for_players):
        try:
            value = for_players(config.players)
        except ValueError as e:
            raise ValueError(f"{spec}: {e}") from None
    made = getattr(value, "config", None)  # a ValueNet: GameConfig.to_dict() of its training games; a PVNet: the config
    if isinstance(made, GameConfig):
        made = made.to_dict()
    if isinstance(made, dict) and made != config.to_dict():
        try:
            other = GameConfig.from_dict(made)
        except (TypeError, ValueError):
            raise ValueError(f"{spec}: the value network was made for an unknown game configuration {made!r}, "
                             f"not for this game of {_describe(config)}") from None
        raise ValueError(f"{spec}: the value network was made for a game of {_describe(other, config)}, "
                         f"not for this game of {_describe(config, other)}")
    players = getattr(value, "players", None)  # a LinearValue: the players of the games it was fitted on
    if isinstance(players, int) and not isinstance(players, bool) and players != config.players:
        raise ValueError(f"{spec}: the value weights were fitted on games of {players} players, "
                         f"not for this game of {_describe(config)}")


def _shapes(space: Any) -> dict[str, tuple[int, ...]]:
    return {k: tuple(v.shape) for k, v in getattr(space, "spaces", {}).items() if k in ("board", "cells", "vector")}


def check_fits(agent: Any, config: GameConfig, spec: str) -> None:
    """ValueError when ``agent`` (built from ``spec``) plays through a model whose observation space is
    not ``config``'s, or searches on a position value made for another configuration (module
    docstring); agents without a model always fit."""
    for value in {id(v): v for v in (getattr(agent, "value", None), getattr(agent, "net", None))}.values():
        check_value_fits(value, config, spec)
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
            for expansions in (config.expansions, (), ("tower",), TOWER_VARIANT):
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

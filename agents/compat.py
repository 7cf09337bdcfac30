"""Whether an agent built from a trained model can play a game configuration.

Invariant: a model's observation space fixes the game configuration it was made for (players,
expansions, rules change the planes and the vector); :func:`check_fits` refuses an agent whose
model's observation space differs from the one of ``config`` with a ValueError naming both, before
any game is played (instead of a shape error in the middle of the first game). The same holds for
the position values of the searching agents (``greedy:value=...``, ``mcts:...,value=...``,
``afterstate:...``): a value network (:class:`~agents.nets.value_net.ValueNet`) records the whole
configuration it was trained on, a linear value file (:class:`~agents.value.LinearValue`) the
number of players of the games it was fitted on; another configuration is refused naming both.

The observation space does not tell every game apart: the base game and the tower variant have the
same tensor shapes (the planes of an expansion are there, zero, in a game without it). So a shipped
network (``ppo:pretrained``, ``ppo:pooled`` ...) is also checked against the game its entry of the
manifest of the shipped models records (:mod:`agents.manifest`), and refused in any other game
(players, expansions, tile sets, rule flags), naming both, as ``afterstate:`` and ``az:`` are by the
game their files record. A network of the user's (``ppo:PATH``, ``rllib:PATH``) records no game:
it plays any game its shapes fit; the commands that seat it (``carcassonne play``, ``tournament``,
``evaluate``, ``bench``) warn once on stderr that its game cannot be checked
(:func:`warn_unchecked_game`; a trainer seating its own snapshots does not).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT

__all__ = ["check_fits", "check_value_fits", "unchecked_game", "warn_unchecked_game"]

#: The models (by path) whose unknown game was warned about in this process.
_WARNED: set[str] = set()


def _describe(config: GameConfig, other: GameConfig | None = None) -> str:
    """Players and expansions of ``config``, and its variant flags that differ from ``other``'s (its
    tile sets only when they are not its expansions' own)."""
    text = f"{config.players} players, expansions {', '.join(config.expansions) or 'none'}"
    if other is not None:
        mine, theirs = config.to_dict(), other.to_dict()
        own = {"tile_sets"} if config.tile_sets == GameConfig(expansions=config.expansions).tile_sets else set()
        rest = [f"{k}={mine[k]}" for k in mine
                if k not in {"players", "expansions", *own} and mine[k] != theirs.get(k)]
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


def _shipped_game(model: Any) -> dict[str, Any] | None:
    """The game (``GameConfig.to_dict()``) a shipped network was trained on, from the manifest of the
    shipped models; None for a model that is not a shipped file (a path of the user's)."""
    path = getattr(model, "path", None)
    if not isinstance(path, Path):
        return None
    from .manifest import PRETRAINED_DIR, read_manifest

    if path.resolve().parent != PRETRAINED_DIR.resolve():
        return None
    entry = read_manifest().get(path.name)
    return None if entry is None else dict(entry["game"])


def _network(agent: Any) -> Any:
    """The policy network of ``agent`` (a PolicyAgent's PPOAgent or RLlibAgent), or None."""
    model = getattr(agent, "policy", None)
    if model is None or not (hasattr(model, "module") or hasattr(getattr(model, "policy", None), "observation_space")):
        return None  # no network: a policy of the user's that is not a ppo: or rllib: model
    return model


def unchecked_game(agent: Any) -> str | None:
    """The model (its path) of ``agent``'s policy network when the game it was trained on is not
    recorded (a ``ppo:PATH`` or ``rllib:PATH`` of the user's); None for a shipped network or no network."""
    model = _network(agent)
    if model is None or _shipped_game(model) is not None:
        return None
    return str(getattr(model, "path", None) or "the model")


def warn_unchecked_game(agent: Any, spec: str) -> None:
    """Warn once per process and model, on stderr, when ``agent`` (built from ``spec``) plays through a
    network whose game is not recorded (:func:`unchecked_game`): it cannot be checked against the game."""
    model = unchecked_game(agent)
    if model is None or model in _WARNED:
        return
    _WARNED.add(model)
    print(f"warning: {spec}: {model} does not record the game it was trained on, so it cannot be checked "
          "against this game; it plays whatever game its observation shapes fit", file=sys.stderr)


def _check_network_game(agent: Any, config: GameConfig, spec: str) -> None:
    """A shipped policy network of ``agent`` refused in another game than its manifest records
    (module docstring)."""
    model = _network(agent)
    made = None if model is None else _shipped_game(model)
    if made is not None and made != config.to_dict():
        other = GameConfig.from_dict(made)
        raise ValueError(f"{spec}: the model was made for a game of {_describe(other, config)}, "
                         f"not for this game of {_describe(config, other)}")


def check_fits(agent: Any, config: GameConfig, spec: str) -> None:
    """ValueError when ``agent`` (built from ``spec``) plays through a model whose observation space is
    not ``config``'s, or through a shipped network trained on another game, or searches on a position
    value made for another configuration (module docstring); agents without a model always fit."""
    for value in {id(v): v for v in (getattr(agent, "value", None), getattr(agent, "net", None))}.values():
        check_value_fits(value, config, spec)
    _check_network_game(agent, config, spec)
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

"""Whether an agent built from a trained model can play a game configuration, and what the commands
tell the user when it was made for another game.

Invariant: a model's observation space fixes the game configuration it was made for (players,
expansions, rules change the planes and the vector); :func:`check_fits` refuses an agent whose
model's observation space differs from the one of ``config`` with a ValueError naming both, before
any game is played (instead of a shape error in the middle of the first game). The same holds for
the position values of the searching agents (``greedy:value=...``, ``mcts:...,value=...``,
``afterstate:...``): a value network (:class:`~agents.nets.value_net.ValueNet`) records the whole
configuration it was trained on, a linear value file (:class:`~agents.value.LinearValue`) the
number of players of the games it was fitted on; another configuration is refused naming both.

The observation space does not tell every game apart: the base game and the tower variant have the
same tensor shapes (the planes of an expansion are there, zero, in a game without it). So a policy
network is also checked against the game it was trained on, and refused in any other game (players,
expansions, tile sets, rule flags), naming both, as ``afterstate:`` and ``az:`` are by the game their
files record: a shipped network (``ppo:pretrained``, ``ppo:pooled`` ...) by its entry of the manifest
of the shipped models (:mod:`agents.manifest`), a zip of the project's trainers by the game it
records (:func:`agents.ppo.recorded_game`).

The commands that seat agents for the user (``carcassonne play``, ``tournament``, ``evaluate``,
``bench``) also warn, once per process, model and game, in one line on stderr
(:func:`warn_other_game`; a trainer seating its own snapshots does not): that a network which
records no game (a ``ppo:PATH`` zip saved elsewhere, an ``rllib:PATH`` checkpoint) has an unknown game
and cannot be checked against this one, and that a shipped linear value (``value=linear``, which
records only its player count and fits any game's features) plays in another game than the one the
manifest says it was fitted on. Every message names the games with
:func:`~carcassonne_env.engine.describe_game`, in brackets: ``... was made for the game [tower variant
(tower, black_tower, watchtowers), 2 players], not for this game [base game, 2 players]``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from carcassonne_env.engine import GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT

__all__ = ["check_fits", "check_value_fits", "other_game", "unchecked_game", "warn_other_game"]

#: The warnings given in this process (each once).
_WARNED: set[str] = set()


def other_game(what: str, made: GameConfig | str, config: GameConfig) -> str:
    """``WHAT was made for the game [MADE], not for this game [CONFIG]``: the words of every refusal and
    warning of a model made for another game (``made``: its config, or those words for a game that no
    config says, e.g. ``games of 3 players``)."""
    made_for = f"the game [{describe_game(made)}]" if isinstance(made, GameConfig) else made
    return f"{what} was made for {made_for}, not for this game [{describe_game(config)}]"


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
        raise ValueError(other_game(f"{spec}: the value network", _config_or_words(made), config))
    players = getattr(value, "players", None)  # a LinearValue: the players of the games it was fitted on
    if isinstance(players, int) and not isinstance(players, bool) and players != config.players:
        raise ValueError(other_game(f"{spec}: the linear value", f"games of {players} players", config))


def _config_or_words(made: dict[str, Any]) -> GameConfig | str:
    """The config a model records (``GameConfig.to_dict()``), or words naming what it records when that
    is no config."""
    try:
        return GameConfig.from_dict(made)
    except (TypeError, ValueError):
        return f"an unknown game configuration {made!r}"


def _shapes(space: Any) -> dict[str, tuple[int, ...]]:
    return {k: tuple(v.shape) for k, v in getattr(space, "spaces", {}).items() if k in ("board", "cells", "vector")}


def _shipped_game(path: Path) -> dict[str, Any] | None:
    """The game (``GameConfig.to_dict()``) the shipped model file ``path`` was trained on, from the
    manifest of the shipped models; None for a file that is not a shipped one (a path of the user's)."""
    from .manifest import PRETRAINED_DIR, read_manifest

    if path.resolve().parent != PRETRAINED_DIR.resolve():
        return None
    entry = read_manifest().get(path.name)
    return None if entry is None else dict(entry["game"])


def _network_game(model: Any) -> dict[str, Any] | None:
    """The game a policy network was trained on: a shipped one's from the manifest, a zip's of the
    project's trainers from the zip (:func:`agents.ppo.recorded_game`); None when it records none."""
    path = getattr(model, "path", None)
    if not isinstance(path, Path):
        return None
    from .ppo import recorded_game

    return _shipped_game(path) or (recorded_game(path) if path.suffix == ".zip" else None)


def _network(agent: Any) -> Any:
    """The policy network of ``agent`` (a PolicyAgent's PPOAgent or RLlibAgent), or None."""
    model = getattr(agent, "policy", None)
    if model is None or not (hasattr(model, "module") or hasattr(getattr(model, "policy", None), "observation_space")):
        return None  # no network: a policy of the user's that is not a ppo: or rllib: model
    return model


def unchecked_game(agent: Any) -> str | None:
    """The model (its path) of ``agent``'s policy network when the game it was trained on is not
    recorded (a ``ppo:PATH`` zip saved elsewhere than by the project's trainers, an ``rllib:PATH``);
    None for a network that records its game, or no network."""
    model = _network(agent)
    if model is None or _network_game(model) is not None:
        return None
    return str(getattr(model, "path", None) or "the model")


def _shipped_values_made_for_another_game(agent: Any, config: GameConfig) -> list[GameConfig]:
    """The games, other than ``config``, that the shipped position values of ``agent`` which record no
    whole game (a family of linear values) were fitted on, from the manifest."""
    games: list[GameConfig] = []
    for value in (getattr(agent, "value", None), getattr(agent, "net", None)):
        path = getattr(value, "files", {}).get(config.players)  # a PerPlayerCount: its file for this count
        made = _shipped_game(path) if isinstance(path, Path) else None
        if made is not None and made != config.to_dict() and GameConfig.from_dict(made) not in games:
            games.append(GameConfig.from_dict(made))
    return games


def warn_other_game(agent: Any, spec: str, config: GameConfig) -> None:
    """Warn on stderr, once per process, model and game, when ``agent`` (built from ``spec``, seated in
    ``config``) plays through a network whose game is unknown (:func:`unchecked_game`), or searches
    with a shipped linear value fitted on another game (module docstring)."""
    model = unchecked_game(agent)
    lines = [] if model is None else [
        f"warning: {spec}: {model} does not record the game it was trained on (its game is unknown), so it cannot "
        f"be checked against this game [{describe_game(config)}]; it plays whatever game its observation shapes fit"]
    lines += [f"warning: {other_game(f'{spec}: the linear value', made, config)} (it plays on)"
              for made in _shipped_values_made_for_another_game(agent, config)]
    for line in lines:
        if line not in _WARNED:
            _WARNED.add(line)
            print(line, file=sys.stderr)


def _check_network_game(agent: Any, config: GameConfig, spec: str) -> None:
    """A policy network of ``agent`` refused in another game than the one it records (module
    docstring)."""
    model = _network(agent)
    made = None if model is None else _network_game(model)
    if made is not None and made != config.to_dict():
        raise ValueError(other_game(f"{spec}: the model", _config_or_words(made), config))


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
        made_for: GameConfig | str = "another game configuration"
        for players in range(GameConfig.MIN_PLAYERS, GameConfig.MAX_PLAYERS + 1):
            for expansions in (config.expansions, (), ("tower",), TOWER_VARIANT):
                try:
                    other = GameConfig(players=players, expansions=expansions)
                except ValueError:
                    continue
                if _shapes(Layout(other, int(window)).observation_space()) == have:
                    made_for = other
                    break
            else:
                continue
            break
        raise ValueError(other_game(f"{spec}: the model", made_for, config))

"""Bad arguments to the engine and the env get a clear error naming the argument; integers are
ints or numpy integers everywhere (never bools, floats or strings)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from carcassonne_env.engine import ConfigError, Game, GameConfig, load_catalogue
from carcassonne_env.engine.config import TILE_SETS, as_int
from carcassonne_env.engine.registry import with_requirements
from carcassonne_env.environment import raw_env
from carcassonne_env.environment.options import MAX_WINDOW, MIN_WINDOW
from carcassonne_env.environment.window import BoundingBox, required_size


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, 3), (np.int64(3), 3), (np.uint8(3), 3), (-2, -2), (True, None), (np.True_, None), (3.0, None),
     (np.float64(3), None), ("3", None), (None, None)],
)
def test_the_one_integer_rule(value: object, expected: int | None) -> None:
    result = as_int(value)
    assert result == expected and (result is None or type(result) is int)


def test_numpy_integers_are_accepted_wherever_ints_are() -> None:
    config = GameConfig(players=np.int64(3), expansions=with_requirements("black_tower"),
                        extra_foundation_tiles=np.int32(2))
    assert (config.players, config.extra_foundation_tiles) == (3, 2)
    assert type(config.players) is int and type(config.extra_foundation_tiles) is int
    assert config == GameConfig(players=3, expansions=with_requirements("black_tower"), extra_foundation_tiles=2)
    assert Game(config, seed=np.int64(5)).to_dict() == Game(config, seed=5).to_dict()
    assert raw_env(players=np.int8(4), window=np.int64(21)).options.window == 21


@pytest.mark.parametrize(("players", "match"), [(3.0, "players: must be an int, got 3.0"), (True, "players"),
                                                ("3", "players"), (np.int64(7), "players: must be 2–6")])
def test_bad_player_counts_name_the_field(players: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        GameConfig(players=players)


def test_a_dict_is_not_a_game_config() -> None:
    with pytest.raises(TypeError, match=r"config must be a GameConfig .*GameConfig.from_dict.*got \{'players': 3\}"):
        Game({"players": 3})  # type: ignore[arg-type]
    assert Game(GameConfig.from_dict({"players": 3}), seed=0).num_players == 3


@pytest.mark.parametrize(("seed", "error"), [(-1, ValueError), (np.int64(-5), ValueError), (1.5, TypeError),
                                             ("7", TypeError), (True, TypeError)])
def test_bad_seeds_name_the_seed(seed: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="seed must be"):
        Game(GameConfig(), seed=seed)
    env = raw_env(players=2, window=MIN_WINDOW)
    with pytest.raises(error, match="seed must be"):
        env.reset(seed=seed)


@pytest.mark.parametrize("window", [MIN_WINDOW - 1, MAX_WINDOW + 1, 3001, 0, -31, 31.0, True, "31"])
def test_windows_outside_the_documented_bounds_are_refused(window: Any) -> None:
    with pytest.raises(ConfigError, match=f"window: must be an int in {MIN_WINDOW}..{MAX_WINDOW}"):
        raw_env(window=window)


def test_the_largest_window_holds_any_board_with_its_frontier() -> None:
    """MAX_WINDOW: the longest board there is, all 102 tiles of every tile set in one line, needs a
    window of exactly MAX_WINDOW to encode a PLACE at either end (one cell beyond the line)."""
    catalogue = load_catalogue()
    tiles = sum(t.count for name in TILE_SETS for t in catalogue.sets[name])
    assert tiles == 102
    line = BoundingBox(0, tiles - 1, 0, 0)
    assert required_size(line, [(-1, 0), (tiles, 0)]) == MAX_WINDOW
    env = raw_env(window=MAX_WINDOW)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 17 * MAX_WINDOW**2 + 15


@pytest.mark.parametrize("data", [[7, np.int64(0), 0, 0], np.array([7, 0, 0, 0]), (np.int8(7), 0, np.uint16(0), 0)])
def test_an_action_of_numpy_integers_is_the_action_of_those_ints(data: Any) -> None:
    from carcassonne_env.engine.actions import PASS, Action

    assert Action.coerce(data) == PASS and type(Action.coerce(data).x) is int

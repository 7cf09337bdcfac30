"""Names saved before the game module was split into job modules still load: pickles, and the saved
models and checkpoints that cloudpickle them, name a class by its module path, and before the split
every class of the game lived in ``carcassonne_env.engine.game``. That module re-exports each one."""

from __future__ import annotations

import pickle

import pytest

from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine import game as game_module
from carcassonne_env.engine.game_setup import GameSetup, PositionError
from carcassonne_env.engine.record import GameRecord
from carcassonne_env.engine.undo import PlaceUndo
from carcassonne_env.engine.views import Follower, PlacedTile

OLD = "carcassonne_env.engine.game"
MOVED = (GameRecord, PlaceUndo, PlacedTile, Follower, game_module.Feature, GameSetup, PositionError)


def under_the_old_name(value: object) -> bytes:
    """``value`` pickled as before the split: its class named by the game module's path (protocol 2
    writes a class's module path as a line of text)."""
    data = pickle.dumps(value, protocol=2)
    module = type(value).__module__.encode()
    assert module != OLD.encode() and b"c" + module + b"\n" in data
    return data.replace(b"c" + module + b"\n", b"c" + OLD.encode() + b"\n")


@pytest.mark.parametrize("cls", MOVED, ids=lambda c: c.__name__)
def test_a_pickle_that_names_a_class_by_the_game_module_finds_it(cls: type) -> None:
    assert getattr(game_module, cls.__name__) is cls
    assert pickle.loads(f"c{OLD}\n{cls.__name__}\n.".encode()) is cls  # the lookup unpickling does


def test_values_pickled_under_the_game_module_load() -> None:
    values: list[object] = [Follower(1, 2, 0, 1), PositionError("two tiles at (0,0)")]
    for value in values:
        loaded = pickle.loads(under_the_old_name(value))
        assert type(loaded) is type(value) and repr(loaded) == repr(value)


def test_a_game_pickles_as_its_saved_position() -> None:
    game = Game(GameConfig(players=2), seed=5)
    game.apply(game.legal_actions()[0])
    assert pickle.loads(pickle.dumps(game)).to_dict() == game.to_dict()

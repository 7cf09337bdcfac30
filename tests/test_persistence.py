"""The public surface saving and loading use (``engine/persistence.py``): the reads a saver needs
and ``GameSetup``'s loader calls. That persistence touches no private member is checked by
``test_engine_interface.py``; that saved games continue exactly, by ``test_save_load.py``."""

from __future__ import annotations

import random

import pytest

from carcassonne_env.engine import Action, ActionKind, Game, GameConfig, GameRecord, Phase
from carcassonne_env.engine.game import GameSetup
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT


def played(config: GameConfig, seed: int, steps: int) -> Game:
    game = Game(config, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def test_the_pile_in_draw_order_is_the_seeded_shuffle_and_records_name_it_for_explicit_piles() -> None:
    game = played(GameConfig(players=3, expansions=TOWER_VARIANT), seed=4, steps=40)
    pile = game.pile_in_draw_order()
    assert len(pile) - game.tiles_left == game.to_dict()["drawn"]
    assert pile == Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=4).pile_in_draw_order()  # R1: one shuffle
    assert game.record().tile_order is None  # the seed names it
    order = ["base/RFr", "base/C", "base/L"]
    assert Game(GameConfig(players=2), tile_order=order).record().tile_order == tuple(order)


def test_expansion_states_are_a_read_only_view_of_the_states_saved() -> None:
    game = played(GameConfig(players=2, expansions=TOWER_VARIANT), seed=1, steps=10)
    states = game.expansion_states
    assert set(states) == {"tower"}  # watchtowers and black_tower keep no state of their own
    assert states["tower"] is game.expansion_state("tower")
    with pytest.raises(TypeError):
        states["tower"] = states["tower"]  # type: ignore[index]
    assert Game(GameConfig(players=2)).expansion_states == {}


def test_only_a_built_game_has_a_start_position() -> None:
    assert Game(GameConfig(players=2), seed=0).start_position is None
    built = PositionBuilder(GameConfig(players=2)).tile("base/C", 0, 0).build(pile=["base/L"])
    assert built.start_position is not None
    assert built.start_position["tiles"] == [["base/C", 0, 0, 0]]


def test_resume_hands_out_a_game_in_the_middle_of_a_turn_once() -> None:
    """A loader's path: tiles, followers, supplies and scores, then the turn as saved (T3 here)."""
    setup = GameSetup(GameConfig(players=2), pile=["base/L", "base/C"])
    setup.put_tile("base/C", 0, 0)
    setup.put_tile("base/L", 0, -1)
    setup.put_follower(1, 0, 0, 0)
    setup.set_supply(1, 5)
    setup.set_score(0, 3)
    place = Action(ActionKind.PLACE, 0, -1, 0)
    game = setup.resume(drawn=1, discarded=[], current_player=0, turn=0, phase=Phase.ACTION, tile="base/L",
                        history=[place], start_position=None)
    assert (game.phase, game.current_player, game.placed_position) == (Phase.ACTION, 0, (0, -1))
    assert game.supply == (7, 5) and game.scores == (3, 0) and game.tiles_left == 1
    assert game.history == (place,)
    assert Action(ActionKind.DEPLOY, 0, -1, 0) in game.legal_actions()  # the monastery of this turn's tile
    with pytest.raises(RuntimeError, match="already started"):
        setup.set_score(0, 1)


def test_a_record_that_names_no_pile_is_refused() -> None:
    """Without a seed, a tile order or a start position a record would replay on a fresh pile and
    fail far from the cause (or worse, succeed on another game): it is refused when loaded."""
    record = Game(GameConfig(players=2), seed=4).record().to_dict()
    assert GameRecord.from_dict(record).seed == 4
    with pytest.raises(ValueError, match="names no pile"):
        GameRecord.from_dict({**record, "seed": None})

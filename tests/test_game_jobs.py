"""The game's job modules, called directly on positions set up by ``GameSetup`` (not through
``Game``'s methods): laying tiles (``board.py``), the frontier's tables (``frontier.py``), followers
(``followers.py``), valuing features (``valuation.py``), the undo journal (``undo.py``), copies
(``copying.py``), the pile (``pile.py``) and the read API's values (``views.py``).

Tiles (see test_rules_base.py): ``base/C`` has 0 city N, 1 field (turned 1: the city faces east, 2:
south, 3: west); ``base/CFc+`` 0 a city band W–E with a pennant, 1 and 2 fields; ``base/L`` 0
monastery, 1 field.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from carcassonne_env.engine import (
    Action,
    ActionKind,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
    ScoreEvent,
    SegmentKind,
    load_catalogue,
)
from carcassonne_env.engine.board import BOARD_GROUP, completions, put_tile
from carcassonne_env.engine.copying import copy_into
from carcassonne_env.engine.followers import deploy, deploy_options, lift
from carcassonne_env.engine.frontier import REQ_MASK, place_slot, placements
from carcassonne_env.engine.game_setup import GameSetup, new_pile
from carcassonne_env.engine.geometry import pack
from carcassonne_env.engine.pile import chance_outcomes, determinized, draw
from carcassonne_env.engine.undo import open_placement, undo_placement
from carcassonne_env.engine.valuation import end_now, feature_value, scores_after
from carcassonne_env.engine.views import feature_at, followers_on_segments

RED, BLUE = 0, 1
Tile = tuple[str, int, int, int]


def position(tiles: Sequence[Tile], followers: Sequence[tuple[int, int, int, int]] = (),
             pile: Sequence[str] = ("base/L",)) -> Game:
    """Two players, ``tiles`` (id, x, y, rotation) put in order, ``followers`` (player, x, y, slot),
    then Red draws the first tile of ``pile``."""
    setup = GameSetup(GameConfig(players=2), pile=pile)
    for tile_id, x, y, rotation in tiles:
        setup.put_tile(tile_id, x, y, rotation)
    for player, x, y, slot in followers:
        setup.put_follower(player, x, y, slot)
    return setup.start()


def node(game: Game, x: int, y: int, slot: int) -> int:
    return game.segment_base(game.board_index[pack(x, y)]) + slot


# ---------------------------------------------------------------- board.py
def test_r19_a_city_cap_that_closes_a_city_completes_it() -> None:
    game = position([("base/C", 0, 0, 0)])
    idx = put_tile(game, game.catalogue["base/C"], pack(0, 1), 2)  # its city faces south, onto (0,0)'s
    assert completions(game, idx) == [game.feature_key(node(game, 0, 0, 0))]
    assert game.feature_totals(node(game, 0, 1, 0)) == (0, 2, 0)  # no open edge, 2 tiles, no pennant
    assert pack(0, 1) not in game._frontier and pack(0, 2) in game._frontier


def test_r20_a_monastery_completes_with_its_eighth_neighbour() -> None:
    ring = [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)]
    game = position([("base/L", 0, 0, 0)] + [("base/L", x, y, 0) for x, y in ring[:-1]])
    x, y = ring[-1]
    idx = put_tile(game, game.catalogue["base/L"], pack(x, y), 0)
    assert node(game, 0, 0, 0) in completions(game, idx)


def test_a_clone_shares_the_board_until_it_lays_a_tile() -> None:
    game = position([("base/C", 0, 0, 0)])
    copy = Game(_blank=True)
    copy_into(copy, game)
    assert all(getattr(copy, name) is getattr(game, name) for name in BOARD_GROUP)
    put_tile(copy, game.catalogue["base/L"], pack(0, -1), 0)
    assert not any(getattr(copy, name) is getattr(game, name) for name in BOARD_GROUP)
    assert game.tiles_placed == 1 and copy.tiles_placed == 2


# ---------------------------------------------------------------- frontier.py
def test_r11_a_position_under_a_city_edge_admits_a_city_cap_turned_to_face_it() -> None:
    game = position([("base/C", 0, 0, 0)])
    frontier = game._frontier
    above = pack(0, 1)
    assert frontier[above] >> 8 << 8 == place_slot(above)  # the slot above the requirement's bits
    only_above = {above: frontier[above]}
    cap = game.catalogue["base/C"]
    assert placements(only_above, cap) == [Action.place(0, 1, 2)]
    assert cap.fits[frontier[above] & REQ_MASK] == (2,)
    assert placements(only_above, game.catalogue["base/L"]) == []  # a monastery shows no city (R11)


# ---------------------------------------------------------------- followers.py
def test_r14_r15_deploy_options_skip_features_that_hold_a_follower() -> None:
    game = position([("base/C", 0, 0, 0)], [(BLUE, 0, 0, 0)], pile=["base/C"])
    game.apply(Action.place(0, 1, 2))  # Red's cap joins Blue's city
    options: list[Action] = []
    deploy_options(game, options)
    assert options == [Action(ActionKind.DEPLOY, 0, 1, 1)]  # the field only (R15)
    with pytest.raises(IllegalActionError, match="R15"):
        deploy(game, Action(ActionKind.DEPLOY, 0, 1, 0))
    deploy(game, options[0])
    assert game.supply == (6, 6)
    assert lift(game, node(game, 0, 1, 1)) == RED and game.supply == (6, 6)  # lifted, not returned


# ---------------------------------------------------------------- valuation.py
def test_r27_an_unfinished_city_is_worth_a_point_per_tile_and_pennant() -> None:
    game = position([("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0)], [(BLUE, 0, 0, 0)])
    assert feature_value(game, game.feature_key(node(game, 0, 0, 0))) == 3
    assert end_now(game, None) == [0, 3] and game.scores == (0, 0)


def test_r22_end_now_scores_this_turn_s_completed_city_as_t5_would() -> None:
    game = position([("base/C", 0, 0, 0)], [(BLUE, 0, 0, 0)], pile=["base/C"])
    game.apply(Action.place(0, 1, 2))
    events: list[ScoreEvent] = []
    by_kind = [[0] * 4, [0] * 4]
    assert end_now(game, events) == [0, 4]  # 2 tiles × 2 (R22)
    assert [(e.player, e.points, e.reason, e.final) for e in events] == [(BLUE, 4, "city", False)]
    assert end_now(game, None, by_kind) == [0, 4] and by_kind == [[0] * 4, [0] * 4]  # not an end-game point
    pass_ = scores_after(game, Action(ActionKind.PASS, 0, 0, 0))
    on_field = scores_after(game, Action(ActionKind.DEPLOY, 0, 1, 1))
    assert pass_ == (0, 4) and on_field == (3, 4)  # Red's farmer: its field borders 1 completed city (R28)


def test_r28_a_farmer_scores_three_per_completed_city_its_field_borders() -> None:
    game = position([("base/C", 0, 0, 0), ("base/C", 0, 1, 2)], [(RED, 0, 0, 1)])
    root = game.feature_key(node(game, 0, 0, 1))
    assert game._kind[root] is SegmentKind.FIELD and feature_value(game, root) == 3
    assert end_now(game, None) == [3, 0]


# ---------------------------------------------------------------- undo.py
def test_a_journalled_placement_that_closes_a_city_is_taken_back() -> None:
    game = position([("base/C", 0, 0, 0)], [(BLUE, 0, 0, 0)], pile=["base/C"])
    before = game.to_dict()
    frontier = list(game._frontier.items())
    undo = open_placement(game, Action.place(0, 1, 2))
    assert game.phase is Phase.ACTION and game.scores_if_ended_now() == (0, 4)
    assert undo.root_log and undo.tiles == 1  # the city's join is journalled
    undo_placement(game, undo)
    assert game.to_dict() == before and list(game._frontier.items()) == frontier
    with pytest.raises(IllegalActionError, match="R11"):
        open_placement(game, Action.place(0, 1, 0))
    assert game.to_dict() == before


# ---------------------------------------------------------------- pile.py
def test_r4_the_next_draw_is_the_tiles_left_and_a_determinized_copy_keeps_them() -> None:
    game = position([("base/C", 0, 0, 0)], pile=["base/L", "base/L", "base/C", "base/L"])
    assert game.current_tile is not None and game.current_tile.id == "base/L"
    assert chance_outcomes(game) == {"base/L": 2 / 3, "base/C": 1 / 3}
    copy = determinized(game, np.random.default_rng(3))
    assert copy.remaining_counts == game.remaining_counts and copy.seed is None
    game._drawn = len(game._pile)  # the pile runs out: the next draw ends the game (R26)
    draw(game)
    assert game.is_over


# ---------------------------------------------------------------- game_setup.py
def test_r4_a_seed_shuffles_the_config_s_tile_sets_and_a_tile_order_is_the_pile_as_given() -> None:
    config = GameConfig(players=2)
    catalogue = load_catalogue()
    seed, pile = new_pile(config, catalogue, 7, None)
    assert seed == 7 and new_pile(config, catalogue, 7, None)[1] == pile
    assert sorted(t.id for t in pile) == sorted(t.id for t in new_pile(config, catalogue, 8, None)[1])
    assert new_pile(config, catalogue, None, ["base/L", "base/C"]) == (None, [catalogue["base/L"], catalogue["base/C"]])
    with pytest.raises(ValueError, match="not both"):
        new_pile(config, catalogue, 7, ["base/L"])
    with pytest.raises(ValueError, match="not a tile of the sets"):
        new_pile(config, catalogue, None, ["tower/F"])


# ---------------------------------------------------------------- views.py
def test_r6_a_feature_is_read_off_its_root() -> None:
    game = position([("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0)], [(BLUE, 1, 0, 0)])
    city = feature_at(game, 0, 0, 0)
    assert (city.kind, city.size, city.pennants, city.open_edges, city.followers) == (
        SegmentKind.CITY, 2, 1, 1, (0, 1))
    assert [tuple(f) for f in followers_on_segments(game)] == [(1, 0, 0, BLUE)]
    with pytest.raises(KeyError, match="no tile"):
        feature_at(game, 5, 5, 0)

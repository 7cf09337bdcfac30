"""The Tower (docs/rules.md §2, R31–R49) and its worked examples E1, E3, E4, E5 and E10.

Players: Red = 0, Blue = 1, Green = 2, Yellow = 3. Positions are built directly (§8). Every
position also holds an "anchor" monastery tile far away at (40, 40); the tile a player must place
before acting is put next to it, where it touches nothing that matters.

Tiles used (slots are indices into the tile's ``features`` in tiles.json):

* ``tower/F``: all field, tower foundation; slot 0 field.
* ``base/L``: all field, monastery; slot 0 monastery, slot 1 field.
* ``base/C``: city N; slot 0 city, slot 1 field. Rotation 1 puts the city E, rotation 3 W.
* ``base/RFr`` rotation 1: road N–S (slot 0), fields E and W.
* ``base/RCr`` rotation 1: city E (slot 0), road N–S (slot 1), field W.
* ``base/CFc.1``: city E–W without pennant (slot 0).
* ``tower/C``: city N (slot 0) with a tower foundation.
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario import (
    ANCHOR,
    BLUE,
    FILLER,
    GREEN,
    RED,
    TOP,
    YELLOW,
    N,
    cap,
    kinds,
    place_filler,
    position,
    start,
    targets_after_floor,
    tower,
)

from carcassonne_env.engine import Action, ActionKind, Game, GameConfig, IllegalActionError, Phase, load_catalogue
from carcassonne_env.engine.actions import NO_CAPTURE, PASS
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.tower import TowerState


# ----------------------------------------------------------------------------------- helpers
def tower_config(players: int = 4, **variants: Any) -> GameConfig:
    return GameConfig(players=players, expansions=("tower",), **variants)


def accounted_followers(game: Game, player: int) -> int:
    """Supply + followers on segments + on tower tops + held as prisoners (R46)."""
    st = tower(game)
    on_segments = sum(1 for f in game.followers() if f.owner == player)
    on_tops = sum(1 for _, _, owner in game.board_figures() if owner == player)
    held = sum(st.prisoner_count(c, player) for c in range(game.num_players) if c != player)
    return game.supply[player] + on_segments + on_tops + held


def floor_and_capture(game: Game, capture: Action) -> TowerState:
    """The current player places the filler (T2), puts a normal floor on the tower at (0,0) and
    makes ``capture`` (T4); the Tower's state after."""
    place_filler(game)
    game.apply(Action.floor(0, 0, N))
    game.apply(capture)
    return tower(game)


# ----------------------------------------------------------------------------------- 2.1 components
def test_r31_tower_tiles_are_shuffled_into_the_pile() -> None:
    """R31: The Tower adds 18 tiles of 17 types, each with a foundation, to the draw pile."""
    catalogue = load_catalogue()
    tower_types = catalogue.sets["tower"]
    assert len(tower_types) == 17
    assert sum(t.count for t in tower_types) == 18
    assert all(t.tower_foundation for t in tower_types)
    game = Game(tower_config(players=2), seed=5)
    in_game = list(game.remaining_counts)
    assert game.current_tile is not None
    in_game[game.current_tile.index] += 1
    for t in game.discarded:
        in_game[t.index] += 1
    assert sum(in_game) == 71 + 18
    assert sum(in_game[t.index] for t in tower_types) == 18


def test_r31_foundation_plays_no_part_in_fields() -> None:
    """R31: a foundation is a mark, not a segment: the field of tower/F runs on into the field
    of the monastery next to it, and a farmer there counts for that one field."""
    game = start(position(tower_config()).tile("tower/F", 0, 0).tile("base/L", 1, 0).follower(BLUE, 1, 0, 1), RED)
    field = game.feature(0, 0, 0)
    assert field.positions == {(0, 0), (1, 0)}
    assert field.followers == (0, 1, 0, 0)


def test_d27_symmetric_tower_tile_offers_all_four_rotations() -> None:
    """D27: tower/F looks the same in every rotation, yet each (position, rotation) is its own
    legal PLACE action."""
    game = start(position(tower_config()), RED, pile=("tower/F", FILLER))
    east_of_anchor = {a.arg for a in game.legal_actions() if (a.x, a.y) == (ANCHOR[0] + 1, ANCHOR[1])}
    assert east_of_anchor == {0, 1, 2, 3}


@pytest.mark.parametrize(("players", "floors"), [(2, 10), (3, 9), (4, 7), (5, 6), (6, 5)])
def test_r32_d18_floors_per_player(players: int, floors: int) -> None:
    """R32 (and D18): each player starts with 10/9/7/6/5 floors for 2/3/4/5/6 players."""
    st = tower(Game(tower_config(players=players), seed=1))
    for p in range(players):
        assert st.floor_supply(p) == (floors, 0, 0)


def test_r32_any_player_may_build_on_any_tower() -> None:
    """R32: placed floors belong to no one: Blue adds a floor to a tower someone else began."""
    game = start(position(tower_config()).tile("tower/F", 0, 0).tower(0, 0, [N, N]), BLUE)
    place_filler(game)
    assert Action.floor(0, 0, N) in game.legal_actions()
    game.apply(Action.floor(0, 0, N))
    assert tower(game).height(0, 0) == 3
    assert tower(game).floor_supply(BLUE) == (6, 0, 0)
    assert tower(game).floor_supply(RED) == (7, 0, 0)


def test_r33_tower_state_bare_open_and_closed() -> None:
    """R33: h = 0 is a bare foundation (not open); h ≥ 1 without a top follower is open; a
    follower on top closes it."""
    game = start(
        position(tower_config())
        .tile("tower/F", 0, 0)
        .tile("tower/F", 2, 0).tower(2, 0, [N])
        .tile("tower/F", 4, 0).tower(4, 0, [N, N]).tower_top(BLUE, 4, 0),
        RED,
    )
    st = tower(game)
    assert (st.height(0, 0), st.is_open(0, 0), st.colour(0, 0)) == (0, False, None)
    assert (st.height(2, 0), st.is_open(2, 0), st.top(2, 0)) == (1, True, None)
    assert (st.height(4, 0), st.is_open(4, 0), st.top(4, 0)) == (2, False, BLUE)
    assert sorted(st.foundations()) == [(0, 0), (2, 0), (4, 0)]


def test_r33_towers_have_no_height_limit() -> None:
    """R33: a tower of 12 floors still takes a 13th."""
    game = start(position(tower_config(players=2)).tile("tower/F", 0, 0).tower(0, 0, [N] * 12), RED)
    place_filler(game)
    game.apply(Action.floor(0, 0, N))
    assert tower(game).height(0, 0) == 13


def test_r34_bridge_tile_keeps_road_and_city_whole_with_four_fields() -> None:
    """R34: on tower/CRcr the road N–S crosses the city E–W on a bridge: both continue, and the
    tile has 4 separate fields."""
    game = start(
        position(tower_config())
        .tile("tower/CRcr", 0, 0)
        .tile("base/RFr", 0, 1, rotation=1)
        .tile("base/RFr", 0, -1, rotation=1)
        .tile("base/C", 1, 0, rotation=3)
        .tile("base/C", -1, 0, rotation=1)
        .follower(BLUE, 0, 0, 2),
        RED,
    )
    road = game.feature(0, 0, 1)
    city = game.feature(0, 0, 0)
    assert road.positions == {(0, 1), (0, 0), (0, -1)}
    assert city.positions == {(-1, 0), (0, 0), (1, 0)}
    assert city.complete
    kinds_on_tile = [game.feature(0, 0, s).kind.name for s in range(6)]
    assert kinds_on_tile == ["CITY", "ROAD", "FIELD", "FIELD", "FIELD", "FIELD"]
    assert game.feature(0, 0, 2).followers == (0, 1, 0, 0)
    for other_field in (3, 4, 5):
        assert game.feature(0, 0, other_field).followers == (0, 0, 0, 0)


# ----------------------------------------------------------------------------------- 2.2 phase 2
def _three_towers(player: int = RED) -> Game:
    """Bare foundation (0,0), open tower (2,0) h=1, closed tower (4,0) with Blue on top; the
    player draws tower/F, to be placed at (1,0)."""
    return start(
        position(tower_config(players=2))
        .tile("tower/F", 0, 0)
        .tile("tower/F", 2, 0).tower(2, 0, [N])
        .tile("tower/F", 4, 0).tower(4, 0, [N]).tower_top(BLUE, 4, 0),
        player,
        pile=("tower/F", FILLER),
    )


def test_r35_phase_two_options_on_a_concrete_board() -> None:
    """R35: DEPLOY on the placed tile, FLOOR on any bare foundation (the new one included) or open
    tower, TOWER_TOP on any open tower, PASS; nothing on the closed tower."""
    game = _three_towers()
    game.apply(Action.place(1, 0, 0))
    assert set(game.legal_actions()) == {
        Action.deploy(1, 0, 0),
        Action.floor(0, 0, N),
        Action.floor(1, 0, N),
        Action.floor(2, 0, N),
        Action.tower_top(2, 0),
        PASS,
    }


def test_r35_a_floor_is_the_whole_phase_two_choice() -> None:
    """R35: exactly one option per turn: after a floor (with nothing to capture) the turn is
    over, and no follower went onto the placed tile."""
    game = _three_towers()
    game.apply(Action.place(1, 0, 0))
    game.apply(Action.floor(1, 0, N))
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)
    assert tower(game).height(1, 0) == 1
    assert game.followers() == []
    assert tower(game).floor_supply(RED) == (9, 0, 0)


def test_r35_d_tower_top_closes_the_tower_and_ends_the_choice() -> None:
    """R35-D: a follower from the supply onto an open tower closes it; the turn then ends."""
    game = _three_towers()
    game.apply(Action.place(1, 0, 0))
    game.apply(Action.tower_top(2, 0))
    st = tower(game)
    assert (st.top(2, 0), st.is_open(2, 0)) == (RED, False)
    assert game.supply[RED] == 6
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)


def test_r36_floor_options_need_a_floor_in_supply() -> None:
    """R36: with no floor left, B and C vanish; D (a follower onto an open tower) stays."""
    game = start(
        position(tower_config(players=2)).tile("tower/F", 0, 0).tile("tower/F", 2, 0).tower(2, 0, [N]).floors(RED, 0),
        RED,
    )
    place_filler(game)
    legal = game.legal_actions()
    assert kinds(legal, ActionKind.FLOOR) == set()
    assert kinds(legal, ActionKind.TOWER_TOP) == {Action.tower_top(2, 0)}
    with pytest.raises(IllegalActionError):
        game.apply(Action.floor(2, 0, N))


def test_r36_tower_top_needs_a_follower_in_supply() -> None:
    """R36: with an empty follower supply, D (and DEPLOY) vanish; floors are still offered."""
    game = start(
        position(tower_config(players=2))
        .tile("tower/F", 0, 0)
        .tile("tower/F", 2, 0).tower(2, 0, [N])
        .prisoners(BLUE, RED, 7),
        RED,
    )
    place_filler(game)
    assert game.supply[RED] == 0
    assert set(game.legal_actions()) == {Action.floor(0, 0, N), Action.floor(2, 0, N), PASS}
    with pytest.raises(IllegalActionError):
        game.apply(Action.tower_top(2, 0))


def test_d25_pass_is_legal_when_nothing_else_is() -> None:
    """D25: PASS is always legal in T3: with no follower, no floor and no ransom it is the only option."""
    game = start(
        position(tower_config(players=2)).tile("tower/F", 2, 0).tower(2, 0, [N]).prisoners(BLUE, RED, 7).floors(RED, 0),
        RED,
    )
    place_filler(game)
    assert list(game.legal_actions()) == [PASS]
    game.apply(PASS)
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)


def test_r37_d23_no_follower_on_a_bare_foundation() -> None:
    """R37 / D23: TOWER_TOP is not offered on a bare foundation (h = 0) and is refused there."""
    game = start(position(tower_config(players=2)).tile("tower/F", 0, 0), RED)
    place_filler(game)
    assert kinds(game.legal_actions(), ActionKind.TOWER_TOP) == set()
    with pytest.raises(IllegalActionError):
        game.apply(Action.tower_top(0, 0))
    assert tower(game).top(0, 0) is None


def test_r38_no_floor_on_a_closed_tower() -> None:
    """R38: while a follower stands on top, the tower takes no floor and no second follower."""
    game = _three_towers()
    game.apply(Action.place(1, 0, 0))
    legal = game.legal_actions()
    assert Action.floor(4, 0, N) not in legal
    assert Action.tower_top(4, 0) not in legal
    with pytest.raises(IllegalActionError):
        game.apply(Action.floor(4, 0, N))
    with pytest.raises(IllegalActionError):
        game.apply(Action.tower_top(4, 0))
    assert tower(game).height(4, 0) == 1


# ----------------------------------------------------------------------------------- 2.3 capture
def _e1(hole_or_tower_at_1_0: str) -> Game:
    """E1: a 1-floor tower at (0,0); Blue monks at (2,0), (0,−2), (1,1), (2,1) and (3,0);
    (1,0) is empty or holds another, taller tower; Red to move."""
    b = position(tower_config()).tile("tower/F", 0, 0).tower(0, 0, [N])
    if hole_or_tower_at_1_0 == "tower":
        b.tile("tower/F", 1, 0).tower(1, 0, [N, N, N])
    for x, y in [(2, 0), (0, -2), (1, 1), (2, 1), (3, 0)]:
        b.tile("base/L", x, y).follower(BLUE, x, y, 0)
    return start(b, RED)


@pytest.mark.parametrize("at_1_0", ["hole", "tower"])
def test_r40_e1_normal_reach_passes_over_holes_and_towers(at_1_0: str) -> None:
    """R40 / E1: after the floor h = 2; the monks at (2,0) and (0,−2) are targets whether (1,0)
    is empty or holds another tower; (1,1), (2,1) and (3,0) are out of reach."""
    game = _e1(at_1_0)
    place_filler(game)
    assert targets_after_floor(game, 0, 0) == {cap(2, 0, 0), cap(0, -2, 0), NO_CAPTURE}
    for out_of_reach in (cap(1, 1, 0), cap(2, 1, 0), cap(3, 0, 0)):
        with pytest.raises(IllegalActionError):
            game.apply(out_of_reach)
    assert len(game.followers()) == 5


def test_r40_area_includes_the_tower_own_tile() -> None:
    """R40: the area is (x,y) plus the rays: a farmer on the tower's own tile is a target."""
    game = start(position(tower_config()).tile("tower/F", 0, 0).tower(0, 0, [N]).follower(BLUE, 0, 0, 0), RED)
    place_filler(game)
    assert targets_after_floor(game, 0, 0) == {cap(0, 0, 0), NO_CAPTURE}


def test_r39_t4_is_skipped_when_the_area_holds_no_follower() -> None:
    """R39 / §5 T4: after a floor with no target there is no capture decision."""
    game = start(
        position(tower_config()).tile("tower/F", 0, 0).tower(0, 0, [N]).tile("base/L", 3, 0).follower(BLUE, 3, 0, 0),
        RED,
    )
    place_filler(game)
    game.apply(Action.floor(0, 0, N))  # h = 2: (3,0) is 3 away
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)
    assert len(game.followers()) == 1


def test_r39_d3_capturing_is_optional() -> None:
    """R39 / D3: NO_CAPTURE is offered and leaves every follower where it stands."""
    game = _e1("hole")
    place_filler(game)
    assert NO_CAPTURE in targets_after_floor(game, 0, 0)
    game.apply(NO_CAPTURE)
    assert len(game.followers()) == 5
    assert tower(game).prisoner_count(RED, BLUE) == 0
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)


def _every_kind_of_target() -> Game:
    """A 1-floor tower at (0,0) with, in reach after one more floor: a Blue thief (1,0), a Green
    knight (−1,0), a Yellow farmer (0,1), Red's own monk (0,−1) and Blue on top of the tower (0,2)."""
    return start(
        position(tower_config())
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/RFr", 1, 0, rotation=1).follower(BLUE, 1, 0, 0)
        .tile("base/C", -1, 0).follower(GREEN, -1, 0, 0)
        .tile("base/L", 0, 1).follower(YELLOW, 0, 1, 1)
        .tile("base/L", 0, -1).follower(RED, 0, -1, 0)
        .tile("tower/F", 0, 2).tower(0, 2, [N]).tower_top(BLUE, 0, 2),
        RED,
    )


def test_r41_every_follower_in_the_area_is_a_target() -> None:
    """R41: road, city, field and monastery followers, the capturer's own included, and a
    follower on top of another tower are all targets."""
    game = _every_kind_of_target()
    place_filler(game)
    assert targets_after_floor(game, 0, 0) == {
        cap(1, 0, 0), cap(-1, 0, 0), cap(0, 1, 1), cap(0, -1, 0), cap(0, 2, TOP), NO_CAPTURE,
    }


def test_r42_target_is_a_position_and_slot() -> None:
    """R42: two followers on one tile are separate targets; capturing the road slot takes the
    thief and leaves the knight."""
    game = start(
        position(tower_config())
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/RCr", 1, 0, rotation=1).follower(BLUE, 1, 0, 0).follower(BLUE, 1, 0, 1),
        RED,
    )
    place_filler(game)
    assert targets_after_floor(game, 0, 0) == {cap(1, 0, 0), cap(1, 0, 1), NO_CAPTURE}
    game.apply(cap(1, 0, 1))
    assert [(f.x, f.y, f.slot, f.owner) for f in game.followers()] == [(1, 0, 0, BLUE)]


def test_r43_d2_own_follower_goes_back_to_supply() -> None:
    """R43 / D2: Red may capture Red's own monk; it returns to Red's supply, no prisoner."""
    game = _every_kind_of_target()
    place_filler(game)
    assert game.supply[RED] == 6
    game.apply(Action.floor(0, 0, N))
    game.apply(cap(0, -1, 0))
    assert game.supply[RED] == 7
    assert all(tower(game).prisoner_count(RED, o) == 0 for o in (BLUE, GREEN, YELLOW))


def test_r43_other_players_follower_becomes_a_prisoner() -> None:
    """R43: Green's captured knight is held by Red: P[Red][Green] = 1, Green's supply unchanged."""
    game = _every_kind_of_target()
    st = floor_and_capture(game, cap(-1, 0, 0))
    assert st.prisoner_count(RED, GREEN) == 1
    assert game.supply[GREEN] == 6
    assert game.feature(-1, 0, 0).followers == (0, 0, 0, 0)


def _e3_builder() -> PositionBuilder:
    """E3: Blue's knight on the city (1,0)–(2,0), open only at the E edge of (2,0); an open
    1-floor tower at (−1,0); (0,0) is empty."""
    return (
        position(tower_config())
        .tile("tower/F", -1, 0).tower(-1, 0, [N])
        .tile("base/C", 1, 0, rotation=1).follower(BLUE, 1, 0, 0)
        .tile("base/CFc.1", 2, 0)
    )


def _e3() -> Game:
    """E3 with Red to move, holding the city cap base/C (to go at (3,0) facing W)."""
    return start(_e3_builder(), RED, pile=("base/C", FILLER))


def test_r44_e3_d7_capture_denies_the_completion() -> None:
    """R44 / E3 / D7: Red completes Blue's 3-tile city, then floors (−1,0) to h = 2 and captures
    the knight: the city scores for nobody, now or ever; P[Red][Blue] = 1."""
    game = _e3()
    game.apply(Action.place(3, 0, 3))
    assert targets_after_floor(game, -1, 0) == {cap(1, 0, 0), NO_CAPTURE}
    game.apply(cap(1, 0, 0))
    assert game.scores == (0, 0, 0, 0)
    assert tower(game).prisoner_count(RED, BLUE) == 1
    assert game.supply[BLUE] == 6
    city = game.feature(1, 0, 0)
    assert (city.size, city.complete, city.followers) == (3, True, (0, 0, 0, 0))


def test_r44_e3_completed_city_stays_unscored_to_the_end() -> None:
    """E3 / R25: when the capture happens on the last turn, the final scoring that follows still
    gives the complete, empty city to nobody: every score is 0."""
    game = start(_e3_builder(), RED, pile=("base/C",))
    game.apply(Action.place(3, 0, 3))
    game.apply(Action.floor(-1, 0, N))
    game.apply(cap(1, 0, 0))
    assert game.is_over
    assert game.scores == (0, 0, 0, 0)
    assert tower(game).prisoner_count(RED, BLUE) == 1


@pytest.mark.parametrize(("choice", "scores"), [(cap(1, 0, 0), (0, 0, 0, 0)), (NO_CAPTURE, (0, 2, 0, 0))],
                         ids=["captured", "declined"])
def test_r44_capture_on_the_last_turn_comes_before_final_scoring(choice: Action, scores: tuple[int, ...]) -> None:
    """R44 / §5 T4 before T6: Blue's monk, captured on the last turn, scores nothing at the end;
    with the capture declined it scores 1 + 1 occupied ring position = 2."""
    game = start(
        position(tower_config())
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 0),
        RED,
        pile=(FILLER,),
    )
    place_filler(game)
    game.apply(Action.floor(0, 0, N))
    game.apply(choice)
    assert game.is_over
    assert game.scores == scores


def test_r44_e3_had_red_passed_blue_scores_six() -> None:
    """E3: had Red passed instead, Blue would score the 3-tile city (6) and get the knight back."""
    game = _e3()
    game.apply(Action.place(3, 0, 3))
    game.apply(PASS)
    assert game.scores == (0, 6, 0, 0)
    assert game.supply[BLUE] == 7


def test_r44_d7_no_capture_after_floor_still_scores_in_phase_three() -> None:
    """D7: capture comes in phase 2, scoring in phase 3; declining the capture lets Blue score."""
    game = _e3()
    game.apply(Action.place(3, 0, 3))
    game.apply(Action.floor(-1, 0, N))
    game.apply(NO_CAPTURE)
    assert game.scores == (0, 6, 0, 0)
    assert game.supply[BLUE] == 7


def test_r45_tower_top_follower_never_counts_for_majority_nor_returns() -> None:
    """R45: Blue on top of the tower on tower/C does not share the city it stands over: Red's
    knight alone scores the completed 2-tile city (4), and Blue's top follower stays."""
    game = start(
        position(tower_config())
        .tile("tower/C", 0, 0).tower(0, 0, [N]).tower_top(BLUE, 0, 0).follower(RED, 0, 0, 0),
        RED,
        pile=("base/C", FILLER),
    )
    game.apply(Action.place(0, 1, 2))
    game.apply(PASS)
    assert game.scores == (4, 0, 0, 0)
    assert game.supply[RED] == 7
    assert tower(game).top(0, 0) == BLUE
    assert game.supply[BLUE] == 6


def test_r45_r29_tower_top_follower_scores_nothing_at_the_end() -> None:
    """R45 / R29: at the end Red's knight on the 1-tile city scores 1; Blue on top scores 0."""
    game = start(
        position(tower_config())
        .tile("tower/C", 0, 0).tower(0, 0, [N]).tower_top(BLUE, 0, 0).follower(RED, 0, 0, 0),
        RED,
        pile=(FILLER,),
    )
    place_filler(game)
    game.apply(PASS)
    assert game.is_over
    assert game.scores == (1, 0, 0, 0)
    assert tower(game).top(0, 0) == BLUE


# ----------------------------------------------------------------------------------- 2.4 prisoners
def test_r46_every_follower_is_accounted_for() -> None:
    """R46: supply + board (segments and tops) + held prisoners = 7 for every player, before and
    after Red captures Blue's top follower while Green holds one of Red's."""
    game = start(
        position(tower_config(players=3))
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 0)
        .tile("base/L", -1, 0).follower(RED, -1, 0, 0)
        .tile("tower/F", 0, 2).tower(0, 2, [N]).tower_top(BLUE, 0, 2)
        .prisoners(GREEN, RED, 1)
        .prisoners(RED, BLUE, 1),
        RED,
    )
    assert game.supply == (5, 4, 7)
    assert [accounted_followers(game, p) for p in range(3)] == [7, 7, 7]
    st = floor_and_capture(game, cap(0, 2, TOP))
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(GREEN, RED)) == (2, 1)
    assert game.supply == (5, 4, 7)
    assert game.board_figures() == []
    assert [accounted_followers(game, p) for p in range(3)] == [7, 7, 7]


def _e4(red_holds_of_blue: int) -> Game:
    """E4: Red holds Blue's followers; Blue to move, with a 1-floor tower at (0,0) and Red's
    farmer next to it at (1,0)."""
    return start(
        position(tower_config(players=2))
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(RED, 1, 0, 1)
        .prisoners(RED, BLUE, red_holds_of_blue),
        BLUE,
    )


def test_r47_d4_exchange_is_automatic_when_both_hold_each_other() -> None:
    """R47 / E4 / D4: Blue captures Red's farmer while Red holds a Blue follower: both counts drop
    to 0 at once, with no decision, and each follower goes back to its owner's supply (Red's
    farmer to the supply, not to its field)."""
    game = _e4(1)
    assert game.supply == (6, 6)
    place_filler(game)
    assert targets_after_floor(game, 0, 0) == {cap(1, 0, 1), NO_CAPTURE}
    game.apply(cap(1, 0, 1))
    st = tower(game)
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(BLUE, RED)) == (0, 0)
    assert game.supply == (7, 7)
    assert game.followers() == []
    assert (game.phase, game.current_player) == (Phase.PLACE, RED)


def test_r47_e4_exchange_takes_one_of_two_prisoners() -> None:
    """E4: with P[Red][Blue] = 2 the exchange leaves P[Red][Blue] = 1 and P[Blue][Red] = 0."""
    game = _e4(2)
    st = floor_and_capture(game, cap(1, 0, 1))
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(BLUE, RED)) == (1, 0)
    assert game.supply == (7, 6)


def test_r47_no_exchange_when_only_the_captor_holds_prisoners() -> None:
    """R47: the exchange needs both directions: Red, holding a Blue follower, captures another
    Blue follower and now holds 2."""
    game = start(
        position(tower_config(players=2))
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 0)
        .prisoners(RED, BLUE, 1),
        RED,
    )
    st = floor_and_capture(game, cap(1, 0, 0))
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(BLUE, RED)) == (2, 0)
    assert game.supply == (7, 5)


def test_d24_no_exchange_around_a_triangle() -> None:
    """D24: Red holds Blue's, Blue holds Green's; Green captures Red's farmer: no exchange, Green
    simply holds it (P[Green][Red] = 1, the other two counts unchanged)."""
    game = start(
        position(tower_config(players=3))
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(RED, 1, 0, 1)
        .prisoners(RED, BLUE, 1)
        .prisoners(BLUE, GREEN, 1),
        GREEN,
    )
    st = floor_and_capture(game, cap(1, 0, 1))
    assert st.prisoner_count(GREEN, RED) == 1
    assert st.prisoner_count(RED, BLUE) == 1
    assert st.prisoner_count(BLUE, GREEN) == 1
    assert game.supply == (6, 6, 6)


def _e5(
    blue_score: int = 5, red_holds: int = 1, players: int = 4, green_holds: int = 0, turns: int = 2
) -> Game:
    """E5: Blue (score ``blue_score``) has an empty supply: 6 monks on the board, the rest held
    by Red (and Green); Red has 10 points. Blue has drawn a monastery."""
    b = position(tower_config(players=players)).score(BLUE, blue_score).score(RED, 10)
    for i in range(7 - red_holds - green_holds):
        b.tile("base/L", 2 * i, 10).follower(BLUE, 2 * i, 10, 0)
    b.prisoners(RED, BLUE, red_holds)
    if green_holds:
        b.prisoners(GREEN, BLUE, green_holds)
    return start(b, BLUE, pile=[FILLER] * turns)


def _ransom_refused(game: Game, captor: int, scores: tuple[int, ...]) -> None:
    """No RANSOM is offered now, RANSOM(``captor``) is refused, and the scores stay ``scores``."""
    assert kinds(game.legal_actions(), ActionKind.RANSOM) == set()
    with pytest.raises(IllegalActionError):
        game.apply(Action.ransom(captor))
    assert game.scores == scores


def test_r48_e5_ransom_then_deploy_in_the_same_turn() -> None:
    """R48 / E5: Blue pays RANSOM(Red): Blue 5 → 2, Red 10 → 13, P[Red][Blue] = 0, Blue's supply
    1; T3 repeats, and Blue deploys that follower this turn."""
    game = _e5()
    place_filler(game)
    assert game.supply[BLUE] == 0
    assert set(game.legal_actions()) == {Action.ransom(RED), PASS}
    game.apply(Action.ransom(RED))
    assert game.scores == (13, 2, 0, 0)
    assert tower(game).prisoner_count(RED, BLUE) == 0
    assert game.supply[BLUE] == 1
    assert (game.phase, game.current_player) == (Phase.ACTION, BLUE)
    assert kinds(game.legal_actions(), ActionKind.RANSOM) == set()
    placed = game.placed_position
    assert placed is not None
    game.apply(Action.deploy(placed[0], placed[1], 0))
    assert game.supply[BLUE] == 0
    assert game.feature(placed[0], placed[1], 0).followers == (0, 1, 0, 0)


def test_r48_e5_second_ransom_in_a_turn_is_illegal() -> None:
    """R48 / D5: at most one ransom per turn, even with a prisoner left and 7 points left."""
    game = _e5(blue_score=10, red_holds=2)
    place_filler(game)
    game.apply(Action.ransom(RED))
    assert game.scores[BLUE] == 7
    assert tower(game).prisoner_count(RED, BLUE) == 1
    _ransom_refused(game, RED, (13, 7, 0, 0))


def test_r48_e5_ransom_needs_three_points() -> None:
    """R48 / E5: with 2 points Blue may not pay; no score goes below 0."""
    game = _e5(blue_score=2)
    place_filler(game)
    _ransom_refused(game, RED, (10, 2, 0, 0))


def test_d6_ransom_with_exactly_three_points() -> None:
    """D6: a score of exactly 3 may pay; it drops to 0."""
    game = _e5(blue_score=3)
    place_filler(game)
    game.apply(Action.ransom(RED))
    assert game.scores == (13, 0, 0, 0)
    assert game.supply[BLUE] == 1


def test_r48_ransom_only_to_a_captor_holding_your_follower() -> None:
    """R48: Blue may name only a captor c with P[c][Blue] ≥ 1; Green holds none."""
    game = _e5()
    place_filler(game)
    with pytest.raises(IllegalActionError):
        game.apply(Action.ransom(GREEN))
    assert game.scores == (10, 5, 0, 0)


def test_d29_ransom_pays_the_captor_named() -> None:
    """D29: Red and Green each hold a Blue follower; Blue names Green, who gets the 3 points."""
    game = _e5(red_holds=1, green_holds=1)
    place_filler(game)
    assert kinds(game.legal_actions(), ActionKind.RANSOM) == {Action.ransom(RED), Action.ransom(GREEN)}
    game.apply(Action.ransom(GREEN))
    st = tower(game)
    assert game.scores == (10, 2, 3, 0)
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(GREEN, BLUE)) == (1, 0)


def test_d5_ransom_only_in_t3_of_the_own_turn() -> None:
    """D5: no ransom in T2 (before the tile is placed) nor in T4 (after a floor)."""
    game = start(
        position(tower_config(players=2))
        .score(BLUE, 9)
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(RED, 1, 0, 0)
        .prisoners(RED, BLUE, 1),
        BLUE,
    )
    with pytest.raises(IllegalActionError):
        game.apply(Action.ransom(RED))
    place_filler(game)
    game.apply(Action.floor(0, 0, N))
    assert game.phase is Phase.CAPTURE
    _ransom_refused(game, RED, (0, 9))


def test_d5_ransom_is_once_per_turn_not_once_per_game() -> None:
    """D5: after a ransom on one turn, the same player may pay again on their next turn."""
    game = _e5(blue_score=9, red_holds=2, players=2, turns=3)
    place_filler(game)
    game.apply(Action.ransom(RED))
    game.apply(PASS)
    place_filler(game)  # Red's turn
    game.apply(PASS)
    place_filler(game)  # Blue again
    assert Action.ransom(RED) in game.legal_actions()
    game.apply(Action.ransom(RED))
    assert game.scores == (16, 3)
    assert tower(game).prisoner_count(RED, BLUE) == 0


def test_r49_prisoners_score_nothing_at_the_end() -> None:
    """R49: prisoners held when the game ends neither score nor cost anything."""
    builder = position(tower_config(players=2)).score(RED, 4).score(BLUE, 4).prisoners(RED, BLUE, 2)
    game = start(builder, RED, pile=(FILLER,))
    place_filler(game)
    game.apply(PASS)
    assert game.is_over
    assert game.scores == (4, 4)


# ----------------------------------------------------------------------------------- E10
def _e10(**variants: Any) -> Game:
    """E10: Yellow tops the 1-floor tower at (0,3); Red adds a floor to the 2-floor tower at (0,0)."""
    return start(
        position(tower_config(**variants))
        .tile("tower/F", 0, 0).tower(0, 0, [N, N])
        .tile("tower/F", 0, 3).tower(0, 3, [N]).tower_top(YELLOW, 0, 3),
        RED,
    )


def test_r41_e10_d1_follower_on_a_tower_top_is_captured() -> None:
    """R41 / E10 / D1: at h = 3 the area reaches (0,3) and Red captures Yellow's top follower:
    P[Red][Yellow] = 1."""
    game = _e10()
    place_filler(game)
    assert targets_after_floor(game, 0, 0) == {cap(0, 3, TOP), NO_CAPTURE}
    game.apply(cap(0, 3, TOP))
    st = tower(game)
    assert st.prisoner_count(RED, YELLOW) == 1
    assert game.supply[YELLOW] == 6
    assert st.top(0, 3) is None


def test_r38_e10_d22_tower_reopens_when_its_top_is_captured() -> None:
    """R38 / E10 / D22: the tower at (0,3) is open again at h = 1: the next player may floor it
    or put a follower on top."""
    game = _e10()
    st = floor_and_capture(game, cap(0, 3, TOP))
    assert (st.height(0, 3), st.is_open(0, 3)) == (1, True)
    place_filler(game)  # Blue's turn
    legal = game.legal_actions()
    assert Action.floor(0, 3, N) in legal
    assert Action.tower_top(0, 3) in legal


def test_e10_immune_variant_leaves_no_target() -> None:
    """E10: under tower_top_followers_immune Yellow's top follower is not a target, so there is
    no capture decision at all."""
    game = _e10(tower_top_followers_immune=True)
    place_filler(game)
    game.apply(Action.floor(0, 0, N))
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)
    assert tower(game).top(0, 3) == YELLOW

"""Black Tower fan variant (docs/rules.md §3, R50–R59) and worked example E2; decisions D8–D12.

Players: Red = 0, Blue = 1, Green = 2, Yellow = 3. Positions are built directly (§8). A far-away
anchor monastery at (40, 40) takes the tile each player must place before acting.

Tiles: ``tower/F`` (all field, foundation; slot 0 field), ``base/L`` (all field; slot 0 monastery,
slot 1 field).
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario import (
    BLUE,
    FILLER,
    GREEN,
    RED,
    TOP,
    YELLOW,
    B,
    N,
    W,
    cap,
    kinds,
    place_filler,
    position,
    start,
    targets_after_floor,
    tower,
)

from carcassonne_env.engine import Action, ActionKind, ConfigError, Game, GameConfig, IllegalActionError, Phase
from carcassonne_env.engine.actions import NO_CAPTURE, PASS
from carcassonne_env.engine.registry import with_requirements


# ----------------------------------------------------------------------------------- helpers
def black_config(players: int = 4, **variants: Any) -> GameConfig:
    return GameConfig(players=players, expansions=with_requirements("black_tower"), **variants)


# ----------------------------------------------------------------------------------- R50–R52
def test_r50_black_tower_without_tower_is_a_config_error() -> None:
    """R50: enabling black_tower without tower is a configuration error naming the field."""
    with pytest.raises(ConfigError) as err:
        GameConfig(players=2, expansions=("black_tower",))
    assert err.value.field == "expansions"
    assert GameConfig(players=2, expansions=tuple(reversed(with_requirements("black_tower")))).has("black_tower")


@pytest.mark.parametrize(
    ("players", "normal", "black", "white"),
    [(2, 8, 4, 2), (3, 7, 3, 2), (4, 6, 3, 1), (5, 5, 2, 1), (6, 4, 2, 1)],
)
def test_r51_d12_floor_supply_per_player_count(players: int, normal: int, black: int, white: int) -> None:
    """R51 / D12: the seed-004 table replaces R32 (2 players: 4 black, 2 white, 8 normal …)."""
    st = tower(Game(black_config(players=players), seed=2))
    for p in range(players):
        assert st.floor_supply(p) == (normal, black, white)


@pytest.mark.parametrize(
    ("players", "extra", "floors"),
    [
        (4, 3, (6, 3, 1)),  # ⌊3/4⌋ = 0: nothing extra
        (4, 4, (8, 4, 1)),  # +1 black, +2 normal
        (4, 7, (8, 4, 1)),
        (4, 8, (10, 5, 2)),  # E ≥ 8 with 4–6 players: +1 white, once
        (4, 16, (14, 7, 2)),  # white bonus still once
        (6, 8, (8, 4, 2)),
        (5, 12, (11, 5, 2)),
        (3, 8, (11, 5, 2)),  # 3 players: no white bonus (already 2)
        (2, 8, (12, 6, 2)),
    ],
)
def test_r52_d12_extra_foundation_floors(players: int, extra: int, floors: tuple[int, int, int]) -> None:
    """R52 / D12: E extra foundations give ⌊E/4⌋ black and 2⌊E/4⌋ normal floors, plus one white
    floor once when E ≥ 8 with 4–6 players; nobody holds more than 2 white floors."""
    st = tower(Game(black_config(players=players, extra_foundation_tiles=extra), seed=2))
    assert st.floor_supply(0) == floors
    assert st.floor_supply(players - 1) == floors


# ----------------------------------------------------------------------------------- R53, R54
def test_r53_type_is_the_top_floor_and_height_counts_all_floors() -> None:
    """R53: a tower of normal then black floors is black with h = 2."""
    game = start(
        position(black_config()).tile("tower/F", 0, 0).tower(0, 0, [N, B]).tile("tower/F", 3, 0).tower(3, 0, [B, N]),
        RED,
    )
    st = tower(game)
    assert (st.colour(0, 0), st.height(0, 0)) == (B, 2)
    assert (st.colour(3, 0), st.height(3, 0)) == (N, 2)


def _five_foundations() -> Game:
    """Bare (0,0); open normal (2,0); open black (4,0); closed normal (6,0) with Blue on top;
    white (8,0). Red to move with the full 4-player supply (6 normal, 3 black, 1 white)."""
    return start(
        position(black_config())
        .tile("tower/F", 0, 0)
        .tile("tower/F", 2, 0).tower(2, 0, [N])
        .tile("tower/F", 4, 0).tower(4, 0, [B])
        .tile("tower/F", 6, 0).tower(6, 0, [N]).tower_top(BLUE, 6, 0)
        .tile("tower/F", 8, 0).tower(8, 0, [N, W]),
        RED,
    )


def test_r54_d11_where_each_colour_of_floor_may_go() -> None:
    """R54 / D11: normal and black go on a bare foundation or an open normal/black tower; white
    only on an open normal/black tower. Nothing goes on a closed or a white tower."""
    game = _five_foundations()
    place_filler(game)
    legal = game.legal_actions()
    assert kinds(legal, ActionKind.FLOOR) == {
        Action.floor(0, 0, N), Action.floor(0, 0, B),
        Action.floor(2, 0, N), Action.floor(2, 0, B), Action.floor(2, 0, W),
        Action.floor(4, 0, N), Action.floor(4, 0, B), Action.floor(4, 0, W),
    }
    assert kinds(legal, ActionKind.TOWER_TOP) == {Action.tower_top(2, 0), Action.tower_top(4, 0)}


@pytest.mark.parametrize("where", [(0, 0), (6, 0), (8, 0)])
def test_r54_d11_white_floor_refused_on_bare_closed_and_white(where: tuple[int, int]) -> None:
    """R54 / D11: a white floor is refused on a bare foundation, a closed tower and a white tower."""
    game = _five_foundations()
    place_filler(game)
    before = tower(game).height(*where)
    with pytest.raises(IllegalActionError):
        game.apply(Action.floor(*where, W))
    assert tower(game).height(*where) == before
    assert tower(game).floor_supply(RED) == (6, 3, 1)


def test_r54_r36_colours_offered_follow_the_supply() -> None:
    """R54 with R36: a player holding only a black floor is offered only black floors."""
    game = start(
        position(black_config()).tile("tower/F", 0, 0).tile("tower/F", 2, 0).tower(2, 0, [N]).floors(RED, 0, 1, 0),
        RED,
    )
    place_filler(game)
    assert kinds(game.legal_actions(), ActionKind.FLOOR) == {Action.floor(0, 0, B), Action.floor(2, 0, B)}


# ----------------------------------------------------------------------------------- R55, E2
def _e2() -> Game:
    """E2: a 1-normal-floor tower at (0,0). Yellow monks at (1,1), (2,2), (−2,−2), (1,0), (0,2)
    and (2,1), a Green monk at (−2,2); (−1,1) holds another tower, (−1,−1) is a hole."""
    b = position(black_config()).tile("tower/F", 0, 0).tower(0, 0, [N])
    b.tile("tower/F", -1, 1).tower(-1, 1, [N, N])
    for x, y in [(1, 1), (2, 2), (-2, -2), (1, 0), (0, 2), (2, 1)]:
        b.tile("base/L", x, y).follower(YELLOW, x, y, 0)
    b.tile("base/L", -2, 2).follower(GREEN, -2, 2, 0)
    return start(b, RED, [FILLER] * 4)


def test_r55_e2_black_floor_captures_along_the_diagonals() -> None:
    """R55 / E2 / D9: Red's black floor makes a black tower of h = 2; its targets are on the
    diagonals (over the hole at (−1,−1) and the tower at (−1,1)); (1,0), (0,2) and (2,1) are not."""
    game = _e2()
    place_filler(game)
    assert targets_after_floor(game, 0, 0, B) == {
        cap(1, 1, 0), cap(2, 2, 0), cap(-2, 2, 0), cap(-2, -2, 0), NO_CAPTURE,
    }
    assert tower(game).colour(0, 0) == B


def test_r55_r58_e2_then_a_normal_floor_reaches_orthogonally() -> None:
    """E2 / R58: Blue then adds a normal floor: a normal tower of h = 3, orthogonal reach 3."""
    game = _e2()
    place_filler(game)
    game.apply(Action.floor(0, 0, B))
    game.apply(NO_CAPTURE)
    place_filler(game)  # Blue
    assert targets_after_floor(game, 0, 0, N) == {cap(1, 0, 0), cap(0, 2, 0), NO_CAPTURE}
    st = tower(game)
    assert (st.colour(0, 0), st.height(0, 0)) == (N, 3)


def test_r56_e2_white_floor_caps_the_tower_for_good() -> None:
    """R56 / E2: Green's white floor makes it white with h = 4: no capture follows, and the next
    player may add no floor of any colour and put no follower on top."""
    game = _e2()
    place_filler(game)
    game.apply(Action.floor(0, 0, B))
    game.apply(NO_CAPTURE)
    place_filler(game)
    game.apply(Action.floor(0, 0, N))
    game.apply(NO_CAPTURE)
    place_filler(game)  # Green
    game.apply(Action.floor(0, 0, W))
    assert (game.phase, game.current_player) == (Phase.PLACE, YELLOW)
    st = tower(game)
    assert (st.colour(0, 0), st.height(0, 0), st.is_open(0, 0)) == (W, 4, False)
    assert len(game.followers()) == 7
    place_filler(game)  # Yellow
    legal = game.legal_actions()
    assert {a for a in legal if (a.x, a.y) == (0, 0) and a.kind in (ActionKind.FLOOR, ActionKind.TOWER_TOP)} == set()
    for action in (Action.floor(0, 0, N), Action.floor(0, 0, B), Action.floor(0, 0, W), Action.tower_top(0, 0)):
        with pytest.raises(IllegalActionError):
            game.apply(action)
    assert (st.colour(0, 0), st.height(0, 0)) == (W, 4)


def test_d10_white_floor_captures_nothing_even_on_its_own_tile() -> None:
    """D10 / R56: with a Blue farmer on the tower's own tile and a Blue monk next to it, the
    white floor opens no capture decision."""
    game = start(
        position(black_config())
        .tile("tower/F", 0, 0).tower(0, 0, [N]).follower(BLUE, 0, 0, 0)
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 0),
        RED,
    )
    place_filler(game)
    game.apply(Action.floor(0, 0, W))
    assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)
    assert len(game.followers()) == 2
    assert tower(game).prisoner_count(RED, BLUE) == 0
    assert tower(game).floor_supply(RED) == (6, 3, 0)


def test_d8_black_tower_captures_on_its_own_tile() -> None:
    """D8 / R55: a black tower's own position is in its area: a farmer on it is a target."""
    game = start(position(black_config()).tile("tower/F", 0, 0).follower(BLUE, 0, 0, 0), RED)
    place_filler(game)
    assert targets_after_floor(game, 0, 0, B) == {cap(0, 0, 0), NO_CAPTURE}
    assert tower(game).height(0, 0) == 1


# ----------------------------------------------------------------------------------- R57–R59
def _top_on_black_tower() -> Game:
    """Yellow stands on top of the 1-floor black tower at (0,3); Red's normal tower at (0,0)
    has h = 2."""
    return start(
        position(black_config())
        .tile("tower/F", 0, 0).tower(0, 0, [N, N])
        .tile("tower/F", 0, 3).tower(0, 3, [B]).tower_top(YELLOW, 0, 3),
        RED,
    )


def test_r57_captured_top_reopens_a_black_tower_as_black() -> None:
    """R57: Red's floor (h = 3) captures Yellow off the black tower at (0,3), which is open again,
    still black, h = 1; the next player may put a follower on top or add any floor."""
    game = _top_on_black_tower()
    place_filler(game)
    assert targets_after_floor(game, 0, 0, N) == {cap(0, 3, TOP), NO_CAPTURE}
    game.apply(cap(0, 3, TOP))
    st = tower(game)
    assert (st.is_open(0, 3), st.colour(0, 3), st.height(0, 3), st.top(0, 3)) == (True, B, 1, None)
    assert st.prisoner_count(RED, YELLOW) == 1
    place_filler(game)  # Blue
    legal = game.legal_actions()
    assert Action.tower_top(0, 3) in legal
    assert {Action.floor(0, 3, c) for c in (N, B, W)} <= set(legal)


def test_r57_open_black_tower_takes_a_follower_on_top() -> None:
    """R57 / R35-D: a follower may go on top of an open black tower, closing it."""
    game = start(position(black_config()).tile("tower/F", 0, 0).tower(0, 0, [N, B]), RED)
    place_filler(game)
    game.apply(Action.tower_top(0, 0))
    st = tower(game)
    assert (st.top(0, 0), st.is_open(0, 0), st.colour(0, 0)) == (RED, False, B)


def test_r58_tower_switches_colour_until_capped() -> None:
    """R58: normal → black → normal → black over four turns, then a white floor caps it."""
    game = start(position(black_config(players=2)).tile("tower/F", 0, 0).tower(0, 0, [N]), RED, [FILLER] * 5)
    seen = []
    for colour in (B, N, B, W):
        place_filler(game)
        game.apply(Action.floor(0, 0, colour))
        seen.append((tower(game).colour(0, 0), tower(game).height(0, 0)))
    assert seen == [(B, 2), (N, 3), (B, 4), (W, 5)]
    assert tower(game).floor_supply(RED) == (8, 2, 2)
    assert tower(game).floor_supply(BLUE) == (7, 4, 1)


def test_r59_black_capture_takes_prisoners_and_exchanges() -> None:
    """R59 (with R43, R47): Blue holds one of Red's followers; Red's black floor captures Blue's
    monk on the diagonal, and the automatic exchange returns one follower to each."""
    game = start(
        position(black_config(players=2))
        .tile("tower/F", 0, 0)
        .tile("base/L", 1, 1).follower(BLUE, 1, 1, 0)
        .prisoners(BLUE, RED, 1),
        RED,
    )
    assert game.supply == (6, 6)
    place_filler(game)
    assert targets_after_floor(game, 0, 0, B) == {cap(1, 1, 0), NO_CAPTURE}
    game.apply(cap(1, 1, 0))
    st = tower(game)
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(BLUE, RED)) == (0, 0)
    assert game.supply == (7, 7)


def test_r59_black_tower_may_capture_a_tower_top_follower() -> None:
    """R59 / R41: a black tower captures a follower standing on another tower on its diagonal."""
    game = start(
        position(black_config())
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("tower/F", 2, 2).tower(2, 2, [N]).tower_top(GREEN, 2, 2),
        RED,
    )
    place_filler(game)
    assert targets_after_floor(game, 0, 0, B) == {cap(2, 2, TOP), NO_CAPTURE}


def test_r59_ransom_works_as_in_the_tower() -> None:
    """R59 / R48: with Black Tower, ransom still costs 3 and pays the captor 3."""
    game = start(position(black_config()).score(BLUE, 3).prisoners(RED, BLUE, 1), BLUE)
    place_filler(game)
    assert Action.ransom(RED) in game.legal_actions()
    game.apply(Action.ransom(RED))
    assert game.scores == (3, 0, 0, 0)
    assert game.supply[BLUE] == 7
    game.apply(PASS)
    assert game.current_player == GREEN

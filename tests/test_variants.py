"""Optional variants (docs/rules.md §6) and their configuration errors.

Each flag is played against the default on the same position and shows the one thing it
changes. Players: Red = 0, Blue = 1, Green = 2, Yellow = 3. A far-away anchor monastery at
(40, 40) takes the tile each player places before acting. ``tower/F`` is an all-field tile with a
foundation (slot 0 field); ``base/L`` is an all-field monastery (slot 0 monk, slot 1 field).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from scenario import BLUE, FILLER, GREEN, RED, TOP, YELLOW, B, N, cap, place_filler, position

from carcassonne_env.engine import (
    Action,
    ActionKind,
    ConfigError,
    FloorColour,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
)
from carcassonne_env.engine.actions import NO_CAPTURE, PASS
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements

TOWER = ("tower",)
BLACK_TOWER = with_requirements("black_tower")


# ----------------------------------------------------------------------------------- helpers
def config(expansions: Sequence[str] = TOWER, players: int = 4, **variants: Any) -> GameConfig:
    return GameConfig(players=players, expansions=tuple(expansions), **variants)


Setup = Callable[[PositionBuilder], PositionBuilder]


def targets(cfg: GameConfig, setup: Setup, floor: tuple[int, int, FloorColour]) -> set[Action]:
    """Red places a filler, then the floor; the capture targets offered (empty set: no T4)."""
    game = setup(position(cfg)).build(pile=[FILLER, FILLER], current_player=RED)
    place_filler(game)
    game.apply(Action.floor(*floor))
    if game.phase is not Phase.CAPTURE:
        assert (game.phase, game.current_player) == (Phase.PLACE, BLUE)
        return set()
    return set(game.legal_actions()) - {NO_CAPTURE}


def monks(builder: PositionBuilder, owner: int, *where: tuple[int, int]) -> PositionBuilder:
    for x, y in where:
        builder.tile("base/L", x, y).follower(owner, x, y, 0)
    return builder


# ----------------------------------------------------------------------------------- range variants
def _hole_at_1_0(b: PositionBuilder) -> PositionBuilder:
    """A 1-floor tower at (0,0); (1,0) empty; Blue monks at (2,0) and at (−2,0) behind the tile
    (−1,0)."""
    b.tile("tower/F", 0, 0).tower(0, 0, [N]).tile("base/L", -1, 0)
    return monks(b, BLUE, (2, 0), (-2, 0))


def test_tower_blocked_by_holes_drops_targets_behind_a_hole() -> None:
    """§6 tower_blocked_by_holes (E1): with (1,0) empty the monk at (2,0) is out of reach; the one
    at (−2,0), behind a tile, is not affected."""
    default = targets(config(), _hole_at_1_0, (0, 0, N))
    blocked = targets(config(tower_blocked_by_holes=True), _hole_at_1_0, (0, 0, N))
    assert default == {cap(2, 0, 0), cap(-2, 0, 0)}
    assert blocked == {cap(-2, 0, 0)}


def test_tower_blocked_by_holes_towers_do_not_block() -> None:
    """§6 tower_blocked_by_holes: "Towers do not block": a tower at (1,0) keeps (2,0) in reach."""

    def tower_at_1_0(b: PositionBuilder) -> PositionBuilder:
        b.tile("tower/F", 0, 0).tower(0, 0, [N]).tile("tower/F", 1, 0).tower(1, 0, [N, N, N])
        return monks(b, BLUE, (2, 0))

    assert targets(config(tower_blocked_by_holes=True), tower_at_1_0, (0, 0, N)) == {cap(2, 0, 0)}


def test_tower_blocked_by_holes_applies_to_black_diagonals() -> None:
    """§6 / D26: the hole at (1,1) hides (2,2) from a 2-floor black tower under the flag."""

    def diagonal(b: PositionBuilder) -> PositionBuilder:
        b.tile("tower/F", 0, 0).tower(0, 0, [N]).tile("base/L", -1, -1)
        return monks(b, BLUE, (2, 2), (-2, -2))

    default = targets(config(BLACK_TOWER), diagonal, (0, 0, B))
    blocked = targets(config(BLACK_TOWER, tower_blocked_by_holes=True), diagonal, (0, 0, B))
    assert default == {cap(2, 2, 0), cap(-2, -2, 0)}
    assert blocked == {cap(-2, -2, 0)}


def _line(b: PositionBuilder) -> PositionBuilder:
    """A 1-floor tower at (0,0) with Blue monks at (1,0), (2,0) and (1,1)."""
    b.tile("tower/F", 0, 0).tower(0, 0, [N])
    return monks(b, BLUE, (1, 0), (2, 0), (1, 1))


def test_no_surprises_shortens_the_reach_by_one() -> None:
    """§6 no_surprises: after the floor (h = 2) the reach is 1: (2,0) drops out."""
    assert targets(config(), _line, (0, 0, N)) == {cap(1, 0, 0), cap(2, 0, 0)}
    assert targets(config(no_surprises=True), _line, (0, 0, N)) == {cap(1, 0, 0)}


def test_no_surprises_one_floor_tower_reaches_only_its_own_tile() -> None:
    """§6 no_surprises: a first floor on a bare foundation (h = 1) reaches only its own tile."""

    def bare(b: PositionBuilder) -> PositionBuilder:
        b.tile("tower/F", 0, 0).follower(BLUE, 0, 0, 0)
        return monks(b, BLUE, (1, 0))

    assert targets(config(), bare, (0, 0, N)) == {cap(0, 0, 0), cap(1, 0, 0)}
    assert targets(config(no_surprises=True), bare, (0, 0, N)) == {cap(0, 0, 0)}


def test_no_surprises_applies_to_black_towers() -> None:
    """D26: no_surprises shortens black rays too: a 2-floor black tower reaches (1,1), not (2,2)."""

    def diagonal(b: PositionBuilder) -> PositionBuilder:
        b.tile("tower/F", 0, 0).tower(0, 0, [N])
        return monks(b, BLUE, (1, 1), (2, 2))

    assert targets(config(BLACK_TOWER), diagonal, (0, 0, B)) == {cap(1, 1, 0), cap(2, 2, 0)}
    assert targets(config(BLACK_TOWER, no_surprises=True), diagonal, (0, 0, B)) == {cap(1, 1, 0)}


def test_tower_range_manhattan_adds_the_diagonal_neighbour() -> None:
    """§6 tower_range_manhattan (E1): at h = 2, (1,1) is 2 orthogonal steps away and joins."""
    assert targets(config(), _line, (0, 0, N)) == {cap(1, 0, 0), cap(2, 0, 0)}
    assert targets(config(tower_range_manhattan=True), _line, (0, 0, N)) == {
        cap(1, 0, 0), cap(2, 0, 0), cap(1, 1, 0),
    }


def test_tower_range_manhattan_leaves_black_towers_diagonal() -> None:
    """D26: a black floor under tower_range_manhattan still reaches only the diagonals."""
    default = targets(config(BLACK_TOWER), _line, (0, 0, B))
    manhattan = targets(config(BLACK_TOWER, tower_range_manhattan=True), _line, (0, 0, B))
    assert default == manhattan == {cap(1, 1, 0)}


# ----------------------------------------------------------------------------------- capture variants
def _e10_with_monk(b: PositionBuilder) -> PositionBuilder:
    """E10: Yellow tops the 1-floor tower at (0,3); a Blue monk at (0,2); the tower at (0,0) has
    h = 2 and Red's floor brings it to h = 3."""
    b.tile("tower/F", 0, 0).tower(0, 0, [N, N]).tile("tower/F", 0, 3).tower(0, 3, [N]).tower_top(YELLOW, 0, 3)
    return monks(b, BLUE, (0, 2))


def test_tower_top_followers_immune_protects_only_tower_tops() -> None:
    """§6 tower_top_followers_immune (D1, E10): Yellow's top follower stops being a target; the
    monk is still one."""
    assert targets(config(), _e10_with_monk, (0, 0, N)) == {cap(0, 3, TOP), cap(0, 2, 0)}
    assert targets(config(tower_top_followers_immune=True), _e10_with_monk, (0, 0, N)) == {cap(0, 2, 0)}


def _mixed_owners(b: PositionBuilder) -> PositionBuilder:
    """A 1-floor tower at (0,0); Red's monk at (1,0) and Red on top of the tower at (0,2); Blue's
    monk at (−1,0)."""
    b.tile("tower/F", 0, 0).tower(0, 0, [N]).tile("tower/F", 0, 2).tower(0, 2, [N]).tower_top(RED, 0, 2)
    monks(b, RED, (1, 0))
    return monks(b, BLUE, (-1, 0))


def test_capture_opponents_only_removes_own_followers_from_the_targets() -> None:
    """§6 capture_opponents_only (D2): Red's own monk and own top follower stop being targets."""
    assert targets(config(), _mixed_owners, (0, 0, N)) == {cap(1, 0, 0), cap(0, 2, TOP), cap(-1, 0, 0)}
    assert targets(config(capture_opponents_only=True), _mixed_owners, (0, 0, N)) == {cap(-1, 0, 0)}


def _farmer_on_tower_tile(b: PositionBuilder) -> PositionBuilder:
    """A 1-floor tower at (0,0) with a Blue farmer on its own tile and a Blue monk at (1,1)."""
    b.tile("tower/F", 0, 0).tower(0, 0, [N]).follower(BLUE, 0, 0, 0)
    return monks(b, BLUE, (1, 1))


def test_black_tower_excludes_own_tile_drops_the_own_tile_for_black_floors() -> None:
    """§6 black_tower_excludes_own_tile (D8): after a black floor the farmer on the tower's own
    tile is no longer a target; the diagonal monk still is."""
    default = targets(config(BLACK_TOWER), _farmer_on_tower_tile, (0, 0, B))
    excluded = targets(config(BLACK_TOWER, black_tower_excludes_own_tile=True), _farmer_on_tower_tile, (0, 0, B))
    assert default == {cap(0, 0, 0), cap(1, 1, 0)}
    assert excluded == {cap(1, 1, 0)}


def test_black_tower_excludes_own_tile_leaves_normal_floors_alone() -> None:
    """§6 black_tower_excludes_own_tile concerns black towers only: a normal floor still reaches
    its own tile."""
    cfg = config(BLACK_TOWER, black_tower_excludes_own_tile=True)
    assert targets(cfg, _farmer_on_tower_tile, (0, 0, N)) == {cap(0, 0, 0)}


# ----------------------------------------------------------------------------------- ransom
def _ransom_position(cfg: GameConfig) -> Game:
    """E5-like: Red holds one of Blue's followers; Blue has 5 points and is to move."""
    game = position(cfg).score(BLUE, 5).prisoners(RED, BLUE, 1).build(pile=[FILLER, FILLER], current_player=BLUE)
    place_filler(game)
    return game


def test_no_ransom_makes_ransom_illegal() -> None:
    """§6 no_ransom: RANSOM is offered by default and never under the flag; the rest of T3 is the
    same."""
    default = _ransom_position(config())
    no_ransom = _ransom_position(config(no_ransom=True))
    assert set(default.legal_actions()) - set(no_ransom.legal_actions()) == {Action.ransom(RED)}
    assert set(no_ransom.legal_actions()) <= set(default.legal_actions())
    with pytest.raises(IllegalActionError):
        no_ransom.apply(Action.ransom(RED))
    assert no_ransom.scores == (0, 5, 0, 0)
    default.apply(Action.ransom(RED))
    assert default.scores == (3, 2, 0, 0)


# ----------------------------------------------------------------------------------- watchtower variant
def _e6_with_tower_top(cfg: GameConfig) -> Game:
    """E6 plus Yellow on top of a tower at (1,1): Red completes the road at (0,−2) and passes."""
    game = (
        position(cfg)
        .tile("watchtowers/CFRF-meeple", 0, 0).follower(RED, 0, 0, 1)
        .tile("base/RFr", 0, -1, rotation=1)
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 1)
        .tile("base/L", -1, 1).follower(GREEN, -1, 1, 0)
        .tile("tower/F", 1, 1).tower(1, 1, [N]).tower_top(YELLOW, 1, 1)
        .build(pile=["base/RRR", FILLER], current_player=RED)
    )
    game.apply(Action.place(0, -2, 2))
    game.apply(PASS)
    return game


def test_watchtower_ignores_tower_followers_drops_the_tower_top_from_the_count() -> None:
    """§6 watchtower_ignores_tower_followers (D13, E6): the bonus is 8 by default and 6 under the
    flag; the road's 3 points are the same."""
    expansions = with_requirements("tower", "watchtowers")
    default = _e6_with_tower_top(config(expansions))
    ignoring = _e6_with_tower_top(config(expansions, watchtower_ignores_tower_followers=True))
    assert default.scores == (8 + 3, 0, 0, 0)
    assert ignoring.scores == (6 + 3, 0, 0, 0)


# ----------------------------------------------------------------------------------- floors
def test_extra_foundation_tiles_adds_floors() -> None:
    """§6 extra_foundation_tiles (R52): with 4 players, E = 8 gives +2 black, +4 normal and one
    white floor more than the default deal (6 normal, 3 black, 1 white)."""
    default = Game(config(BLACK_TOWER), seed=0).expansion_state("tower")
    extra = Game(config(BLACK_TOWER, extra_foundation_tiles=8), seed=0).expansion_state("tower")
    assert default.floor_supply(RED) == (6, 3, 1)
    assert extra.floor_supply(RED) == (10, 5, 2)


# ----------------------------------------------------------------------------------- config errors
def test_r50_black_tower_without_tower_names_the_expansions_field() -> None:
    """R50: black_tower without tower is a ConfigError naming the ``expansions`` field."""
    with pytest.raises(ConfigError) as err:
        GameConfig(players=2, expansions=("black_tower",))
    assert err.value.field == "expansions"
    with pytest.raises(ConfigError) as err:
        GameConfig(players=2, expansions=tuple(e for e in TOWER_VARIANT if e != "tower"))  # black_tower, no tower
    assert err.value.field == "expansions"


TOWER_FLAGS = [
    "tower_blocked_by_holes",
    "no_ransom",
    "no_surprises",
    "tower_range_manhattan",
    "tower_top_followers_immune",
    "capture_opponents_only",
]


@pytest.mark.parametrize("flag", TOWER_FLAGS)
def test_tower_variant_without_the_tower_is_a_config_error(flag: str) -> None:
    """§6: a tower variant set without the tower expansion raises a ConfigError naming the flag;
    with the tower it is accepted."""
    with pytest.raises(ConfigError) as err:
        config(("watchtowers",), players=2, **{flag: True})
    assert err.value.field == flag
    assert getattr(config(TOWER, players=2, **{flag: True}), flag) is True


@pytest.mark.parametrize(
    ("flag", "value", "without", "with_"),
    [
        ("black_tower_excludes_own_tile", True, TOWER, BLACK_TOWER),
        ("extra_foundation_tiles", 8, TOWER, BLACK_TOWER),
        ("watchtower_ignores_tower_followers", True, TOWER, ("watchtowers",)),
    ],
)
def test_expansion_variant_without_its_expansion_is_a_config_error(
    flag: str, value: Any, without: tuple[str, ...], with_: tuple[str, ...]
) -> None:
    """§6: black_tower_excludes_own_tile and extra_foundation_tiles need black_tower (R52: E
    "matters only with black_tower"); watchtower_ignores_tower_followers needs watchtowers."""
    with pytest.raises(ConfigError) as err:
        config(without, **{flag: value})
    assert err.value.field == flag
    assert getattr(config(with_, **{flag: value}), flag) == value


def test_variant_flags_are_off_by_default() -> None:
    """§6: all variants are off by default (and extra_foundation_tiles is 0)."""
    cfg = GameConfig(players=4, expansions=TOWER_VARIANT)
    for flag in [*TOWER_FLAGS, "black_tower_excludes_own_tile", "watchtower_ignores_tower_followers"]:
        assert getattr(cfg, flag) is False
    assert cfg.extra_foundation_tiles == 0


def test_no_ransom_still_allows_exchange() -> None:
    """§6 no_ransom: prisoners still come back through the automatic exchange (R47)."""
    game = (
        position(config(players=2, no_ransom=True))
        .tile("tower/F", 0, 0).tower(0, 0, [N])
        .tile("base/L", 1, 0).follower(RED, 1, 0, 1)
        .prisoners(RED, BLUE, 1)
        .score(BLUE, 9)
        .build(pile=[FILLER, FILLER], current_player=BLUE)
    )
    place_filler(game)
    assert ActionKind.RANSOM not in {a.kind for a in game.legal_actions()}
    game.apply(Action.floor(0, 0, N))
    game.apply(cap(1, 0, 1))
    st = game.expansion_state("tower")
    assert (st.prisoner_count(RED, BLUE), st.prisoner_count(BLUE, RED)) == (0, 0)
    assert game.supply == (7, 7)

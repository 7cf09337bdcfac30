"""Rulebook tests for the base game (docs/rules.md §1, §5, §7, §8).

Every test builds a concrete board position and checks an outcome worked out by hand from the
rules; none of them asks the engine for its own expectation. Test names and docstrings cite the
rule (R1–R30), decision (D16–D19, D25, D27, D28) or worked example (E8, E9) they check.

Geometry reminders (C1, C2 and ``shared/rules/README.md``):

* x grows east, y grows north; N of (x, y) is (x, y+1), E is (x+1, y).
* A tile's segment *slot* is the index of the feature in that tile's ``features`` list.
* Rotation k turns the tile k quarter-turns clockwise: edge e -> (e + k) % 4 and half-edge
  h -> (h + 2k) % 8. So ``base/C`` (city N) shows its city N / E / S / W at rotation 0 / 1 / 2 / 3.

Tiles used, with their slots at rotation 0 (from tiles.json):

* ``base/RCr`` (D, start): 0 city N, 1 road E–W, 2 field {EL, WR} (borders city 0), 3 field south.
* ``base/C`` (E): 0 city N, 1 field on the other six half-edges (borders city 0).
* ``base/CFc+`` (F) / ``base/CFc.1`` (G): 0 city E–W (1 / 0 pennants), 1 field N, 2 field S.
* ``base/Cc.1`` (N) / ``base/Cc+`` (M): 0 city N+W (0 / 1 pennant), 1 field E+S.
* ``base/RFr`` (U): 0 road E–W, 1 field N side, 2 field S side.
* ``base/Rr`` (V): 0 road S–W curve, 1 outer field, 2 inner corner field {SR, WL}.
* ``base/RRR`` (W): 0 road E, 1 road S, 2 road W (each ends at the junction), 3–5 fields.
* ``base/RRRR`` (X): 0–3 roads N, E, S, W (each ends at the junction), 4–7 fields.
* ``base/CRRR`` (L): 0 city N, 1 road E, 2 road S, 3 road W (each ends at the junction), 4–6 fields.
* ``base/L`` (B): 0 monastery, 1 field. ``base/LR`` (A): 0 road S (ends at the monastery),
  1 monastery, 2 field.
* ``base/CccR+`` (S): 0 city N+E+W with pennant, 1 road S, 2–3 fields. ``base/Cccc+`` (C): 0 city.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from scenario import BLUE, GREEN, RED, YELLOW, N

from carcassonne_env.engine import (
    Action,
    ActionKind,
    ConfigError,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
    SegmentKind,
    load_catalogue,
)
from carcassonne_env.engine.actions import PASS
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT

TileSpec = tuple[str, int, int, int]
"""(tile id, x, y, rotation)."""
FollowerSpec = tuple[int, int, int, int]
"""(player, x, y, slot)."""


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def build(
    tiles: Iterable[TileSpec],
    *,
    followers: Iterable[FollowerSpec] = (),
    pile: Iterable[str] = (),
    players: int = 2,
    current_player: int = 0,
    config: GameConfig | None = None,
) -> Game:
    """A game in a hand-built position (docs/rules.md §8: a test may build the position directly)."""
    builder = PositionBuilder(config or GameConfig(players=players))
    for tile_id, x, y, rotation in tiles:
        builder = builder.tile(tile_id, x, y, rotation=rotation)
    for player, x, y, slot in followers:
        builder = builder.follower(player, x, y, slot)
    return builder.build(pile=list(pile), current_player=current_player)


def placements(game: Game) -> set[tuple[int, int, int]]:
    """Every legal PLACE action as (x, y, rotation)."""
    return {(a.x, a.y, a.arg) for a in game.legal_actions() if a.kind == ActionKind.PLACE}


def placements_at(game: Game, x: int, y: int) -> set[int]:
    """The legal rotations at (x, y)."""
    return {rot for (px, py, rot) in placements(game) if (px, py) == (x, y)}


def deploy_slots(game: Game) -> set[tuple[int, int, int]]:
    """Every legal DEPLOY action as (x, y, slot)."""
    return {(a.x, a.y, a.arg) for a in game.legal_actions() if a.kind == ActionKind.DEPLOY}


def play_turn(game: Game, x: int, y: int, rotation: int, deploy: int | None = None) -> None:
    """One whole turn: place the drawn tile, then DEPLOY on ``deploy`` (a slot) or PASS."""
    game.apply(Action.place(x, y, rotation))
    game.apply(PASS if deploy is None else Action.deploy(x, y, deploy))


def follower_spots(game: Game) -> set[tuple[int, int, int, int]]:
    """Followers on segments as (player, x, y, slot)."""
    return {(f.owner, f.x, f.y, f.slot) for f in game.followers()}


def start_game(pile: Iterable[str], players: int = 2, config: GameConfig | None = None) -> Game:
    """A game grown from the start tile with an explicit draw pile."""
    return Game(config or GameConfig(players=players), tile_order=list(pile))


# ---------------------------------------------------------------------------------------------
# §1.1 Components and setup
# ---------------------------------------------------------------------------------------------
def test_r1_base_set_has_72_tiles_of_24_types_and_start_tile_is_d() -> None:
    """R1: 72 base tiles of 24 types, letters A–X; one type-D tile (base/RCr) is the start tile."""
    cat = load_catalogue()
    base = cat.sets["base"]
    assert len(base) == 24
    assert sum(t.count for t in base) == 72
    assert sorted(t.letter for t in base) == [chr(c) for c in range(ord("A"), ord("X") + 1)]
    assert cat.start.id == "base/RCr"
    assert cat.start.letter == "D"
    assert cat.by_id["base/RCr"].count == 4


def test_r1_r4_seeded_game_pile_holds_the_71_other_base_tiles() -> None:
    """R1, R4: the start tile lies at (0,0); the other 71 base tiles form the pile.

    After the first draw 70 are left; the public multiset plus the drawn tile is the whole base set
    minus the one start copy (e.g. 3 of the 4 type-D tiles, all 8 type-U tiles).
    """
    g = Game(GameConfig(players=2), seed=5)
    cat = load_catalogue()
    assert g.tiles_left == 70
    assert sum(g.remaining_counts) == 70
    in_pile = list(g.remaining_counts)
    assert g.current_tile is not None
    in_pile[g.current_tile.index] += 1
    assert in_pile[cat.by_id["base/RCr"].index] == 3
    assert in_pile[cat.by_id["base/RFr"].index] == 8
    assert in_pile[cat.by_id["base/Rr"].index] == 9
    assert in_pile[cat.by_id["base/Cccc+"].index] == 1
    assert sum(in_pile) == 71


def test_r2_each_player_starts_with_seven_followers_and_zero_points() -> None:
    """R2: each player has 7 followers; scores start at 0."""
    g = Game(GameConfig(players=5), seed=1)
    assert g.supply == (7, 7, 7, 7, 7)
    assert g.scores == (0, 0, 0, 0, 0)


def test_r2_scores_have_no_upper_bound_beyond_fifty() -> None:
    """R2: the 50-point track is not modelled, so 48 + a 2-tile city (4) = 52, not 2."""
    g = (
        PositionBuilder(GameConfig(players=2))
        .tile("base/C", 0, 0, rotation=0)
        .follower(RED, 0, 0, 0)
        .score(RED, 48)
        .build(pile=["base/C"])
    )
    play_turn(g, 0, 1, 2)  # city S closes the city N of (0,0)
    assert g.scores == (52, 0)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r3_two_to_six_players_are_accepted(players: int) -> None:
    """R3 / D18: 2–6 players; the env imposes no component limit (6 players × 7 followers)."""
    g = Game(GameConfig(players=players), seed=0)
    assert g.num_players == players
    assert g.supply == (7,) * players


@pytest.mark.parametrize("players", [0, 1, 7])
def test_r3_player_counts_outside_two_to_six_are_config_errors(players: int) -> None:
    """R3: fewer than 2 or more than 6 players is a configuration error."""
    with pytest.raises(ConfigError):
        GameConfig(players=players)


def test_d18_six_players_with_every_expansion_is_a_valid_config() -> None:
    """D18: 2–6 players with any expansion combination."""
    cfg = GameConfig(players=6, expansions=TOWER_VARIANT)
    assert cfg.players == 6
    assert Game(cfg, seed=2).supply == (7,) * 6


def test_r4_start_tile_at_origin_rotation_zero_with_city_north_road_east_west() -> None:
    """R4: the start tile base/RCr lies at (0,0), rotation 0: city N, road E–W."""
    g = Game(GameConfig(players=2), seed=9)
    placed = g.tile_at(0, 0)
    assert placed is not None
    assert (placed.tile.id, placed.rotation) == ("base/RCr", 0)
    assert len(g.tiles()) == 1
    city = g.feature(0, 0, 0)
    road = g.feature(0, 0, 1)
    assert (city.kind, city.open_edges) == (SegmentKind.CITY, 1)
    assert (road.kind, road.open_edges) == (SegmentKind.ROAD, 2)


def test_r4_start_tile_orientation_fixes_where_a_city_cap_fits() -> None:
    """R4, R11: with city N and road E–W, a base/C fits N only with rotation 2 (city S) and S with
    any rotation but 0 (N must be field); nothing fits E or W (those need a road)."""
    g = start_game(["base/C"])
    assert placements(g) == {(0, 1, 2), (0, -1, 1), (0, -1, 2), (0, -1, 3)}


def test_r4_pile_order_comes_from_the_seed() -> None:
    """R4: the pile is shuffled from the env seed: one seed gives one order, seeds differ."""
    firsts = []
    for seed in range(12):
        a = Game(GameConfig(players=2), seed=seed)
        b = Game(GameConfig(players=2), seed=seed)
        assert a.current_tile is b.current_tile
        firsts.append(a.current_tile)
    assert len(set(firsts)) > 1


# ---------------------------------------------------------------------------------------------
# §1.2 Features
# ---------------------------------------------------------------------------------------------
def test_r5_segment_kinds_of_start_tile_and_monastery_tiles() -> None:
    """R5: a tile holds city, road, field and monastery segments; a monastery has no edges."""
    cat = load_catalogue()
    C, R, F, M = SegmentKind.CITY, SegmentKind.ROAD, SegmentKind.FIELD, SegmentKind.MONASTERY
    assert cat.by_id["base/RCr"].segment_kinds == (C, R, F, F)
    assert cat.by_id["base/LR"].segment_kinds == (R, M, F)
    assert cat.by_id["base/RRRR"].segment_kinds == (R, R, R, R, F, F, F, F)
    g = build([("base/LR", 0, 0, 0)], pile=["base/RFr"])
    monastery = g.feature(0, 0, 1)
    assert monastery.kind == SegmentKind.MONASTERY
    assert monastery.open_edges == 0
    assert monastery.positions == frozenset({(0, 0)})
    dead_end = g.feature(0, 0, 0)
    assert (dead_end.kind, dead_end.open_edges) == (SegmentKind.ROAD, 1)


def test_r6_road_and_fields_join_across_touching_edges_and_half_edges() -> None:
    """R6: roads join through touching road edges, fields through touching half-edges.

    Blue's farmer stands on the start tile's city strip {EL, WR} (slot 2). Red's base/RFr at (1,0)
    rot 0: its road joins the start road; its north field {NL, NR, EL, WR} meets the strip through
    the EL–WR pair, so it holds Blue's farmer and is closed to Red (R15); its south field meets the
    start tile's south field (ER–WL), which is free. The road keeps the two fields apart.
    """
    g = build([("base/RCr", 0, 0, 0)], followers=[(BLUE, 0, 0, 2)], pile=["base/RFr", "base/RFr"])
    g.apply(Action.place(1, 0, 0))
    both = frozenset({(0, 0), (1, 0)})
    assert g.feature(0, 0, 1).positions == both
    assert g.feature(1, 0, 0).positions == both
    north = g.feature(1, 0, 1)
    south = g.feature(1, 0, 2)
    assert north.kind == south.kind == SegmentKind.FIELD
    assert north.followers == (0, 1)
    assert south.followers == (0, 0)
    assert g.feature(0, 0, 3).followers == (0, 0)
    assert deploy_slots(g) == {(1, 0, 0), (1, 0, 2)}
    # the city N of the start tile is untouched
    assert g.feature(0, 0, 0).positions == frozenset({(0, 0)})


def test_r6_field_feature_reports_every_tile_it_spans() -> None:
    """R6 (feature view): a field joined over several tiles is one feature covering all of them.

    * start tile + base/RFr (1,0): the strip {EL, WR} of (0,0) and the N field of (1,0) are one
      field on {(0,0), (1,0)}; the south fields likewise;
    * base/L (0,0) + base/L (0,1) + base/RFr (1,0) rot 1: the monastery fields and the W-side
      field of the N–S road form one field on all three positions.
    """
    g = start_game(["base/RFr", "base/RFr"])
    play_turn(g, 1, 0, 0)
    both = frozenset({(0, 0), (1, 0)})
    assert g.feature(0, 0, 2).positions == both
    assert g.feature(0, 0, 3).positions == both
    assert g.feature(1, 0, 1).positions == both
    m = build([("base/L", 0, 0, 0), ("base/L", 0, 1, 0), ("base/RFr", 1, 0, 1)], pile=["base/RFr"])
    assert m.feature(0, 1, 1).positions == frozenset({(0, 0), (0, 1), (1, 0)})


def test_r6_monastery_is_a_feature_of_its_own() -> None:
    """R6: a monastery never joins anything, even with tiles all around; the fields of the two
    monastery tiles do join (Red's farmer on (0,1) blocks the field of (0,0))."""
    g = build(
        [("base/L", 0, 0, 0), ("base/L", 0, 1, 0), ("base/RFr", 1, 0, 1)],
        followers=[(RED, 0, 1, 1)],
        pile=["base/RFr"],
    )
    assert g.feature(0, 0, 0).positions == frozenset({(0, 0)})
    assert g.feature(0, 1, 0).positions == frozenset({(0, 1)})
    assert g.feature(0, 0, 0) != g.feature(0, 1, 0)
    assert g.feature(0, 0, 1).followers == (1, 0)


def _four_corner_city(last_tile_placed: bool) -> list[TileSpec]:
    """A ring city round the 2×2 block (-1..0, 0..1).

    (0,0) base/CC.2 rot 0: two separate caps, city N (slot 0) and city W (slot 1).
    (0,1) base/Cc.1 rot 3: city W+S.   (-1,0) base/Cc+ rot 1: city N+E, pennant.
    (-1,1) base/Cc+ rot 2: city E+S, pennant (the tile that closes the ring).
    """
    tiles: list[TileSpec] = [
        ("base/CC.2", 0, 0, 0),
        ("base/Cc.1", 0, 1, 3),
        ("base/Cc+", -1, 0, 1),
    ]
    if last_tile_placed:
        tiles.append(("base/Cc+", -1, 1, 2))
    return tiles


def test_r7_r19_r23_ring_city_counts_a_tile_with_two_of_its_segments_once() -> None:
    """R7: size is the number of distinct positions; a tile with two segments of one city counts
    once. R19: the closed ring has no open edge. R23: 2 × 4 tiles + 2 × 2 pennants = 12.

    The ring holds 5 segments on 4 tiles ((0,0) contributes both its caps).
    """
    g = build(_four_corner_city(False), followers=[(RED, 0, 0, 0)], pile=["base/Cc+"])
    # before: two separate open cities
    assert g.feature(0, 0, 0).positions == frozenset({(0, 0), (0, 1)})
    assert g.feature(0, 0, 1).positions == frozenset({(0, 0), (-1, 0)})
    assert g.feature(0, 0, 0).open_edges == 1
    assert placements_at(g, -1, 1) == {2}
    g.apply(Action.place(-1, 1, 2))
    ring = g.feature(0, 0, 0)
    assert ring == g.feature(0, 0, 1)
    assert ring.size == 4
    assert ring.pennants == 2
    assert ring.open_edges == 0
    assert ring.complete
    g.apply(PASS)
    assert g.scores == (12, 0)
    assert g.supply == (7, 7)


def test_r8_open_edges_count_city_and_road_edges_facing_empty_positions() -> None:
    """R8: start tile alone: city 1 open edge, road 2. After a straight road tile at (1,0) the road
    still has 2 (start W, new tile E); a curve loop short of one tile has 2 open ends."""
    g = start_game(["base/RFr", "base/C"])
    assert g.feature(0, 0, 0).open_edges == 1
    assert g.feature(0, 0, 1).open_edges == 2
    play_turn(g, 1, 0, 0)
    assert g.feature(0, 0, 1).open_edges == 2
    loop = build(
        [("base/Rr", 0, 0, 2), ("base/Rr", 1, 0, 1), ("base/Rr", 0, 1, 3)],
        pile=["base/Rr"],
    )
    road = loop.feature(0, 0, 0)
    assert road.size == 3
    assert road.open_edges == 2


# ---------------------------------------------------------------------------------------------
# §1.3 Turn structure, §1.4 placement
# ---------------------------------------------------------------------------------------------
def test_r9_turn_is_tile_then_action_then_scoring_then_next_seat() -> None:
    """R9: phase 1 tile, phase 2 action, phase 3 scoring, then the next player in seat order.

    Red closes the start city with base/C at (0,1) rot 2 and deploys a knight on it: nothing is
    scored while the action is pending; the 2-tile city (4) scores after it.
    """
    g = start_game(["base/C", "base/RFr", "base/RFr", "base/RFr"], players=3)
    assert (g.phase, g.current_player) == (Phase.PLACE, RED)
    with pytest.raises(IllegalActionError):
        g.apply(PASS)  # no action before the tile is placed
    g.apply(Action.place(0, 1, 2))
    assert g.phase == Phase.ACTION
    assert g.current_player == RED
    assert g.scores == (0, 0, 0)
    with pytest.raises(IllegalActionError):
        g.apply(Action.place(0, -1, 0))  # one tile per turn
    g.apply(Action.deploy(0, 1, 0))
    assert g.scores == (4, 0, 0)
    assert (g.phase, g.current_player) == (Phase.PLACE, BLUE)
    play_turn(g, 1, 0, 0)
    assert g.current_player == GREEN
    play_turn(g, 2, 0, 0)
    assert g.current_player == RED


def test_r10_player_draws_the_top_tile_of_the_pile_in_order() -> None:
    """R10: the top tile is drawn and shown; the next player draws the next one."""
    g = start_game(["base/C", "base/RFr", "base/L"])
    assert g.current_tile is not None and g.current_tile.id == "base/C"
    assert g.tiles_left == 2
    play_turn(g, 0, 1, 2)
    assert g.current_tile is not None and g.current_tile.id == "base/RFr"
    assert g.current_player == BLUE
    assert g.tiles_left == 1
    play_turn(g, 1, 0, 0)
    assert g.current_tile is not None and g.current_tile.id == "base/L"
    assert g.tiles_left == 0


def test_r11_placement_needs_an_empty_orthogonally_adjacent_position() -> None:
    """R11: occupied positions, corner-only contact and far positions are illegal."""
    g = start_game(["base/L"])
    # base/L (all field) fits only S of the start tile, in any rotation
    assert placements(g) == {(0, -1, 0), (0, -1, 1), (0, -1, 2), (0, -1, 3)}
    for bad in (Action.place(0, 0, 0), Action.place(1, -1, 0), Action.place(1, 1, 0), Action.place(0, -2, 0)):
        with pytest.raises(IllegalActionError):
            g.apply(bad)
    assert g.phase == Phase.PLACE
    assert len(g.tiles()) == 1


def test_r11_every_touching_edge_must_match_not_just_one() -> None:
    """R11: at (1,0) the W edge meets the start road and the N edge meets the city S of base/C at
    (1,1). base/C needs N city and W road at once: no rotation does that, so (1,0) is illegal even
    though rotation 0 matches the north neighbour. base/RrC (K, rot 0: N city, W road) fits."""
    tiles: list[TileSpec] = [("base/RCr", 0, 0, 0), ("base/C", 1, 1, 2)]
    g = build(tiles, pile=["base/C"])
    assert placements_at(g, 1, 0) == set()
    with pytest.raises(IllegalActionError):
        g.apply(Action.place(1, 0, 0))
    k = build(tiles, pile=["base/RrC"])
    assert placements_at(k, 1, 0) == {0}


def test_r11_terrains_must_match_city_city_road_road_field_field() -> None:
    """R11: base/RFr (road E–W) next to the start tile: E and W need a road on the touching edge
    (rotations 0 and 2), S needs a field (rotations 0 and 2), N needs a city (none)."""
    g = start_game(["base/RFr"])
    assert placements(g) == {(1, 0, 0), (1, 0, 2), (-1, 0, 0), (-1, 0, 2), (0, -1, 0), (0, -1, 2)}
    with pytest.raises(IllegalActionError):
        g.apply(Action.place(1, 0, 1))  # field against road


def test_r12_a_placeable_tile_must_be_placed_and_any_legal_placement_may_be_chosen() -> None:
    """R12: in phase 1 only PLACE actions are offered (no pass); each legal placement is accepted."""
    g = start_game(["base/RFr", "base/RFr"])
    legal = g.legal_actions()
    assert {a.kind for a in legal} == {ActionKind.PLACE}
    with pytest.raises(IllegalActionError):
        g.apply(PASS)
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(0, 0, 1))
    for action in list(legal):
        copy = g.clone()
        copy.apply(action)
        assert copy.phase == Phase.ACTION
        placed = copy.tile_at(action.x, action.y)
        assert placed is not None and (placed.tile.id, placed.rotation) == ("base/RFr", action.arg)


def test_r13_d19_unplaceable_tile_is_discarded_and_same_player_draws_again() -> None:
    """R13 / D19: around the all-city base/Cccc+ every position needs a city edge, so base/L
    (all field) cannot be placed: it leaves the game face up and the same player draws again."""
    g = build([("base/Cccc+", 0, 0, 0)], pile=["base/L", "base/C"], players=3, current_player=1)
    assert [t.id for t in g.discarded] == ["base/L"]
    assert g.current_player == 1
    assert g.current_tile is not None and g.current_tile.id == "base/C"
    assert g.phase == Phase.PLACE
    assert g.tiles_left == 0
    assert g.remaining_counts[load_catalogue().by_id["base/L"].index] == 0


def test_r13_d19_discard_during_the_game_keeps_the_drawing_player() -> None:
    """R13 / D19 mid-game: Red places base/CccR+ N of the crossroads (its S road on the N road),
    leaving only city and road requirements on the frontier. Blue's base/L cannot go anywhere and
    is discarded; Blue (not Green) draws again and gets base/RFr."""
    g = build(
        [("base/RRRR", 0, 0, 0)],
        pile=["base/CccR+", "base/L", "base/RFr"],
        players=3,
    )
    play_turn(g, 0, 1, 0)
    assert [t.id for t in g.discarded] == ["base/L"]
    assert g.current_player == BLUE
    assert g.current_tile is not None and g.current_tile.id == "base/RFr"
    assert g.phase == Phase.PLACE


def test_r13_r26_d19_pile_emptied_by_discards_ends_the_game() -> None:
    """R13, R26, D19: if discarding empties the pile the game ends; the drawer has no turn."""
    g = build(
        [("base/RRRR", 0, 0, 0)],
        pile=["base/CccR+", "base/L"],
        players=2,
        followers=[(BLUE, 0, 0, 3)],
    )
    play_turn(g, 0, 1, 0)
    assert g.is_over
    assert g.phase == Phase.GAME_OVER
    assert [t.id for t in g.discarded] == ["base/L"]
    assert g.tiles_placed == 2
    assert g.legal_actions() == []
    # final scoring ran: Blue's thief on the 1-tile W road of the crossroads scores 1 (R27)
    assert g.scores == (0, 1)


def test_d19_pile_of_only_unplaceable_tiles_ends_the_game_before_anyone_moves() -> None:
    """D19: every remaining tile is unplaceable, so the game is over at once."""
    g = build([("base/Cccc+", 0, 0, 0)], pile=["base/L", "base/RFr"])
    assert g.is_over
    assert [t.id for t in g.discarded] == ["base/L", "base/RFr"]
    assert g.scores == (0, 0)


# ---------------------------------------------------------------------------------------------
# §1.5 Follower deployment
# ---------------------------------------------------------------------------------------------
def test_r14_deploy_on_any_free_segment_of_the_tile_just_placed() -> None:
    """R14: after base/RFr at (1,0) the player may deploy a thief (slot 0) or a farmer (slots 1, 2)
    on that tile, or pass; a follower leaves the supply."""
    g = start_game(["base/RFr", "base/L"])
    g.apply(Action.place(1, 0, 0))
    assert deploy_slots(g) == {(1, 0, 0), (1, 0, 1), (1, 0, 2)}
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(0, 0, 0))  # not the tile just placed
    g.apply(Action.deploy(1, 0, 0))
    assert follower_spots(g) == {(RED, 1, 0, 0)}
    assert g.supply == (6, 7)


def test_r14_monk_on_a_monastery_tile() -> None:
    """R14: on base/L the player may place a monk (slot 0) or a farmer (slot 1)."""
    g = start_game(["base/L"])
    g.apply(Action.place(0, -1, 0))
    assert deploy_slots(g) == {(0, -1, 0), (0, -1, 1)}
    g.apply(Action.deploy(0, -1, 0))
    assert follower_spots(g) == {(RED, 0, -1, 0)}


def test_r14_r18_no_deploy_with_an_empty_supply() -> None:
    """R14: followers come from the supply. Red has all 7 on the crossroads, so only PASS remains."""
    g = build(
        [("base/RRRR", 0, 0, 0)],
        followers=[(RED, 0, 0, s) for s in range(7)],
        pile=["base/RFr", "base/RFr"],
    )
    assert g.supply == (0, 7)
    g.apply(Action.place(1, 0, 0))
    assert list(g.legal_actions()) == [PASS]
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(1, 0, 1))


def test_r15_no_deploy_on_a_feature_with_an_opponents_follower() -> None:
    """R15: Blue's thief is on the start road; base/RFr at (1,0) joins that road, so Red may not
    deploy on its road, but its fields are free."""
    g = build([("base/RCr", 0, 0, 0)], followers=[(BLUE, 0, 0, 1)], pile=["base/RFr"])
    g.apply(Action.place(1, 0, 0))
    assert deploy_slots(g) == {(1, 0, 1), (1, 0, 2)}
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(1, 0, 0))


def test_r15_own_follower_also_blocks_the_feature() -> None:
    """R15: the deploying player's own follower blocks the feature too."""
    g = build([("base/RCr", 0, 0, 0)], followers=[(RED, 0, 0, 1)], pile=["base/RFr"])
    g.apply(Action.place(1, 0, 0))
    assert (1, 0, 0) not in deploy_slots(g)
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(1, 0, 0))


def test_r15_feature_is_taken_after_the_new_tile_joins_everything() -> None:
    """R15: roads at (0,0) (Blue's thief) and (2,0) (free) are separate until base/RFr at (1,0)
    bridges them; the joined road is occupied, so no thief on (1,0)."""
    g = build(
        [("base/RFr", 0, 0, 0), ("base/RFr", 2, 0, 0)],
        followers=[(BLUE, 0, 0, 0)],
        pile=["base/RFr"],
    )
    assert g.feature(2, 0, 0).followers == (0, 0)
    g.apply(Action.place(1, 0, 0))
    assert g.feature(2, 0, 0).followers == (0, 1)
    assert (1, 0, 0) not in deploy_slots(g)


def test_r16_deploy_on_a_feature_completed_this_turn_scores_at_once() -> None:
    """R16: base/C at (0,1) rot 2 closes the start city; a knight on it scores 2 × 2 = 4 in the
    same turn and returns to the supply."""
    g = start_game(["base/C", "base/RFr"])
    g.apply(Action.place(0, 1, 2))
    assert (0, 1, 0) in deploy_slots(g)
    g.apply(Action.deploy(0, 1, 0))
    assert g.scores == (4, 0)
    assert g.supply == (7, 7)
    assert follower_spots(g) == set()


def test_r17_no_follower_on_a_watchtower() -> None:
    """R17 / R61: watchtowers/CFRF-meeple at (1,0) rot 1 (N field, E city, S field, W road):
    the only DEPLOY targets are its 4 segments (slots 0–3); the watchtower is no slot."""
    cfg = GameConfig(players=2, expansions=("watchtowers",))
    g = start_game(["watchtowers/CFRF-meeple"], config=cfg)
    g.apply(Action.place(1, 0, 1))
    assert deploy_slots(g) == {(1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 0, 3)}
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(1, 0, 4))


def test_r17_no_follower_on_a_tower_foundation() -> None:
    """R17 / R37: tower/F (one field, one foundation) at (0,-1): DEPLOY only on the field
    (slot 0); no follower may go on the bare foundation, so no TOWER_TOP is offered."""
    cfg = GameConfig(players=2, expansions=("tower",))
    g = start_game(["tower/F"], config=cfg)
    g.apply(Action.place(0, -1, 0))
    assert deploy_slots(g) == {(0, -1, 0)}
    assert ActionKind.TOWER_TOP not in {a.kind for a in g.legal_actions()}
    with pytest.raises(IllegalActionError):
        g.apply(Action.tower_top(0, -1))
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(0, -1, 1))


def test_r18_at_most_one_follower_per_turn_and_followers_stay_put() -> None:
    """R18: after one DEPLOY the turn is over; the follower stays where it was put over later
    turns; the action phase offers nothing that moves or takes back a follower."""
    g = start_game(["base/RFr", "base/RFr", "base/RFr"])
    g.apply(Action.place(1, 0, 0))
    g.apply(Action.deploy(1, 0, 1))
    assert (g.phase, g.current_player) == (Phase.PLACE, BLUE)
    with pytest.raises(IllegalActionError):
        g.apply(Action.deploy(1, 0, 2))
    g.apply(Action.place(2, 0, 0))
    kinds = {a.kind for a in g.legal_actions()}
    assert kinds == {ActionKind.DEPLOY, ActionKind.PASS}
    assert {(a.x, a.y) for a in g.legal_actions() if a.kind == ActionKind.DEPLOY} == {(2, 0)}
    g.apply(PASS)
    play_turn(g, -1, 0, 0)
    assert follower_spots(g) == {(RED, 1, 0, 1)}
    assert g.supply == (6, 7)


# ---------------------------------------------------------------------------------------------
# §1.6 Completion and scoring during the game
# ---------------------------------------------------------------------------------------------
def test_r19_road_from_a_monastery_to_a_junction_is_complete() -> None:
    """R19, R23: the road of base/LR at (0,0) ends at its monastery; base/CRRR at (0,-1) rot 3
    (N road, E road, S road, W city) ends it at the junction: a complete 2-tile road worth 2."""
    g = build([("base/LR", 0, 0, 0)], followers=[(RED, 0, 0, 0)], pile=["base/CRRR"])
    assert g.feature(0, 0, 0).open_edges == 1
    g.apply(Action.place(0, -1, 3))
    road = g.feature(0, 0, 0)
    assert road.complete
    assert road.positions == frozenset({(0, 0), (0, -1)})
    g.apply(PASS)
    assert g.scores == (2, 0)
    assert g.supply == (7, 7)


def test_r19_r21_closed_road_loop_completes_but_its_enclosed_field_does_not() -> None:
    """R19: four base/Rr curves make a closed loop with no open edge: 4 points for Red's thief.
    R21: the field enclosed by the loop (inner corners, slot 2) never completes; Blue's farmer on
    it scores nothing and stays on the board."""
    g = build(
        [("base/Rr", 0, 0, 2), ("base/Rr", 1, 0, 1), ("base/Rr", 0, 1, 3)],
        followers=[(RED, 0, 0, 0), (BLUE, 0, 0, 2)],
        pile=["base/Rr", "base/RFr"],
    )
    assert placements_at(g, 1, 1) == {0}
    play_turn(g, 1, 1, 0)
    loop = g.feature(0, 0, 0)
    assert loop.size == 4 and loop.open_edges == 0
    inner = g.feature(1, 1, 2)  # inner corner {SR, WL} of the closing tile: same field as (0,0)'s
    assert inner.kind == SegmentKind.FIELD
    assert inner.followers == (0, 1)
    assert not inner.complete
    assert g.scores == (4, 0)
    assert g.supply == (7, 6)
    assert follower_spots(g) == {(BLUE, 0, 0, 2)}


def _monastery_ring(skip: tuple[int, int] | None) -> list[TileSpec]:
    """base/L at (0,0) and its ring: base/RFr rot 0 on rows y = ±1, base/C with the city facing
    away at (-1,0) (rot 3) and (1,0) (rot 1). All edges towards the monastery are field."""
    ring: list[TileSpec] = [
        ("base/RFr", -1, 1, 0), ("base/RFr", 0, 1, 0), ("base/RFr", 1, 1, 0),
        ("base/C", -1, 0, 3), ("base/C", 1, 0, 1),
        ("base/RFr", -1, -1, 0), ("base/RFr", 0, -1, 0), ("base/RFr", 1, -1, 0),
    ]
    return [("base/L", 0, 0, 0), *(t for t in ring if (t[1], t[2]) != skip)]


def test_r20_r22_eighth_ring_tile_completes_a_monastery_worth_nine() -> None:
    """R20: complete when all 8 ring positions hold tiles. R22: it scores on the turn the placed
    tile lands in its ring. R23: 9 points, and Blue's monk returns."""
    g = build(_monastery_ring(skip=(1, -1)), followers=[(BLUE, 0, 0, 0)], pile=["base/RFr", "base/L"])
    assert not g.monastery_complete(0, 0)
    play_turn(g, 1, -1, 0)
    assert g.monastery_complete(0, 0)
    assert g.scores == (0, 9)
    assert g.supply == (7, 7)


def test_r20_orthogonal_neighbours_alone_do_not_complete_a_monastery() -> None:
    """R20: the ring includes the diagonals. With the 4 orthogonal neighbours filled the
    monastery at (0,0) is still incomplete, and placing (0,1) scores nothing."""
    g = build(
        [("base/L", 0, 0, 0), ("base/C", -1, 0, 3), ("base/C", 1, 0, 1), ("base/RFr", 0, -1, 0)],
        followers=[(BLUE, 0, 0, 0)],
        pile=["base/RFr", "base/L"],
    )
    play_turn(g, 0, 1, 0)
    assert not g.monastery_complete(0, 0)
    assert g.scores == (0, 0)
    assert follower_spots(g) == {(BLUE, 0, 0, 0)}


def test_r16_r20_r22_monastery_placed_into_a_full_ring_scores_the_monk_at_once() -> None:
    """R22: a monastery on the placed tile counts too. base/L into the hole of a full ring is
    complete at once (R20); a monk deployed on it (R16) scores 9 this turn."""
    ring = [t for t in _monastery_ring(skip=None) if t[0] != "base/L"]
    g = build(ring, pile=["base/L", "base/RFr"])
    g.apply(Action.place(0, 0, 0))
    g.apply(Action.deploy(0, 0, 0))
    assert g.scores == (9, 0)
    assert g.supply == (7, 7)


@pytest.mark.parametrize(("tiles", "followers", "pile", "at", "scores"), [
    # base/CRRR at (2,0) rot 0 ends the road (0,0)-(1,0)-(2,0) at its W junction arm and closes the city
    # cap at (2,1): Red's thief scores the 3-tile road (3), Blue's knight the 2-tile city (4).
    pytest.param([("base/RRR", 0, 0, 0), ("base/RFr", 1, 0, 0), ("base/C", 2, 1, 2)],
                 [(RED, 1, 0, 0), (BLUE, 2, 1, 0)], ["base/CRRR", "base/RFr"], (2, 0, 0), (3, 4, 0),
                 id="road_and_city"),
    # Monasteries at (0,0) (Red's monk) and (1,0) (Blue's monk) share the ring hole (0,1): base/RFr there
    # completes both, 9 each.
    pytest.param([("base/L", 0, 0, 0), ("base/L", 1, 0, 0),
                  ("base/RFr", -1, 1, 0), ("base/RFr", 1, 1, 0), ("base/RFr", 2, 1, 0),
                  ("base/C", -1, 0, 3), ("base/C", 2, 0, 1),
                  ("base/RFr", -1, -1, 0), ("base/RFr", 0, -1, 0), ("base/RFr", 1, -1, 0), ("base/RFr", 2, -1, 0)],
                 [(RED, 0, 0, 0), (BLUE, 1, 0, 0)], ["base/RFr", "base/L"], (0, 1, 0), (9, 9, 0),
                 id="two_monasteries"),
])
def test_r22_one_tile_completes_several_features_and_each_scores(
    tiles: list[TileSpec], followers: list[FollowerSpec], pile: list[str], at: tuple[int, int, int],
    scores: tuple[int, int, int],
) -> None:
    """R22: every feature the placed tile completes scores, each for its own followers, who all return
    (R24); Green placed the tile and scores nothing."""
    g = build(tiles, followers=followers, pile=pile, players=3, current_player=GREEN)
    play_turn(g, *at)
    assert g.scores == scores
    assert g.supply == (7, 7, 7)
    assert follower_spots(g) == set()


def test_r22_a_feature_completes_and_scores_exactly_once() -> None:
    """R22: after the city scored, later tiles (one next to the finished city) score nothing more;
    the follower is back in the supply and the score stays 4 through the end of the game."""
    g = start_game(["base/C", "base/RFr", "base/RFr"])
    play_turn(g, 0, 1, 2, deploy=0)
    assert g.scores == (4, 0)
    play_turn(g, 1, 0, 0)
    play_turn(g, -1, 0, 0)
    assert g.is_over
    assert g.scores == (4, 0)
    assert g.feature(0, 0, 0).complete


def test_r23_d16_two_tile_city_scores_four() -> None:
    """R23 / D16: a completed 2-tile city without pennants scores 2 × 2 = 4 (E9 gives 4 + 2 per
    pennant; no single-edge city segment in tiles.json carries a pennant)."""
    g = build([("base/C", 0, 0, 0)], followers=[(BLUE, 0, 0, 0)], pile=["base/C"])
    play_turn(g, 0, 1, 2)
    assert g.scores == (0, 4)


def test_r23_three_tile_city_scores_two_per_tile_plus_two_per_pennant() -> None:
    """R23: cap (0,0) base/C rot 1 – band (1,0) base/CFc+ – cap (2,0) base/C rot 3:
    2 × 3 + 2 × 1 = 8."""
    g = build(
        [("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0)],
        followers=[(RED, 1, 0, 0)],
        pile=["base/C"],
    )
    assert placements_at(g, 2, 0) == {3}
    play_turn(g, 2, 0, 3)
    assert g.scores == (8, 0)


def test_r23_five_tile_road_scores_five() -> None:
    """R23: a road scores its size. Junction base/RRR (0,0) – base/RFr (1..3,0) – junction
    base/RRR (4,0) is a complete 5-tile road: 5 points for Blue's thief."""
    g = build(
        [("base/RRR", 0, 0, 0), ("base/RFr", 1, 0, 0), ("base/RFr", 2, 0, 0), ("base/RFr", 3, 0, 0)],
        followers=[(BLUE, 2, 0, 0)],
        pile=["base/RRR"],
    )
    play_turn(g, 4, 0, 0)
    assert g.scores == (0, 5)


def _road_with_thieves(followers: list[FollowerSpec]) -> Game:
    """Road (0,0)..(5,0): junction base/RRR at both ends, base/RFr between, hole at (2,0).

    Green (seat 2) fills the hole with base/RFr, completing a 6-tile road worth 6.
    """
    g = build(
        [
            ("base/RRR", 0, 0, 0), ("base/RFr", 1, 0, 0),
            ("base/RFr", 3, 0, 0), ("base/RFr", 4, 0, 0), ("base/RRR", 5, 0, 0),
        ],
        followers=followers,
        pile=["base/RFr", "base/L"],
        players=3,
        current_player=GREEN,
    )
    play_turn(g, 2, 0, 0)
    return g


def test_r24_majority_takes_all_and_every_follower_returns() -> None:
    """R24: Red 2 thieves, Blue 1 on the completed 6-tile road: Red +6, Blue +0; all 3 return."""
    g = _road_with_thieves([(RED, 1, 0, 0), (BLUE, 3, 0, 0), (RED, 4, 0, 0)])
    assert g.scores == (6, 0, 0)
    assert g.supply == (7, 7, 7)
    assert follower_spots(g) == set()


def test_r24_tied_players_all_score_in_full() -> None:
    """R24: one Red and one Blue thief: each scores the full 6."""
    g = _road_with_thieves([(RED, 1, 0, 0), (BLUE, 4, 0, 0)])
    assert g.scores == (6, 6, 0)
    assert g.supply == (7, 7, 7)


def test_r24_r25_completed_feature_without_followers_scores_nothing_ever() -> None:
    """R24, R25: nobody on the completed road: nobody scores now or at the end of the game, and
    the road stays complete."""
    g = _road_with_thieves([])
    assert g.scores == (0, 0, 0)
    assert g.feature(0, 0, 0).complete
    play_turn(g, 0, 1, 0)  # Red's base/L above the junction (its N edge is field); last tile
    assert g.is_over
    assert g.scores == (0, 0, 0)


def test_r25_unoccupied_completed_city_stays_unscored_while_a_farmer_waits() -> None:
    """R25 / R21: Red closes the start city without deploying: no score. Blue's farmer beside it
    is neither scored nor returned during the game."""
    g = build(
        [("base/RCr", 0, 0, 0)],
        followers=[(BLUE, 0, 0, 2)],
        pile=["base/C", "base/RFr", "base/RFr"],
    )
    play_turn(g, 0, 1, 2)
    assert g.feature(0, 0, 0).complete
    assert g.scores == (0, 0)
    assert g.supply == (7, 6)
    assert follower_spots(g) == {(BLUE, 0, 0, 2)}


# ---------------------------------------------------------------------------------------------
# §1.7 Game end and final scoring
# ---------------------------------------------------------------------------------------------
def test_r26_game_ends_after_scoring_of_the_turn_that_placed_the_last_tile() -> None:
    """R26: with one tile in the pile the game is still running during that turn's action phase;
    it ends right after phase 3 (the knight scores 4 first)."""
    g = start_game(["base/C"])
    assert g.tiles_left == 0
    g.apply(Action.place(0, 1, 2))
    assert not g.is_over
    assert g.phase == Phase.ACTION
    g.apply(Action.deploy(0, 1, 0))
    assert g.is_over
    assert g.scores == (4, 0)
    assert g.legal_actions() == []
    with pytest.raises(IllegalActionError):
        g.apply(PASS)


def test_r27_final_road_scores_one_per_tile() -> None:
    """R27: an incomplete 3-tile road (start tile + base/RFr E and W) with Red's thief: 3."""
    g = build(
        [("base/RFr", -1, 0, 0), ("base/RCr", 0, 0, 0)],
        followers=[(RED, 0, 0, 1)],
        pile=["base/RFr"],
    )
    play_turn(g, 1, 0, 0)
    assert g.is_over
    assert g.scores == (3, 0)


def test_r27_final_city_scores_one_per_tile_plus_one_per_pennant() -> None:
    """R27: incomplete city (0,0) base/C rot 1 + (1,0) base/CFc+ + (2,0) base/CFc+ : 3 tiles,
    2 pennants, open E edge: 3 + 2 = 5 for Blue."""
    g = build(
        [("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0), ("base/CFc+", 2, 0, 0)],
        followers=[(BLUE, 0, 0, 0)],
    )
    assert g.is_over
    assert g.scores == (0, 5)


def test_r27_final_monastery_scores_one_plus_occupied_ring_positions() -> None:
    """R27: monastery with 7 of 8 ring positions filled: 1 + 7 = 8; a bare monastery: 1."""
    g = build(
        [*_monastery_ring(skip=(1, -1)), ("base/L", 10, 0, 0)],
        followers=[(RED, 0, 0, 0), (BLUE, 10, 0, 0)],
    )
    assert g.is_over
    assert g.scores == (8, 1)


def test_r27_final_majority_follows_r24() -> None:
    """R27: two Red thieves and one Blue thief on an incomplete 4-tile road: Red 4, Blue 0."""
    g = build(
        [("base/RFr", x, 0, 0) for x in range(4)],
        followers=[(RED, 0, 0, 0), (BLUE, 1, 0, 0), (RED, 3, 0, 0)],
    )
    assert g.scores == (4, 0)


def test_r28_farmer_scores_three_per_completed_bordering_city() -> None:
    """R28: Blue's farmer on the start tile's city strip (slot 2) borders the start city, which Red
    closes with base/C (0,1) rot 2 on the last turn: 3 points at the end. The field of base/C at
    (0,1) lies beyond the city and is a different field."""
    g = build([("base/RCr", 0, 0, 0)], followers=[(BLUE, 0, 0, 2)], pile=["base/C"])
    play_turn(g, 0, 1, 2)
    assert g.is_over
    assert g.scores == (0, 3)
    assert follower_spots(g) == {(BLUE, 0, 0, 2)}  # farmers are never returned


def test_r28_field_that_does_not_border_the_city_on_its_tile_scores_nothing() -> None:
    """R28: bordering comes from the tile data. The start tile's field south of the road (slot 3)
    borders no city, so Blue's farmer there scores 0 although the city N is completed."""
    g = build([("base/RCr", 0, 0, 0)], followers=[(BLUE, 0, 0, 3)], pile=["base/C"])
    play_turn(g, 0, 1, 2)
    assert g.is_over
    assert g.feature(0, 0, 0).complete
    assert g.scores == (0, 0)


def test_r28_incomplete_bordering_city_is_worth_nothing_to_farmers() -> None:
    """R28: only completed cities count. The start city is still open: the farmer scores 0."""
    g = build([("base/RCr", 0, 0, 0)], followers=[(BLUE, 0, 0, 2)])
    assert g.is_over
    assert g.scores == (0, 0)


def test_r28_tied_farmers_both_score_the_field() -> None:
    """R28 / R24: the completed 2-tile city is base/C (0,0) rot 0 + base/C (0,1) rot 2. Its
    southern field runs from (0,0) (Red's farmer, slot 1) through the E edge into base/L at (1,0)
    (Blue's farmer, slot 1). One farmer each: both score 3."""
    g = build(
        [("base/C", 0, 0, 0), ("base/C", 0, 1, 2), ("base/L", 1, 0, 0)],
        followers=[(RED, 0, 0, 1), (BLUE, 1, 0, 1)],
    )
    assert g.feature(1, 0, 1).followers == (1, 1)
    assert g.scores == (3, 3)


def test_r29_r30_tower_top_followers_and_prisoners_score_nothing() -> None:
    """R29: Yellow's follower on a tower top and a Green follower held by Red score nothing.
    R30: scores are otherwise the preset ones; the highest (Red, 7) wins alone."""
    cfg = GameConfig(players=4, expansions=("tower",))
    g = (
        PositionBuilder(cfg)
        .tile("tower/F", 0, 0, rotation=0)
        .tower(0, 0, [N])
        .tower_top(YELLOW, 0, 0)
        .prisoners(RED, GREEN)
        .score(RED, 7)
        .score(BLUE, 2)
        .build(pile=[])
    )
    assert g.is_over
    assert g.scores == (7, 2, 0, 0)
    assert g.winners() == (RED,)


def test_r30_highest_score_wins_and_ties_are_shared() -> None:
    """R30: Red 12, Blue 12, Green 5: Red and Blue share the win; no tie-breaker."""
    g = (
        PositionBuilder(GameConfig(players=3))
        .tile("base/RCr", 0, 0)
        .score(RED, 12)
        .score(BLUE, 12)
        .score(GREEN, 5)
        .build(pile=[])
    )
    assert g.is_over
    assert g.scores == (12, 12, 5)
    assert g.winners() == (RED, BLUE)


def test_r30_winners_after_a_played_game() -> None:
    """R30: Blue closes the start city with a knight on the only turn: Blue 4, Red 0; Blue wins."""
    g = Game(GameConfig(players=2), tile_order=["base/RFr", "base/C"])
    play_turn(g, 1, 0, 0)
    play_turn(g, 0, 1, 2, deploy=0)
    assert g.is_over
    assert g.scores == (0, 4)
    assert g.winners() == (BLUE,)


# ---------------------------------------------------------------------------------------------
# §6 legacy_small_city and §7 decisions
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("legacy", "expected"), [(False, 4), (True, 2)])
def test_d16_legacy_small_city_two_tile_city_scores_one_per_tile(legacy: bool, expected: int) -> None:
    """D16 / `legacy_small_city`: the same 2-tile city (no pennant) scores 4 by default and
    1 per tile + 1 per pennant = 2 with the flag."""
    cfg = GameConfig(players=2, legacy_small_city=legacy)
    g = build([("base/C", 0, 0, 0)], followers=[(RED, 0, 0, 0)], pile=["base/C"], config=cfg)
    play_turn(g, 0, 1, 2)
    assert g.scores == (expected, 0)
    assert g.supply == (7, 7)


@pytest.mark.parametrize("legacy", [False, True])
def test_d16_legacy_small_city_leaves_larger_cities_alone(legacy: bool) -> None:
    """`legacy_small_city` only changes cities of exactly 2 tiles: the 3-tile city with one
    pennant scores 2 × 3 + 2 × 1 = 8 either way."""
    cfg = GameConfig(players=2, legacy_small_city=legacy)
    g = build(
        [("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0)],
        followers=[(RED, 1, 0, 0)],
        pile=["base/C"],
        config=cfg,
    )
    play_turn(g, 2, 0, 3)
    assert g.scores == (8, 0)


@pytest.mark.parametrize("legacy", [False, True])
def test_d16_legacy_small_city_does_not_touch_final_scoring(legacy: bool) -> None:
    """`legacy_small_city` is about completed cities; an incomplete 2-tile city still scores
    1 per tile + 1 per pennant at the end: base/C rot 1 + base/CFc+ = 2 + 1 = 3."""
    cfg = GameConfig(players=2, legacy_small_city=legacy)
    g = build([("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0)], followers=[(BLUE, 1, 0, 0)], config=cfg)
    assert g.scores == (0, 3)


def test_d25_pass_is_always_legal_in_the_action_phase() -> None:
    """D25: PASS is offered whether or not a DEPLOY is possible, and passing places nothing."""
    g = start_game(["base/RFr", "base/RFr"])
    g.apply(Action.place(1, 0, 0))
    assert PASS in g.legal_actions()
    assert deploy_slots(g)  # deploying was possible too
    g.apply(PASS)
    assert follower_spots(g) == set()
    assert g.supply == (7, 7)
    cfg = GameConfig(players=2, expansions=("tower",))
    t = start_game(["tower/F", "base/L"], config=cfg)
    t.apply(Action.place(0, -1, 0))
    assert PASS in t.legal_actions()


def test_d27_symmetric_rotations_are_distinct_legal_actions() -> None:
    """D27: base/L is the same tile in all 4 rotations, and base/RFr in rotations 0 and 2; every
    (position, rotation) is still its own legal action."""
    g = start_game(["base/L"])
    assert placements(g) == {(0, -1, r) for r in range(4)}
    assert len(g.legal_actions()) == 4
    c = start_game(["base/Cccc+"])
    assert placements(c) == {(0, 1, r) for r in range(4)}
    u = start_game(["base/RFr"])
    assert placements_at(u, 1, 0) == {0, 2}
    for rot in range(4):
        copy = g.clone()
        copy.apply(Action.place(0, -1, rot))
        placed = copy.tile_at(0, -1)
        assert placed is not None and placed.rotation == rot


@pytest.mark.parametrize("players", [2, 4, 6])
def test_d28_seat_zero_moves_first(players: int) -> None:
    """D28: seat 0 starts; then seats follow in order and wrap round (R9)."""
    g = Game(GameConfig(players=players), tile_order=["base/RFr"] * (players + 1))
    assert g.current_player == 0
    for seat in range(players):
        assert g.current_player == seat
        x = seat + 1
        play_turn(g, x, 0, 0)
    assert g.current_player == 0


# ---------------------------------------------------------------------------------------------
# §8 worked examples
# ---------------------------------------------------------------------------------------------
def _e8_board() -> Game:
    """E8 (R28, D17), Red = 0 and Blue = 1.

    City A: (0,0) base/C rot 1 (cap E) – (1,0) base/CFc.1 (band) – (2,0) base/C rot 3 (cap W),
    complete. City B: (-1,0) base/C rot 0 + (-1,1) base/C rot 2, complete. City C: (3,0) base/C
    rot 0, open N. Row y = -1: base/RFr rot 0 ×3; their N fields join A's south side.

    F1 = fields of (0,0), (2,0), (-1,0), (3,0), the S field of (1,0) and the N fields of row -1:
    it borders A on three tiles ((0,0), (1,0), (2,0)), B via (-1,0) and C via (3,0).
    F2 = the N field of (1,0) alone (nothing at (1,1)): it borders A only.
    Farmers: Red on (0,-1) and (2,-1) (F1); Blue on (3,0) (F1) and on (1,0) slot 1 (F2).
    """
    return build(
        [
            ("base/C", 0, 0, 1), ("base/CFc.1", 1, 0, 0), ("base/C", 2, 0, 3),
            ("base/C", -1, 0, 0), ("base/C", -1, 1, 2), ("base/C", 3, 0, 0),
            ("base/RFr", 0, -1, 0), ("base/RFr", 1, -1, 0), ("base/RFr", 2, -1, 0),
        ],
        followers=[(RED, 0, -1, 1), (RED, 2, -1, 1), (BLUE, 3, 0, 1), (BLUE, 1, 0, 1)],
    )


def test_e8_board_has_the_fields_the_example_describes() -> None:
    """E8 set-up check: F1 (2 Red, 1 Blue farmers) reaches every tile listed in `_e8_board`;
    F2 (1 Blue farmer) is separate; A and B are complete, C is open."""
    g = _e8_board()
    for x, y, slot in [(0, -1, 1), (1, -1, 1), (2, -1, 1), (0, 0, 1), (1, 0, 2), (2, 0, 1), (-1, 0, 1), (3, 0, 1)]:
        assert g.feature(x, y, slot).followers == (2, 1), (x, y, slot)
    assert g.feature(1, 0, 1).followers == (0, 1)
    assert g.feature(-1, 1, 1).followers == (0, 0)
    assert g.feature(0, 0, 0).complete and g.feature(0, 0, 0).size == 3
    assert g.feature(-1, 0, 0).complete and g.feature(-1, 0, 0).size == 2
    assert not g.feature(3, 0, 0).complete


def test_e8_farmers_red_six_blue_three() -> None:
    """E8 / R28: F1 (2 Red, 1 Blue) borders completed A and B and open C: Red 3 × 2 = 6, Blue 0.
    F2 (Blue) borders A: Blue 3. A counts once for F1 although F1 touches it on three tiles,
    and it counts for F2 as well. Farmers stay on the board."""
    g = _e8_board()
    assert g.is_over
    assert g.scores == (6, 3)
    assert len(follower_spots(g)) == 4
    assert g.winners() == (RED,)


def test_e9_two_tile_city_scores_four_and_two_under_legacy() -> None:
    """E9 (R23, D16): completed 2-tile city: 4 by default, 2 under `legacy_small_city`.

    E9 states the 1-pennant case (6 / 3); tiles.json has no pennant on a single-edge city segment
    and a 2-tile complete city must consist of two caps, so that case cannot be laid out. The
    pennant term is covered by the 3- and 5-tile cities.
    """
    for legacy, expected in ((False, 4), (True, 2)):
        cfg = GameConfig(players=2, legacy_small_city=legacy)
        g = build([("base/C", 0, 0, 2)], followers=[(BLUE, 0, 0, 0)], pile=["base/C"], config=cfg)
        play_turn(g, 0, -1, 0)
        assert g.scores == (0, expected)


def test_e9_five_tile_city_with_two_pennants_scores_fourteen() -> None:
    """E9 (R23): cap – CFc+ – CFc.1 – CFc+ – cap along y = 0: 2 × 5 + 2 × 2 = 14."""
    g = build(
        [("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0), ("base/CFc.1", 2, 0, 0), ("base/CFc+", 3, 0, 0)],
        followers=[(RED, 2, 0, 0)],
        pile=["base/C"],
    )
    play_turn(g, 4, 0, 3)
    city = g.feature(0, 0, 0)
    assert (city.size, city.pennants, city.open_edges) == (5, 2, 0)
    assert g.scores == (14, 0)


def test_e9_three_tile_road_scores_three() -> None:
    """E9 (R23): junction base/RRR (0,0) – base/RFr (1,0) – junction base/RRR (2,0): 3."""
    g = build(
        [("base/RRR", 0, 0, 0), ("base/RFr", 1, 0, 0)],
        followers=[(GREEN, 1, 0, 0)],
        pile=["base/RRR"],
        players=3,
    )
    play_turn(g, 2, 0, 0)
    assert g.scores == (0, 0, 3)


def test_e9_monastery_scores_nine() -> None:
    """E9 (R23): completed monastery: 9."""
    g = build(_monastery_ring(skip=(0, 1)), followers=[(RED, 0, 0, 0)], pile=["base/RFr"])
    play_turn(g, 0, 1, 0)
    assert g.scores == (9, 0)


def test_e9_final_scoring_values() -> None:
    """E9 (R27, R29), four players with The Tower, game over at once (empty pile):

    * incomplete 3-tile city (base/C rot 1, base/CFc+, base/CFc.1) with 1 pennant, Red's knight:
      Red 3 + 1 = 4;
    * monastery at (10,0) with 5 ring tiles ((9..11, 1) and (9,0), (11,0)), Blue's monk:
      Blue 1 + 5 = 6;
    * incomplete 4-tile road (20..23, 0) with one Red and one Blue thief: 4 each;
    * Yellow's follower on the tower top at (30,0) and a Green prisoner held by Red: 0.

    Totals: Red 8, Blue 10, Green 0, Yellow 0.
    """
    cfg = GameConfig(players=4, expansions=("tower",))
    b = PositionBuilder(cfg)
    for tile_id, x, y, rot in [
        ("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0), ("base/CFc.1", 2, 0, 0),
        ("base/L", 10, 0, 0),
        ("base/RFr", 9, 1, 0), ("base/RFr", 10, 1, 0), ("base/RFr", 11, 1, 0),
        ("base/C", 9, 0, 3), ("base/C", 11, 0, 1),
        ("base/RFr", 20, 0, 0), ("base/RFr", 21, 0, 0), ("base/RFr", 22, 0, 0), ("base/RFr", 23, 0, 0),
        ("tower/F", 30, 0, 0),
    ]:
        b = b.tile(tile_id, x, y, rotation=rot)
    g = (
        b.follower(RED, 1, 0, 0)
        .follower(BLUE, 10, 0, 0)
        .follower(RED, 20, 0, 0)
        .follower(BLUE, 23, 0, 0)
        .tower(30, 0, [N])
        .tower_top(YELLOW, 30, 0)
        .prisoners(RED, GREEN)
        .build(pile=[])
    )
    assert g.is_over
    assert g.scores == (8, 10, 0, 0)
    assert g.winners() == (BLUE,)

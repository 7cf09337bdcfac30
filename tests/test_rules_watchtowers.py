"""The Watchtowers (docs/rules.md §4, R60–R67) and worked examples E6 and E7; decisions D13–D15, D20, D21.

Players: Red = 0, Blue = 1, Green = 2, Yellow = 3. Positions are built directly (§8). A far-away
anchor monastery at (40, 40) takes filler tiles.

Tiles (slot = index in the tile's ``features`` in tiles.json):

* ``watchtowers/CFRF-meeple`` (and ``-city``): city N (slot 0), road S ending at the watchtower
  (slot 1), field E (slot 2), field W (slot 3).
* ``watchtowers/FRRF-road``: road E (slot 0) and road S (slot 1), two separate road ends.
* ``watchtowers/CCRF-coat``: city N (0), city E (1), road S (2).
* ``watchtowers/CFFF-monastery``: city N (0), field (1).
* ``base/RFr``: road E–W (slot 0); rotation 1 makes it N–S.
* ``base/Rr``: a curve S–W (slot 0); rotation 1 W–N, rotation 2 N–E.
* ``base/RRR`` rotation 2: a junction whose N road (slot 1) ends there.
* ``base/LR`` rotation 2: a road N (slot 0) ending at a monastery; rotation 1: road W.
* ``base/L``: monastery (slot 0), field (slot 1). ``base/C``: city N (slot 0).
"""

from __future__ import annotations

from typing import Any

import pytest
from scenario import BLUE, FILLER, GREEN, RED, YELLOW, coat_of_arms_game, place_filler, position, start

from carcassonne_env.engine import Action, FloorColour, Game, GameConfig, load_catalogue
from carcassonne_env.engine.actions import PASS
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import with_requirements


# ----------------------------------------------------------------------------------- helpers
def watch_config(*, tower: bool = False, **variants: Any) -> GameConfig:
    expansions = with_requirements("tower", "watchtowers") if tower else ("watchtowers",)
    return GameConfig(players=4, expansions=expansions, **variants)


def play(game: Game, x: int, y: int, rotation: int) -> None:
    """Place the drawn tile and pass: the turn is scored (T5)."""
    game.apply(Action.place(x, y, rotation))
    game.apply(PASS)


# ----------------------------------------------------------------------------------- R60, R61
def test_r60_twelve_watchtower_tiles_of_five_types_with_their_rates() -> None:
    """R60: 12 tiles: meeple 2 tiles at 2, coat of arms 2 at 2, road 3 at 1, monastery 2 at 3,
    city 3 at 1; they join the pile (71 base + 12)."""
    tiles = load_catalogue().sets["watchtowers"]
    by_subject: dict[str, list[int]] = {}
    for t in tiles:
        assert t.watchtower is not None
        by_subject.setdefault(t.watchtower.subject, []).extend([t.watchtower.rate] * t.count)
    assert by_subject == {
        "meeple": [2, 2],
        "coat-of-arms": [2, 2],
        "road": [1, 1, 1],
        "monastery": [3, 3],
        "city": [1, 1, 1],
    }
    game = Game(watch_config(), seed=4)
    assert game.current_tile is not None
    assert sum(game.remaining_counts) + 1 + len(game.discarded) == 71 + 12


def test_r61_d15_deploy_on_a_watchtower_tile_follows_the_base_rules() -> None:
    """R61 / D15: on a placed CFRF-meeple the DEPLOY slots are its segments from tiles.json (C2
    fields: the road splits the field in two); the E field is taken by Blue's farmer next door
    (R15), and the watchtower itself is no slot."""
    builder = position(watch_config()).tile("base/L", 1, 0).follower(BLUE, 1, 0, 1)
    game = start(builder, RED, ["watchtowers/CFRF-meeple", FILLER])
    game.apply(Action.place(0, 0, 0))
    deploys = {a.arg for a in game.legal_actions() if a.kind.name == "DEPLOY"}
    assert deploys == {0, 1, 3}
    placed = game.tile_at(0, 0)
    assert placed is not None
    assert placed.tile.segment_count == 4


# ----------------------------------------------------------------------------------- E6
def _e6(**kw: bool) -> PositionBuilder:
    """E6: CFRF-meeple at (0,0) with Red's thief on its road S; the road runs on through (0,−1);
    a Blue farmer at (1,0), a Green monk at (−1,1), and a Yellow monk outside the area at (2,0).
    Red has drawn the junction that ends the road at (0,−2)."""
    return (
        position(watch_config(**kw))
        .tile("watchtowers/CFRF-meeple", 0, 0).follower(RED, 0, 0, 1)
        .tile("base/RFr", 0, -1, rotation=1)
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 1)
        .tile("base/L", -1, 1).follower(GREEN, -1, 1, 0)
        .tile("base/L", 2, 0).follower(YELLOW, 2, 0, 0)
    )


E6_PILE = ("base/RRR", FILLER)


def test_r62_r63_r64_e6_meeple_watchtower() -> None:
    """E6 (R62–R64, D14): 3 followers in the 3×3 area (the triggering thief included, Yellow's at
    (2,0) not): bonus 2 × 3 = 6; then the 3-tile road scores 3: Red 9, and the thief returns."""
    game = start(_e6(), RED, E6_PILE)
    play(game, 0, -2, 2)
    assert game.scores == (9, 0, 0, 0)
    assert game.supply == (7, 6, 6, 6)
    assert game.feature(1, 0, 1).followers == (0, 1, 0, 0)


def test_r62_r16_follower_deployed_on_the_completing_tile_triggers() -> None:
    """R62 with R16: Red places CFRF-meeple so that it completes a 2-tile road and deploys a thief
    on that road; in phase 3 the thief earns the meeple bonus (itself: 2) and the road (2): 4."""
    game = start(position(watch_config()).tile("base/LR", 0, -1, rotation=2), RED, ["watchtowers/CFRF-meeple", FILLER])
    game.apply(Action.place(0, 0, 0))
    game.apply(Action.deploy(0, 0, 1))
    assert game.scores == (4, 0, 0, 0)
    assert game.supply[RED] == 7


def test_r63_e6_d13_follower_on_a_tower_top_counts() -> None:
    """E6 / D13: with Yellow also on top of a tower at (1,1), the meeple bonus is 2 × 4 = 8."""
    builder = _e6(tower=True).tile("tower/F", 1, 1).tower(1, 1, [FloorColour.NORMAL]).tower_top(YELLOW, 1, 1)
    game = start(builder, RED, E6_PILE)
    play(game, 0, -2, 2)
    assert game.scores == (8 + 3, 0, 0, 0)


def test_r62_e7_bonus_ignores_majority() -> None:
    """E7 (R62): Blue's thief on FRRF-road's E road; the road (0,0)–(3,0) also carries two Red
    thieves and is completed this turn. 5 tiles of the 3×3 area show a road: Blue gets 5; the
    4-tile road goes to Red alone (2 to 1): Red 4. All three thieves return."""
    game = start(
        position(watch_config())
        .tile("watchtowers/FRRF-road", 0, 0).follower(BLUE, 0, 0, 0)
        .tile("base/RFr", 1, 0).follower(RED, 1, 0, 0)
        .tile("base/RFr", 2, 0).follower(RED, 2, 0, 0)
        .tile("base/RFr", 0, -1, rotation=1)
        .tile("base/RFr", -1, 1)
        .tile("base/RFr", 1, 1)
        .tile("base/L", -1, 0),
        RED,
        ["base/LR", FILLER],
    )
    play(game, 3, 0, 1)
    assert game.scores == (4, 5, 0, 0)
    assert game.supply == (7, 7, 7, 7)


def _road_loop(upper_thief: int, lower_thief: int) -> Game:
    """FRRF-road at (0,0) whose two road ends (E slot 0 and S slot 1) are joined into one loop
    (0,0)–(1,0)–(1,−1)–(0,−1) by the curve Red places at (0,−1)."""
    return start(
        position(watch_config())
        .tile("watchtowers/FRRF-road", 0, 0).follower(upper_thief, 0, 0, 0).follower(lower_thief, 0, 0, 1)
        .tile("base/Rr", 1, 0)
        .tile("base/Rr", 1, -1, rotation=1),
        RED,
        ["base/Rr", FILLER],
    )


def test_r62_d21_every_qualifying_follower_earns_the_bonus() -> None:
    """R62 / D21: Blue and Red both stand on the completed loop on the watchtower tile: each earns
    1 × 4 road tiles = 4, and they share the 4-tile road (tie): 8 each."""
    game = _road_loop(BLUE, RED)
    play(game, 0, -1, 2)
    assert game.scores == (8, 8, 0, 0)


def test_r62_d21_one_player_with_two_qualifying_followers_earns_twice() -> None:
    """R62 / D21: two Red thieves on the watchtower tile earn the bonus twice: 4 + 4 + road 4."""
    game = _road_loop(RED, RED)
    play(game, 0, -1, 2)
    assert game.scores == (12, 0, 0, 0)
    assert game.supply[RED] == 7


def test_r63_d20_coat_of_arms_counts_pennants_on_incomplete_cities() -> None:
    """R63 / D20: CCRF-coat at (0,0), Red's thief on its road S, completed by (0,−1). Pennants on
    the 3×3 area: (0,1), (1,0) and (−1,−1), all on incomplete cities: 2 × 3 = 6; the pennant at
    (−2,0) is outside. Road 2: Red 8."""
    game = coat_of_arms_game()
    play(game, 0, -1, 2)
    assert not game.feature(0, 1, 0).complete
    assert game.scores == (8, 0, 0, 0)


def test_r63_monastery_watchtower() -> None:
    """R63: CFFF-monastery at (0,0), Red's knight on its city N, completed by a city cap at (0,1)
    (2-tile city: 4). Monasteries in the 3×3 area: (1,0), (−1,0), (1,1); (2,0) is outside:
    3 × 3 = 9. Red 13."""
    game = start(
        position(watch_config())
        .tile("watchtowers/CFFF-monastery", 0, 0).follower(RED, 0, 0, 0)
        .tile("base/L", 1, 0)
        .tile("base/L", -1, 0)
        .tile("base/L", 1, 1)
        .tile("base/L", 2, 0),
        RED,
        ["base/C", FILLER],
    )
    play(game, 0, 1, 2)
    assert game.scores == (13, 0, 0, 0)


def test_r63_city_watchtower_counts_its_own_tile() -> None:
    """R63: CFRF-city at (0,0), Red's thief on its road S, completed by (0,−1). Tiles with a city
    in the 3×3 area: (0,0) itself, (1,0), (−1,1); not (0,−1); (2,0) is outside: 1 × 3 = 3.
    Road 2: Red 5."""
    game = start(
        position(watch_config())
        .tile("watchtowers/CFRF-city", 0, 0).follower(RED, 0, 0, 1)
        .tile("base/C", 1, 0)
        .tile("base/C", -1, 1)
        .tile("base/C", 2, 0),
        RED,
        ["base/LR", FILLER],
    )
    play(game, 0, -1, 2)
    assert game.scores == (5, 0, 0, 0)


def test_r64_d14_bonus_counts_followers_of_features_scored_this_turn() -> None:
    """R64 / D14: one tile completes Red's road on CFRF-meeple and Blue's city at (1,−1). The
    bonus is worked out before anything returns: 2 followers → 4, + road 2 = Red 6; Blue 4."""
    game = start(
        position(watch_config())
        .tile("watchtowers/CFRF-meeple", 0, 0).follower(RED, 0, 0, 1)
        .tile("base/C", 1, -1, rotation=3).follower(BLUE, 1, -1, 0),
        RED,
        ["base/CRRR", FILLER],
    )
    play(game, 0, -1, 1)
    assert game.scores == (6, 4, 0, 0)
    assert game.supply == (7, 7, 7, 7)


def test_r65_farmers_and_knights_on_unfinished_cities_do_not_trigger() -> None:
    """R65: on CFRF-meeple Red's thief (completed road), Blue's farmer and Green's knight
    (incomplete city): only Red earns the bonus, which counts all 3: 6 + road 2 = 8."""
    game = start(
        position(watch_config())
        .tile("watchtowers/CFRF-meeple", 0, 0)
        .follower(RED, 0, 0, 1).follower(BLUE, 0, 0, 2).follower(GREEN, 0, 0, 0),
        RED,
        ["base/LR", FILLER],
    )
    play(game, 0, -1, 2)
    assert game.scores == (8, 0, 0, 0)


def test_r66_watchtowers_score_nothing_at_the_end() -> None:
    """R66: at the end Red's thief on the incomplete 1-tile road of CFRF-meeple scores 1 for the
    road and nothing for the watchtower."""
    game = start(
        position(watch_config()).tile("watchtowers/CFRF-meeple", 0, 0).follower(RED, 0, 0, 1),
        RED,
        [FILLER],
    )
    place_filler(game)
    game.apply(PASS)
    assert game.is_over
    assert game.scores == (1, 0, 0, 0)


def _captures_near_a_watchtower(thief: int) -> Game:
    """CFRF-meeple at (0,0) with a thief of ``thief`` on its road; a Blue farmer at (1,0); an open
    1-floor tower at (−1,0). Red has drawn the tile that completes the road at (0,−1)."""
    return start(
        position(watch_config(tower=True))
        .tile("watchtowers/CFRF-meeple", 0, 0).follower(thief, 0, 0, 1)
        .tile("base/L", 1, 0).follower(BLUE, 1, 0, 1)
        .tile("tower/F", -1, 0).tower(-1, 0, [FloorColour.NORMAL]),
        RED,
        ["base/LR", FILLER],
    )


def test_r67_captured_follower_does_not_count() -> None:
    """R67: Red completes the road, floors the tower (h = 2) and captures Blue's farmer: the bonus
    counts only Red's thief: 2 + road 2 = 4."""
    game = _captures_near_a_watchtower(RED)
    game.apply(Action.place(0, -1, 2))
    game.apply(Action.floor(-1, 0, FloorColour.NORMAL))
    game.apply(Action.capture(1, 0, 1))
    assert game.scores == (4, 0, 0, 0)


def test_r67_captured_follower_does_not_trigger() -> None:
    """R67 / R44: Blue's thief is captured before phase 3: no bonus for Blue, and the completed
    road scores for nobody."""
    game = _captures_near_a_watchtower(BLUE)
    game.apply(Action.place(0, -1, 2))
    game.apply(Action.floor(-1, 0, FloorColour.NORMAL))
    game.apply(Action.capture(0, 0, 1))
    assert game.scores == (0, 0, 0, 0)
    assert game.expansion_state("tower").prisoner_count(RED, BLUE) == 1


@pytest.mark.parametrize("ignore_tops", [False, True])
def test_r64_d13_meeple_count_is_taken_after_phase_two(ignore_tops: bool) -> None:
    """R64 (a): the board "as it stands after phase 2": a follower Red puts on a tower top in
    phase 2 of this very turn counts (unless watchtower_ignores_tower_followers)."""
    game = start(
        position(watch_config(tower=True, watchtower_ignores_tower_followers=ignore_tops))
        .tile("watchtowers/CFRF-meeple", 0, 0).follower(RED, 0, 0, 1)
        .tile("tower/F", -1, 0).tower(-1, 0, [FloorColour.NORMAL]),
        RED,
        ["base/LR", FILLER],
    )
    game.apply(Action.place(0, -1, 2))
    game.apply(Action.tower_top(-1, 0))
    assert game.scores == ((2 + 2 if ignore_tops else 4 + 2), 0, 0, 0)

"""The engine's contract: clear errors, untouched state on refusal, validated data (its light imports:
tests/test_layout.py)."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest
from scenario import N

from carcassonne_env.engine import (
    Action,
    ActionKind,
    CatalogueError,
    ConfigError,
    Game,
    GameConfig,
    IllegalActionError,
    Phase,
    load_catalogue,
)
from carcassonne_env.engine.actions import PASS
from carcassonne_env.engine.registry import TILE_SETS, with_requirements
from carcassonne_env.engine.tiles import parse_catalogue


# ---------------------------------------------------------------- illegal actions
def _refused(game: Game, action: object, match: str) -> None:
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match=match):
        game.apply(action)  # type: ignore[arg-type]
    assert game.to_dict() == before, "a refused action changed the state"


def test_r11_illegal_placements_are_refused_with_the_reason() -> None:
    game = Game(GameConfig(), tile_order=["base/C"])
    _refused(game, Action.place(0, 0, 0), "occupied")
    _refused(game, Action.place(5, 5, 0), "no orthogonal neighbour")
    _refused(game, Action.place(1, 1, 0), "no orthogonal neighbour")
    # base/C rot 0 shows field to the south: it cannot sit north of the start tile's city edge.
    _refused(game, Action.place(0, 1, 0), "does not match")
    _refused(game, Action.place(0, 1, 7), "does not match")
    _refused(game, PASS, "current decision is PLACE")
    _refused(game, Action.place(10**6, 0, 0), "outside the board")


def test_malformed_actions_are_refused() -> None:
    game = Game(GameConfig(), tile_order=["base/C"])
    _refused(game, (99, 0, 0, 0), "malformed")
    _refused(game, ("PLACE", 0, 1), "malformed")
    _refused(game, None, "malformed")


def test_r14_r15_illegal_deployments_are_refused() -> None:
    game = Game(GameConfig(), tile_order=["base/RFr", "base/RFr"])
    game.apply(Action.place(1, 0, 0))  # road continues east from the start tile
    _refused(game, Action.deploy(0, 0, 0), "tile just placed")
    _refused(game, Action.deploy(1, 0, 9), "segments 0..2")
    _refused(game, Action.floor(1, 0, N), "not a phase-2 option")
    game.apply(Action.deploy(1, 0, 0))  # thief on the road
    game.apply(Action.place(2, 0, 0))
    _refused(game, Action.deploy(2, 0, 0), "already holds a follower")


def test_applying_after_the_game_is_over_is_refused() -> None:
    game = Game(GameConfig(), tile_order=["base/RFr"])
    game.apply(Action.place(1, 0, 0))
    game.apply(PASS)
    assert game.phase is Phase.GAME_OVER
    assert list(game.legal_actions()) == []
    _refused(game, PASS, "game is over")


def test_actions_given_as_plain_lists_work() -> None:
    game = Game(GameConfig(), tile_order=["base/RFr"])
    game.apply([int(ActionKind.PLACE), 1, 0, 0])
    assert game.phase is Phase.ACTION


# ---------------------------------------------------------------- config
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"players": 1}, "players"),
        ({"players": 7}, "players"),
        ({"players": "2"}, "players"),
        ({"expansions": ("dragon",)}, "expansions"),
        ({"expansions": "tower"}, "expansions"),
        ({"expansions": ("black_tower",)}, "expansions"),
        ({"tile_sets": ("watchtowers",)}, "tile_sets"),
        ({"expansions": ("tower",), "tile_sets": ("base",)}, "tile_sets"),
        ({"no_ransom": True}, "no_ransom"),
        ({"expansions": ("tower",), "no_ransom": 1}, "no_ransom"),
        ({"expansions": ("tower",), "black_tower_excludes_own_tile": True}, "black_tower_excludes_own_tile"),
        ({"watchtower_ignores_tower_followers": True}, "watchtower_ignores_tower_followers"),
        ({"expansions": with_requirements("black_tower"), "extra_foundation_tiles": -1}, "extra_foundation_tiles"),
        ({"expansions": ("tower",), "extra_foundation_tiles": 4}, "extra_foundation_tiles"),
    ],
)
def test_a_bad_config_names_the_bad_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        GameConfig(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field
    assert str(info.value).startswith(field)


def test_config_defaults_and_round_trip() -> None:
    config = GameConfig(players=5, expansions=tuple(reversed(with_requirements("tower", "watchtowers"))),
                        capture_opponents_only=True)
    assert config.expansions == with_requirements("tower", "watchtowers")
    assert config.tile_sets == TILE_SETS  # base and the tile sets of tower and watchtowers
    assert GameConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    with pytest.raises(ConfigError, match="colour"):
        GameConfig.from_dict({"colour": "red"})


# ---------------------------------------------------------------- catalogue
def _raw_catalogue() -> dict[str, object]:
    text = resources.files("carcassonne_env.data").joinpath("tiles.json").read_text(encoding="utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def test_r1_r31_r60_catalogue_counts() -> None:
    cat = load_catalogue()
    sizes = {s: (len(ts), sum(t.count for t in ts)) for s, ts in cat.sets.items()}
    assert sizes == {"base": (24, 72), "tower": (17, 18), "watchtowers": (12, 12)}
    assert cat.start.id == "base/RCr"
    assert sum(t.count for t in cat.sets["base"] if t.pennants) == 10
    assert cat.max_segments == 8


def test_rotation_tables_follow_c2() -> None:
    """base/RCr: city N, road E–W. Rotation 1 puts the city east and the road N–S."""
    tile = load_catalogue()["base/RCr"]
    assert tile.edge_terrain == (1, 2, 3, 2)
    assert tile.segment_edges[1][0] == (1,)
    assert tile.segment_edges[1][1] == (0, 2)
    # Field 2 owns EL and WR at rotation 0; a quarter turn moves them to SL and NR.
    assert tile.segment_half_edges[0][2] == (2, 7)
    assert tile.segment_half_edges[1][2] == (1, 4)
    # A cell whose west neighbour shows a city edge accepts RCr only with the city facing west.
    req_city_west = 1 << (2 * 3)
    assert tile.fits[req_city_west] == (3,)


def _corrupt(mutate: object) -> dict[str, object]:
    data = copy.deepcopy(_raw_catalogue())
    mutate(data)  # type: ignore[operator]
    return data


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (lambda d: d["sets"][0]["tiles"][0].update(count=5), "expected"),
        (lambda d: d["sets"][0]["tiles"][2]["features"][1].update(edges=["E"]), "ownership|terrain"),
        (lambda d: d["sets"][0]["tiles"][2]["features"][2].update(half_edges=["EL", "WR", "ER"]), "owned twice"),
        (lambda d: d["sets"][0]["tiles"][2]["features"][2].update(cities=[1]), "not a city"),
        (lambda d: d["sets"][2]["tiles"][0]["watchtower"].update(points=5), "watchtower"),
        (lambda d: d.update(start_tile="base/L"), "start tile"),
    ],
)
def test_broken_tile_data_is_refused_when_loaded(mutation: object, message: str) -> None:
    with pytest.raises(CatalogueError, match=message):
        parse_catalogue(_corrupt(mutation))


# ---------------------------------------------------------------- regressions from the rules review
def _tower_game() -> Game:
    from carcassonne_env.engine.position import PositionBuilder

    game = (
        PositionBuilder(GameConfig(players=2, expansions=("tower",)))
        .tile("tower/F", 0, 0)
        .tower(0, 0, [N])
        .build(pile=["base/L", "base/L"])
    )
    game.apply(Action.place(1, 0, 0))
    return game


def test_floor_coordinates_cannot_alias_another_position() -> None:
    """(-1, 1024) once packed to the same key as (0, 0) and built a floor there."""
    _refused(_tower_game(), Action(ActionKind.FLOOR, -1, 1024, 0), "outside the board")
    _refused(_tower_game(), Action(ActionKind.TOWER_TOP, 1, -1024, 0), "outside the board")


def test_a_bad_floor_colour_is_an_illegal_action_not_a_crash() -> None:
    _refused(_tower_game(), Action(ActionKind.FLOOR, 0, 0, 7), "colour")
    _refused(Game(GameConfig(), seed=1), Action(ActionKind.FLOOR, 0, 0, 7), "PLACE")


def test_non_integer_fields_are_refused_before_anything_changes() -> None:
    game = Game(GameConfig(), seed=3)
    legal = game.legal_actions()[0]
    _refused(game, Action(legal.kind, legal.x, legal.y, float(legal.arg)), "malformed")  # type: ignore[arg-type]
    _refused(game, [0, 0.7, -1, 0], "malformed")
    _refused(game, ["0", "1", "0", "0"], "malformed")
    game.apply(legal)
    assert game.phase is Phase.ACTION


def test_a_plain_int_kind_is_normalised() -> None:
    game = Game(GameConfig(), seed=1)
    legal = game.legal_actions()[0]
    game.apply(Action(int(legal.kind), legal.x, legal.y, legal.arg))  # type: ignore[arg-type]
    assert game.history[-1] == legal and type(game.history[-1].kind) is ActionKind


def test_unused_fields_must_be_zero() -> None:
    game = Game(GameConfig(), seed=1)
    game.apply(game.legal_actions()[0])
    _refused(game, Action(ActionKind.PASS, 9, 9, 9), "PASS takes no arguments")
    game = _tower_game()
    _refused(game, Action(ActionKind.TOWER_TOP, 0, 0, 5), "TOWER_TOP takes no argument")

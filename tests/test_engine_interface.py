"""The engine's internal seams: scoring rules as pure functions (R23, R24, R27, R28), the
expansion interface ``ExpansionHost``, and ``GameSetup``, the public way positions are built.

Tiles (see test_rules_base.py): ``base/C`` has 0 city N, 1 field; ``base/L`` 0 monastery, 1 field;
``base/RFr`` 0 road E–W, 1 and 2 fields.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from carcassonne_env.engine import Action, Game, GameConfig, SegmentKind
from carcassonne_env.engine.game import GameSetup, PositionError
from carcassonne_env.engine.geometry import pack
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import with_requirements
from carcassonne_env.engine.scoring import award, completed_value, field_value, final_value, majority_counts

CITY, ROAD, MONASTERY = SegmentKind.CITY, SegmentKind.ROAD, SegmentKind.MONASTERY
RED, BLUE, GREEN = 0, 1, 2


# ---------------------------------------------------------------- scoring rules
def test_r23_completed_feature_values() -> None:
    assert completed_value(ROAD, 4, 0, legacy_small_city=False) == 4
    assert completed_value(CITY, 3, 1, legacy_small_city=False) == 8  # 2 × 3 + 2 × 1
    assert completed_value(CITY, 2, 1, legacy_small_city=False) == 6  # "4 + 2 per pennant"
    assert completed_value(CITY, 2, 1, legacy_small_city=True) == 3  # D16: 1 per tile + 1 per pennant
    assert completed_value(CITY, 3, 0, legacy_small_city=True) == 6  # the variant is for 2-tile cities only
    assert completed_value(MONASTERY, 9, 0, legacy_small_city=False) == 9


def test_r27_r28_end_game_values() -> None:
    assert final_value(ROAD, 3, 0) == 3
    assert final_value(CITY, 3, 2) == 5  # 1 per tile + 1 per pennant
    assert final_value(MONASTERY, 6, 0) == 6  # the monastery and 5 occupied ring positions
    assert field_value(2) == 6


def test_r24_majority_ties_score_in_full_and_featureless_followers_count_nothing() -> None:
    followers = {10: RED, 11: BLUE, 12: BLUE, 20: RED, 21: GREEN, 30: GREEN}

    def feature_of(segment: int) -> int:
        return segment // 10

    counts = majority_counts(followers, feature_of, [1, 2, 4], players=3)
    assert counts == {1: [1, 2, 0], 2: [1, 0, 1]}  # feature 4 holds no follower: nobody scores it
    scores = [0, 0, 0]
    award(scores, counts[1], 8)
    award(scores, counts[2], 4)
    assert scores == [4, 8, 4]


# ---------------------------------------------------------------- the expansion interface
def _game_with_red_knight() -> tuple[Game, int]:
    """Red's knight on the city of ``base/C`` at (0,0); returns the game and that segment's id."""
    builder = PositionBuilder(GameConfig(players=2)).tile("base/C", 0, 0).follower(RED, 0, 0, slot=0)
    game = builder.build(pile=["base/L"])
    return game, game.segment_base(0)


def test_views_hand_out_the_live_board_tables() -> None:
    game = PositionBuilder(GameConfig(players=2)).tile("base/C", 0, 0).tile("base/RFr", 5, 5).build(pile=["base/L"])
    assert dict(game.board_index) == {pack(0, 0): 0, pack(5, 5): 1}
    assert list(game.tile_positions) == [pack(0, 0), pack(5, 5)]
    assert [t.id for t in game.tile_types] == ["base/C", "base/RFr"]
    assert list(game.segment_kinds) == [CITY, SegmentKind.FIELD, ROAD, SegmentKind.FIELD, SegmentKind.FIELD]
    assert list(game.segment_tiles) == [0, 0, 1, 1, 1]
    game.apply(Action.place(0, -1, 0))  # the monastery below the city
    assert game.board_index[pack(0, -1)] == 2 and game.tile_positions[2] == pack(0, -1)


def test_remove_follower_frees_the_feature_and_sends_the_follower_nowhere() -> None:
    game, segment = _game_with_red_knight()
    assert game.remove_follower(segment) == RED
    assert game.feature(0, 0, 0).followers == (0, 0)
    assert game.supply == (6, 7)
    game.return_follower(RED)
    assert game.supply == (7, 7)


def test_score_and_supply_changes() -> None:
    game, _ = _game_with_red_knight()
    game.add_score(BLUE, 5, "watchtower")
    game.add_score(BLUE, -3, "ransom")
    assert game.scores == (0, 2) and game.score_of(BLUE) == 2
    for _ in range(6):
        game.take_follower(RED)
    assert game.supply_of(RED) == 0
    with pytest.raises(ValueError, match="player 0 has no follower in supply"):
        game.take_follower(RED)
    assert game.supply_of(RED) == 0


#: The game's own modules: ``game.py`` and the job modules it delegates to, functions over its state.
GAME_MODULES = frozenset({
    "game.py", "board.py", "copying.py", "followers.py", "frontier.py", "game_setup.py", "pile.py", "record.py",
    "undo.py", "union_find.py", "valuation.py", "views.py",
})


def test_no_engine_module_but_the_game_s_own_touches_private_members_of_other_objects() -> None:
    """Expansions, the position builder and the loader use only the public surface
    (``ExpansionHost``, ``GameSetup``); mypy checks the hooks' types, this checks every engine module
    but the game's own (``game.py`` and its job modules)."""
    engine = Path(__file__).resolve().parents[1] / "carcassonne_env" / "engine"
    found = []
    for path in sorted(engine.glob("*.py")):
        if path.name in GAME_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert found == []
    assert {path.name for path in engine.glob("*.py")} >= GAME_MODULES


# ---------------------------------------------------------------- GameSetup
@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda b: b.tile("base/C", 0, 0).tile("base/L", 0, 0), r"two tiles at \(0,0\)"),
        # base/C rotation 0 shows its city north: the field of a monastery cannot touch it (R11).
        (lambda b: b.tile("base/C", 0, 0).tile("base/L", 0, 1), r"base/L rotation 0 at \(0,1\) does not match"),
        (lambda b: b.tile("base/C", 0, 0).follower(RED, 0, 0, slot=2), r"no segment 2 at \(0,0\)"),
        (lambda b: b.tile("base/C", 0, 0).follower(RED, 1, 0, slot=0), r"no segment 0 at \(1,0\)"),
        (
            lambda b: b.tile("base/C", 0, 0).follower(RED, 0, 0, slot=0).follower(BLUE, 0, 0, slot=0),
            r"segment 0 at \(0,0\) already holds a follower \(R42\)",
        ),
        (lambda b: b.tower(0, 0, ()), "need the 'tower' expansion"),
    ],
)
def test_a_position_that_cannot_exist_is_refused_naming_the_cause(build: object, message: str) -> None:
    builder = PositionBuilder(GameConfig(players=2))
    with pytest.raises(PositionError, match=message):
        build(builder).build()  # type: ignore[operator]


def test_a_tower_s_floors_are_colour_members_or_their_ints_and_nothing_else() -> None:
    """``.tower(x, y, floors)`` takes ``FloorColour`` members or their ints (numpy's too), the same
    position either way, on the compiled engine as on its source; any other colour is refused."""
    import numpy as np

    from carcassonne_env.engine import FloorColour
    from carcassonne_env.engine.tower import state

    config = GameConfig(players=2, expansions=with_requirements("black_tower"))

    def stacks(floors: list[int]) -> dict[int, tuple[int, ...]]:
        game = PositionBuilder(config).tile("tower/F", 0, 0).tower(0, 0, floors).build()
        return state(game).stacks

    members = stacks([FloorColour.NORMAL, FloorColour.BLACK])
    assert members == stacks([0, 1]) == stacks(list(np.array([0, 1], dtype=np.int64)))
    assert list(members.values()) == [(0, 1)]
    with pytest.raises(PositionError, match=r"floors \[0, 3\] at \(0,0\): a floor is normal 0, black 1 or white 2"):
        stacks([0, 3])


def test_r2_an_eighth_follower_is_refused() -> None:
    builder = PositionBuilder(GameConfig(players=2))
    for x in range(8):
        builder.tile("base/L", 2 * x, 0).follower(BLUE, 2 * x, 0, slot=0)
    with pytest.raises(PositionError, match=r"player 1 has no follower left for the follower at \(14,0\) \(R2\)"):
        builder.build()


def test_setup_hands_out_its_game_once() -> None:
    setup = GameSetup(GameConfig(players=3), pile=["base/L"])
    setup.put_tile("base/C", 0, 0)
    setup.put_follower(GREEN, 0, 0, 0)
    setup.set_score(BLUE, 4)
    game = setup.start(current_player=2)
    assert (game.current_player, game.current_tile and game.current_tile.id) == (2, "base/L")
    assert game.scores == (0, 4, 0) and game.supply == (7, 7, 6)
    assert game.record().replay().to_dict() == game.to_dict()  # the record starts from this position
    with pytest.raises(RuntimeError, match="already started"):
        setup.put_tile("base/L", 0, -1)

"""Shared set-up for the rulebook tests: the players' and the floors' colours, and the positions of the
expansions' tests.

Every scenario keeps a far-away anchor tile at ``ANCHOR``: the tile a player must place before
acting (T2) goes into the anchor row, so it never touches the position under test.
"""

from __future__ import annotations

from collections.abc import Sequence

from carcassonne_env.engine import TOWER_TOP_SLOT, Action, ActionKind, FloorColour, Game, GameConfig, Phase
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.tower import TowerState

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
FILLER = "base/L"
ANCHOR = (40, 40)
#: The colours of a floor (R51): normal, black, white.
N, B, W = FloorColour.NORMAL, FloorColour.BLACK, FloorColour.WHITE
#: The slot a CAPTURE names for the figure on a tower's top.
TOP = TOWER_TOP_SLOT


def position(config: GameConfig) -> PositionBuilder:
    """A builder with the far-away anchor tile already on the board."""
    return PositionBuilder(config).tile(FILLER, *ANCHOR)


def start(builder: PositionBuilder, player: int, pile: Sequence[str] = (FILLER, FILLER)) -> Game:
    """Build the position; ``player`` has drawn the first tile of ``pile``."""
    return builder.build(pile=list(pile), current_player=player)


def place_filler(game: Game) -> None:
    """T2 with the filler: put it in the anchor row, next to the last tile there."""
    x = ANCHOR[0] + 1
    while game.tile_at(x, ANCHOR[1]) is not None:
        x += 1
    game.apply(Action.place(x, ANCHOR[1], 0))


def tower(game: Game) -> TowerState:
    st: TowerState = game.expansion_state("tower")
    return st


def kinds(actions: Sequence[Action], *wanted: ActionKind) -> set[Action]:
    return {a for a in actions if a.kind in wanted}


def cap(x: int, y: int, slot: int) -> Action:
    """CAPTURE of the follower on segment ``slot`` (or the tower top) at (x, y)."""
    return Action.capture(x, y, slot)


def targets_after_floor(game: Game, x: int, y: int, colour: FloorColour = N) -> set[Action]:
    """The current player puts a ``colour`` floor on the tower at (x, y); the actions of the capture
    decision (T4) that follows."""
    game.apply(Action.floor(x, y, colour))
    assert game.phase is Phase.CAPTURE
    return set(game.legal_actions())


def coat_of_arms_game() -> Game:
    """R63 / D20's position (tests/test_rules_watchtowers.py), 4 players with the Watchtowers: the
    coat-of-arms watchtower ``watchtowers/CCRF-coat`` at (0,0) with Red's thief on its road S
    (slot 2); pennants on incomplete cities in its 3×3 area at (0,1), (1,0) and (−1,−1), and one
    outside it at (−2,0). Red has drawn ``base/LR``, whose rotation 2 at (0,−1) ends the road."""
    return start(
        position(GameConfig(players=4, expansions=("watchtowers",)))
        .tile("watchtowers/CCRF-coat", 0, 0).follower(RED, 0, 0, 2)
        .tile("base/CFc+", 0, 1, rotation=1)
        .tile("base/Cc+", 1, 0)
        .tile("base/CFc+", -1, -1, rotation=1)
        .tile("base/Cccc+", -2, 0),
        RED,
        ["base/LR", FILLER],
    )

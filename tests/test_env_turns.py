"""Quarter turns of the board (carcassonne_env/environment/turns.py): a sample turned is the encoding
of the game turned, every plane of every observer, the action mask and the legal actions' meanings.

A game turned k quarter turns clockwise is built two ways: a position set up directly (docs/rules.md
§8) with every tile at its turned place in its turned rotation and every piece where it was, or a
seeded game replayed from its start tile turned in place with every action turned (the engine
refuses an illegal action, so the rules hold under the turn along the whole line).

Tiles (slot = index in the tile's features): ``base/RCr`` (the start tile): city N (0), road E–W
(1), fields N (2) and S (3) of the road. ``base/C``: city N (0), field (1). ``base/RFr``: road E–W
(0), fields N (1) and S (2); rotation 1: N–S. ``base/Rr``: a curve S–W (0); rotation 2: N–E, 3: E–S.
``base/L``: monastery (0), field (1). ``tower/F``: field (0) on a tower foundation.
``watchtowers/CFRF-meeple``: city N (0), road S ending at the watchtower (1), fields E (2), W (3).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest
from scenario import BLUE, FILLER, RED, B, N, W

from carcassonne_env.engine import Action, ActionKind, FloorColour, Game, GameConfig, Phase, load_catalogue
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.layout import Layout
from carcassonne_env.environment.observation import Encoder
from carcassonne_env.environment.subcell_planes import stamp
from carcassonne_env.environment.turns import QuarterTurns, Turn, turn_action, turn_point

TURNS = (1, 2, 3)


def assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray], layout: Layout, what: str) -> None:
    """Equal observations, plane by plane and entry by entry (a failure names the plane)."""
    for key, entries in (("board", layout.board), ("cells", layout.cells)):
        for e in entries:
            np.testing.assert_array_equal(got[key][e.start], want[key][e.start], err_msg=f"{what}: {key} {e.name}")
    for e in layout.vector:
        np.testing.assert_array_equal(got["vector"][e.start:e.stop], want["vector"][e.start:e.stop],
                                      err_msg=f"{what}: vector {e.name}")


class Pair:
    """A game and its turn by ``k``, each with an encoder of window ``window``."""

    def __init__(self, game: Game, turned: Game, k: int, window: int) -> None:
        self.game, self.turned, self.k = game, turned, k
        self.encoder, self.turned_encoder = Encoder(game.config, window), Encoder(game.config, window)
        self.encoder.reset(game)
        self.turned_encoder.reset(turned)
        self.turns = QuarterTurns(self.encoder.layout)
        self.codec = ActionCodec(window)

    def turn(self) -> Turn | None:
        self.encoder.sync(self.game)
        self.turned_encoder.sync(self.turned)
        return self.turns.turn(self.encoder.observation(self.game, 0)["cells"], self.k)

    def assert_turned(self, turn: Turn) -> None:
        """Every observer's observation turned is the turned game's; the legal actions turned are the
        turned game's, index by index, and so is the mask."""
        game, turned, k = self.game, self.turned, self.k
        where = f"k={k} ply {len(game.history)}"
        for observer in range(game.num_players):
            obs = self.turns.observation(self.encoder.observation(game, observer), turn)
            assert_same(obs, self.turned_encoder.observation(turned, observer), self.encoder.layout,
                        f"{where} observer {observer}")
        legal = game.legal_actions()
        assert sorted(turn_action(a, k) for a in legal) == sorted(turned.legal_actions()), where
        player, n = game.current_player, game.num_players
        indices = np.array([self.codec.encode(a, self.encoder.window, player, n) for a in legal], dtype=np.int64)
        turned_indices = [self.codec.encode(turn_action(a, k), self.turned_encoder.window, player, n) for a in legal]
        assert self.turns.actions(indices, turn).tolist() == turned_indices, where
        turned_mask = self.codec.mask(self.codec.legal_indices(turned, self.turned_encoder.window, True)[0])
        np.testing.assert_array_equal(self.turns.mask(self.codec.mask(indices.tolist()), turn), turned_mask,
                                      err_msg=where)


@dataclass(frozen=True)
class Scene:
    """A position as the builder sets it up (coordinates in the unturned game) and the actions played
    from it; :meth:`game` builds it turned by ``k`` (0: as it is)."""

    config: GameConfig
    tiles: tuple[tuple[str, int, int, int], ...]
    followers: tuple[tuple[int, int, int, int], ...] = ()  # (player, x, y, slot)
    towers: tuple[tuple[int, int, tuple[FloorColour, ...]], ...] = ()
    tops: tuple[tuple[int, int, int], ...] = ()  # (player, x, y)
    prisoners: tuple[tuple[int, int, int], ...] = ()  # (captor, owner, count)
    scores: tuple[int, ...] = ()
    pile: tuple[str, ...] = (FILLER, FILLER)
    player: int = RED
    then: tuple[Action, ...] = ()

    def game(self, k: int) -> Game:
        b = PositionBuilder(self.config)
        for tile, x, y, rotation in self.tiles:
            b = b.tile(tile, *turn_point(x, y, k), (rotation + k) % 4)
        for player, x, y, slot in self.followers:
            b = b.follower(player, *turn_point(x, y, k), slot=slot)
        for x, y, floors in self.towers:
            b = b.tower(*turn_point(x, y, k), floors)
        for player, x, y in self.tops:
            b = b.tower_top(player, *turn_point(x, y, k))
        for captor, owner, count in self.prisoners:
            b = b.prisoners(captor, owner, count)
        for player, points in enumerate(self.scores):
            b = b.score(player, points)
        game = b.build(pile=list(self.pile), current_player=self.player)
        for action in self.then:
            game.apply(turn_action(action, k))
        return game


BASE = GameConfig(players=2)
TOWER = GameConfig(players=2, expansions=("tower",))
BLACK = GameConfig(players=2, expansions=with_requirements("black_tower"))
WATCH = GameConfig(players=3, expansions=TOWER_VARIANT)

#: The base game's pieces: a knight in a two-tile city, a highwayman on a road of four tiles, a farmer
#: beside the road, a monk in a cloister; the board four tiles wide and three high. Blue has drawn a
#: straight road (T2: every PLACE, four rotations of each spot).
FARMERS_AND_KNIGHTS = Scene(
    BASE,
    tiles=(("base/RCr", 0, 0, 0), ("base/C", 0, 1, 2), ("base/RFr", 1, 0, 0), ("base/RFr", 2, 0, 0),
           ("base/Rr", -1, 0, 3), ("base/RFr", -1, -1, 1), ("base/L", 0, -1, 0)),
    followers=((RED, 0, 1, 0), (BLUE, 2, 0, 0), (RED, 0, 0, 3), (BLUE, 0, -1, 0)),
    pile=("base/RFr", FILLER), player=BLUE,
)
#: The Tower: a tower of two floors south of the start tile, open (R33), one of one floor with Blue on top
#: south-west; Red holds one of Blue's followers. Red places a straight road east of the start and
#: decides T3: DEPLOY on its slots, FLOOR on both towers, TOWER_TOP on the open one, PASS.
TWO_TOWERS = Scene(
    TOWER,
    tiles=(("base/RCr", 0, 0, 0), ("tower/F", 0, -1, 0), ("base/Rr", -1, 0, 2), ("tower/F", -1, -1, 0)),
    towers=((0, -1, (N, N)), (-1, -1, (N,))),
    tops=((BLUE, -1, -1),),
    prisoners=((RED, BLUE, 1),),
    pile=("base/RFr", FILLER),
    then=(Action.place(1, 0, 0),),
)
#: The Black Tower: Blue (10 points) has a follower in Red's prison and pays the ransom if it likes
#: (T3, R48); a black tower of height 2, a white tower (capped for good) beside it.
RANSOM = Scene(
    BLACK,
    tiles=(("base/RCr", 0, 0, 0), ("tower/F", 0, -1, 0), ("tower/F", 1, -1, 0), ("base/RFr", 1, 0, 0)),
    towers=((0, -1, (N, B)), (1, -1, (N, W))),
    prisoners=((RED, BLUE, 1),),
    scores=(4, 10),
    pile=("base/RFr", FILLER), player=BLUE,
    then=(Action.place(2, 0, 0),),
)
#: The Tower's capture (T4): Red raises the tower south of the start to height 2; Blue's highwayman on the
#: road and Blue on top of the tower south-west are in reach (R38–R40).
CAPTURE = Scene(
    TOWER,
    tiles=(("base/RCr", 0, 0, 0), ("tower/F", 0, -1, 0), ("base/Rr", -1, 0, 2), ("tower/F", -1, -1, 0)),
    followers=((BLUE, 0, 0, 1),),
    towers=((0, -1, (N,)), (-1, -1, (N,))),
    tops=((BLUE, -1, -1),),
    pile=("base/RFr", FILLER),
    then=(Action.place(1, 0, 0), Action.floor(0, -1, N)),
)
#: The Watchtowers with every expansion: a meeple watchtower closing the start tile's city, a farmer on
#: its west field, a black tower; three players, Green to place.
WATCHTOWERS = Scene(
    WATCH,
    tiles=(("base/RCr", 0, 0, 0), ("watchtowers/CFRF-meeple", 0, 1, 2), ("tower/F", 0, -1, 0),
           ("base/RFr", 1, 0, 0)),
    followers=((BLUE, 0, 1, 3), (RED, 1, 0, 0)),
    towers=((0, -1, (B,)),),
    pile=("watchtowers/FRFR-monastery", FILLER), player=2,
)
SCENES = {"farmers-and-knights": FARMERS_AND_KNIGHTS, "two-towers": TWO_TOWERS, "ransom": RANSOM,
          "capture": CAPTURE, "watchtowers": WATCHTOWERS}


def test_a_tiles_picture_turned_is_its_picture_in_the_turned_rotation() -> None:
    """The 3×3 sub-cell picture of every catalogue tile in rotation r, turned k times clockwise, is its
    picture in rotation r + k, slots and pennants included (a slot is the tile's own)."""
    for tile in load_catalogue().types:
        for r in range(4):
            for k in TURNS:
                turned = np.rot90(stamp(tile, r).planes, -k, axes=(1, 2))
                want = stamp(tile, (r + k) % 4).planes
                np.testing.assert_array_equal(turned[:6], want[:6], err_msg=f"{tile.id} rotation {r} k={k}")


def test_each_scene_is_the_decision_it_names() -> None:
    phases = {name: scene.game(0).phase for name, scene in SCENES.items()}
    assert phases == {"farmers-and-knights": Phase.PLACE, "two-towers": Phase.ACTION, "ransom": Phase.ACTION,
                      "capture": Phase.CAPTURE, "watchtowers": Phase.PLACE}
    kinds = {name: {a.kind for a in scene.game(0).legal_actions()} for name, scene in SCENES.items()}
    assert {ActionKind.DEPLOY, ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.PASS} <= kinds["two-towers"]
    assert ActionKind.RANSOM in kinds["ransom"]
    assert {ActionKind.CAPTURE, ActionKind.NO_CAPTURE} <= kinds["capture"]
    captured = {a.arg for a in SCENES["capture"].game(0).legal_actions() if a.kind == ActionKind.CAPTURE}
    assert len(captured) == 2  # the highwayman's slot and the tower top


@pytest.mark.parametrize("window", [9, 10])
@pytest.mark.parametrize("k", TURNS)
@pytest.mark.parametrize("name", list(SCENES))
def test_a_built_position_turned_encodes_as_the_turned_position(name: str, k: int, window: int) -> None:
    """Each scene and the same scene built turned: every plane of every observer, the mask and the
    legal actions correspond (odd and even windows: the window is re-anchored on the turned board)."""
    scene = SCENES[name]
    pair = Pair(scene.game(0), scene.game(k), k, window)
    turn = pair.turn()
    assert turn is not None
    pair.assert_turned(turn)


@pytest.mark.parametrize(("window", "k", "shift"), [(9, 1, (1, 0)), (9, 2, (0, -1)), (9, 3, (0, 0)),
                                                    (10, 1, (2, 0)), (10, 2, (1, -2)), (10, 3, (0, -1))])
def test_a_board_of_even_width_turned_moves_its_window(window: int, k: int, shift: tuple[int, int]) -> None:
    """Two tiles side by side, the start tile west: the window centres on the start tile (the centre
    rounds down). Turned a quarter clockwise they lie north–south, the start tile north, and the window
    centres on the southern tile: one row south of the turned window (rows 1). Turned twice the start
    tile lies east and the window centres on the western tile (cols −1); three times the start tile lies
    south and the window stays on it. An even window reaches one cell further west and south than east
    and north, so turned it moves by one more cell on the axes it swaps."""
    scene = Scene(BASE, tiles=(("base/RCr", 0, 0, 0), ("base/RFr", 1, 0, 0)))
    pair = Pair(scene.game(0), scene.game(k), k, window)
    turn = pair.turn()
    assert turn == Turn(k, *shift)
    pair.assert_turned(turn)


def test_a_board_that_overflows_the_window_is_not_turned() -> None:
    """A road of eight tiles in a 9-cell window: its eastern end lies in the window's border column and
    the spot beyond it outside (the window does not cover the frontier), so the turned game would not fit
    the sample."""
    tiles = (("base/RCr", 0, 0, 0), *(("base/RFr", x, 0, 0) for x in (-3, -2, -1, 1, 2, 3, 4)))
    game = Scene(BASE, tiles=tiles).game(0)
    encoder = Encoder(BASE, 9)
    encoder.reset(game)
    assert not encoder.frontier_inside
    assert QuarterTurns(encoder.layout).turn(encoder.observation(game, 0)["cells"], 1) is None


def test_a_quarter_turn_is_one_to_four() -> None:
    with pytest.raises(ValueError, match="k = 1, 2 or 3"):
        QuarterTurns(Layout(BASE, 9)).turn(np.zeros((20, 9, 9), dtype=np.uint8), 4)


@pytest.mark.slow
@pytest.mark.parametrize("k", TURNS)
@pytest.mark.parametrize(("config", "seed"), [(BASE, 3), (WATCH, 6)], ids=["base", "tower-variant-3p"])
def test_a_seeded_game_replayed_from_a_turned_start_encodes_as_its_turn(config: GameConfig, seed: int,
                                                                        k: int) -> None:
    """A seeded game of random moves, and the same tile order played from the start tile turned in place
    with every action turned: the engine takes every turned action and scores the same, and at every
    decision the turned sample is the turned game's. In a 31-cell window every decision is turned; in a
    9-cell window the board overflows, and a sample is left unturned exactly when its window does not
    cover the frontier. The tower variant's game plays every kind of action (ransoms, captures, black
    and white floors among them)."""
    pile = Game(config, seed=seed).to_dict()["pile"]
    game = Game(config, tile_order=pile)
    turned = PositionBuilder(config).tile(load_catalogue().start.id, 0, 0, k).build(pile=pile)
    pairs = [Pair(game, turned, k, window) for window in (31, 9)]
    rng = random.Random(seed)
    counted = {31: 0, 9: 0}
    while not game.is_over:
        for pair in pairs:
            turn = pair.turn()
            assert (turn is None) == (not pair.encoder.frontier_inside)
            if turn is not None:
                pair.assert_turned(turn)
                counted[pair.encoder.size] += 1
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        game.apply(action)
        turned.apply(turn_action(action, k))
        assert turned.scores == game.scores
    decisions = len(game.history)
    assert counted[31] == decisions and 0 < counted[9] < decisions
    played = {a.kind for a in game.history}
    assert played == (set(ActionKind) if config.expansions else {ActionKind.PLACE, ActionKind.DEPLOY, ActionKind.PASS})

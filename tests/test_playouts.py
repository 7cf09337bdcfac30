"""Random playouts: every invariant holds after every action, for every expansion combination.

Each game is played by a uniformly random agent. After every action the checks of
``playout_invariants`` run. The state survives a save → load round trip unchanged: after every
action in the first :data:`EVERY_ACTION_GAMES` games of each combination, after every
:data:`ROUND_TRIP_EVERY`-th and the last in the others (a load validates and rebuilds the whole
game, so a round trip costs the length of the game so far: at every action it was four fifths of
the test's time).

On the engine's Python source (``CARCASSONNE_PURE_PYTHON=1``: scripts/test.sh's second run of the
rules) each combination plays its first :data:`EVERY_ACTION_GAMES` games: the compiled engine's run
plays all of them from the same seeds, and the two engines play the same games
(tests/test_compiled_engine.py), so the rest would check the same states again.
"""

from __future__ import annotations

import os
import random

import pytest
from playout_invariants import COMBINATIONS, PLAYER_COUNTS, check, start

from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.compiled_core import PURE_PYTHON_VARIABLE

GAMES_PER_PLAYER_COUNT = 100
EVERY_ACTION_GAMES = 20
ROUND_TRIP_EVERY = 10


def play_checked(config: GameConfig, seed: int, round_trip_every: int) -> Game:
    game = Game(config, seed=seed)
    rng = random.Random(seed)
    tracker = start(game)
    check(game, tracker, None)
    step = 0
    while not game.is_over:
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        game.apply(action)
        check(game, tracker, action.kind.name)
        step += 1
        if step % round_trip_every == 0 or game.is_over:  # the end state, final scoring done, too
            saved = game.to_dict()
            assert Game.from_dict(saved).to_dict() == saved
    return game


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_random_playouts_keep_every_invariant(combination: str, players: int) -> None:
    """R2, R13, R24, R26, R46, R47 and the floor count hold after every action of 100 games (of 20 on
    the Python source)."""
    config = GameConfig(players=players, expansions=COMBINATIONS[combination])
    source = os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0")
    for g in range(EVERY_ACTION_GAMES if source else GAMES_PER_PLAYER_COUNT):
        every = 1 if g < EVERY_ACTION_GAMES else ROUND_TRIP_EVERY
        game = play_checked(config, seed=1000 * players + g, round_trip_every=every)
        assert game.is_over

"""Random playouts: every invariant holds after every action, for every expansion combination.

Each game is played by a uniformly random agent. After every action the checks of
``playout_invariants`` run, and the state survives a save → load round trip unchanged.
"""

from __future__ import annotations

import random

import pytest
from playout_invariants import check, start

from carcassonne_env.engine import Game, GameConfig

GAMES_PER_PLAYER_COUNT = 100
PLAYER_COUNTS = (2, 3, 4, 5, 6)
COMBINATIONS = {
    "base": (),
    "tower": ("tower",),
    "tower+black_tower": ("tower", "black_tower"),
    "watchtowers": ("watchtowers",),
    "all": ("tower", "black_tower", "watchtowers"),
}


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
        if step % round_trip_every == 0:
            saved = game.to_dict()
            assert Game.from_dict(saved).to_dict() == saved
    return game


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_random_playouts_keep_every_invariant(combination: str, players: int) -> None:
    """R2, R13, R24, R26, R46, R47 and the floor count hold after every action of 100 games."""
    config = GameConfig(players=players, expansions=COMBINATIONS[combination])
    for g in range(GAMES_PER_PLAYER_COUNT):
        game = play_checked(config, seed=1000 * players + g, round_trip_every=1)
        assert game.is_over

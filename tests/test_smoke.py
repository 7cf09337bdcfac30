"""A first playout: the engine plays a full base game to the end."""

import random

from carcassonne_env.engine import Game, GameConfig


def test_random_base_game_reaches_the_end() -> None:
    game = Game(GameConfig(players=2), seed=3)
    rng = random.Random(3)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert game.tiles_placed + len(game.discarded) == 72

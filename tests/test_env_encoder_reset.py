"""An encoder reset on a game in progress (e.g. an agent adapter handed any game, or a determinized
copy) observes exactly what an encoder that followed the game step by step observes."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.observation import Encoder


@pytest.mark.parametrize("players", [2, 4])
def test_reset_mid_game_equals_incremental_sync(players: int) -> None:
    config = GameConfig(players=players, expansions=TOWER_VARIANT)
    game = Game(config, seed=players)
    follow = Encoder(config, 31)
    follow.reset(game)
    rng = np.random.default_rng(players)
    step = 0
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
        follow.sync(game)
        step += 1
        if step % 23 == 0:
            fresh = Encoder(config, 31)
            fresh.reset(game)
            for observer in range(players):
                a, b = follow.observation(game, observer), fresh.observation(game, observer)
                for key in a:
                    np.testing.assert_array_equal(a[key], b[key], err_msg=f"step {step} {key}")

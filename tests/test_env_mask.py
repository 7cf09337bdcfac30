"""The action mask is exactly the engine's legal list, at every step of many random games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT, with_requirements
from carcassonne_env.environment import raw_env

VARIANTS = (
    {},
    {"tower_range_manhattan": True, "tower_blocked_by_holes": True},
    {"no_surprises": True, "capture_opponents_only": True, "black_tower_excludes_own_tile": True},
    {"tower_top_followers_immune": True, "no_ransom": True, "extra_foundation_tiles": 8},
    {"legacy_small_city": True, "watchtower_ignores_tower_followers": True},
)
GAMES_PER_PLAYER_COUNT = 50


def check_game(config: GameConfig, seed: int) -> int:
    """Play one random game, asserting mask ⇔ legal list at every decision; returns the decisions."""
    env = raw_env(**config.to_dict())
    env.reset(seed=seed)
    rng = random.Random(seed)
    codec = env.codec
    decisions = 0
    while not env.game.is_over:
        game = env.game
        agent = env.agent_selection
        assert agent == f"player_{game.current_player}"
        mask = env.observe(agent)["action_mask"] if decisions % 50 == 0 else env.action_mask(agent)
        assert mask.dtype == np.int8 and mask.shape == (codec.n,)
        indices = np.flatnonzero(mask)
        decoded = [
            codec.decode(int(i), env.encoder.window, game.current_player, game.num_players, game.placed_position)
            for i in indices
        ]
        legal = game.legal_actions()
        assert len(decoded) == len(legal)
        assert set(decoded) == set(legal)
        for other in env.agents:
            if other != agent:
                assert not env.action_mask(other).any()
        assert "window_overflow" not in env.infos[agent]
        env.step(int(indices[rng.randrange(len(indices))]))
        decisions += 1
    assert all(env.terminations.values())
    assert not any(env.action_mask(a).any() for a in env.agents)
    return decisions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_mask_equals_legal_actions_with_all_expansions(players: int) -> None:
    for g in range(GAMES_PER_PLAYER_COUNT):
        variants = VARIANTS[g % len(VARIANTS)]
        config = GameConfig(players=players, expansions=TOWER_VARIANT, **variants)
        check_game(config, seed=1000 * players + g)


@pytest.mark.parametrize("expansions", [(), ("tower",), ("watchtowers",), with_requirements("black_tower")])
def test_mask_equals_legal_actions_with_fewer_expansions(expansions: tuple[str, ...]) -> None:
    for g in range(2):
        check_game(GameConfig(players=2 + g, expansions=expansions), seed=77 + g)

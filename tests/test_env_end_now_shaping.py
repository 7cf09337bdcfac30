"""Potential-based shaping on the end-now scores (option ``shaping_scores="end_now"``, docs/env.md)."""

from __future__ import annotations

import numpy as np
import pytest

import carcassonne_env
from carcassonne_env.engine import ConfigError
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.rewards import terminal_rewards


def _play(seed: int, **config: object) -> tuple[dict[str, float], list[dict[str, float]], tuple[int, ...]]:
    """Total reward per agent, the per-step rewards, and the final scores of a seeded random game."""
    env = carcassonne_env.raw_env(players=2, expansions=TOWER_VARIANT, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = []
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
        steps.append(dict(env.rewards))
    return totals, steps, tuple(info["final_scores"])


@pytest.mark.parametrize("seed", [1, 2])
def test_end_now_shaping_telescopes_to_the_final_score_difference(seed: int) -> None:
    """With two players the shaping rewards of a game sum to c · (own − other final score), like the
    score-delta shaping: the potential starts at 0 (start tile, no follower) and ends at the score."""
    c = 0.01
    totals, _, scores = _play(seed, shaping=c, shaping_scores="end_now")
    terminal = terminal_rewards(scores, "win_loss")
    for seat, agent in enumerate(("player_0", "player_1")):
        shaping = totals[agent] - terminal[seat]
        assert shaping == pytest.approx(c * (scores[seat] - scores[1 - seat]), abs=1e-9)


def test_end_now_shaping_pays_a_move_before_its_feature_scores() -> None:
    """Score-delta shaping pays only when points are scored; end-now shaping pays on more steps
    (e.g. a follower put on an incomplete road is worth its end-game value at once)."""
    _, current, _ = _play(4, shaping=0.01)
    _, end_now, _ = _play(4, shaping=0.01, shaping_scores="end_now")
    paid_current = sum(any(r != 0 for r in step.values()) for step in current)
    paid_end_now = sum(any(r != 0 for r in step.values()) for step in end_now)
    assert paid_end_now > 2 * paid_current


def test_unknown_shaping_scores_are_refused_naming_the_option() -> None:
    with pytest.raises(ConfigError, match="shaping_scores"):
        carcassonne_env.raw_env(shaping=0.1, shaping_scores="later")

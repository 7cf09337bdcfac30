"""The single-agent Gymnasium view: checkers, opponents, and a short MaskablePPO run."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from carcassonne_env.environment import GYM_ID, SingleAgentEnv

TINY = {"players": 2, "window": 15}


def test_gymnasium_check_env() -> None:
    env = gymnasium.make(GYM_ID, **TINY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env.unwrapped)


def test_stable_baselines3_check_env() -> None:
    check_env = pytest.importorskip("stable_baselines3.common.env_checker").check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # board and cells have per-plane bounds, so SB3 rightly declines to treat them as images.
        for message in ("It seems that your observation space", "The minimal resolution", "Treating image space"):
            warnings.filterwarnings("ignore", message=message)
        check_env(SingleAgentEnv(**TINY))


class FirstLegal:
    """An agent object (``act``) that always plays the lowest legal index."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        self.calls += 1
        assert set(observation) == {"board", "cells", "vector"}
        return int(np.flatnonzero(action_mask)[0])


def test_opponents_play_the_other_seats_until_the_learner_decides() -> None:
    opponent = FirstLegal()
    env = SingleAgentEnv(opponents=[opponent, opponent], seat=1, players=3, expansions=("tower",))
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    done = False
    total = 0.0
    while not done:
        assert env.aec.agent_selection == "player_1"
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        assert not truncated
    assert opponent.calls > 0
    assert "final_scores" in info
    assert not env.action_masks().any()
    assert total in (-1.0, 0.0, 1.0)


class LastLegal:
    def act(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[-1])


def test_random_seat() -> None:
    env = SingleAgentEnv(opponents=LastLegal(), seat=None, players=4)
    seats = set()
    for seed in range(6):
        env.reset(seed=seed)
        seats.add(env.seat)
        assert env.aec.agent_selection == env.learner
    assert len(seats) > 1


def test_an_illegal_learner_action_ends_the_episode_with_minus_one() -> None:
    env = SingleAgentEnv(**TINY)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "illegal_action" in info


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=2, players=2)
    with pytest.raises(ValueError, match="one player per other seat"):
        SingleAgentEnv(opponents=[FirstLegal()], players=3)


def test_maskable_ppo_trains_a_few_hundred_steps() -> None:
    torch = pytest.importorskip("torch")  # the "train" extra
    MaskablePPO = pytest.importorskip("sb3_contrib").MaskablePPO

    torch.set_num_threads(1)
    env = SingleAgentEnv(**TINY)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


@pytest.mark.parametrize("seed", [0, 1, 3, 166])  # in games 3 and 166 seat 0 scores before seat 1 moves
def test_the_learner_is_paid_every_point_including_the_opponents_opening_moves(seed: int) -> None:
    """With shaping weight 1 and two players, the episode's rewards add up to the final score
    difference plus the win/loss reward, whatever happened before the learner's first decision."""
    env = SingleAgentEnv(seat=1, players=2, shaping=1.0)
    _, _ = env.reset(seed=seed)
    total = 0.0
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, reward, terminated, truncated, _ = env.step(int(env.np_random.choice(legal)))
        total += reward
        done = terminated or truncated
    scores = env.aec.game.scores
    outcome = 0.0 if scores[0] == scores[1] else (1.0 if scores[1] > scores[0] else -1.0)
    assert total == pytest.approx(scores[1] - scores[0] + outcome)

"""The AEC env and the single-agent view survive pickling into another process: a ``spawn`` pool
unpickles them (before or during a game) and plays to the end, exactly as the same env does here."""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Iterator
from multiprocessing.pool import Pool
from typing import Any

import numpy as np
import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment import SingleAgentEnv, raw_env
from carcassonne_env.players import RandomAgent

CONFIG: dict[str, Any] = {"players": 3, "expansions": TOWER_VARIANT, "window": 21, "shaping": 0.5}


@pytest.fixture(scope="module")
def spawn_pool() -> Iterator[Pool]:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        yield pool


def _finish_aec(blob: bytes) -> dict[str, Any]:
    return _play_aec(*pickle.loads(blob))


def _play_aec(env: Any, agents: list[RandomAgent]) -> dict[str, Any]:
    """Play the env's game (seed 17 if none is under way) to the end with the seats' engine actions."""
    if env._game is None:
        env.reset(seed=17)
    rewards = []
    while not all(env.terminations.values()):
        env.play(agents[env.seat_of(env.agent_selection)].choose_action(env.game))
        rewards.append(dict(env.rewards))
    return {"history": env.game.history, "scores": env.game.scores, "rewards": rewards,
            "last": env.observe("player_1")["observation"]["vector"]}


def _finish_single(blob: bytes) -> dict[str, Any]:
    return _play_single(*pickle.loads(blob))


def _play_single(env: SingleAgentEnv, learner: RandomAgent) -> dict[str, Any]:
    """Play the learner's episode to the end."""
    rewards = []
    done = False
    while not done:
        obs, reward, terminated, truncated, _ = env.step(learner.act(None, env.action_masks()))
        rewards.append(reward)
        done = terminated or truncated
    return {"history": env.aec.game.history, "scores": env.aec.game.scores, "rewards": rewards,
            "last": obs["vector"]}


def _assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["history"] == b["history"] and a["scores"] == b["scores"] and a["rewards"] == b["rewards"]
    np.testing.assert_array_equal(a["last"], b["last"])


@pytest.mark.parametrize("moves", [None, 0, 45])  # pickled before reset, right after it, mid-game
def test_aec_env_continues_in_a_spawned_process(spawn_pool: Pool, moves: int | None) -> None:
    env = raw_env(**CONFIG)
    agents = [RandomAgent(10 + seat) for seat in range(3)]
    if moves is not None:
        env.reset(seed=17)
        for _ in range(moves):
            env.play(agents[env.seat_of(env.agent_selection)].choose_action(env.game))
    blob = pickle.dumps((env, agents))
    there = spawn_pool.apply(_finish_aec, (blob,))
    _assert_same(there, _play_aec(env, agents))  # the original objects, continued here


def test_single_agent_env_continues_in_a_spawned_process(spawn_pool: Pool) -> None:
    env = SingleAgentEnv(opponents=[RandomAgent(1), RandomAgent(2)], seat=1, **CONFIG)
    learner = RandomAgent(3)
    env.reset(seed=8)
    for _ in range(20):
        env.step(learner.act(None, env.action_masks()))
    blob = pickle.dumps((env, learner))
    _assert_same(spawn_pool.apply(_finish_single, (blob,)), _play_single(env, learner))

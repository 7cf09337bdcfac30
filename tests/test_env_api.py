"""PettingZoo API conformance, registration, pickling, illegal actions, rewards and infos."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import carcassonne_env
from carcassonne_env.engine import ActionKind, IllegalActionError
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment import ENV_NAME, GYM_ID, raw_env
from carcassonne_env.environment.rewards import shaping_rewards, terminal_rewards

SMALL = {"window": 25}


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_api_test(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # api_test warns about Dict observations of any env that is not on its own list.
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        api_test(carcassonne_env.env(players=players, expansions=TOWER_VARIANT, **SMALL), num_cycles=300)


def test_the_env_docs_explain_the_two_warnings_of_api_test() -> None:
    """``api_test`` warns about the nested Dict observation (kept by design): docs/env.md quotes each
    warning it gives, so a new one (a new PettingZoo, a changed observation) fails here."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(carcassonne_env.env(**SMALL), num_cycles=10)
    said = {str(w.message) for w in caught if w.filename.endswith("api_test.py")}
    docs = (Path(__file__).resolve().parents[1] / "docs" / "env.md").read_text(encoding="utf-8")
    assert len(said) == 2
    for message in said:
        assert f"UserWarning: {message}\n" in docs, message


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: carcassonne_env.env(players=3, expansions=TOWER_VARIANT, **SMALL), num_cycles=100)


def test_pettingzoo_render_test() -> None:
    def make(render_mode: str | None = None) -> pettingzoo.AECEnv:
        return carcassonne_env.env(players=2, expansions=TOWER_VARIANT, render_mode=render_mode, window=25)

    render_test(make)


def test_registered_with_pettingzoo_and_gymnasium() -> None:
    env = pettingzoo.make("aec", ENV_NAME, players=3, expansions=TOWER_VARIANT)
    env.reset(seed=1)
    assert env.unwrapped.metadata["name"] == ENV_NAME and env.possible_agents == ["player_0", "player_1", "player_2"]
    single = gymnasium.make(GYM_ID, players=2)
    obs, _ = single.reset(seed=0)
    assert single.observation_space.contains(obs)


def test_top_level_factories_and_versioned_module_build_the_env() -> None:
    from carcassonne_env import carcassonne_v1

    wrapped = carcassonne_env.env(players=2)
    assert isinstance(wrapped, pettingzoo.AECEnv) and not isinstance(wrapped, raw_env)
    assert isinstance(carcassonne_env.raw_env(players=2), raw_env)
    assert carcassonne_v1.raw_env is raw_env
    assert isinstance(carcassonne_v1.env(players=3).unwrapped, raw_env)


def test_version_1_plays_the_tower_variant_unless_told_otherwise() -> None:
    """The env's default game is the one every command defaults to; ``expansions=()`` is the base game."""
    assert carcassonne_env.env().unwrapped.game_config.expansions == TOWER_VARIANT
    assert gymnasium.make(GYM_ID).unwrapped.aec.game_config.expansions == TOWER_VARIANT
    assert carcassonne_env.env(expansions=()).unwrapped.game_config.expansions == ()
    assert carcassonne_env.env(expansions=["tower"]).unwrapped.game_config.expansions == ("tower",)


def test_version_0_keeps_the_base_game_and_warns() -> None:
    from carcassonne_env import carcassonne_v0

    with pytest.warns(DeprecationWarning, match="carcassonne_v1 is the same env with the tower variant"):
        old = carcassonne_v0.env(players=3)
    assert old.unwrapped.game_config.expansions == () and old.unwrapped.metadata["name"] == "carcassonne_v0"
    with pytest.warns(DeprecationWarning, match="out of date"):
        single = gymnasium.make("carcassonne_env/Carcassonne-v0")
    assert single.unwrapped.aec.game_config.expansions == ()
    with pytest.warns(DeprecationWarning):
        clone = pickle.loads(pickle.dumps(carcassonne_v0.raw_env(expansions=("tower",))))
    assert type(clone) is carcassonne_v0.raw_env and clone.game_config.expansions == ("tower",)


def test_pickles_as_its_constructor_arguments() -> None:
    env = raw_env(players=4, expansions=TOWER_VARIANT, window=21, reward="score_diff", shaping=0.5)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.game_config == env.game_config and clone.options == env.options
    clone.reset(seed=3)
    env.reset(seed=3)
    np.testing.assert_array_equal(clone.observe("player_0")["action_mask"], env.observe("player_0")["action_mask"])
    pickle.loads(pickle.dumps(carcassonne_env.env(players=2)))


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="window"):
        raw_env(window=2)
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="elo")
    with pytest.raises(ValueError, match="colour_blind"):
        raw_env(colour_blind=True)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="opengl")


def test_raw_env_raises_a_descriptive_error_on_an_illegal_action() -> None:
    env = raw_env(players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_mask("player_0") == 0)[0])
    with pytest.raises(IllegalActionError, match=r"player_0 played illegal action 0 \(PLACE cell 0"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="DEPLOY"):
        env.step(env.codec.segment[ActionKind.DEPLOY].start)  # no tile placed yet: wrong decision
    with pytest.raises(IllegalActionError, match="None"):
        env.step(None)
    assert env.game.tiles_placed == 1  # nothing changed


def test_wrapped_env_ends_the_game_with_a_penalty_for_an_illegal_action() -> None:
    env = carcassonne_env.env(players=3)
    env.reset(seed=0)
    env.last()
    env.step(0)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0, "player_2": 0}


def _play(env: raw_env, seed: int) -> dict[str, float]:
    """A random game; returns each agent's total reward."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last(observe=False)
        total[agent] += reward
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
    return total


def test_terminal_rewards_and_final_scores_in_info() -> None:
    env = raw_env(players=3, expansions=TOWER_VARIANT)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    while not env.game.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    scores = env.game.scores
    assert all(info["final_scores"] == scores for info in env.infos.values())
    assert env.rewards == dict(zip(env.possible_agents, terminal_rewards(scores, "win_loss"), strict=True))
    assert all(env.terminations.values())
    totals = _play(raw_env(players=3, expansions=TOWER_VARIANT), seed=11)
    assert list(totals.values()) == terminal_rewards(scores, "win_loss")


def test_shaping_sums_to_the_relative_score_change() -> None:
    env = raw_env(players=2, expansions=TOWER_VARIANT, shaping=0.1, reward="score_diff")
    totals = _play(env, seed=5)
    scores = env.game.scores
    terminal = terminal_rewards(scores, "score_diff")
    assert totals["player_0"] == pytest.approx(0.1 * (scores[0] - scores[1]) + terminal[0])
    assert totals["player_1"] == pytest.approx(0.1 * (scores[1] - scores[0]) + terminal[1])


def test_reward_functions() -> None:
    assert terminal_rewards([10, 4, 7], "win_loss") == [1.0, -1.0, -1.0]
    assert terminal_rewards([10, 10, 7], "win_loss") == [0.0, 0.0, -1.0]
    assert terminal_rewards([0, 0], "win_loss") == [0.0, 0.0]
    assert terminal_rewards([10, 4, 7], "score_diff") == [0.3, -0.6, -0.3]
    assert terminal_rewards([0, 0], "score_diff") == [0.0, 0.0]
    assert shaping_rewards([0, 0, 0], [6, 0, 3], 1.0) == [4.5, -4.5, 0.0]


def test_reset_seed_plays_the_engine_game_of_that_seed() -> None:
    env = raw_env(players=2, expansions=TOWER_VARIANT)
    env.reset(seed=42)
    first = env.game.current_tile
    env.reset()
    env.reset(seed=42)
    assert env.game.current_tile is first and env.game.seed == 42

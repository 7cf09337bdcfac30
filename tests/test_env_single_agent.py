"""The single-agent Gymnasium view: checkers, opponents, and a short MaskablePPO run."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from carcassonne_env.engine import Action, Game, GameConfig
from carcassonne_env.environment import GYM_ID, SingleAgentEnv, raw_env
from carcassonne_env.players import RandomAgent

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


class EngineFirstLegal:
    """An engine-level opponent: the first legal engine action; checks it is handed the env's game."""

    def __init__(self) -> None:
        self.games: set[int] = set()

    def choose_action(self, game: Game) -> Action:
        self.games.add(id(game))
        return game.legal_actions()[0]


def test_engine_level_opponents_are_handed_the_env_game() -> None:
    opponent = EngineFirstLegal()
    env = SingleAgentEnv(opponents=opponent, seat=1, players=3, expansions=("tower",), window=15)
    env.reset(seed=2)
    assert opponent.games == {id(env.aec.game)}
    assert env.aec.game.history[0] == Game(env.aec.game_config, seed=2).legal_actions()[0]
    done = False
    while not done:
        _, _, done, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = done or truncated
    assert env.aec.game.is_over and opponent.games == {id(env.aec.game)}


def test_set_opponents_replaces_them_for_the_next_episode() -> None:
    env = SingleAgentEnv(seat=1, players=2, window=15)  # seat 1: the opponent opens every game
    env.reset(seed=0)
    first, second = EngineFirstLegal(), FirstLegal()
    env.set_opponents(first)
    env.reset(seed=1)
    assert first.games == {id(env.aec.game)} and second.calls == 0
    env.set_opponents([second])
    env.reset(seed=1)
    assert second.calls > 0 and len(first.games) == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"seat": 1.0}, TypeError, "seat must be an int or None, got 1.0"),
        ({"seat": "0"}, TypeError, "seat must be an int or None, got '0'"),
        ({"seat": True}, TypeError, "seat"),
        ({"seat": -1}, ValueError, "seat must be in 0..1"),
        ({"opponents": 42}, TypeError, "opponents must be None, a player or a sequence of players, got 42"),
        ({"opponents": "random"}, TypeError, "opponents"),
        ({"opponents": [42]}, TypeError, r"opponents\[0\]"),
        ({"opponents": RandomAgent}, TypeError, "opponents"),  # the class, not a player
        ({"opponents": [FirstLegal(), FirstLegal()]}, ValueError, "one player per other seat"),
        ({"window": 3001}, ValueError, "window: must be an int in 11..105, got 3001"),
        ({"window": 10}, ValueError, "window"),
        ({"window": 15.0}, ValueError, "window"),
        ({"players": 3.0}, ValueError, "players"),
    ],
)
def test_bad_arguments_are_refused_at_construction_naming_them(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        SingleAgentEnv(**{"players": 2, **kwargs})


def test_set_opponents_validates_like_the_constructor() -> None:
    env = SingleAgentEnv(players=3, window=15)
    with pytest.raises(TypeError, match="opponents"):
        env.set_opponents(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one player per other seat"):
        env.set_opponents([FirstLegal()])


def test_numpy_integers_are_integers() -> None:
    env = SingleAgentEnv(players=np.int64(3), seat=np.int64(2), window=np.int32(15))
    assert (env.aec.game_config.players, env.seat, env.aec.options.window) == (3, 2, 15)
    assert type(env.seat) is int and type(env.aec.game_config.players) is int
    env.reset(seed=np.int64(4))
    assert env.aec.game.seed == 4


def test_a_negative_seed_is_refused_naming_the_seed() -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative int, got -1"):
        SingleAgentEnv(players=2, window=15).reset(seed=-1)


@pytest.mark.parametrize("seat", [0, 1])
def test_reset_seed_plays_the_same_game_as_the_aec_env(seat: int) -> None:
    """``reset(seed=s)`` of the single-agent view and of the AEC env both play Game(config, seed=s)."""
    config = {"players": 2, "expansions": ("tower",), "window": 15}
    single = SingleAgentEnv(seat=seat, **config)
    single.reset(seed=21)
    aec = raw_env(**config)
    aec.reset(seed=21)
    game = Game(GameConfig(players=2, expansions=("tower",)), seed=21)
    assert aec.game.to_dict() == game.to_dict()
    for action in single.aec.game.history:  # the opponent's opening moves, if the learner is seat 1
        game.apply(action)
    assert single.aec.game.to_dict() == game.to_dict()


def test_gymnasium_make_gives_the_masks_the_way_sb3_contrib_reads_them() -> None:
    """``gymnasium.make`` wraps the env (Gymnasium ≥ 1.0 wrappers do not forward attributes), so the
    mask is ``env.unwrapped.action_masks()`` or ``env.get_wrapper_attr("action_masks")()`` — the
    latter is what sb3-contrib's ``get_action_masks`` calls."""
    get_action_masks = pytest.importorskip("sb3_contrib.common.maskable.utils").get_action_masks
    env = gymnasium.make(GYM_ID, **TINY)
    env.reset(seed=0)
    mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
    assert mask.any()
    np.testing.assert_array_equal(get_action_masks(env), mask)
    np.testing.assert_array_equal(env.get_wrapper_attr("action_masks")(), mask)
    env.get_wrapper_attr("set_opponents")(FirstLegal())


def _trajectory(env: SingleAgentEnv, seed: int, steps: int) -> list[np.ndarray]:
    obs, _ = env.reset(seed=seed)
    out = [obs["vector"]]
    for _ in range(steps):
        obs, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert not done
        out.append(obs["vector"])
    return out


def test_set_opponents_through_a_subprocess_vec_env() -> None:
    """Self-play pools change opponents with ``env_method("set_opponents", …)``: in two spawned
    workers the games then follow the new opponents exactly as an in-process env does."""
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    steps, seed = 12, 40
    vec = vec_env.SubprocVecEnv([lambda: SingleAgentEnv(**TINY)] * 2, start_method="spawn")
    try:
        vec.env_method("set_opponents", RandomAgent(5))
        vec.seed(seed)  # worker i resets with seed + i
        obs = vec.reset()
        got: list[list[np.ndarray]] = [[obs["vector"][i]] for i in range(2)]
        for _ in range(steps):
            masks = np.stack(vec.env_method("action_masks"))
            obs, _, dones, _ = vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
            assert not dones.any()
            for i in range(2):
                got[i].append(obs["vector"][i])
    finally:
        vec.close()
    for i in range(2):
        local = SingleAgentEnv(opponents=RandomAgent(5), **TINY)
        np.testing.assert_array_equal(np.stack(got[i]), np.stack(_trajectory(local, seed + i, steps)))
    default = _trajectory(SingleAgentEnv(**TINY), seed, steps)
    assert not np.array_equal(np.stack(got[0]), np.stack(default))  # the opponents did change

"""The residual policy's prior (agents/nets/prior.py): a searching agent's action values as an
observation entry, added to the board network's logits with a learned inverse temperature."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from playout_invariants import random_game

from carcassonne_env.engine.registry import TOWER_VARIANT

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from agents import GreedyAgent, as_engine_agent, make_agent  # noqa: E402
from agents.nets.board_net import layout_of  # noqa: E402
from agents.nets.policy import CarcassonnePolicy  # noqa: E402
from agents.nets.prior import PRIOR_KEY, ActionPrior, PriorObservation, prior_space  # noqa: E402
from agents.spec import UntrustedSpecError  # noqa: E402
from agents.value import LinearValue  # noqa: E402
from carcassonne_env.engine import Action, Game, GameConfig  # noqa: E402
from carcassonne_env.engine.position import PositionBuilder  # noqa: E402
from carcassonne_env.environment import SingleAgentEnv  # noqa: E402
from carcassonne_env.environment.observation import Encoder  # noqa: E402
from training.arena.match import play_match  # noqa: E402
from training.sb3.ppo import ppo_kwargs  # noqa: E402

RED = 0
WINDOW = 31


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def window_of(game: Game) -> Encoder:
    encoder = Encoder(game.config, WINDOW)
    encoder.reset(game)
    encoder.sync(game)
    return encoder


def test_the_prior_is_the_agents_action_values_less_the_best_at_the_legal_indices() -> None:
    for seed, stop in ((0, 20), (1, 57), (2, 90)):
        game = random_game(seed, stop_after=stop)
        encoder = window_of(game)
        prior = ActionPrior("greedy:value=linear", WINDOW, seed=7)
        vector = prior.vector(game, encoder.window)
        # the known answer: the same agent's values of the same determinized copy
        values = GreedyAgent(value=LinearValue.load()).action_values(game.determinize(np.random.default_rng(7)))
        legal = game.legal_actions()
        expected = np.zeros_like(vector)
        for action, value in zip(legal, values, strict=True):
            index = prior.codec.encode(action, encoder.window, game.current_player, 2)
            assert index is not None
            expected[index] = value - max(values)
        np.testing.assert_allclose(vector, expected, rtol=0, atol=1e-4)
        assert vector.dtype == np.float32 and vector.max() == 0.0


def test_closing_a_city_is_the_priors_best_placement() -> None:
    # Red's knight in the one-tile city of (0,0); Red draws a city cap: placing it at (0,1) rotated
    # twice closes the city for 4 points (R23). Every other line leaves Red's city open (1 point
    # if the game ended now) and is valued lower.
    game = (
        PositionBuilder(GameConfig(players=2))
        .tile("base/C", 0, 0, rotation=0)
        .follower(RED, 0, 0, 0)
        .build(pile=["base/C", "base/C", "base/C"], current_player=RED)
    )
    encoder = window_of(game)
    prior = ActionPrior("greedy", WINDOW)
    vector = prior.vector(game, encoder.window)
    close = prior.codec.encode(Action.place(0, 1, 2), encoder.window, RED, 2)
    assert close is not None and vector[close] == 0.0
    legal = [prior.codec.encode(a, encoder.window, RED, 2) for a in game.legal_actions()]
    assert sorted(i for i in legal if vector[i] == 0.0) == [close]


def test_one_legal_action_or_a_finished_game_needs_no_prior() -> None:
    prior = ActionPrior("greedy", WINDOW)
    rng = random.Random(3)
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=3)
    forced = 0
    while not game.is_over:
        legal = game.legal_actions()
        if len(legal) == 1:
            forced += 1
            assert not prior.vector(game, window_of(game).window).any()
        game.apply(legal[rng.randrange(len(legal))])
    assert forced > 0
    assert not prior.vector(game, window_of(game).window).any()


def test_an_agent_without_action_values_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"prior 'random'.*no action values"):
        ActionPrior("random", WINDOW)


def _prior_env(seed: int = 0) -> PriorObservation:
    env = SingleAgentEnv(seat=None, players=2, expansions=TOWER_VARIANT, opponents=GreedyAgent(seed=1))
    return PriorObservation(env, ActionPrior("greedy", env.aec.encoder.size, seed=seed))


def test_the_wrapped_env_adds_the_prior_of_the_learners_decision() -> None:
    env = _prior_env()
    assert env.observation_space[PRIOR_KEY] == prior_space(env.action_space.n)
    reference = ActionPrior("greedy", WINDOW, seed=99)  # end-now values: the reshuffle does not matter
    obs, _ = env.reset(seed=5)
    valued = 0
    for _ in range(60):
        mask = env.action_masks()
        prior = obs[PRIOR_KEY]
        assert env.observation_space.contains(obs)
        aec = env.single.aec
        np.testing.assert_array_equal(prior, reference.vector(aec.game, aec.encoder.window))
        assert not prior[~mask].any()  # only legal actions carry values
        valued += int(prior.min() < 0)
        obs, _, terminated, _, _ = env.step(int(np.flatnonzero(mask)[-1]))
        if terminated:
            break
    assert valued > 10  # most decisions rank their actions


def test_the_policy_adds_beta_times_the_prior_to_its_logits() -> None:
    env = _prior_env()
    model = MaskablePPO(CarcassonnePolicy, DummyVecEnv([lambda: env]), n_steps=32, batch_size=32,
                        **ppo_kwargs(prior="greedy", prior_temperature=2.0))
    net = model.policy.net
    assert net.prior_log_scale is not None
    assert float(net.prior_log_scale.detach().exp()) == pytest.approx(0.5)  # β starts at 1 / temperature
    obs, _ = env.reset(seed=11)
    assert obs[PRIOR_KEY].min() < 0
    mask = env.action_masks()[None]
    tensors, _ = model.policy.obs_to_tensor(obs)
    with th.no_grad():
        with_prior, _ = net.legal_logits(tensors, mask)
        without = dict(tensors, **{PRIOR_KEY: th.zeros_like(tensors[PRIOR_KEY])})
        residual, _ = net.legal_logits(without, mask)
    valid = with_prior.valid[0]
    actions = with_prior.actions[0][valid]
    expected = residual.logits[0][valid] + 0.5 * tensors[PRIOR_KEY][0, actions]
    th.testing.assert_close(with_prior.logits[0][valid], expected)


def test_prior_and_observation_space_must_agree() -> None:
    plain = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    with pytest.raises(ValueError, match="lacks a 'prior' entry"):
        MaskablePPO(CarcassonnePolicy, DummyVecEnv([lambda: plain]), **ppo_kwargs(prior="greedy"))
    with pytest.raises(ValueError, match="has a 'prior' entry"):
        MaskablePPO(CarcassonnePolicy, DummyVecEnv([_prior_env]), **ppo_kwargs())
    space = _prior_env().observation_space
    bad = type(space)({**space.spaces, PRIOR_KEY: prior_space(7)})
    with pytest.raises(ValueError, match=r"observation_space\['prior'\] is \(7,\)"):
        layout_of(bad)


def test_a_checkpoint_with_a_prior_is_an_agent_that_computes_it_and_plays_legally(tmp_path: Path) -> None:
    model = MaskablePPO(CarcassonnePolicy, DummyVecEnv([_prior_env]), n_steps=32, batch_size=32, n_epochs=1,
                        **ppo_kwargs(prior="greedy"))
    model.learn(32)
    path = tmp_path / "residual.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    assert loaded.policy.prior == "greedy"
    spec = f"ppo:{path}"
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    for seats in ((spec, "random"), ("random", spec)):
        result = play_match(config, seats, seed=4)  # the match runner refuses an illegal action
        assert result.record.replay().scores == result.scores
    agent = make_agent(spec, seed=0)
    assert agent.extras is not None and agent.extras.spec == "greedy"

    # Played as a bare policy, without the prior entry, it says what is missing.
    from agents.ppo import PPOAgent

    env = SingleAgentEnv(players=2, expansions=TOWER_VARIANT)
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"residual policy over 'greedy'.*needs the 'prior' entry"):
        PPOAgent(path).act(obs, env.action_masks().astype(np.int8))
    with pytest.raises(TypeError, match="is an engine agent"):
        as_engine_agent(GreedyAgent(), extras=agent.extras)


def test_an_untrained_residual_policy_plays_one_of_its_priors_best_actions(tmp_path: Path) -> None:
    # At temperature 0.01 point (β = 100) the untrained network's logits (heads at gain 0.01) cannot
    # outweigh a gap of a point: the agent, computing its prior itself at play time, must play one
    # of end-now greedy's best actions at every decision.
    model = MaskablePPO(CarcassonnePolicy, DummyVecEnv([_prior_env]),
                        **ppo_kwargs(prior="greedy", prior_temperature=0.01))
    path = tmp_path / "untrained.zip"
    model.save(path)
    agent = make_agent(f"ppo:{path}", seed=0)
    reference = GreedyAgent()
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=8)
    for _ in range(80):
        action = agent.choose_action(game)
        legal = game.legal_actions()
        values = reference.action_values(game)
        assert values[legal.index(action)] == max(values)
        game.apply(action)


def test_the_shipped_agent_is_a_residual_policy_over_greedy_on_the_learned_value() -> None:
    agent = make_agent("ppo:pretrained", seed=0)
    assert agent.extras is not None and agent.extras.spec == "greedy:value=linear"  # type: ignore[attr-defined]
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=2)
    for _ in range(12):
        action = agent.choose_action(game)
        assert action in game.legal_actions()
        game.apply(action)


def test_a_prior_read_from_a_model_file_names_no_file(tmp_path: Path) -> None:
    """A residual policy records its prior's spec in the model: text from a file (agents.spec.Origin),
    so it may name a built-in agent and shipped values, never a file or a module."""
    assert ActionPrior("greedy:fast=1,value=linear", 9, from_file=True).spec == "greedy:fast=1,value=linear"
    mark = tmp_path / "ran.txt"
    (tmp_path / "planted.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    for spec in (f"{tmp_path}/planted.py:Agent", f"greedy:value={tmp_path}/v.json"):
        with pytest.raises(UntrustedSpecError, match="from a file"):
            ActionPrior(spec, 9, from_file=True)
    assert not mark.exists()

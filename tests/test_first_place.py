"""Aiming at first place (agents/first_place.py): the chance against its closed form at 2 players and
against sampling at 4, the certain cases, and the example that motivates it — three rivals close
behind are worse than one rival further behind, although the margin over the best of them is larger."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_afterstate import one_layer_net, random_game

from agents import AgentSpecError, make_agent
from agents.afterstate import AfterstateAgent, pretrained_nets
from agents.evaluation import margins
from agents.first_place import FirstPlaceChance, first_place_chance, spread_of_residuals
from agents.nets.value_net import INPUTS
from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.afterstate import value_iteration as vi


def test_at_two_players_the_chance_is_the_normal_cdf_of_the_lead() -> None:
    # final_a − final_b ~ N(10, 2·8²): P(a first) = Φ(10 / (8·√2))
    expected = 0.5 * (1.0 + math.erf(10.0 / (8.0 * math.sqrt(2.0)) / math.sqrt(2.0)))
    assert first_place_chance([60.0, 50.0], 0, 8.0) == pytest.approx(expected, abs=1e-9)
    assert first_place_chance([60.0, 50.0], 1, 8.0) == pytest.approx(1.0 - expected, abs=1e-9)


def test_at_four_players_the_chance_agrees_with_sampling() -> None:
    mu = np.array([62.0, 55.0, 58.0, 40.0])
    s = 9.0
    finals = mu + s * np.random.default_rng(0).standard_normal((400_000, 4))
    firsts = np.bincount(finals.argmax(axis=1), minlength=4) / len(finals)
    for p in range(4):
        assert first_place_chance(mu.tolist(), p, s) == pytest.approx(firsts[p], abs=0.004)


def test_equal_players_share_first_place_and_the_chances_add_up_to_one() -> None:
    assert first_place_chance([50.0] * 3, 1, 12.0) == pytest.approx(1 / 3, abs=1e-6)
    expected = [71.0, 64.5, 66.0, 30.0, 69.0]
    assert sum(first_place_chance(expected, p, 6.0) for p in range(5)) == pytest.approx(1.0, abs=1e-6)


def test_without_noise_first_place_is_certain_or_shared() -> None:
    assert first_place_chance([60.0, 50.0, 55.0], 0, 0.0) == 1.0
    assert first_place_chance([60.0, 50.0, 60.0], 0, 0.0) == 0.5
    assert first_place_chance([60.0, 50.0, 55.0], 2, 0.0) == 0.0


def test_three_close_rivals_are_worse_than_one_far_behind() -> None:
    # Line A: a margin of +10 over the best other, but all three others close behind.
    # Line B: a margin of +7, one rival; the other two far behind.
    line_a, line_b = [70.0, 60.0, 60.0, 60.0], [67.0, 60.0, 30.0, 30.0]
    assert margins(line_a)[0] > margins(line_b)[0]
    assert first_place_chance(line_b, 0, 10.0) > first_place_chance(line_a, 0, 10.0)


def test_the_value_reads_the_base_values_final_scores_and_ends_exact() -> None:
    net = pretrained_nets()
    value = FirstPlaceChance(net, 20.0)
    game = random_game(3, players=3, stop_after=40)
    values, leads = value.margins(game), margins(net.final_scores(game))
    chances = [(v - 0.01 * m) / 100.0 for v, m in zip(values, leads, strict=True)]
    assert sum(chances) == pytest.approx(1.0, abs=1e-6)
    over = random_game(4, players=3)
    scores = over.scores
    leader = max(range(3), key=lambda p: scores[p])
    assert value.margin(over, leader) >= 100.0 / scores.count(scores[leader])


def test_the_afterstate_agent_takes_a_spread_and_refuses_a_bad_one() -> None:
    game = random_game(5, players=4, stop_after=30)
    action = make_agent("afterstate:pretrained,spread=20", seed=0).choose_action(game)
    assert action in game.legal_actions()
    assert make_agent("afterstate:pretrained,spread=0", seed=1).choose_action(game) == \
        make_agent("afterstate:pretrained", seed=1).choose_action(game)
    for bad in ("-1", "nan", "inf"):
        with pytest.raises((AgentSpecError, ValueError), match="spread"):
            make_agent(f"afterstate:pretrained,spread={bad}", seed=0)


def test_the_spread_is_read_back_from_residuals_of_known_noise() -> None:
    # finals = expected + N(0, 15² · t) per player; residuals centred over 4 players
    rng = np.random.default_rng(1)
    t = rng.uniform(0.0, 1.0, size=(200_000, 1))
    noise = 15.0 * np.sqrt(t) * rng.standard_normal((200_000, 4))
    centred = noise - noise.mean(axis=1, keepdims=True)
    assert spread_of_residuals(float((centred ** 2).mean()), float(t.mean()), 4, centred=True) == \
        pytest.approx(15.0, rel=0.01)
    assert spread_of_residuals(float((noise ** 2).mean()), float(t.mean()), 4, centred=False) == \
        pytest.approx(15.0, rel=0.01)
    with pytest.raises(ValueError, match="before the end"):
        spread_of_residuals(10.0, 0.0, 4, centred=True)


def test_an_afterstate_agent_aims_at_first_place_with_its_networks_spread_from_three_players() -> None:
    weights = np.random.default_rng(2).normal(size=len(INPUTS))
    for players, expected in ((2, "margin"), (3, "first"), (4, "first")):
        config = GameConfig(players=players, expansions=TOWER_VARIANT).to_dict()
        net = one_layer_net(weights, 0.0, config)
        game = random_game(7, players=players, stop_after=20)
        for spread, info, aim in ((None, {"spread": 18.0}, expected), (None, {}, "margin"),
                                  (0.0, {"spread": 18.0}, "margin"), (25.0, {}, "first")):
            agent = AfterstateAgent(0, replace(net, info=info), spread=spread)
            agent.choose_action(game)
            value = agent.value
            assert isinstance(value, FirstPlaceChance) == (aim == "first"), (players, spread, info)
            if isinstance(value, FirstPlaceChance):
                assert value.spread == (spread or info["spread"])


def test_the_trainer_records_the_spread_and_its_agents_aim_at_the_margin(tmp_path: Path) -> None:
    games = [random_game(s, players=3, expansions=()) for s in range(30, 36)]
    samples = vi.samples_from_games([g.record() for g in games])
    net, losses = vi.fit_value_net(samples, vi.Settings(players=3, epochs=2, holdout=0.34), seed=0, config={})
    # the games the fit holds out (drawn as fit_value_net draws them), their mean pile share
    held = np.random.default_rng(0).choice(np.unique(samples.game), size=2, replace=False)
    held_t = float(samples.t[np.isin(samples.game, held)].mean())
    assert net.info["spread"] == pytest.approx(spread_of_residuals(losses["heldout_mse"], held_t, 3, centred=True))
    assert vi._spec_of("a.npz", fast=False, players=3) == "afterstate:a.npz,spread=0"
    assert vi._spec_of("a.npz", fast=True, players=2) == "afterstate:a.npz,fast=1"
    # a spread is measured on games of one count: adopting a network for another count drops it
    two = replace(one_layer_net(np.zeros(len(INPUTS)), 0.0, GameConfig(players=2, expansions=TOWER_VARIANT).to_dict()),
                  info={"spread": 30.0})
    two.save(tmp_path / "two.npz")
    adopted = vi.adopted_init(str(tmp_path / "two.npz"), GameConfig(players=3, expansions=TOWER_VARIANT).to_dict())
    assert "spread" not in adopted.info

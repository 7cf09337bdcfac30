"""The learned position value (agents/value.py), its features and its fit (training/value/fit_linear.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from playout_invariants import random_game

from agents import AgentSpecError, GreedyAgent, MCTSAgent, make_agent
from agents.evaluation import END_NOW
from agents.value import DEFAULT_WEIGHTS, FEATURES, LinearValue, design_row, player_features
from carcassonne_env.engine import Action, Game, GameConfig
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.value import fit_linear as fit_value

RED, BLUE = 0, 1


def test_end_now_events_are_what_ending_now_adds_to_the_scores() -> None:
    for seed in range(3):
        for stop in (10, 41, 90, 150):
            game = random_game(seed, stop_after=stop)
            gained = [0] * game.num_players
            for event in game.end_now_events():
                gained[event.player] += event.points
            assert tuple(s + g for s, g in zip(game.scores, gained, strict=True)) == game.scores_if_ended_now()
    assert random_game(0).end_now_events() == ()


def test_a_city_closed_this_turn_is_pending_and_an_open_one_is_final() -> None:
    # Red's knight on the one-tile city of (0,0); Red closes it with a cap at (0,1) (T2 done, T5 not
    # yet: 4 points pending, R23) and has a second knight in the one-tile city of the cap at (5,5).
    game = (
        PositionBuilder(GameConfig(players=2))
        .tile("base/C", 0, 0, rotation=0)
        .tile("base/C", 5, 5, rotation=0)
        .follower(RED, 0, 0, 0)
        .follower(RED, 5, 5, 0)
        .build(pile=["base/C", "base/C"], current_player=RED)
    )
    game.apply(Action.place(0, 1, 2))
    events = {(e.reason, e.points, e.final) for e in game.end_now_events()}
    assert events == {("city", 4, False), ("city", 1, True)}
    f, end_now, _ = player_features(game)
    assert list(end_now) == [5, 0]
    assert f[RED, FEATURES.index("open_city")] == 1  # only the unfinished city is a feature
    # In T3 the tile is down: the position is valued as the turn's end, Blue places next.
    assert f[:, FEATURES.index("places_next")].tolist() == [0, 1]


def test_the_features_follow_the_rules_state() -> None:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=3)
    f, end_now, t = player_features(game)
    assert t == pytest.approx(game.tiles_left / (game.tiles_left + game.tiles_placed))
    assert f[:, FEATURES.index("places_next")].tolist() == [1, 0]
    assert f[:, FEATURES.index("supply")].tolist() == list(game.supply)
    assert f[:, FEATURES.index("floors")].tolist() == [sum(game.expansion_state("tower").floor_supply(p))
                                                       for p in range(2)]
    assert list(end_now) == [0, 0]


def test_the_value_of_a_finished_game_is_its_final_score() -> None:
    game = random_game(4)
    value = LinearValue.load()
    assert value.final_scores(game) == list(game.scores)
    a, b = game.scores
    assert value.margins(game) == [a - b, b - a]


def test_the_fit_recovers_known_weights() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 2 * len(FEATURES)))
    w = rng.normal(size=2 * len(FEATURES))
    assert np.allclose(fit_value.fit(x, x @ w, ridge=0.0), w)


def test_fit_value_writes_weights_that_load(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    with games.open("w") as out:
        for seed in range(6):
            out.write(json.dumps({"index": seed, "record": random_game(seed).record().to_dict()}) + "\n")
        out.write('{"index": 6, "rec')  # a line cut short by a kill is skipped
    weights = tmp_path / "w.json"
    assert fit_value.main([str(games), "-o", str(weights), "--holdout", "0.34"]) == 0
    data = json.loads(weights.read_text())
    assert data["train_games"] + data["test_games"] == 6
    assert data["features"] == list(FEATURES)
    value = LinearValue.load(weights)
    game = random_game(9, stop_after=60)
    f, end_now, t = player_features(game)
    assert np.allclose(value.final_scores(game), end_now + design_row(f, t) @ np.array(data["weights"]))


def test_bad_weights_are_refused_by_name(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"features": ["bias"], "weights": [1.0, 2.0]}))
    with pytest.raises(ValueError, match="other features"):
        LinearValue.load(other)
    with pytest.raises(ValueError, match="cannot read"):
        LinearValue.load(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="finite"):
        LinearValue(np.full(2 * len(FEATURES), np.nan))
    with pytest.raises(ValueError, match="PositionValue"):
        GreedyAgent(value=lambda game, player: 0.0)  # type: ignore[arg-type]


def test_the_shipped_weights_load_and_are_documented() -> None:
    data = json.loads(DEFAULT_WEIGHTS.read_text())
    assert data["test_margin_rmse_linear"] < data["test_margin_rmse_end_now"]
    LinearValue.load()


@pytest.mark.parametrize("spec", ["greedy:value=linear", "mcts:sims=20,value=linear",
                                  "mcts:sims=10,guide=1,rollout_turns=0,value=linear"])
def test_agents_with_the_learned_value_play_legal_moves(spec: str) -> None:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=1)
    agents = [make_agent(spec, seed=0), make_agent("random", seed=1)]
    while not game.is_over and game.tiles_placed < 12:
        action = agents[game.current_player].choose_action(game)
        assert action in game.legal_actions()
        game.apply(action)


def test_a_linear_value_with_zero_weights_is_the_end_now_margin() -> None:
    """With no correction the learned value is the end-now value, so the agents decide alike."""
    game = random_game(2, stop_after=70)
    zero = LinearValue(np.zeros(2 * len(FEATURES)))
    assert GreedyAgent(seed=0, value=zero).action_values(game) == GreedyAgent(seed=0).action_values(game)
    assert GreedyAgent(seed=0).value is END_NOW
    searched = [MCTSAgent(seed=0, sims=30, value=v).choose_action(game) for v in (zero, END_NOW)]
    assert searched[0] == searched[1]


def test_a_bad_value_name_is_a_spec_error() -> None:
    with pytest.raises(AgentSpecError, match=r"cannot read value weights nowhere\.json"):
        make_agent("greedy:value=nowhere.json", seed=0)


def test_the_agent_benchmark_times_the_learned_value(capsys: pytest.CaptureFixture[str]) -> None:
    from agents import bench

    bench.main(["mcts", "--sims", "5", "--positions", "1", "--mid-tiles", "4", "--mcts-options", "value=linear"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all(line.startswith("mcts:sims=5,value=linear") for line in lines)
    with pytest.raises(SystemExit):
        bench.main(["mcts", "--mcts-options", "value=bogus"])
    assert "cannot read value weights bogus" in capsys.readouterr().err


def test_fit_value_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unfinished = tmp_path / "unfinished.jsonl"
    unfinished.write_text(json.dumps({"index": 0, "record": random_game(1, stop_after=30).record().to_dict()}) + "\n")
    finished = tmp_path / "games.jsonl"
    finished.write_text(json.dumps({"index": 0, "record": random_game(1).record().to_dict()}) + "\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    cases = [([str(unfinished)], "game 0: the record does not reach the end"),
             ([str(finished), "--holdout", "1"], "--holdout must be in [0, 1)"),
             ([str(empty)], "no finished games"),
             ([str(finished), "-o", str(tmp_path / "missing" / "w.json")], "cannot write")]
    for args, message in cases:
        argv = [*args, "-o", str(tmp_path / "w.json")] if "-o" not in args else args
        with pytest.raises(SystemExit) as exit_info:
            fit_value.main(argv)
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err

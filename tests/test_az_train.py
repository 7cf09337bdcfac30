"""The expert-iteration trainer of the ``az`` search (training/az/expert_iteration.py): the targets the
recording agent writes, the positions read back from them, the settings refused by name, and a tiny
run that resumes a step it lost."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch as th

from agents.az import AZAgent
from agents.evaluation import END_NOW
from agents.nets.pv_net import NetSize, PVNet
from carcassonne_env.engine import Game, GameConfig, describe_game
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.az import expert_iteration as ei
from training.az.fit import Position, fit
from training.common.settings import SettingError

CONFIG = GameConfig(players=2, expansions=TOWER_VARIANT)


@pytest.fixture(scope="module")
def net() -> PVNet:
    th.manual_seed(0)
    return PVNet(CONFIG, 31, NetSize(channels=8, blocks=1, head_hidden=16), base="end_now")


def test_the_recorded_policy_sums_to_one_over_the_legal_actions(net: PVNet, tmp_path: Path) -> None:
    path = tmp_path / "records" / "7.jsonl"
    path.parent.mkdir()
    path.write_text("a line of an earlier, killed game\n")
    game, agent = Game(CONFIG, seed=3), AZAgent(net, END_NOW, seed=7, sims=8, k=4, batch=4, gumbel=1.0, record=path)
    plies = []
    for _ in range(12):
        if len(game.legal_actions()) > 1:
            plies.append((len(game.history), game.current_player, len(game.legal_actions())))
        game.apply(agent.choose_action(game))
    lines = [json.loads(line) for line in path.read_text().splitlines()]  # the killed game's line is gone
    assert [(line["ply"], line["player"], len(line["indices"])) for line in lines] == plies
    for line in lines:
        assert line["indices"] == sorted(line["indices"]) and len(line["policy"]) == len(line["indices"])
        assert min(line["policy"]) >= 0 and sum(line["policy"]) == pytest.approx(1.0, abs=1e-5)
        assert np.isfinite(line["base"])


def test_the_value_head_learns_a_residual_and_a_zero_weight_leaves_it(net: PVNet) -> None:
    """The fit moves the value head towards the residual target; with value weight 0 it stays as it was."""
    from carcassonne_env.environment.codec import ActionCodec
    from carcassonne_env.environment.observation import Encoder

    game, codec = Game(CONFIG, seed=4), ActionCodec(31)
    encoder = Encoder(CONFIG, 31)
    encoder.reset(game)
    legal = np.array(sorted(codec.legal_indices(game, encoder.window, encoder.frontier_inside)[0]), dtype=np.int64)
    obs = encoder.observation(game, game.current_player)
    positions = [Position.of(obs, legal, np.full(len(legal), 1 / len(legal)), 0, 10.0)] * 16

    def head() -> float:
        return float(net.evaluate([obs], [legal])[1][0])

    before = head()
    fit(net, positions, positions, 1, 8, 1e-3, 0, value_weight=0.0)
    assert head() == before
    fit(net, positions, positions, 3, 8, 1e-2, 0, value_weight=1.0)
    assert abs(head() - 10.0) < abs(before - 10.0)


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--players", "3", "--players: must be 2"),
    ("--gumbel", "11", "--gumbel: must be in [0, 10]"),
    ("--games-per-generation", "0", "--games-per-generation: must be a positive integer"),
    ("--sims", "-1", "--sims: must be an integer ≥ 0"),
    ("--holdout", "0.5", "--holdout: must be in [0, 0.5)"),
    ("--init", "nowhere.pt", "--init: nowhere.pt: not the weights of an az network"),
    ("--out", "runs/a,b", "--out: may not hold"),
    ("--address", "ray://x:1", "--address: only --backend ray"),
    ("--device", "tpu", "--device: expected auto, cpu, cuda or cuda:N"),
])
def test_bad_settings_are_refused_in_one_line(tmp_path: Path, flag: str, value: str, message: str) -> None:
    argv = ["quick", "--out", str(tmp_path / "x"), flag, value] if flag != "--out" else ["quick", flag, value]
    with pytest.raises(SystemExit) as refused:
        ei.main(argv)
    text = str(refused.value.code)
    assert text.startswith("carcassonne train az: error: ") and message in text and "\n" not in text
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_a_tiny_run_writes_a_gated_generation_and_resumes_its_lost_last_step(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = replace(ei.PRESETS["quick"][1], out=str(tmp_path / "run"), games_per_generation=1, sims=2, k=2,
                       gate_sims=0, gate_seeds=1, workers=1, threads=1, device="cpu", progress=False)
    out = ei.train(settings)
    assert capsys.readouterr().out.startswith(f"game: {describe_game(CONFIG)}\n")
    state = json.loads((out / "state.json").read_text())
    assert state["generation"] == 2 and state["step"] == "play" and len(state["history"]) == 1
    entry = state["history"][0]
    assert entry["games"] == 2 and {"play_s", "fit_s", "gate_s", "cross_entropy", "value_rmse"} <= set(entry)
    candidate = PVNet.load(out / "gen_001" / "candidate.pt", CONFIG)  # data, with its game
    assert candidate.config == CONFIG
    positions = ei.positions_of(out / "gen_001" / "self_play", out / "gen_001" / "records", CONFIG, 31)
    lines = sum(len(p.read_text().splitlines()) for p in (out / "gen_001" / "records").glob("*.jsonl"))
    assert len(positions) == lines > 0
    assert all(abs(float(p.target.sum()) - 1) < 1e-4 for p in positions)
    assert (out / "best.spec").read_text().startswith("az:")
    with pytest.raises(SettingError, match="already holds a run"):
        ei.train(settings)

    # the last step (the gate) lost: its games and its entry; --resume plays it again, the same games
    games = (out / "gen_001" / "gate" / "games.jsonl").read_text()
    shutil.rmtree(out / "gen_001" / "gate")
    (out / "state.json").write_text(json.dumps({**state, "generation": 1, "step": "gate", "history": []}))
    ei.train(replace(settings, resume=True))
    resumed = json.loads((out / "state.json").read_text())
    assert resumed["generation"] == 2 and len(resumed["history"]) == 1
    assert {k: resumed["history"][0][k] for k in ("score", "games", "admitted")} == \
        {k: entry[k] for k in ("score", "games", "admitted")}
    assert sorted(json.loads(g)["seed"] for g in (out / "gen_001" / "gate" / "games.jsonl").read_text().splitlines()) \
        == sorted(json.loads(g)["seed"] for g in games.splitlines())


def test_a_record_of_another_game_is_refused(tmp_path: Path) -> None:
    """positions_of checks each recorded decision against its game's replay: a record that does not
    belong there is a ValueError naming it, not a silently wrong target."""
    from training.arena import tournament

    folder = tmp_path / "self_play"
    tournament.run(tournament.Settings(agents=("random",), mode="self_play", seeds=1, first_seed=0,
                                       config=CONFIG.to_dict()), folder, 1, resume=False, progress=False)
    from training.arena.match import agent_seed

    records = tmp_path / "records"
    records.mkdir()
    for seat in range(2):
        (records / f"{agent_seed(0, seat)}.jsonl").write_text(
            json.dumps({"ply": seat, "player": seat, "indices": [0, 1], "policy": [0.5, 0.5], "base": 0.0}) + "\n")
    with pytest.raises(ValueError, match="not the one its record names"):
        ei.positions_of(folder, records, CONFIG, 31)

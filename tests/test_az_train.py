"""The expert-iteration trainer of the ``az`` search (training/az/expert_iteration.py): the targets the
recording agent writes, the positions read back from them, the settings refused by name, and a tiny
run that resumes a step it lost."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch as th

from agents.az import AZAgent
from agents.evaluation import END_NOW
from agents.nets.pv_net import NetSize, PVNet
from carcassonne_env.engine import Game, GameConfig, describe_game, load_catalogue
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.layout import Layout
from carcassonne_env.environment.observation import Encoder
from carcassonne_env.environment.turns import QuarterTurns, turn_action
from training.az import expert_iteration as ei
from training.az import fit as fit_module
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
    figures = fit(net, positions, positions, 3, 8, 1e-2, 0, value_weight=1.0)
    assert abs(head() - 10.0) < abs(before - 10.0)
    # the figures before the fit are the network's error then: every position's target is 10 points
    assert figures["value_rmse_before"] == pytest.approx(abs(before - 10.0), abs=1e-3)
    assert figures["value_rmse"] == pytest.approx(abs(head() - 10.0), abs=1e-3)
    assert figures["value_rmse"] < figures["value_rmse_before"]


def _positions(game: Game, plies: int, seed: int) -> list[Position]:
    """A position at each of the first ``plies`` decisions of ``game`` played at random, its target a
    distribution over the legal actions that is not uniform (each action keeps its own share)."""
    codec, encoder, rng = ActionCodec(31), Encoder(CONFIG, 31), random.Random(seed)
    encoder.reset(game)
    out = []
    for _ in range(plies):
        encoder.sync(game)
        legal = np.array(sorted(codec.legal_indices(game, encoder.window, encoder.frontier_inside)[0]), dtype=np.int64)
        target = np.arange(1, len(legal) + 1, dtype=np.float64)
        out.append(Position.of(encoder.observation(game, game.current_player), legal, target / target.sum(), 0, 3.0))
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
    return out


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_turned_position_is_the_position_of_the_turned_game(k: int) -> None:
    """Position.turned of a recorded decision is the decision of the game played from the start tile
    turned in place with every action turned: the board kept sparse, the cells, the vector, the legal
    actions ascending and each action's target, the value as it was."""
    pile = Game(CONFIG, seed=4).to_dict()["pile"]
    game = Game(CONFIG, tile_order=pile)
    turned = PositionBuilder(CONFIG).tile(load_catalogue().start.id, 0, 0, k).build(pile=pile)
    turns, codec, shape = QuarterTurns(Layout(CONFIG, 31)), ActionCodec(31), Layout(CONFIG, 31).board_shape
    rng = random.Random(k)
    for _ in range(12):
        actions = game.legal_actions()
        action = actions[rng.randrange(len(actions))]
        game.apply(action)
        turned.apply(turn_action(action, k))
    encoders = [Encoder(CONFIG, 31), Encoder(CONFIG, 31)]
    for g, encoder in zip((game, turned), encoders, strict=True):
        encoder.reset(g)
    share = {a: i + 1.0 for i, a in enumerate(game.legal_actions())}  # each action's own target
    player, n = game.current_player, game.num_players

    def position(g: Game, encoder: Encoder, turn: int) -> Position:
        pairs = sorted((codec.encode(turn_action(a, turn), encoder.window, player, n), s) for a, s in share.items())
        legal, target = np.array([i for i, _ in pairs], dtype=np.int64), np.array([s for _, s in pairs])
        return Position.of(encoder.observation(g, player), legal, target / target.sum(), 0, 3.0)

    got, want = position(game, encoders[0], 0).turned(turns, k), position(turned, encoders[1], k)
    for key in ("board", "cells", "vector"):
        a, b = fit_module.batch([got], shape)[0][key], fit_module.batch([want], shape)[0][key]
        assert th.equal(a, b), key
    np.testing.assert_array_equal(got.legal, want.legal)
    np.testing.assert_array_equal(got.target, want.target)
    assert (got.value, got.game) == (want.value, want.game)


def test_the_fit_trains_on_positions_turned_at_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``turns`` the minibatches hold the positions in all four orientations (each drawn per
    position and minibatch), the held-out figures the positions as played; without, only as played."""
    positions = _positions(Game(CONFIG, seed=5), 16, 5)
    turns = QuarterTurns(Layout(CONFIG, 31))

    def key(p: Position) -> bytes:
        return p.legal.tobytes() + p.cells.tobytes()

    orientation = {key(p): 0 for p in positions}
    orientation.update({key(p.turned(turns, k)): k for p in positions for k in (1, 2, 3)})
    assert len(orientation) == 4 * len(positions)
    seen: dict[bool, list[int]] = {True: [], False: []}
    real = fit_module.losses

    def spy(pv: PVNet, batch: Sequence[Position], shape: tuple[int, ...], device: str = "cpu"
            ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        seen[pv.net.training] += [orientation[key(p)] for p in batch]
        return real(pv, batch, shape, device)

    monkeypatch.setattr(fit_module, "losses", spy)
    net = PVNet(CONFIG, 31, NetSize(channels=4, blocks=1, head_hidden=8), base="end_now")
    fit(net, positions, positions, 2, 8, 1e-3, 0, turns=True)
    assert len(seen[True]) == 32 and set(seen[True]) == {0, 1, 2, 3} and set(seen[False]) == {0}
    seen[True].clear()
    fit(net, positions, positions, 2, 8, 1e-3, 0)
    assert seen[True] == [0] * 32


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

    # a run saved before --augment-turns existed was fitted without turns, and resumes so
    saved = json.loads((out / "state.json").read_text())
    del saved["settings"]["augment_turns"]
    (out / "state.json").write_text(json.dumps(saved))
    with pytest.raises(SettingError, match="--augment-turns False \\(now True\\)"):
        ei.train(replace(settings, resume=True))


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

"""The afterstate value network (agents/nets/value_net.py), its agent (agents/afterstate.py) and its
trainer (training/afterstate/value_iteration.py): inputs against the rules state, targets against
an independent replay, the gate on constructed cases, resume, and a tiny run from the command line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hidden_pile import with_unseen_pile_permuted
from playout_invariants import random_game

from agents import AgentSpecError, GreedyAgent, make_agent, position_value
from agents.afterstate import PRETRAINED, AfterstateAgent, load_value_net
from agents.nets.value_net import FOLLOWER_FEATURES, INPUTS, ValueNet, value_inputs
from agents.value import FEATURES, LinearValue, design_row, player_features
from carcassonne_env.engine import Game, GameConfig, Phase
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.engine.tiles import SegmentKind
from training.afterstate import value_iteration as vi
from training.arena import tournament
from training.common.gate import gate_passes

REPO = Path(__file__).resolve().parents[1]
RED, BLUE = 0, 1


def follower_features_by_the_rules(game: Game) -> np.ndarray:
    """FOLLOWER_FEATURES recomputed from the public ``followers()`` / ``feature()`` API (R6–R8, R20)."""
    rows = np.zeros((game.num_players, len(FOLLOWER_FEATURES)))
    col = {name: i for i, name in enumerate(FOLLOWER_FEATURES)}
    index = {(t.x, t.y): i for i, t in enumerate(game.tiles())}
    counted: set[int] = set()
    for f in game.followers():
        key = game.feature_key(game.segment_base(index[f.x, f.y]) + f.slot)
        feature = game.feature(f.x, f.y, f.slot)
        rows[f.owner, col["on_board"]] += 1
        if feature.kind is SegmentKind.FIELD:
            rows[f.owner, col["farmers"]] += 1
        elif feature.kind is SegmentKind.MONASTERY:
            missing = sum(game.tile_at(f.x + dx, f.y + dy) is None
                          for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0))
            if missing:
                rows[f.owner, col["monasteries"]] += 1
                rows[f.owner, col["monastery_missing"]] += missing
        elif feature.open_edges and key not in counted:
            counted.add(key)
            name = "city" if feature.kind is SegmentKind.CITY else "road"
            top = max(feature.followers)
            for p, c in enumerate(feature.followers):
                if c == top:
                    rows[p, col[f"{name}_led"]] += 1
                    rows[p, col[f"{name}_led_open"]] += feature.open_edges
                    rows[p, col[f"{name}_led_tiles"]] += feature.size
                elif c:
                    rows[p, col[f"{name}_behind"]] += 1
    return rows


@pytest.mark.parametrize(("seed", "players", "stop"), [(0, 2, 60), (1, 2, 150), (2, 3, 120), (3, 4, 200), (4, 2, 250)])
def test_value_inputs_follow_the_rules_state(seed: int, players: int, stop: int) -> None:
    game = random_game(seed, players, stop)
    x, end_now, t = value_inputs(game)
    f, e, t_linear = player_features(game)
    k = len(FEATURES) + len(FOLLOWER_FEATURES)
    assert x.shape == (players, len(INPUTS)) and list(end_now) == list(game.scores_if_ended_now()) == list(e)
    assert t == t_linear
    assert np.array_equal(x[:, :len(FEATURES)], f)
    expected = follower_features_by_the_rules(game)
    assert np.array_equal(x[:, len(FEATURES):k], expected)
    own = x[:, :k]
    for p in range(players):  # the other players' block is their element-wise maximum
        assert np.array_equal(x[p, k:2 * k], np.max(np.delete(own, p, axis=0), axis=0))
    assert x[0, -2] == t and x[0, -1] == t * t


def test_inputs_see_followers_in_play() -> None:
    """The test above must not pass on all-zero rows: over a game the follower features take values."""
    seen = np.zeros(len(FOLLOWER_FEATURES))
    for seed in range(5, 15):  # a follower behind in a city or road needs two features merged: rare at random
        game = random_game(seed, 2)
        replay = Game(game.config, seed=seed)
        for action in game.history:
            if replay.phase is Phase.PLACE:
                seen = np.maximum(seen, follower_features_by_the_rules(replay).max(axis=0))
            replay.apply(action)
    behind = {"city_behind", "road_behind"}  # needs two features merged: rare at random, built below
    assert all(v > 0 for name, v in zip(FOLLOWER_FEATURES, seen, strict=True) if name not in behind), seen


def test_a_road_held_two_to_one() -> None:
    """Three straight roads E–W in a row (R7): Red's two robbers against Blue's one; Blue's farmer."""
    game = (
        PositionBuilder(GameConfig(players=2))
        .tile("base/RFr", 0, 0).tile("base/RFr", 1, 0).tile("base/RFr", 2, 0)
        .follower(RED, 0, 0, 0).follower(RED, 1, 0, 0).follower(BLUE, 2, 0, 0).follower(BLUE, 0, 0, 1)
        .build(pile=["base/C"], current_player=RED)
    )
    x, _, _ = value_inputs(game)
    rows = {name: x[:, len(FEATURES) + i].tolist() for i, name in enumerate(FOLLOWER_FEATURES)}
    assert rows["road_led"] == [1, 0] and rows["road_led_open"] == [2, 0] and rows["road_led_tiles"] == [3, 0]
    assert rows["road_behind"] == [0, 1] and rows["farmers"] == [0, 1] and rows["on_board"] == [2, 2]
    assert rows["city_led"] == rows["city_behind"] == [0, 0]


def one_layer_net(weights: np.ndarray, bias: float, config: dict[str, object]) -> ValueNet:
    width = len(INPUTS)
    return ValueNet(((weights.reshape(width, 1), np.array([bias])),), np.zeros(width), np.ones(width), config, {})


def test_the_network_is_end_now_plus_t_times_its_output() -> None:
    game = random_game(6, stop_after=90)
    rng = np.random.default_rng(0)
    w = rng.normal(size=len(INPUTS))
    net = one_layer_net(w, 2.5, game.config.to_dict())
    x, end_now, t = value_inputs(game)
    by_hand = [e + t * (float(row @ w) + 2.5) for row, e in zip(x, end_now, strict=True)]
    assert np.allclose(net.final_scores(game), by_hand)
    a, b = by_hand
    assert np.allclose(net.margins(game), [a - b, b - a])
    finished = random_game(7)
    assert net.final_scores(finished) == list(finished.scores)


def test_a_zero_network_plays_like_greedy() -> None:
    game = random_game(2, stop_after=70)
    zero = one_layer_net(np.zeros(len(INPUTS)), 0.0, game.config.to_dict())
    assert GreedyAgent(seed=0, value=zero).action_values(game) == GreedyAgent(seed=0).action_values(game)


def test_a_linear_term_under_a_zero_network_is_the_linear_value() -> None:
    """ValueNet's linear term has LinearValue's form: with the shipped weights and a zero MLP it
    values every position as greedy:value=linear does; centred (relative), the same margins."""
    linear = LinearValue.load()
    width = len(INPUTS)
    net = ValueNet(((np.zeros((width, 1)), np.zeros(1)),), np.zeros(width), np.ones(width),
                   GameConfig(players=2, expansions=TOWER_VARIANT).to_dict(), {}, linear.weights)
    relative = replace(net, relative=True)
    for stop in (20, 90, 200):
        game = random_game(13, stop_after=stop)
        assert np.allclose(net.final_scores(game), linear.final_scores(game))
        assert np.allclose(relative.margins(game), linear.margins(game))


def test_a_relative_network_moves_players_against_each_other() -> None:
    """A relative network's correction is centred over the players: it changes every margin, never
    the sum of the expected scores (that of the end-now scores)."""
    rng = np.random.default_rng(5)
    game = random_game(14, players=3, stop_after=120)
    w, b = rng.normal(size=(len(INPUTS), 1)), np.array([7.0])
    plain = ValueNet(((w, b),), np.zeros(len(INPUTS)), np.ones(len(INPUTS)), game.config.to_dict(), {})
    relative = replace(plain, relative=True)
    x, end_now, t = value_inputs(game)
    own = t * (x @ w[:, 0] + 7.0)
    assert np.allclose(np.array(plain.final_scores(game)) - end_now, own)
    assert np.allclose(np.array(relative.final_scores(game)) - end_now, own - own.mean())
    assert sum(relative.final_scores(game)) == pytest.approx(sum(end_now))


class OneByOne:
    """A value that only offers ``margin``: the greedy search values each line's end as it reaches it."""

    def __init__(self, value: ValueNet) -> None:
        self.value = value

    def margins(self, game: Game) -> list[float]:
        return self.value.margins(game)

    def margin(self, game: Game, player: int) -> float:
        return self.value.margin(game, player)


def test_a_batch_of_positions_is_valued_as_each_position_alone() -> None:
    """NetLeaves reads each position when it is added and runs the network once: the same numbers as
    ``margin`` position by position (the shipped network and a relative one of three players), the
    final scores for a finished game, and nothing of a position changed after it was added."""
    rng = np.random.default_rng(3)
    shipped = position_value("afterstate_long").for_players(2)
    relative = replace(one_layer_net(rng.normal(size=len(INPUTS)), 7.0, {}), relative=True)
    for net, players in ((shipped, 2), (relative, 3)):
        games = [random_game(seed, players, stop) for seed, stop in ((20, 30), (21, 90), (22, 160), (23, None))]
        assert games[-1].is_over
        leaves = net.leaf_values(games[0])
        wanted = []
        for game in games:
            for p in range(players):
                assert leaves.add(game, p) == len(wanted)
                wanted.append(net.margin(game, p))
        games[0].apply(games[0].legal_actions()[0])  # changed after it was added: the batch read it already
        assert leaves.values() == wanted
        assert leaves.add(games[1], 0) == len(wanted)  # more after a read: the earlier values stay
        assert leaves.values() == [*wanted, net.margin(games[1], 0)]


def test_greedy_values_its_lines_in_one_batch_with_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """GreedyAgent collects the ends of its lines and values them in one batch, one network run a call:
    every action's value is the one it gets from valuing the ends one by one, in every phase of the turn,
    fast or not, on the tower variant and on the base game (whose placements are searched in place and
    undone, after the batch has read the positions)."""
    net = position_value("afterstate_long").for_players(2)
    runs = []
    corrections = ValueNet.corrections

    def counted(self: ValueNet, x: np.ndarray, t: np.ndarray | float) -> np.ndarray:
        runs.append(len(x))
        return corrections(self, x, t)

    monkeypatch.setattr(ValueNet, "corrections", counted)
    largest = 0
    for expansions in (TOWER_VARIANT, ()):
        for fast in (False, True):
            batched, one_by_one = GreedyAgent(fast=fast, value=net), GreedyAgent(fast=fast, value=OneByOne(net))
            game = random_game(24, stop_after=0, expansions=expansions)
            phases = set()
            while not game.is_over and len(game.history) < 120:
                phases.add(game.phase)
                runs.clear()
                batched_values = batched.action_values(game)
                assert len(runs) <= 1  # one network run for all the lines' ends
                largest = max(largest, *runs, 0)
                assert batched_values == one_by_one.action_values(game)
                game.apply(batched.choose_action(game))
            assert {Phase.PLACE, Phase.ACTION} <= phases
    assert largest > 10  # batches of many positions, not one at a time


def test_save_load_and_the_spec(tmp_path: Path) -> None:
    config = GameConfig(players=2, expansions=TOWER_VARIANT).to_dict()
    net = one_layer_net(np.arange(len(INPUTS), dtype=np.float64) / 100, 1.0, config)
    path = tmp_path / "v.npz"
    net.save(path)
    loaded = ValueNet.load(path)
    game = random_game(8, stop_after=40)
    assert loaded.final_scores(game) == net.final_scores(game)
    with_linear = replace(net, linear=np.linspace(-1, 1, 2 * len(FEATURES)), relative=True)
    with_linear.save(tmp_path / "l.npz")
    again = ValueNet.load(tmp_path / "l.npz")
    assert again.relative and again.final_scores(game) == with_linear.final_scores(game)
    agent = make_agent(f"afterstate:{path}", seed=0)
    assert isinstance(agent, AfterstateAgent) and agent.choose_action(game) in game.legal_actions()
    assert make_agent(f"greedy:value={path}", seed=0).choose_action(game) in game.legal_actions()
    with pytest.raises(ValueError, match="trained for the game configuration"):
        agent.choose_action(random_game(8, players=3, stop_after=10))
    with pytest.raises(AgentSpecError, match="no value network at"):
        make_agent(f"afterstate:{tmp_path / 'missing.npz'}", seed=0)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot load"):
        ValueNet.load(tmp_path / "junk.npz")


def test_value_afterstate_names_the_network_of_afterstate_pretrained() -> None:
    """``value=afterstate`` in a search agent's spec is the shipped network, the very object
    ``afterstate:pretrained`` plays with at that player count (loaded once per file version)."""
    from agents import MCTSAgent, PerPlayerCount, position_value
    from agents.afterstate import PRETRAINED

    shipped = make_agent("afterstate:pretrained", seed=0)
    assert isinstance(shipped, AfterstateAgent) and isinstance(shipped.net, PerPlayerCount)
    family = position_value("afterstate")
    assert isinstance(family, PerPlayerCount)
    assert family.for_players(2) is shipped.net.for_players(2) is load_value_net(PRETRAINED)
    mcts = make_agent("mcts:sims=5,guide=1,rollout_turns=0,value=afterstate", seed=0)
    assert isinstance(mcts, MCTSAgent)
    game = random_game(8, stop_after=40)
    assert mcts.choose_action(game) in game.legal_actions()
    assert make_agent("greedy:value=afterstate", seed=1).choose_action(game) == \
        make_agent(f"greedy:value={PRETRAINED}", seed=1).choose_action(game)


def test_the_agent_does_not_depend_on_the_unseen_pile() -> None:
    """R4: only the multiset of the pile is public; permuting the rest of the pile changes no move."""
    rng = np.random.default_rng(3)
    net = one_layer_net(rng.normal(size=len(INPUTS)), 0.0, GameConfig(players=2, expansions=TOWER_VARIANT).to_dict())
    for stop in (30, 100, 180):
        game = random_game(9, stop_after=stop)
        permuted = with_unseen_pile_permuted(game, rng)
        assert permuted.to_dict()["pile"] != game.to_dict()["pile"]
        assert AfterstateAgent(4, net).choose_action(game) == AfterstateAgent(4, net).choose_action(permuted)


def test_monte_carlo_and_td0_targets() -> None:
    """λ = 1: every target is final − end-now; λ = 0 with the end-now value: the change of the
    end-now score to the next turn's start (the final score after the last)."""
    games = [random_game(s, expansions=()) for s in (10, 11)]
    mc = vi.samples_from_games([g.record() for g in games], 1.0)
    td = vi.samples_from_games([g.record() for g in games], 0.0)
    expected_mc, expected_td = [], []
    for g in games:
        replay = Game(g.config, seed=g.seed)
        starts = []
        for action in g.history:
            if replay.phase is Phase.PLACE:
                starts.append(replay.scores_if_ended_now())
            replay.apply(action)
        nexts = [*starts[1:], g.scores]
        for k in range(len(starts) - 1, -1, -1):  # rows are stored from the end of each game
            expected_mc.extend(f - e for f, e in zip(g.scores, starts[k], strict=True))
            expected_td.extend(n - e for n, e in zip(nexts[k], starts[k], strict=True))
    assert mc.y.tolist() == expected_mc
    assert td.y.tolist() == expected_td
    assert sorted(set(mc.game.tolist())) == [0, 1]


def test_the_fit_learns_a_known_correction() -> None:
    """Targets t · (3 · supply − 2 · other player's open city points): the fitted network predicts
    held-out rows far better than the end-now value (correction 0)."""
    games = [random_game(s, expansions=()) for s in range(12, 20)]
    samples = vi.samples_from_games([g.record() for g in games])
    supply, other_city = INPUTS.index("supply"), INPUTS.index("other_open_city")
    samples.y = samples.t * (3 * samples.x[:, supply] - 2 * samples.x[:, other_city])
    settings = vi.Settings(epochs=250, hidden=(32,), learning_rate=3e-3, holdout=0.25, linear_term=False,
                           relative=False)
    net, losses = vi.fit_value_net(samples, settings, seed=0, config={})
    assert net.linear is None and not net.relative
    assert losses["heldout_mse"] < 0.05 * losses["heldout_mse_end_now"]
    pred = net.corrections(samples.x, samples.t)
    assert np.corrcoef(pred, samples.y)[0, 1] > 0.97


def test_the_linear_term_is_the_least_squares_fit_and_the_network_learns_the_rest() -> None:
    """Targets of LinearValue's form with known weights: the linear term recovers them. Add
    t · supply · open road points, which no linear term fits: the relative fit (linear term and network on the
    targets centred over the players) predicts margins that follow the true ones."""
    games = [random_game(s, expansions=()) for s in range(12, 20)]
    samples = vi.samples_from_games([g.record() for g in games])
    used = [i for i, f in enumerate(FEATURES) if f not in ("floors", "prisoners_held", "prisoners_lost")]  # no tower
    known = np.zeros(2 * len(FEATURES))
    known[used] = np.linspace(-3, 3, len(used))
    known[[len(FEATURES) + i for i in used]] = np.linspace(2, -2, len(used))
    linear = design_row(samples.x[:, :len(FEATURES)], samples.t[:, None]) @ known
    settings = vi.Settings(epochs=150, hidden=(32,), learning_rate=3e-3, holdout=0.25, ridge=1e-9)
    samples.y = linear
    net, _ = vi.fit_value_net(samples, replace(settings, relative=False), seed=0, config={})
    assert net.linear is not None and np.allclose(net.linear, known, atol=1e-4)
    samples.y = linear + samples.t * samples.x[:, FEATURES.index("supply")] * samples.x[:, FEATURES.index("open_road")]
    net, losses = vi.fit_value_net(samples, settings, seed=0, config={})
    assert net.relative and losses["heldout_mse"] < 0.5 * losses["heldout_mse_linear"]
    pred = net.corrections(samples.x.reshape(-1, 2, len(INPUTS)), samples.t.reshape(-1, 2))
    assert np.corrcoef(pred @ [1, -1], samples.y.reshape(-1, 2) @ [1, -1])[0, 1] > 0.97


def pair(group: int, a_score: int, b_score: int, swapped: bool = False) -> dict[str, object]:
    seats, scores = (["b", "a"], [b_score, a_score]) if swapped else (["a", "b"], [a_score, b_score])
    return {"group": group, "seats": seats, "scores": scores}


def test_the_gate() -> None:
    wins = [pair(g, 50, 40, s) for g in range(30) for s in (False, True)]
    split = [pair(g, 50, 40, s) if g % 2 else pair(g, 40, 50, s) for g in range(30) for s in (False, True)]
    seat_luck = [pair(g, 50, 40, s) if s else pair(g, 40, 50, s) for g in range(30) for s in (False, True)]
    assert gate_passes(wins, "a", "b", None)[0]
    assert gate_passes(wins, "a", "b", None)[1]["score"] == 1.0
    assert not gate_passes(split, "a", "b", None)[0]
    assert not gate_passes(seat_luck, "a", "b", None)[0]  # every pair split: score ½ exactly
    assert gate_passes(seat_luck, "a", "b", "H1")[0]  # the SPRT's decision rules when it has one
    assert not gate_passes(wins, "a", "b", "H0")[0]


def table(group: int, rotation: int, a_first: bool) -> dict[str, object]:
    """A 3-player gauntlet game: ``a`` against two copies of ``b``, ``a`` first or last."""
    seats = [["a", "b", "b"], ["b", "a", "b"], ["b", "b", "a"]][rotation]
    scores = [(60 if a_first else 30) if name == "a" else 50 - 5 * i for i, name in enumerate(seats)]
    return {"group": group, "seats": seats, "scores": scores}


def test_the_gate_of_three_players_asks_more_than_an_equal_share() -> None:
    """At 3 players an agent as good as the best beats both its copies in 1/3 of the games: winning
    half of them passes the gate, as it would not at two players; winning a third does not."""
    half = [table(g, r, a_first=g % 2 == 0) for g in range(40) for r in range(3)]
    third = [table(g, r, a_first=r == 0) for g in range(40) for r in range(3)]
    assert gate_passes(half, "a", "b", None, players=3)[1]["score"] == 0.5
    assert gate_passes(half, "a", "b", None, players=3)[0]
    assert not gate_passes(half, "a", "b", None, players=2)[0]
    assert abs(gate_passes(third, "a", "b", None, players=3)[1]["score"] - 1 / 3) < 1e-9
    assert not gate_passes(third, "a", "b", None, players=3)[0]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "training.cli", "train", "afterstate", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


TINY = ("quick", "--expansions", "", "--games-per-generation", "2", "--gate-seeds", "1", "--anchor-seeds", "1",
        "--anchors", "random", "--epochs", "2", "--workers", "1", "--no-progress")


@pytest.mark.slow


def test_a_tiny_run_resumes_and_refuses_changed_settings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = run_cli(*TINY, "--out", str(out), "--generations", "1")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("game: base game, 2 players\n")  # the game of --expansions ''
    state = json.loads((out / "state.json").read_text())
    assert [h["generation"] for h in state["history"]] == [0, 1]
    assert (out / "gen_001" / "candidate.npz").exists() and (out / "ratings.png").exists()
    assert len((out / "gen_001" / "self_play" / "games.jsonl").read_text().splitlines()) == 2
    again = run_cli(*TINY, "--out", str(out), "--generations", "1")
    assert again.returncode != 0 and "already holds a run" in again.stderr
    changed = run_cli(*TINY, "--out", str(out), "--generations", "2", "--resume", "--seed", "5")
    assert changed.returncode != 0 and "--seed 0 (now 5)" in changed.stderr
    resumed = run_cli(*TINY, "--out", str(out), "--generations", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    state = json.loads((out / "state.json").read_text())
    assert [h["generation"] for h in state["history"]] == [0, 1, 2]
    rows = (out / "curve.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("generation,admitted,hours,best")


@pytest.mark.slow


def test_a_run_that_kept_only_its_state_and_admitted_networks_plays_its_lost_games_again(tmp_path: Path) -> None:
    """A machine's run folder is lost but for ``state.json`` and the admitted networks: ``--resume`` plays
    the self-play games of the fit's window again, the same games (they follow from their seeds and the
    network that played them), and goes on."""
    first = run_cli(*TINY, "--out", str(tmp_path / "run"), "--generations", "1", "--window", "2")
    assert first.returncode == 0, first.stderr
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    kept = tmp_path / "kept"
    (kept / "gen_001").mkdir(parents=True)
    (kept / "state.json").write_text(json.dumps(state))
    if state["history"][1]["admitted"]:
        shutil.copyfile(tmp_path / "run" / "gen_001" / "candidate.npz", kept / "gen_001" / "candidate.npz")
    resumed = run_cli(*TINY, "--out", str(kept), "--generations", "2", "--window", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert [h["generation"] for h in json.loads((kept / "state.json").read_text())["history"]] == [0, 1, 2]

    def records(run: Path) -> list[object]:
        return [g["record"] for g in tournament.load_games(run / "gen_001" / "self_play")]

    assert records(kept) == records(tmp_path / "run") and len(records(kept)) == 2


def test_each_generation_self_plays_with_the_last_network_admitted_before_it(tmp_path: Path) -> None:
    settings = vi.Settings(out=str(tmp_path), init="end_now")
    config = settings.game_config().to_dict()
    state = {"generation": 4, "history": [{"generation": g, "admitted": a}
                                          for g, a in enumerate([True, False, True, False])]}
    assert vi._self_play_value(settings, tmp_path, state, 1, config) == "end_now"
    assert vi._self_play_value(settings, tmp_path, state, 2, config) == "end_now"
    with pytest.raises(ValueError, match="generation 2's admitted network, which played generation 4's"):
        vi._self_play_value(settings, tmp_path, state, 4, config)
    (tmp_path / "gen_002").mkdir()
    one_layer_net(np.zeros(len(INPUTS)), 0.0, config).save(tmp_path / "gen_002" / "candidate.npz")
    assert vi._self_play_value(settings, tmp_path, state, 3, config) == str(tmp_path / "gen_002" / "candidate.npz")
    assert vi._self_play_value(settings, tmp_path, state, 4, config) == str(tmp_path / "gen_002" / "candidate.npz")


def test_a_run_stopped_inside_a_step_keeps_the_time_it_spent(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The run clock (the curve's hours) counts a step stopped half-way: its finished games are kept
    and the resumed step goes on from them, so the time they took was training time."""
    saved: list[float] = []

    def stopped(*args: object) -> None:
        saved.append(json.loads((tmp_path / "run" / "state.json").read_text())["seconds"])
        time.sleep(0.5)
        raise KeyboardInterrupt

    settings = replace(vi.PRESETS["quick"][1], out=str(tmp_path / "run"), expansions=(), anchors=("random",),
                       anchor_seeds=1, workers=1, progress=False)
    monkeypatch.setattr(vi, "_self_play", stopped)
    with pytest.raises(KeyboardInterrupt):
        vi.train(settings)
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    assert state["step"] == "play" and state["generation"] == 1
    assert state["seconds"] - saved[0] >= 0.5


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--games-per-generation", "0", "--games-per-generation: must be a positive integer"),
    ("--players", "7", "--players/--expansions"),
    ("--td-lambda", "1.5", "--td-lambda: must be in [0, 1]"),
    ("--init", "nowhere.npz", "no value network at nowhere.npz"),
    ("--anchors", "bogus", "agent 'bogus'"),
])
def test_bad_settings_are_refused_by_name(tmp_path: Path, flag: str, value: str, message: str) -> None:
    result = run_cli("quick", "--out", str(tmp_path / "x"), flag, value)
    assert result.returncode != 0
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow


def test_a_tiny_three_player_run_gates_with_a_gauntlet(tmp_path: Path) -> None:
    """More than two players: the gate is the candidate against copies of the best in every seat
    rotation (no SPRT, which is for 2-player pairs)."""
    out = tmp_path / "p3"
    result = run_cli(*TINY, "--out", str(out), "--generations", "1", "--players", "3")
    assert result.returncode == 0, result.stderr
    state = json.loads((out / "state.json").read_text())
    assert [h["generation"] for h in state["history"]] == [0, 1]
    gate = json.loads((out / "gen_001" / "gate" / "tournament.json").read_text())
    assert gate["mode"] == "gauntlet" and gate["sprt"] is None and gate["config"]["players"] == 3
    assert len((out / "gen_001" / "gate" / "games.jsonl").read_text().splitlines()) == 3


def test_a_network_made_for_two_players_is_adopted_at_three_as_it_is(tmp_path: Path) -> None:
    """Its inputs do not depend on the count: the adopted network has the same weights, values a
    3-player game by them, and says where it came from; another expansion set is refused."""
    rng = np.random.default_rng(5)
    two = one_layer_net(rng.normal(size=len(INPUTS)), 1.0, GameConfig(players=2, expansions=TOWER_VARIANT).to_dict())
    two.save(tmp_path / "two.npz")
    three = GameConfig(players=3, expansions=TOWER_VARIANT)
    adopted = vi.adopted_init(str(tmp_path / "two.npz"), three.to_dict())
    assert adopted.config == three.to_dict() and adopted.info["adopted_players"] == 2
    game = Game(three, seed=4)
    for _ in range(12):
        game.apply(game.legal_actions()[0])
    x, end_now, t = value_inputs(game)
    correction = t * (x @ two.layers[0][0][:, 0] + 1.0)
    assert np.allclose(adopted.final_scores(game), np.array(end_now) + correction)
    with pytest.raises(ValueError, match="only its player count may differ"):
        vi.adopted_init(str(tmp_path / "two.npz"), GameConfig(players=3, expansions=("tower",)).to_dict())
    vi.check(vi.Settings(out=str(tmp_path / "run"), players=3, init="pretrained_2p"))
    with pytest.raises(ValueError, match="only its player count may differ"):
        vi.check(vi.Settings(out=str(tmp_path / "run"), players=3, expansions=("tower",), init="pretrained_2p"))


def test_a_run_names_the_shipped_network_by_a_path_that_moves_with_the_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From the checkout's root the run's state names the shipped network relative to it (a copy of the
    checkout on another machine resumes the run); from elsewhere, by its full path."""
    root = PRETRAINED.parents[2]
    monkeypatch.chdir(root)
    assert vi._spec_of("pretrained_2p", fast=False, players=2) == f"afterstate:{PRETRAINED.relative_to(root)}"
    monkeypatch.chdir(tmp_path)
    assert vi._spec_of("pretrained_2p", fast=True, players=2) == f"afterstate:{PRETRAINED},fast=1"

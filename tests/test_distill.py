"""Policy distillation (training/distill/policy_distillation.py): DAgger labelling of the student's
seats against the teacher's own values, the compact sample store, the checks, and tiny runs from
the command line (files, the curve, --resume)."""

from __future__ import annotations

import csv
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import GreedyAgent, make_agent
from agents.ppo import recorded_game
from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.common import progress
from training.common.evaluation import rate_against_anchors
from training.common.labelled_games import labelled_games
from training.common.settings import SettingError
from training.distill import fit as distill_fit
from training.distill import policy_distillation as pd
from training.distill.samples import SampleBuilder, Samples, collect_round
from training.distill.student import start_from

REPO = Path(__file__).resolve().parents[1]
BASE = {"players": 2, "expansions": ()}


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)


class Recording:
    """An agent that plays as ``inner`` and records, at each of its decisions, the action values
    an independent greedy agent gives the position (the teacher's values, computed apart)."""

    def __init__(self, inner: Any, log: list[np.ndarray]) -> None:
        self.inner, self.log = inner, log

    def choose_action(self, game: Any) -> Any:
        self.log.append(np.asarray(GreedyAgent(seed=0).action_values(game.clone()), dtype=np.float64))
        return self.inner.choose_action(game)


def test_dagger_labels_the_student_seats_with_the_teachers_values() -> None:
    """Teacher greedy, student random: a round ≥ 1 has samples from the student's seats, and each
    one's target is softmax(greedy's values of that very position / T), its label a best-valued action."""
    log: list[np.ndarray] = []

    def agents(spec: str, seed: int) -> Any:
        agent = make_agent(spec, seed=seed)
        return Recording(agent, log) if spec == "random" else agent

    temperature = 2.0
    samples = collect_round(BASE, 300, seed=4, teacher="greedy", student="random", student_share=0.5,
                               temperature=temperature, round_index=1, make_agent=agents)
    student = np.flatnonzero(~samples.by_teacher)
    assert len(student) == len(log) > 50 and samples.by_teacher.any()
    assert (samples.rounds == 1).all()
    for i, values in zip(student, log, strict=True):
        target = samples.target_of(int(i))
        expected = np.exp((values - values.max()) / temperature)
        expected /= expected.sum()
        assert np.allclose(np.sort(target), np.sort(expected), atol=1e-6)
        label = int(np.searchsorted(samples.legal_of(int(i)), samples.actions[i]))
        assert target[label] == target.max()
    for i in np.flatnonzero(samples.by_teacher):  # the teacher's own seats: it played a best-valued action
        target = samples.target_of(int(i))
        assert target[int(np.searchsorted(samples.legal_of(int(i)), samples.actions[i]))] == target.max()
    assert set(np.unique(samples.phases)) <= {0, 1, 2} and 0 in samples.phases
    assert set(np.unique(samples.outcomes)) <= {-1.0, 0.0, 1.0}


def test_every_game_of_a_later_round_seats_the_student() -> None:
    samples = collect_round(BASE, 400, seed=1, teacher="greedy", student="random", student_share=0.01)
    for game in np.unique(samples.games):
        assert (~samples.by_teacher[samples.games == game]).any()
    round0 = collect_round(BASE, 100, seed=1, teacher="greedy")
    assert round0.by_teacher.all()


def test_compression_round_trips_exactly(tmp_path: Path) -> None:
    from carcassonne_env.environment.aec import raw_env

    env = raw_env(**BASE)
    phase = env.encoder.layout.vector_entry["phase"]
    games = labelled_games(BASE, 3, lambda spec, seed: make_agent(spec, seed=seed), teacher="greedy",
                           partners=("random",), teacher_share=0.5, label_all=True)
    parts, decisions = [], []
    for _ in range(2):
        builder = SampleBuilder(env.codec.n, slice(phase.start, phase.start + 3))
        seed, labelled, final = next(games)
        for d in labelled:
            builder.add(d, final[d.seat], seed)
        parts.append(builder.build(0))
        decisions.extend(labelled)
    samples = Samples.concatenate(parts)
    samples.save(tmp_path / "s.npz")
    for data in (samples, Samples.load(tmp_path / "s.npz")):
        idx = np.arange(len(data))
        assert len(data) == len(decisions)
        obs = data.observations(idx)
        for key in decisions[0].observation:
            original = np.stack([d.observation[key] for d in decisions])
            assert obs[key].dtype == original.dtype and np.array_equal(obs[key], original)
        assert np.array_equal(data.masks(idx), np.stack([d.mask for d in decisions]))
        for i, d in enumerate(decisions):
            assert np.array_equal(data.target_of(i), d.target) and data.actions[i] == d.action
    assert samples.nbytes < 0.1 * sum(v.nbytes for d in decisions for v in d.observation.values())


#: Round 4 of the seed-0 `full` run, held-out figures per epoch: the loss (value error included)
#: is lowest at epoch 3, the regret of the student's moves at epoch 5.
ROUND_4 = [{"loss": 2.600, "regret": 1.25}, {"loss": 2.620, "regret": 1.23}, {"loss": 2.573, "regret": 1.19},
           {"loss": 2.662, "regret": 1.17}, {"loss": 2.596, "regret": 1.16}]


@pytest.mark.parametrize(("select_by", "kept"), [("loss", 3), ("regret", 5)])
def test_a_round_keeps_the_epoch_its_held_out_figure_selects(monkeypatch: pytest.MonkeyPatch, select_by: str,
                                                            kept: int) -> None:
    """The fit ends with the weights of the epoch whose held-out ``select_by`` was lowest."""
    import torch

    s = pd.Settings(**BASE, channels=8, blocks=1, head_hidden=8, epochs=len(ROUND_4), batch_size=32,
                    select_by=select_by)
    data = collect_round(BASE, 80, seed=2, teacher="greedy")
    policy = pd._student(s).policy
    weights: list[dict[str, torch.Tensor]] = []
    measured = distill_fit.evaluate

    def evaluate(policy: Any, data: Any, idx: Any, s: Any, on_device: Any = None) -> dict[str, float]:
        weights.append({k: v.detach().clone() for k, v in policy.state_dict().items()})
        return {**measured(policy, data, idx, s, on_device), **ROUND_4[len(weights) - 1]}

    monkeypatch.setattr(distill_fit, "evaluate", evaluate)
    figures = distill_fit.fit(policy, data, s, seed=0)
    assert figures["epoch"] == kept and figures[select_by] == ROUND_4[kept - 1][select_by]
    final = policy.state_dict()
    assert all(torch.equal(final[k], weights[kept - 1][k]) for k in final)
    for other in (w for i, w in enumerate(weights) if i != kept - 1):  # and no other epoch's
        assert not all(torch.equal(final[k], other[k]) for k in final)


@pytest.mark.parametrize("batch", [4, 80])  # one merged crop group, and a group per crop size
def test_the_fits_one_trunk_pass_gives_the_value_head_what_predict_values_does(batch: int) -> None:
    """``_batch`` takes the values from ``legal_logits`` (crops that also hold every legal cell):
    every legal cell is on or next to a tile, inside the tiles grown by the margin, so the crops, and
    the values, are those of ``predict_values`` exactly; and from the stored uint8 planes they are
    those of the float ones."""
    import torch

    towers = {"players": 2, "expansions": TOWER_VARIANT}
    s = pd.Settings(**towers, channels=8, blocks=1, head_hidden=8)
    data = collect_round(towers, 80, seed=4, teacher="greedy")
    policy = pd._student(s).policy
    idx = np.arange(batch)
    stored = {k: torch.as_tensor(v) for k, v in data.observations(idx).items()}
    obs = {k: v.float() for k, v in stored.items()}
    with torch.no_grad():
        logits, values = policy.legal_logits(obs, data.masks(idx))
        assert torch.equal(values, policy.predict_values(obs))
        # the fit's input, the integer planes as stored, gives the network the same numbers
        assert stored["board"].dtype == torch.uint8
        from_stored = policy.legal_logits(stored, data.masks(idx))
        assert all(torch.equal(a, b) for a, b in zip((*logits, values), (*from_stored[0], from_stored[1]), strict=True))
        loss, _, _, value_loss = distill_fit.batch_loss(policy, data, idx, 0.5)
        expected = torch.nn.functional.mse_loss(policy.predict_values(obs).flatten(),
                                                torch.as_tensor(data.outcomes[idx]))
    assert torch.equal(value_loss, expected) and torch.isfinite(loss)


def test_observations_kept_on_the_device_give_the_fit_the_same_batches() -> None:
    """``DeviceObservations`` (decompressed once, in chunks and threads) holds every sample's observation
    exactly, so a minibatch's loss is the one of the minibatch decompressed on the spot."""
    import torch

    towers = {"players": 2, "expansions": TOWER_VARIANT}
    s = pd.Settings(**towers, channels=8, blocks=1, head_hidden=8)
    data = collect_round(towers, 60, seed=6, teacher="greedy")
    policy = pd._student(s).policy
    on_device = distill_fit.DeviceObservations(data, "cpu")
    small = distill_fit.DeviceObservations(data, "cpu", threads=3, chunk=7)  # chunks that end mid-sample-range
    idx = np.asarray([59, 3, 17, 0, 42, 8])
    expected = {k: torch.as_tensor(v) for k, v in data.observations(idx).items()}
    for store in (on_device, small):
        got = store(idx)
        assert got.keys() == expected.keys() and all(torch.equal(got[k], expected[k]) for k in expected)
    with torch.no_grad():
        plain = distill_fit.batch_loss(policy, data, idx, 0.5)
        kept = distill_fit.batch_loss(policy, data, idx, 0.5, small)
    assert torch.equal(plain[0], kept[0]) and torch.equal(plain[3], kept[3])


class Killed(Exception):
    """Stands for a kill of the training process."""


class KillAtEpoch:
    """A TensorBoard stand-in that kills the fit when it logs epoch ``epoch`` (1-based)."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        if step % 1000 == self.epoch - 1:
            raise Killed


def test_a_fit_killed_mid_round_continues_to_the_weights_of_one_never_killed(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed while logging epoch 3 (epoch 2 saved), run again: it trains epochs 3-4 only and ends
    with the same kept epoch, figures and weights as the uninterrupted fit, bit for bit."""
    import torch

    s = pd.Settings(**BASE, channels=8, blocks=1, head_hidden=8, epochs=4, batch_size=32, learning_rate=3e-3)
    data = collect_round(BASE, 80, seed=3, teacher="greedy")
    whole = pd._student(s).policy
    figures = distill_fit.fit(whole, data, s, seed=5, checkpoint=tmp_path / "whole.pt")
    checkpoint = tmp_path / "killed.pt"
    killed = pd._student(s).policy
    with pytest.raises(Killed):
        distill_fit.fit(killed, data, s, seed=5, log=KillAtEpoch(3), checkpoint=checkpoint)
    assert torch.load(checkpoint, weights_only=True)["epochs_done"] == 2
    resumed = pd._student(s).policy  # a fresh process: new weights, all state from the file
    evaluated: list[int] = []
    measured = distill_fit.evaluate

    def counting(*args: Any) -> dict[str, float]:
        evaluated.append(1)
        return measured(*args)

    monkeypatch.setattr(distill_fit, "evaluate", counting)
    again = distill_fit.fit(resumed, data, s, seed=5, checkpoint=checkpoint)
    assert len(evaluated) == 2  # epochs 3 and 4, not 1 and 2 again
    assert json.dumps(again) == json.dumps(figures)  # NaN-safe: a phase with no held-out decision
    final, expected = resumed.state_dict(), whole.state_dict()
    assert all(torch.equal(final[k], expected[k]) for k in expected)


@pytest.mark.parametrize(("change", "message"), [
    ({"decisions": 0}, "--decisions: must be a positive integer"),
    ({"student_share": 0.0}, "--student-share: must be in (0, 1]"),
    ({"temperature": 0.0}, "--temperature: must be a finite number > 0"),
    ({"window": -1}, "--window: must be an integer ≥ 0"),
    ({"players": 7}, "--players/--expansions"),
    ({"teacher": "bogus"}, "--teacher: unknown agent 'bogus'"),
    ({"anchors": ()}, "--anchors: needs at least one agent spec"),
    ({"device": "gpu"}, "--device"),
    ({"select_by": "agreement"}, "--select-by: must be one of regret, loss"),
    ({"init": "no/such/student.zip"}, "--init: names no student zip"),
    ({"deploy_sees_floors": True}, "--deploy-sees-floors: needs --action-heads and --reach-head"),
])
def test_bad_settings_are_refused_by_name(change: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingError) as error:
        pd.check(pd.Settings(**change))
    assert message in str(error.value)


def test_a_run_started_from_a_student_gains_the_reach_head_and_keeps_the_rest(tmp_path: Path) -> None:
    """--init copies a student's weights; the reach head it lacks (and the DEPLOY head's view of the
    floors) starts at zero (tests/test_reach_head.py shows the logits stay the student's); a student
    of another size is refused by name."""
    th = pytest.importorskip("torch")
    small = pd.Settings(channels=8, blocks=1, head_hidden=8, action_heads=True)
    path = tmp_path / "student.zip"
    pd._student(small).save(path)
    model = pd._student(dataclasses.replace(small, seed=3, reach_head=True, deploy_sees_floors=True))
    start_from(model, path, "cpu")
    from agents.nets.policy import load_policy

    mine = model.policy.state_dict()
    for key, value in load_policy(path).state_dict().items():
        assert th.equal(mine[key], value), key
    assert any(".reach_head." in key for key in mine) and "net.reach_head.to_deploy.weight" in mine
    with pytest.raises(SettingError, match=r"--init: .*differs in size"):
        start_from(pd._student(dataclasses.replace(small, channels=16)), path, "cpu")
    with pytest.raises(SettingError, match=r"--init: .*heads differ"):
        start_from(pd._student(dataclasses.replace(small, action_heads=False)), path, "cpu")


def test_a_run_killed_before_its_first_round_ends_can_be_resumed(tmp_path: Path) -> None:
    """A new run saves its state at once: after a kill in round 0 (its samples on disk, no round
    finished) ``--resume`` finds the run, and a new run there is refused rather than silently taking
    samples made with other settings."""
    from dataclasses import asdict, replace

    from training.common.run_folder import run_state

    s = pd.Settings(out=str(tmp_path / "run"))
    fresh = {"settings": asdict(s), "round": 0, "seconds": 0.0, "history": []}
    assert run_state(s, Path(s.out), pd._RESUMABLE, fresh) is fresh
    (tmp_path / "run" / "round_000").mkdir()  # killed here, say
    with pytest.raises(SettingError, match="already holds a run"):
        run_state(replace(s, decisions=10), Path(s.out), pd._RESUMABLE, fresh)
    state = run_state(replace(s, resume=True), Path(s.out), pd._RESUMABLE, {})
    assert state["round"] == 0 and state["settings"] == json.loads(json.dumps(asdict(s)))
    with pytest.raises(SettingError, match="--decisions 20000 \\(now 10\\)"):
        run_state(replace(s, resume=True, decisions=10), Path(s.out), pd._RESUMABLE, {})


class Clock:
    """A wall clock that moves an hour each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        self.now += 3600.0
        return self.now


def test_a_run_killed_while_rating_keeps_the_hours_its_samples_and_fit_took(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed while round 0 is rated (its samples, fit and student on disk): the state keeps the
    time that work took, and the resumed round's hours continue from it instead of from zero."""

    def killed(*args: Any, **kwargs: Any) -> Any:
        raise Killed

    s = pd.Settings(out=str(tmp_path / "run"), teacher="greedy", rounds=1, decisions=60, channels=8, blocks=1,
                    head_hidden=8, epochs=2, eval_seeds=1, anchors=("random",), workers=1, threads=1, progress=False)
    monkeypatch.setattr(progress, "time", Clock())
    monkeypatch.setattr(pd, "rate_against_anchors", killed)
    with pytest.raises(Killed):
        pd.train(s)
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    # Read at the start, after the samples, after each of the 2 epochs, after the student: 4 hours.
    assert (state["round"], state["seconds"]) == (0, 4 * 3600.0)
    monkeypatch.setattr(pd, "rate_against_anchors", rate_against_anchors)
    pd.train(dataclasses.replace(s, resume=True))
    # Resumed, the clock is read at the start, after loading the samples and when the rating ends: 2 more.
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    assert history[0]["hours"] == 4 + 2


def test_another_runs_rounds_join_every_fit_when_their_labels_are_the_same(tmp_path: Path) -> None:
    """--extra-samples: a finished run's round, labelled by the same teacher at the same temperature,
    is fitted on beside the run's own rounds; a file whose labels came from another teacher, or that
    is no run's round, or that lies in the run's own directory, is refused naming it."""
    tiny = pd.Settings(teacher="greedy", rounds=1, decisions=60, channels=8, blocks=1, head_hidden=8, epochs=1,
                       eval_seeds=1, anchors=("random",), workers=1, threads=1, progress=False)
    first = dataclasses.replace(tiny, out=str(tmp_path / "first"))
    pd.train(first)
    theirs = tmp_path / "first" / "round_000" / "samples.npz"
    second = dataclasses.replace(tiny, out=str(tmp_path / "second"), seed=1,
                                 extra_samples=(str(tmp_path / "fir*" / "round_00?" / "samples.npz"),))
    pd.train(second)
    entry = json.loads((tmp_path / "second" / "history.json").read_text())[0]
    assert entry["extra_samples"] == len(Samples.load(theirs)) > 0
    assert entry["samples"] == entry["round_samples"] + entry["extra_samples"]

    def refused(settings: pd.Settings) -> str:
        with pytest.raises(SettingError) as error:
            pd.check(settings)
        return str(error.value)

    assert "names no file" in refused(dataclasses.replace(second, extra_samples=(str(tmp_path / "none*.npz"),)))
    stray = tmp_path / "samples.npz"
    stray.write_bytes(theirs.read_bytes())
    assert f"{stray} is not the samples.npz of a distillation run's round folder" in refused(
        dataclasses.replace(second, extra_samples=(str(stray),)))
    own = tmp_path / "second" / "round_000" / "samples.npz"
    assert "lies in this run's own directory" in refused(dataclasses.replace(second, extra_samples=(str(own),)))
    assert f"{theirs} was labelled with --temperature 1.0, this run's is 2.0" in refused(
        dataclasses.replace(second, temperature=2.0, out=str(tmp_path / "third")))
    state = json.loads((tmp_path / "first" / "state.json").read_text())
    state["settings"]["teacher"] = "random"
    (tmp_path / "first" / "state.json").write_text(json.dumps(state))
    assert "was labelled with --teacher 'random', this run's is 'greedy'" in refused(
        dataclasses.replace(second, out=str(tmp_path / "third")))


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "training.cli", "train", "distill", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"})


TINY = ("quick", "--decisions", "150", "--channels", "8", "--blocks", "1", "--head-hidden", "8", "--epochs", "1",
        "--eval-seeds", "1", "--anchors", "random", "--workers", "1", "--threads", "1", "--no-progress")


@pytest.mark.slow


def test_a_tiny_run_resumes_and_refuses_changed_settings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = run_cli(*TINY, "--out", str(out), "--rounds", "1")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("game: tower variant (tower, black_tower, watchtowers), 2 players\n")
    assert recorded_game(out / "student.zip") == GameConfig(expansions=TOWER_VARIANT).to_dict()
    for name in ("round_000/samples.npz", "round_000/student.zip", "round_000/anchors/games.jsonl", "student.zip",
                 "curve.csv", "curve.png", "history.json", "state.json"):
        assert (out / name).is_file(), name
    assert not (out / "round_001").exists()
    again = run_cli(*TINY, "--out", str(out), "--rounds", "1")
    assert again.returncode != 0 and "already holds a run" in again.stderr
    changed = run_cli(*TINY, "--out", str(out), "--rounds", "2", "--resume", "--seed", "5")
    assert changed.returncode != 0 and "--seed 0 (now 5)" in changed.stderr and "Traceback" not in changed.stderr
    state0 = (out / "state.json").read_text()
    saved = json.loads(state0)
    del saved["settings"]["select_by"]  # a run saved before --select-by existed was fitted by the loss
    (out / "state.json").write_text(json.dumps(saved))
    older = run_cli(*TINY, "--out", str(out), "--rounds", "2", "--resume")
    assert older.returncode != 0 and "--select-by 'loss' (now 'regret')" in older.stderr
    resumed = run_cli(*TINY, "--out", str(out), "--rounds", "2", "--resume", "--select-by", "loss")
    assert resumed.returncode == 0, resumed.stderr
    student = (out / "round_001" / "student.zip").read_bytes()
    (out / "state.json").write_text(state0)  # as if killed while round 1 was being rated
    again = run_cli(*TINY, "--out", str(out), "--rounds", "2", "--resume")
    assert again.returncode == 0, again.stderr
    assert "fitting" in again.stdout and "epoch 1" not in again.stdout  # its samples and student are reused
    assert (out / "round_001" / "student.zip").read_bytes() == student
    assert (out / "round_001" / "student.zip").is_file()
    history = json.loads((out / "history.json").read_text())
    assert [h["round"] for h in history] == [0, 1]
    assert history[0]["student_seat_samples"] == 0 < history[1]["student_seat_samples"]
    assert history[1]["samples"] == history[0]["round_samples"] + history[1]["round_samples"]
    assert history[1]["ms_per_decision"] > 0 and history[1]["ratings"]["random"]["games"] == 2
    with (out / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["round"] for r in rows] == ["0", "1"]
    assert all(0 <= float(r["random_win_low"]) <= float(r["random_win"]) <= float(r["random_win_high"]) <= 1
               for r in rows)
    assert all(0 <= float(r["agreement"]) <= 1 for r in rows)
    # A run kept without its samples (they are most of its bytes) plays them again, the same ones.
    saved_samples = {j: dict(np.load(out / f"round_{j:03d}" / "samples.npz")) for j in (0, 1)}
    for j in saved_samples:
        (out / f"round_{j:03d}" / "samples.npz").unlink()
    longer = run_cli(*TINY, "--out", str(out), "--rounds", "3", "--resume")
    assert longer.returncode == 0, longer.stderr
    assert "round 0: 150 decisions, the teacher in every seat" in longer.stdout
    assert "round 1: 150 decisions, ppo:" in longer.stdout
    for j, arrays in saved_samples.items():
        with np.load(out / f"round_{j:03d}" / "samples.npz") as played_again:
            assert sorted(played_again.files) == sorted(arrays)
            for key, array in arrays.items():
                np.testing.assert_array_equal(played_again[key], array, err_msg=f"round {j}: {key}")
    assert [h["round"] for h in json.loads((out / "history.json").read_text())] == [0, 1, 2]
    agent = make_agent(f"ppo:{out / 'student.zip'}", seed=0)  # the student plays as a ppo: agent
    from carcassonne_env.engine import Game

    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=0)
    assert agent.choose_action(game) in game.legal_actions()


def test_a_bad_setting_on_the_command_line_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("quick", "--out", str(tmp_path / "x"), "--rounds", "0")
    assert result.returncode != 0
    assert "--rounds: must be a positive integer" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("name, reach_head", [("distilled", False), ("reach", True), ("pooled", True)])
def test_the_shipped_students_play_without_search_and_never_read_the_unseen_pile(name: str, reach_head: bool) -> None:
    """``ppo:distilled`` is the distillation's student, ``ppo:reach`` its fine-tune with the reach head,
    ``ppo:pooled`` that one fitted on the pooled labels: action heads, no prior (no search at play time);
    R4: permuting the tiles not yet drawn changes none of their moves."""
    from hidden_pile import with_unseen_pile_permuted

    from agents.ppo import SHIPPED, PPOAgent, resolve_checkpoint
    from carcassonne_env.engine import Game, GameConfig

    assert resolve_checkpoint(name) == SHIPPED[name]
    network = PPOAgent(name)
    assert network.prior == "" and network.policy.action_heads is True
    assert network.policy.reach_head is reach_head
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    rng = np.random.default_rng(5)
    for seed in (1, 2):
        game, agent = Game(config, seed=seed), make_agent(f"ppo:{name}", seed=0)
        while not game.is_over:
            if len(game.history) in (10, 40, 80):
                permuted = with_unseen_pile_permuted(game, rng)
                assert permuted.to_dict()["pile"] != game.to_dict()["pile"]
                assert agent.choose_action(permuted) == agent.choose_action(game)
            game.apply(agent.choose_action(game))

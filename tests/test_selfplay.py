"""Self-play training end to end through its command line: a few hundred steps with the greedy warm
start, evaluation and checkpoints; the checkpoint plays as an agent; ``--resume`` continues the step
count. No strength or speed is asserted here (those are figures of the project's commands)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT

pytest.importorskip("sb3_contrib")

from agents import make_agent
from agents.compat import check_fits
from agents.ppo import recorded_game
from carcassonne_env.engine import GameConfig
from training.arena.match import play_match

TINY = [
    "--n-envs", "1", "--n-steps", "128", "--batch-size", "64", "--n-epochs", "1",
    "--imitation-decisions", "30", "--imitation-epochs", "1",
    "--eval-seeds", "1", "--eval-opponents", "random", "--eval-workers", "1",
    "--checkpoint-every", "128", "--threads", "1", "--no-progress",
]


def _train(out: Path, steps: int, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "training.sb3.selfplay", "quick", "--out", str(out), "--total-steps", str(steps),
           *TINY, *extra]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env,
                          cwd=Path(__file__).resolve().parents[1])


@pytest.mark.slow


def test_training_writes_a_checkpoint_that_plays_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = _train(out, 256)
    assert first.returncode == 0, first.stderr[-3000:]
    for name in ("final.zip", "checkpoint.zip", "state.json", "evaluations.csv", "learning_curve.png",
                 "imitation.json"):
        assert (out / name).is_file(), name
    assert list((out / "tensorboard").rglob("events.out.tfevents.*"))
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 256
    assert [e["step"] for e in state["evaluations"]] == [256]
    imitation = json.loads((out / "imitation.json").read_text())
    assert imitation["decisions"] >= 30

    # The checkpoint is an agent (spec ppo:PATH) that plays whole games with legal actions only
    # (the match runner refuses an illegal one), in both seats.
    spec = f"ppo:{out / 'final.zip'}"
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    for seats in ((spec, "random"), ("random", spec)):
        result = play_match(config, seats, seed=3)
        assert result.record.replay().scores == result.scores

    # Resume continues the step count, the evaluation history and the TensorBoard run.
    again = _train(out, 384, "--resume")
    assert again.returncode == 0, again.stderr[-3000:]
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 384
    assert [e["step"] for e in state["evaluations"]] == [256, 384]


def test_a_second_run_into_the_same_directory_needs_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoint.zip").write_bytes(b"")
    (out / "state.json").write_text("{}")
    result = _train(out, 128)
    assert result.returncode != 0
    assert "pass --resume" in result.stderr
    assert "Traceback" not in result.stderr


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    result = _train(tmp_path / "empty", 128, "--resume")
    assert result.returncode != 0
    assert "no checkpoint" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_explains_the_presets_and_settings() -> None:
    result = subprocess.run([sys.executable, "-m", "training.sb3.selfplay", "--help"], capture_output=True, text=True,
                            timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 0
    assert "quick" in result.stdout and "full" in result.stdout
    result = subprocess.run([sys.executable, "-m", "training.sb3.selfplay", "quick", "--help"], capture_output=True,
                            text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert "--total-steps" in result.stdout and "--imitation-decisions" in result.stdout


def test_a_missing_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    from agents.ppo import resolve_checkpoint

    with pytest.raises(FileNotFoundError, match="no MaskablePPO checkpoint"):
        resolve_checkpoint(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="no MaskablePPO checkpoint"):
        make_agent(f"ppo:{tmp_path / 'missing.zip'}", seed=0)


def test_a_bad_imitation_teacher_is_a_clear_error(tmp_path: Path) -> None:
    result = _train(tmp_path / "run", 128, "--imitation-teacher", "greedy:value=nowhere.json")
    assert result.returncode != 0
    assert "--imitation-teacher" in result.stderr and "nowhere.json" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "checkpoint.zip").exists()


@pytest.mark.slow


def test_training_a_residual_policy_over_a_prior_writes_an_agent_that_computes_the_prior(tmp_path: Path) -> None:
    out = tmp_path / "residual"
    result = _train(out, 128, "--prior", "greedy:fast=1", "--prior-temperature", "0.1", "--imitation-decisions", "0",
                    "--fixed-opponents", "greedy:fast=1", "--fixed-weights", "1", "--eval-opponents", "greedy",
                    "--initial-best", "greedy:fast=1")
    assert result.returncode == 0, result.stderr[-3000:]
    assert not (out / "imitation.json").exists()
    # greedy and greedy:fast=1 are evaluated under distinct names
    header = (out / "evaluations.csv").read_text().splitlines()[0].split(",")
    assert {"win_rate_vs_greedy", "win_rate_vs_greedy_fast_1"} <= set(header)
    agent = make_agent(f"ppo:{out / 'final.zip'}", seed=0)
    assert agent.extras is not None and agent.extras.spec == "greedy:fast=1"  # type: ignore[attr-defined]
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    result_game = play_match(config, (f"ppo:{out / 'final.zip'}", "random"), seed=1)
    assert result_game.record.replay().scores == result_game.scores

    # Resume keeps the prior (the envs are wrapped again, the model loads over them).
    again = _train(out, 256, "--resume", "--imitation-decisions", "0")
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads((out / "state.json").read_text())["num_timesteps"] == 256


@pytest.mark.parametrize(("flags", "message"), [
    (("--prior", "greedy"), "--prior starts the policy at the prior's play: set --imitation-decisions 0"),
    (("--prior", "random", "--imitation-decisions", "0"), "--prior: prior 'random': this agent gives no action values"),
    (("--prior", "greedy:value=nowhere.json", "--imitation-decisions", "0"), "nowhere.json"),
    (("--prior", "greedy", "--imitation-decisions", "0", "--prior-temperature", "0"),
     "--prior-temperature: must be a finite number > 0"),
    (("--prior-temperature", "0.5",), "--prior-temperature is the prior's: give --prior SPEC too"),
])
def test_a_bad_prior_is_a_clear_error(tmp_path: Path, flags: tuple[str, ...], message: str) -> None:
    result = _train(tmp_path / "run", 128, *flags)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "checkpoint.zip").exists()


def test_zero_steps_saves_and_evaluates_the_initial_policy(tmp_path: Path) -> None:
    out = tmp_path / "initial"
    result = _train(out, 0, "--imitation-decisions", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    state = json.loads((out / "state.json").read_text())
    assert state["num_timesteps"] == 0 and [e["step"] for e in state["evaluations"]] == [0]
    assert (out / "final.zip").is_file()
    assert result.stdout.startswith("game: tower variant (tower, black_tower, watchtowers), 2 players\n")
    # every zip it saved records the game it was trained on: seated in another game, it is refused
    tower = GameConfig(expansions=TOWER_VARIANT)
    for zip_file in (out / "final.zip", out / "checkpoint.zip", *(out / "snapshots").glob("*.zip")):
        assert recorded_game(zip_file) == tower.to_dict(), zip_file
    spec = f"ppo:{out / 'final.zip'}"
    with pytest.raises(ValueError, match=r"made for the game \[tower variant .*\], not for this game \[base game"):
        check_fits(make_agent(spec, seed=0), GameConfig(), spec)
    assert list((out / "tensorboard").rglob("events.out.tfevents.*"))

"""Plain bad input at every edge gives one clear line, never a traceback or a silent run (items 4, 5)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from faults.helpers import assert_clear_error, cli

T = ["tournament", "random", "greedy", "--seeds", "1", "--expansions", "", "--no-progress"]


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("argv", "message"), [
    (["play", "random", "random", "--seed", "-1"], "--seed"),
    (["play", "random", "random", "--delay", "-1"], "--delay"),
    (["play", "random", "random", "--delay", "nan"], "--delay"),
    (["play", "random", "random", "--delay", "inf"], "--delay"),
    (["play", "random", "random", "--gif", "x.txt"], "--gif"),
    (["play", "random", "random", "--html", "x.png"], "--html"),
    (["play", "random"], "player"),
    (["play", "mcts:sims=0", "random"], "sims must be a positive"),
    (["play", "mcts:seconds=0", "random"], "seconds must be a positive"),
    (["play", "nosuchagent", "random"], "nosuchagent"),
    ([*T, "--first-seed", "-5"], "--first-seed"),
    ([*T, "--seeds", "0"], "--seeds"),
    ([*T, "--games", "-2"], "--games"),
    ([*T, "--workers", "0"], "--workers"),
    ([*T, "--players", "7"], "--players"),
    ([*T, "--move-time-limit", "0"], "--move-time-limit"),
    ([*T, "--move-time-limit", "nan"], "--move-time-limit"),
    ([*T, "--on-error", "ignore"], "--on-error"),
    ([*T, "--sprt", "0,10,2,0.05"], "--sprt"),
    ([*T, "--anchor", "mcts"], "--anchor"),
    ([*T, "--rules", "no_such_flag"], "no_such_flag"),
    ([*T, "--expansions", "nope"], "nope"),
    ([*T, "--address", "auto"], "--address"),
    (["evaluate", "random", "--seeds", "0"], "--seeds"),
    (["bench", "engine", "--seed", "-1"], "--seed"),
    (["bench", "engine", "--games", "0"], "--games"),
    (["bench", "tournament", "--games", "0"], "--games"),
    (["replay", "/no/such/file.json", "-o", "x.html"], "no such file"),
])
def test_bad_command_lines_are_refused_in_one_line(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(argv, capsys)
    assert_clear_error(code, err, message)


@pytest.mark.fault("clear error")
@pytest.mark.parametrize("damage", ["data entry", "not a zip", "empty"])
def test_a_damaged_ppo_model_is_refused_in_one_line(tmp_path: Path, damage: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.ppo import PRETRAINED

    model = tmp_path / "model.zip"
    if damage == "data entry":
        with zipfile.ZipFile(PRETRAINED) as src, zipfile.ZipFile(model, "w") as dst:
            for item in src.infolist():
                dst.writestr(item, b"{not json" if item.filename == "data" else src.read(item))
    else:
        model.write_bytes(b"" if damage == "empty" else b"hello")
    code, err = cli(["play", f"ppo:{model}", "random", "--quiet"], capsys)
    assert_clear_error(code, err, "model.zip")


@pytest.mark.fault("clear error")
def test_a_model_made_for_another_game_configuration_is_refused_naming_both(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    code, err = cli(["play", "ppo:pretrained", "random", "random", "--quiet"], capsys)
    assert_clear_error(code, err, "3 players", "2 players")


TRAIN = ["--total-steps", "0", "--no-progress"]


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("flags", "message"), [
    (["--n-envs", "0"], "--n-envs"), (["--n-steps", "0"], "--n-steps"), (["--batch-size", "0"], "--batch-size"),
    (["--players", "7"], "--players"), (["--seed", "-1"], "--seed"), (["--learning-rate", "nan"], "--learning-rate"),
    (["--gamma", "1.5"], "--gamma"), (["--total-steps", "-5"], "--total-steps"),
    (["--fixed-weights", "1"], "--fixed-weights"), (["--eval-opponents", "nosuch"], "--eval-opponents"),
    (["--expansions", "nope"], "--players/--expansions"),
])
def test_bad_trainer_settings_are_refused_before_training(tmp_path: Path, flags: list[str], message: str) -> None:
    pytest.importorskip("sb3_contrib")
    from training.sb3.selfplay import main

    with pytest.raises(SystemExit) as e:
        main(["quick", "--out", str(tmp_path / "run"), *TRAIN, *flags])
    assert message in str(e.value.code)
    assert not (tmp_path / "run" / "checkpoint.zip").exists()


@pytest.mark.fault("clear error")
@pytest.mark.parametrize("flags", [["--players", "3"], ["--seed", "5"], ["--expansions", "tower"],
                                   ["--learning-rate", "0.01"], ["--n-envs", "4"]])
def test_a_trainer_resume_refuses_changed_run_settings(tmp_path: Path, flags: list[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from dataclasses import asdict

    from training.sb3.selfplay import PRESETS, main, save_checkpoint

    out = tmp_path / "run"
    out.mkdir()
    settings = asdict(PRESETS["quick"][1])
    save_checkpoint(out, lambda p: p.write_bytes(b"PK"), {"settings": settings, "num_timesteps": 8})
    with pytest.raises(SystemExit) as e:
        main(["quick", "--out", str(out), *TRAIN, "--resume", *flags])
    assert "differs from the run's" in str(e.value.code) and flags[0] in str(e.value.code)


@pytest.mark.fault("clear error", count=3)
def test_the_raw_env_refuses_a_bool_and_a_step_after_the_end() -> None:
    from carcassonne_env.engine import IllegalActionError
    from carcassonne_env.environment import raw_env

    env = raw_env(players=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="integer index"):
        env.step(True)
    with pytest.raises(IllegalActionError, match="integer index"):
        env.step(np.bool_(False))
    while env.agents:
        _, _, done, cut, _ = env.last()
        env.step(None if done or cut else int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)

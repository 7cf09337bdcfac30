"""Plain bad input at every edge gives one clear line, never a traceback or a silent run (items 4, 5)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from carcassonne_env.engine.registry import TOWER_VARIANT
from faults.helpers import assert_clear_error, cli

T = ["tournament", "random", "greedy", "--seeds", "1", "--expansions", "", "--no-progress"]


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("argv", "message"), [
    (["play", "random", "random", "--seed", "-1"], "--seed"),
    # options that would be ignored at this table
    (["play", "human", "random", "--frames", "frames"], "--frames is for a game between agents"),
    (["play", "human", "random", "--delay", "1"], "--delay is for a game between agents"),
    (["play", "human", "random", "--boards"], "--boards is for a game between agents"),
    (["play", "random", "random", "--save", "x.json"], "--save is for a table with a human seat"),
    (["play", "random", "random", "--port", "9000"], "--port needs --web"),
    (["play", "human", "random", "--port", "9000"], "--port needs --web"),
    (["play", "random", "random", "--delay", "-1"], "--delay"),
    (["play", "random", "random", "--delay", "nan"], "--delay"),
    (["play", "random", "random", "--delay", "inf"], "--delay"),
    (["play", "random", "random", "--gif", "x.txt"], "--gif"),
    (["play", "random", "random", "--html", "x.png"], "--html"),
    (["play", "random"], "player"),
    (["play", "mcts:sims=0", "random"], "sims=0 is out of its range 1 to 100000"),
    (["play", "mcts:seconds=0", "random"], "seconds=0 is out of its range 0.001 to 600"),
    (["play", "nosuchagent", "random"], "nosuchagent"),
    ([*T, "--seed", "-5"], "--seed"),
    ([*T, "--first-seed", "3"], "--first-seed was renamed --seed"),
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
    # issue 21, item 4: every flag of every command
    (["play", "random", "random", "--seed", "abc"], "--seed"),
    (["play", "random", "random", "--delay", "1e30"], "--delay"),
    (["play", "random", "random", "--delay", "abc"], "--delay"),
    (["play", "random", "random", "--port", "-1"], "--port"),
    (["play", "random", "random", "--port", "70000"], "--port"),
    (["play", "random", "random", "--port", "abc"], "--port"),
    (["play", "random", "random", "--frames", "@FILE"], "--frames"),
    (["play", "random", "random", "--html", "@DIR/d.html"], "--html"),
    (["play", "random", "random", "--gif", "@DIR/d.gif"], "--gif"),
    (["play", "human", "random", "--save", "@DIR"], "--save"),
    (["play", "--resume", "/no/such/game.json"], "no such file"),
    (["play", "--resume", "@DIR"], "cannot read"),
    (["play", "--resume", "@FILE"], "cannot read"),
    (["play", "random", "random", "--expansions", "nope"], "nope"),
    (["play", "random", "random", "--rules", "players"], "--rules"),
    (["play", *["random"] * 7], "players"),
    (["play", "mcts:sims=-1", "random"], "sims=-1 is out of its range 1 to 100000"),
    (["play", "mcts:sims=1_0", "random"], "sims='1_0' must be of type int"),
    (["play", "mcts:widening=101", "random"], "widening=101 is out of its range 0 to 100"),
    (["play", "mcts:seconds=-1", "random"], "seconds=-1 is out of its range 0.001 to 600"),
    (["play", "mcts:seconds=nan", "random"], "seconds"),
    (["play", "mcts:seconds=inf", "random"], "seconds"),
    (["play", "mcts:sims=abc", "random"], "sims='abc'"),
    (["play", "mcts:sims=1.5", "random"], "sims='1.5'"),
    (["play", "mcts:nosuch=1", "random"], "unknown option 'nosuch'"),
    (["play", "greedy:fast=2", "random"], "fast='2'"),
    (["play", "greedy:value=nosuch", "random"], "nosuch"),
    (["play", "greedy:value=@DIR", "random"], "cannot read value weights"),
    (["play", "greedy:value=@FILE", "random"], "cannot read value weights"),
    (["play", "ppo:/no/such.zip", "random"], "no MaskablePPO checkpoint"),
    (["play", "rllib:/no/such", "random"], "no RLlib checkpoint"),
    (["play", "afterstate:/no/such.npz", "random"], "no value network"),
    (["play", "afterstate:@FILE", "random"], "cannot load"),
    (["play", "/no/such.py:Agent", "random"], "no such file"),
    (["play", "random:x=1", "random"], "unknown option 'x'"),
    (["replay", "@DIR", "-o", "x.html"], "cannot read"),
    (["replay", "@FILE", "-o", "x.html"], "not JSON"),
    (["replay", "@FILE", "-o", "@DIR"], "--out"),
    (["replay", "@FILE", "-o", "x.html", "--game", "-1"], "--game"),
    (["replay", "@FILE", "-o", "x.html", "--game", "abc"], "--game"),
    ([*T, "--players", "1"], "--players"),
    ([*T, "--players", "abc"], "--players"),
    ([*T, "--seeds", "99999999999999999999"], "--seeds"),
    ([*T, "--seeds", "nan"], "--seeds"),
    ([*T, "--games", "abc"], "--games"),
    ([*T, "--seed", "abc"], "--seed"),
    ([*T, "--workers", "99999999999999999999"], "--workers"),
    ([*T, "--workers", "-1"], "--workers"),
    ([*T, "--backend", "nope"], "--backend"),
    ([*T, "--out", "@FILE"], "--out"),
    ([*T, "--resume", "--out", "@FILE"], "--out"),
    ([*T, "--move-time-limit", "1e30"], "--move-time-limit"),
    ([*T, "--move-time-limit", "-1"], "--move-time-limit"),
    ([*T, "--sprt", "0,inf,0.05,0.05"], "--sprt"),
    ([*T, "--sprt", "0,10,0.05"], "--sprt"),
    (["tournament", "random", "random", "--seeds", "1"], "repeated"),
    (["tournament", "random", "--seeds", "1"], "at least 2 agents"),
    (["tournament", "random", "nosuch", "--seeds", "1"], "nosuch"),
    (["evaluate", "nosuch", "--seeds", "1"], "nosuch"),
    (["evaluate", "random", "--seeds", "99999999999999999999"], "--seeds"),
    (["evaluate", "random", "--workers", "0"], "--workers"),
    (["evaluate", "random", "--move-time-limit", "nan"], "--move-time-limit"),
    (["evaluate", "random", "--on-error", "x"], "--on-error"),
    (["evaluate", "random", "--backend", "x"], "--backend"),
    (["evaluate", "random", "--address", "auto"], "--address"),
    (["evaluate", "random", "--out", "@FILE"], "--out"),
    (["evaluate", "random", "--store-ladder", "ladder.json"], "--store-ladder"),
    (["bench", "nope"], "target"),
    (["bench", "engine", "--games", "99999999999999999999"], "--games"),
    (["bench", "engine", "--seed", "abc"], "--seed"),
    (["bench", "engine", "--players", "7"], "players"),
    (["bench", "engine", "--players", "abc"], "--players"),
    (["bench", "engine", "--tiles", "nope"], "nope"),
    (["bench", "engine", "--expansions", "nope"], "nope"),
    (["bench", "env", "--games", "-1"], "--games"),
    (["bench", "engine", "--nope"], "--nope"),
    (["bench", "tournament", "--specs", ""], "--specs"),
    (["bench", "tournament", "--specs", "nosuch"], "nosuch"),
    (["bench", "tournament", "--backend", "x"], "--backend"),
    (["bench", "tournament", "--address", "auto"], "--address"),
    (["bench", "tournament", "--players", "3"], "unrecognised"),
    (["bench", "agent", "--specs", "nosuch"], "nosuch"),
    (["bench", "agent", "--threads", "0"], "--threads"),
    (["bench", "agent", "--games", "0"], "--games"),
    (["bench", "agent", "--seed", "1"], "unrecognised"),
    (["train", "nosuch"], "nosuch"),
])
def test_bad_command_lines_are_refused_in_one_line(argv: list[str], message: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("not a game\n")
    for name in ("d.html", "d.gif"):  # directories named like the files wanted
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("@DIR", str(tmp_path)).replace("@FILE", str(tmp_path / "file")) for a in argv]
    code, err = cli(argv, capsys)
    assert_clear_error(code, err, message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.gif", "d.html", "file"], "a refused command wrote files"


@pytest.mark.fault("handled")
@pytest.mark.parametrize(("argv", "why"), [
    (["play", "random", "random", "--seed", "99999999999999999999"], "the generators take seeds of any size"),
    (["play", "random", "random", "--expansions", ",,"], "empty names are skipped: the base game"),
    (["play", "greedy:", "random"], "no options: the defaults"),
    (["play", "random", "random", "--html", "new/dir/x.html"], "the directory is created"),
    (["play", "random", "random", "--frames", "new/frames"], "the directory is created"),
    ([*T, "--seed", "99999999999999999999", "--out", "t"], "the generators take seeds of any size"),
    ([*T, "--workers", "1000000", "--out", "t"], "workers beyond the games are not started"),
    ([*T, "--resume", "--out", "t"], "nothing to resume yet: the tournament starts"),
    (["bench", "engine", "--games", "1", "--tiles", "base,tower,watchtowers", "--seed", "99999999999999999999"],
     "tile sets by name; any seed"),
])
def test_unusual_but_valid_command_lines_run(argv: list[str], why: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = cli([*argv, *(["--quiet"] if argv[0] == "play" else [])], capsys)
    assert code == 0 and "error" not in err, (why, err)


MODULES = {
    "carcassonne_env.bench": ["engine"],
    "carcassonne_env.environment.measure_window": [],
    "carcassonne_env.environment.render": ["@DIR/board.png"],
    "agents.bench": ["greedy"],
    "training.value.fit_linear": ["@FILE", "-o", "@DIR/w.json"],
    "training.sb3.bench_train": [],
}


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("module", "flags", "message"), [
    ("carcassonne_env.bench", ["--games", "0"], "--games"),
    ("carcassonne_env.bench", ["--games", "-1"], "--games"),
    ("carcassonne_env.bench", ["--games", "99999999999999999999"], "--games"),
    ("carcassonne_env.bench", ["--games", "nan"], "--games"),
    ("carcassonne_env.bench", ["--seed", "-1"], "--seed"),
    ("carcassonne_env.bench", ["--seed", "abc"], "--seed"),
    ("carcassonne_env.bench", ["--players", "7"], "players"),
    ("carcassonne_env.bench", ["--players", "abc"], "--players"),
    ("carcassonne_env.bench", ["--tiles", "nope"], "nope"),
    ("carcassonne_env.bench", ["--expansions", "nope"], "nope"),
    ("carcassonne_env.environment.measure_window", ["--games", "0"], "--games"),
    ("carcassonne_env.environment.measure_window", ["--games", "abc"], "--games"),
    ("carcassonne_env.environment.measure_window", ["--workers", "0"], "--workers"),
    ("carcassonne_env.environment.measure_window", ["--workers", "-2"], "--workers"),
    ("carcassonne_env.environment.measure_window", ["--seed", "-1"], "--seed"),
    ("carcassonne_env.environment.render", ["--players", "7"], "players"),
    ("carcassonne_env.environment.render", ["--seed", "-1"], "--seed"),
    ("carcassonne_env.environment.render", ["--steps", "0"], "--steps"),
    ("carcassonne_env.environment.render", ["--steps", "nan"], "--steps"),
    ("carcassonne_env.environment.render", ["--expansions", "nope"], "nope"),
    ("carcassonne_env.environment.render", ["@DIR/board.txt"], "out"),
    ("carcassonne_env.environment.render", ["@DIR/no/board.png", "--steps", "1"], "cannot write"),
    ("agents.bench", ["--games", "0"], "--games"),
    ("agents.bench", ["--sims", "-1"], "--sims"),
    ("agents.bench", ["--positions", "abc"], "--positions"),
    ("agents.bench", ["--mid-tiles", "0"], "--mid-tiles"),
    ("agents.bench", ["--clock", "x"], "--clock"),
    ("agents.bench", ["--mcts-options", "nope=1"], "nope"),
    ("agents.bench", ["--greedy-value", "nosuch"], "nosuch"),
    ("training.value.fit_linear", ["--holdout", "1"], "--holdout"),
    ("training.value.fit_linear", ["--holdout", "nan"], "--holdout"),
    ("training.value.fit_linear", ["--ridge", "-1"], "--ridge"),
    ("training.value.fit_linear", ["--ridge", "nan"], "--ridge"),
    ("training.value.fit_linear", ["--seed", "-1"], "--seed"),
    ("training.value.fit_linear", ["--seed", "abc"], "--seed"),
    ("training.value.fit_linear", ["-o", "@DIR"], "--out"),
    ("training.value.fit_linear", ["-o", "@DIR/w.txt"], "--out"),
    ("training.value.fit_linear", ["@DIR"], "cannot read"),
    ("training.value.fit_linear", [], "no finished games"),
    ("training.sb3.bench_train", ["--iterations", "0"], "--iterations"),
    ("training.sb3.bench_train", ["--n-envs", "abc"], "--n-envs"),
    ("training.sb3.bench_train", ["--envs", "2"], "--envs was renamed --n-envs"),
    ("training.sb3.bench_train", ["--n-steps", "-1"], "--n-steps"),
    ("training.sb3.bench_train", ["--batch-size", "0"], "--batch-size"),
    ("training.sb3.bench_train", ["--n-epochs", "0"], "--n-epochs"),
    ("training.sb3.bench_train", ["--players", "7"], "--players"),
    ("training.sb3.bench_train", ["--channels", "0"], "--channels"),
    ("training.sb3.bench_train", ["--blocks", "-1"], "--blocks"),
    ("training.sb3.bench_train", ["--margin", "-1"], "--margin"),
    ("training.sb3.bench_train", ["--threads", "0"], "--threads"),
    ("training.sb3.bench_train", ["--seed", "-1"], "--seed"),
    ("training.sb3.bench_train", ["--seed", str(2**32)], "--seed"),
])
def test_bad_module_command_lines_are_refused_in_one_line(module: str, flags: list[str], message: str,
                                                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    if module.startswith("training.sb3"):
        pytest.importorskip("sb3_contrib")
    (tmp_path / "file").write_text("not a game\n")
    argv = [*MODULES[module], *flags]
    if flags[:1] and not flags[0].startswith("-"):  # a positional argument replaces the default's
        defaults = MODULES[module]
        first_flag = next((i for i, a in enumerate(defaults) if a.startswith("-")), len(defaults))
        argv = [*flags, *defaults[first_flag:]]
    argv = [a.replace("@DIR", str(tmp_path)).replace("@FILE", str(tmp_path / "file")) for a in argv]
    with pytest.raises(SystemExit) as e:
        importlib.import_module(module).main(argv)
    assert_clear_error(e.value.code if isinstance(e.value.code, int) else 1, capsys.readouterr().err, message)


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


def _refused_before_training(main: Callable[[list[str]], object], argv: list[str], message: str, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """A trainer's ``main(argv)`` exits non-zero with ``message`` in its exit message or on stderr;
    ``@FILE`` in ``argv`` is an empty file, ``@DIR`` a folder."""
    (tmp_path / "file").write_text("")
    argv = [a.replace("@FILE", str(tmp_path / "file")).replace("@DIR", str(tmp_path)) for a in argv]
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code != 0
    assert message in str(e.value.code) or message in capsys.readouterr().err


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("flags", "message"), [
    (["--n-envs", "0"], "--n-envs"),
    (["--n-steps", "0"], "--n-steps"),
    (["--batch-size", "0"], "--batch-size"),
    (["--players", "7"], "--players"),
    (["--seed", "-1"], "--seed"),
    (["--learning-rate", "nan"], "--learning-rate"),
    (["--gamma", "1.5"], "--gamma"),
    (["--total-steps", "-5"], "--total-steps"),
    (["--fixed-weights", "1"], "--fixed-weights"),
    (["--eval-opponents", "nosuch"], "--eval-opponents"),
    (["--expansions", "nope"], "--players/--expansions"),
    (["--seed", str(2**32)], "--seed"),
    (["--seed", "abc"], "--seed"),
    (["--n-envs", "nan"], "--n-envs"),
    (["--n-epochs", "0"], "--n-epochs"),
    (["--ent-coef", "-1"], "--ent-coef"),
    (["--clip-range", "inf"], "--clip-range"),
    (["--gae-lambda", "0"], "--gae-lambda"),
    (["--channels", "0"], "--channels"),
    (["--blocks", "0"], "--blocks"),
    (["--shaping", "nan"], "--shaping"),
    (["--shaping-scores", "x"], "--shaping-scores"),
    (["--imitation-decisions", "-1"], "--imitation-decisions"),
    (["--imitation-teacher", "nosuch"], "--imitation-teacher"),
    (["--imitation-epochs", "0"], "--imitation-epochs"),
    (["--imitation-learning-rate", "0"], "--imitation-learning-rate"),
    (["--imitation-workers", "0"], "--imitation-workers"),
    (["--prior", "nosuch", "--imitation-decisions", "0"], "--prior"),
    (["--prior-temperature", "inf"], "--prior-temperature"),
    (["--fixed-opponents", "nosuch,random"], "--fixed-opponents"),
    (["--fixed-opponents", "nosuch", "random"], "--fixed-opponents nosuch,random"),
    (["--snapshot-share", "2"], "--snapshot-share"),
    (["--initial-best", "nosuch"], "--initial-best"),
    (["--promotion-margin", "-0.1"], "--promotion-margin"),
    (["--max-snapshots", "0"], "--max-snapshots"),
    (["--eval-every", "-1"], "--eval-every"),
    (["--eval-seeds", "0"], "--eval-seeds"),
    (["--eval-workers", "0"], "--eval-workers"),
    (["--checkpoint-every", "0"], "--checkpoint-every"),
    (["--threads", "-1"], "--threads"),
    (["--device", "gpu"], "--device"),
    (["--max-minutes", "nan"], "--max-minutes"),
    (["--out", "@FILE"], "--out"),
    (["--players", "3", "--eval-opponents", "mcts:pretrained"], "games of 2 players, not 3"),
    (["--subprocess-envs", "maybe"], "maybe"),
    (["--nosuch", "1"], "--nosuch"),
])
def test_bad_trainer_settings_are_refused_before_training(tmp_path: Path, flags: list[str], message: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from training.sb3.selfplay import main

    _refused_before_training(main, ["quick", "--out", str(tmp_path / "run"), *TRAIN, *flags], message, tmp_path,
                             capsys)
    assert not (tmp_path / "run" / "checkpoint.zip").exists()


@pytest.mark.fault("clear error")
def test_an_unknown_trainer_preset_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tyro")
    for trainer in ("ppo", "afterstate"):
        code, err = cli(["train", trainer, "nosuch"], capsys)
        assert code != 0 and "Traceback" not in err and "nosuch" in err, err


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("flags", "message"), [
    (["--players", "7"], "--players"),
    (["--expansions", "nope"], "nope"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**32)], "--seed"),
    (["--generations", "0"], "--generations"),
    (["--games-per-generation", "0"], "--games-per-generation"),
    (["--window", "0"], "--window"),
    (["--epochs", "0"], "--epochs"),
    (["--batch-size", "0"], "--batch-size"),
    (["--gate-seeds", "0"], "--gate-seeds"),
    (["--anchor-seeds", "0"], "--anchor-seeds"),
    (["--workers", "-1"], "--workers"),
    (["--threads", "-1"], "--threads"),
    (["--td-lambda", "1.5"], "--td-lambda"),
    (["--td-lambda", "nan"], "--td-lambda"),
    (["--holdout", "0.5"], "--holdout"),
    (["--learning-rate", "0"], "--learning-rate"),
    (["--learning-rate", "inf"], "--learning-rate"),
    (["--weight-decay", "-1"], "--weight-decay"),
    (["--gate-elo", "0"], "--gate-elo"),
    (["--gate-elo", "nan"], "--gate-elo"),
    (["--hidden", "0"], "--hidden"),
    (["--device", "gpu"], "--device"),
    (["--backend", "x"], "--backend"),
    (["--address", "auto"], "--address"),
    (["--init", "nosuch"], "nosuch"),
    (["--init", "@DIR/none.npz"], "no value network"),
    (["--anchors", "nosuch"], "nosuch"),
    (["--anchors", ""], "--anchors: needs at least one agent spec"),
    (["--anchors"], "--anchors takes one comma-separated list"),
    (["--out", "@FILE"], "--out"),
    (["--players", "3", "--anchors", "mcts:pretrained"], "games of 2 players, not 3"),
    (["--play-fast", "maybe"], "maybe"),
    (["--generations", "abc"], "--generations"),
    (["--nosuch"], "--nosuch"),
])
def test_bad_afterstate_settings_are_refused_before_training(tmp_path: Path, flags: list[str], message: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from training.afterstate.value_iteration import main

    _refused_before_training(main, ["quick", "--out", str(tmp_path / "run"), "--no-progress", *flags], message,
                             tmp_path, capsys)
    assert not (tmp_path / "run").exists()


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("flags", "message"), [
    (["--num-cpus", "0"], "--num-cpus"),
    (["--env-runners", "-1"], "--env-runners"),
    (["--runner-threads", "0"], "--runner-threads"),
    (["--kl-coeff", "-1"], "--kl-coeff"),
    (["--object-store-mb", "50"], "--object-store-mb: must be 0 (sized from --train-batch) or at least 100"),
    (["--envs-per-runner", "0"], "--envs-per-runner"),
    (["--threads", "-1"], "--threads"),
    (["--iterations", "0"], "--iterations"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**32)], "--seed"),
    (["--players", "7"], "--players"),
    (["--expansions", "nope"], "nope"),
    (["--window", "3"], "--window"),
    (["--shaping", "nan"], "--shaping"),
    (["--shaping-scores", "x"], "--shaping-scores"),
    (["--train-batch", "0"], "--train-batch"),
    (["--minibatch", "0"], "--minibatch"),
    (["--minibatch", "4096"], "--minibatch"),
    (["--epochs", "0"], "--epochs"),
    (["--learning-rate", "nan"], "--learning-rate"),
    (["--gamma", "0"], "--gamma"),
    (["--gae-lambda", "2"], "--gae-lambda"),
    (["--ent-coef", "-1"], "--ent-coef"),
    (["--clip-range", "0"], "--clip-range"),
    (["--channels", "0"], "--channels"),
    (["--blocks", "-1"], "--blocks"),
    (["--head-hidden", "0"], "--head-hidden"),
    (["--eval-every", "-1"], "--eval-every"),
    (["--eval-seeds", "0"], "--eval-seeds"),
    (["--eval-opponents", "nosuch"], "--eval-opponents"),
    (["--eval-backend", "x"], "--eval-backend"),
    (["--eval-workers", "0"], "--eval-workers"),
    (["--checkpoint-every", "-1"], "--checkpoint-every"),
    (["--out", "@FILE"], "--out"),
    (["--address", " "], "--address"),
    (["--players", "3", "--eval-opponents", "mcts:pretrained"], "games of 2 players, not 3"),
    (["--iterations", "abc"], "--iterations"),
])
def test_bad_rllib_settings_are_refused_before_ray_starts(tmp_path: Path, flags: list[str], message: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tyro")
    from training.rllib.selfplay import main

    _refused_before_training(main, ["--out", str(tmp_path / "run"), *flags], message, tmp_path, capsys)
    assert not (tmp_path / "run").exists()


@pytest.mark.fault("clear error")
@pytest.mark.parametrize("flags", [["--players", "3"], ["--seed", "5"], ["--expansions", "tower"],
                                   ["--learning-rate", "0.01"], ["--n-envs", "4"]])
def test_a_trainer_resume_refuses_changed_run_settings(tmp_path: Path, flags: list[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from dataclasses import asdict

    from training.common.checkpoints import save_checkpoint
    from training.sb3.selfplay import PRESETS, main

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


TOWER_2P = "tower variant (tower, black_tower, watchtowers), 2 players"


def _value_net(path: Path, config: dict[str, object]) -> Path:
    from agents.nets.value_net import INPUTS, ValueNet

    width = len(INPUTS)
    ValueNet(((np.zeros((width, 1)), np.zeros(1)),), np.zeros(width), np.ones(width), config, {}).save(path)
    return path


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("spec", "flags", "made", "wanted"), [
    ("afterstate:@NET", ["--expansions", ""], f"made for the game [{TOWER_2P}]", "this game [base game, 2 players]"),
    ("afterstate:@NET", [], f"made for the game [{TOWER_2P}]", "this game [tower variant (tower, black_tower, "
                                                               "watchtowers), 3 players]"),
    ("greedy:value=@NET", [], "2 players]", "3 players]"),
    ("mcts:sims=2,value=@NET", ["--expansions", ""], f"[{TOWER_2P}]", "this game [base game, 2 players]"),
    ("afterstate:@NET", ["--rules", "no_ransom"], f"[{TOWER_2P}]", f"this game [{TOWER_2P}; rules: no_ransom]"),
    ("mcts:pretrained", [], "games of 2 players", "not 3"),
    ("mcts:sims=2,value=afterstate_long", [], "games of 2 players", "not 3"),
])
@pytest.mark.parametrize("command", ["play", "tournament"])
def test_a_value_model_made_for_another_game_configuration_is_refused_naming_both(
        tmp_path: Path, command: str, spec: str, flags: list[str], made: str, wanted: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from carcassonne_env.engine import GameConfig

    monkeypatch.chdir(tmp_path)
    net = _value_net(tmp_path / "v.npz", GameConfig(players=2, expansions=TOWER_VARIANT)
                     .to_dict())
    spec = spec.replace("@NET", str(net))
    players = next((word for word in wanted.split() if word.isdigit()), "2")  # the game's player count
    if command == "play":
        argv = ["play", spec, *["random"] * (int(players) - 1), "--quiet", *flags]
    else:
        argv = ["tournament", spec, "random", "--players", players, "--gauntlet", "--seeds", "1", "--no-progress",
                *flags]
    code, err = cli(argv, capsys)
    assert_clear_error(code, err, made, wanted)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.npz"], "a refused command wrote files"


@pytest.mark.fault("handled", count=2)
def test_a_value_model_in_its_own_configuration_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from carcassonne_env.engine import GameConfig

    net = _value_net(tmp_path / "v.npz", GameConfig(players=2).to_dict())
    for spec in (f"afterstate:{net}", "greedy:value=linear"):
        code, err = cli(["play", spec, "random", "--quiet", "--expansions", ""], capsys)
        assert code == 0, err


@pytest.mark.fault("clear error", count=2)
def test_a_linear_value_file_with_a_bad_players_record_is_refused(tmp_path: Path) -> None:
    import json

    from agents import AgentSpecError, make_agent
    from agents.value import DEFAULT_WEIGHTS

    data = json.loads(DEFAULT_WEIGHTS.read_text())
    for players in ("two", 1):
        path = tmp_path / "w.json"
        path.write_text(json.dumps({**data, "players": players}))
        with pytest.raises(AgentSpecError, match="players"):
            make_agent(f"greedy:value={path}", seed=0)

"""The trainers (``carcassonne train ppo|rllib|afterstate|distill|value``) under faults (issue 51,
item 5): Ctrl-C at any moment is one line with the command that resumes the run (exit 130); a run
directory copied or renamed resumes where it is now, a directory of another run is refused; every
trainer holds its ``--out``'s lock for the whole run; an ``--out`` that cannot be written, a damaged
file of a run and a cut-short input are one line naming the file.

One tiny afterstate run is interrupted and resumed in this process (:func:`afterstate_run`); the
other cases stop before anything trains, or are the trainers' own readers called directly."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from faults.helpers import assert_clear_error, cli
from training.cli.train import TRAINERS
from training.common.relocate import relocate_run
from training.common.settings import SettingError
from training.common.storage import FileLock, RunLock

#: The smallest afterstate run: one generation of two self-play games on the base game, one gate
#: game pair, rated against random on one tile order (the out is appended).
AFTERSTATE = ["train", "afterstate", "quick", "--generations", "1", "--games-per-generation", "2", "--gate-seeds", "1",
              "--anchor-seeds", "1", "--anchors", "random", "--epochs", "1", "--workers", "1", "--no-progress",
              "--expansions", ""]
#: Each trainer stopped before it trains: the command line and the out flag (``@`` is the out).
STARTS = {
    "afterstate": [*AFTERSTATE, "--out", "@"],
    "distill": ["train", "distill", "quick", "--teacher", "greedy:fast=1", "--anchors", "random", "--no-progress",
                "--expansions", "", "--out", "@"],
    "ppo": ["train", "ppo", "quick", "--total-steps", "0", "--imitation-decisions", "0", "--eval-opponents", "random",
            "--no-progress", "--expansions", "", "--out", "@"],
    "rllib": ["train", "rllib", "--iterations", "1", "--eval-every", "0", "--expansions", "", "--out", "@"],
    "value": ["train", "value", "@GAMES", "-o", "@/w.json"],
}


def _argv(trainer: str, out: Path, games: Path | None = None) -> list[str]:
    return [a.replace("@GAMES", str(games)).replace("@", str(out)) for a in STARTS[trainer]]


def _main(argv: list[str]) -> tuple[int, str]:
    """``carcassonne ARGV`` in this process without capsys (for the module's fixture): (status, stderr)."""
    from training.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


@pytest.fixture(scope="module")
def afterstate_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A tiny afterstate run interrupted by Ctrl-C while it rates generation 0, then resumed with the
    command the interruption printed, to the end: both (status, stderr) pairs and the run's directory."""
    pytest.importorskip("torch")
    pytest.importorskip("tyro")
    from training.afterstate import value_iteration

    out = tmp_path_factory.mktemp("afterstate") / "run"
    with pytest.MonkeyPatch.context() as patch:
        def ctrl_c(*args: object) -> None:
            raise KeyboardInterrupt
        patch.setattr(value_iteration, "_rate", ctrl_c)
        interrupted = _main([*AFTERSTATE, "--out", str(out)])
    resume = shlex.split(interrupted[1].strip().partition("resume with: ")[2])
    return {"interrupted": interrupted, "resume": resume, "resumed": _main(resume[1:]), "out": out}


# ------------------------------------------------------------------------------------------ Ctrl-C
@pytest.mark.fault("handled")
def test_ctrl_c_during_a_run_is_one_line_with_the_command_that_resumes_it(afterstate_run: dict[str, Any]) -> None:
    code, err = afterstate_run["interrupted"]
    out = afterstate_run["out"]
    assert code == 130 and err.splitlines() == [
        f"carcassonne train afterstate: interrupted — resume with: {shlex.join(afterstate_run['resume'])}"], err
    assert afterstate_run["resume"] == ["carcassonne", *AFTERSTATE, "--out", str(out), "--resume"]
    assert afterstate_run["resumed"] == (0, ""), afterstate_run["resumed"]
    assert json.loads((out / "state.json").read_text())["generation"] == 2  # done: rated, played, fitted, gated


@pytest.mark.fault("handled")
@pytest.mark.parametrize("resume", [False, True])
@pytest.mark.parametrize("trainer", sorted(STARTS))
def test_ctrl_c_while_a_trainer_is_imported_is_one_line(trainer: str, resume: bool, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the trainer saves anything, a command that resumed a run still resumes it; a new run has
    nothing to resume; ``train value`` has no resume."""
    import training.cli.train as train

    def ctrl_c(name: str) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(train.importlib, "import_module", ctrl_c)
    argv = _argv(trainer, tmp_path / "run", tmp_path / "games.jsonl") + (["--resume"] if resume else [])
    code, err = cli(argv, capsys)
    line = f"carcassonne train {trainer}: interrupted"
    if resume and trainer != "value":
        line += f" — resume with: {shlex.join(['carcassonne', *argv])}"
    assert code == 130 and err.splitlines() == [line], err


@pytest.mark.fault("handled", count=2)
@pytest.mark.parametrize("trainer", ["ppo", "rllib"])
def test_ctrl_c_in_a_run_with_a_checkpoint_names_its_resume(trainer: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A run interrupted after its first checkpoint (faked here) resumes from it; before one it is new."""
    pytest.importorskip("sb3_contrib")
    import importlib

    module = importlib.import_module(next(t.module for t in TRAINERS if t.name == trainer))

    def ctrl_c(*args: object) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(module, "_train", ctrl_c)
    out = tmp_path / "run"
    code, err = cli(_argv(trainer, out), capsys)
    assert code == 130 and err.splitlines() == [f"carcassonne train {trainer}: interrupted"], err
    if trainer == "ppo":
        from training.common.checkpoints import save_checkpoint

        save_checkpoint(out, lambda p: p.write_bytes(b"PK"), {"settings": {}, "num_timesteps": 8})
    else:
        (out / "state.json").write_text(json.dumps({"iteration": 1, "checkpoint": "final"}))
    code, err = cli(_argv(trainer, out), capsys)
    assert code == 130 and err.splitlines() == [
        f"carcassonne train {trainer}: interrupted — resume with: {shlex.join(['carcassonne', *_argv(trainer, out)])} "
        "--resume"], err


@contextlib.contextmanager
def _started(argv: list[str], cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """``carcassonne ARGV`` in a new interpreter that prints ``ready`` once the command's package is
    imported (the trainer's own imports, checks and run come after). The package's own imports are
    the entry point's concern (a Ctrl-C there is not yet the trainer's)."""
    code = "import sys, training.cli.main as m; print('ready', flush=True); sys.exit(m.main(sys.argv[1:]))"
    with subprocess.Popen([sys.executable, "-c", code, *argv], cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
            yield process
        finally:
            if process.poll() is None:
                process.kill()


@pytest.mark.fault("handled", count=2)
@pytest.mark.timeout(120)
def test_a_real_sigint_at_start_up_and_in_the_run_is_one_line(tmp_path: Path) -> None:
    """SIGINT as the trainer starts importing, and once its run directory has its state: one line on
    stderr each, exit status 130, no traceback (a run with workers is the process pool's concern)."""
    pytest.importorskip("torch")
    argv = [*AFTERSTATE, "--out", "run", "--anchor-seeds", "50"]
    resume = f"carcassonne train afterstate: interrupted — resume with: carcassonne {shlex.join([*argv, '--resume'])}"
    with _started(argv, tmp_path) as process:
        time.sleep(0.05)  # past the call of main
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    saved = (tmp_path / "run" / "state.json").exists()  # the run is made before torch is imported
    assert process.returncode == 130 and err.splitlines() == [
        resume if saved else "carcassonne train afterstate: interrupted"], err
    shutil.rmtree(tmp_path / "run", ignore_errors=True)
    with _started(argv, tmp_path) as process:
        deadline = time.monotonic() + 60
        while not (tmp_path / "run" / "state.json").exists() and process.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err.splitlines() == [resume], err


# ------------------------------------------------------------------------------------------ moved runs
def _strings(folder: Path) -> str:
    """Every JSON file of a run directory, as one text (to look for paths in)."""
    return "\n".join(p.read_text() for p in sorted(folder.rglob("*.json*")) if p.is_file())


@pytest.mark.fault("handled")
def test_a_renamed_run_interrupted_in_its_gate_resumes_where_it_is_now(afterstate_run: dict[str, Any], tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The gate's tournament names the candidate by its old path; resumed in the new place, the
    tournament is continued (not refused as one of other agents) and no file names the old place."""
    old = tmp_path / "old"
    shutil.copytree(afterstate_run["out"], old)
    state = json.loads((old / "state.json").read_text())
    (old / "state.json").write_text(json.dumps({**state, "generation": 1, "step": "gate",
                                                "settings": {**state["settings"], "out": str(old)}}))
    for settings in old.rglob("tournament.json"):  # as the run wrote them there
        settings.write_text(settings.read_text().replace(str(afterstate_run["out"]), str(old)))
    games = (old / "gen_001" / "gate" / "games.jsonl").read_text().replace(str(afterstate_run["out"]), str(old))
    (old / "gen_001" / "gate" / "games.jsonl").write_text(games)
    new = tmp_path / "new"
    old.rename(new)
    code, err = cli([*AFTERSTATE, "--out", str(new), "--resume"], capsys)
    assert code == 0, err
    assert str(old) not in _strings(new)
    gate = new / "gen_001" / "gate"
    assert f"afterstate:{new}/gen_001/candidate.npz,fast=1" in (gate / "tournament.json").read_text()
    assert len((gate / "games.jsonl").read_text().splitlines()) == len(games.splitlines())


@pytest.mark.fault("clear error")
def test_a_directory_of_another_run_is_still_refused(afterstate_run: dict[str, Any], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(afterstate_run["out"], copy)
    code, err = cli([*AFTERSTATE, "--out", str(copy), "--resume", "--seed", "5"], capsys)
    assert_clear_error(code, err, f"{copy} was started with other settings: --seed 0 (now 5)")
    assert code == 2


@pytest.mark.fault("handled")
def test_a_damaged_candidate_at_the_gate_is_fitted_again(afterstate_run: dict[str, Any], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(afterstate_run["out"], copy)
    state = json.loads((copy / "state.json").read_text())
    (copy / "state.json").write_text(json.dumps({**state, "generation": 1, "step": "gate"}))
    candidate = copy / "gen_001" / "candidate.npz"
    candidate.write_bytes(candidate.read_bytes()[:2000])
    code, err = cli([*AFTERSTATE, "--out", str(copy), "--resume"], capsys)
    assert code == 0, err
    from agents.nets.value_net import ValueNet

    ValueNet.load(candidate)  # fitted again (the gate played it)


def test_relocation_moves_the_run_s_own_paths_only(tmp_path: Path) -> None:
    """A path moves when it lies under the old place and names a file of the moved run; twice is once."""
    new = tmp_path / "new"
    (new / "snapshots").mkdir(parents=True)
    (new / "snapshots" / "1.zip").write_bytes(b"")
    mine = tmp_path / "mine.zip"
    pool = {"best": "ppo:old/snapshots/1.zip", "fixed": ["random", f"ppo:{mine}", "ppo:old/snapshots/2.zip"],
            "out": "old", "snapshots": ["ppo:old/snapshots/1.zip,deterministic=0"]}
    moved = relocate_run(pool, "old", new)
    assert moved == {"best": f"ppo:{new}/snapshots/1.zip", "out": str(new),
                     "fixed": ["random", f"ppo:{mine}", "ppo:old/snapshots/2.zip"],
                     "snapshots": [f"ppo:{new}/snapshots/1.zip,deterministic=0"]}
    assert relocate_run(moved, "old", new) == moved
    assert relocate_run(pool, ".", new) == pool  # "random", "1" or "deterministic" are no files of the run


# ------------------------------------------------------------------------------------------ locks, --out
@pytest.mark.fault("clear error")
@pytest.mark.parametrize("trainer", sorted(STARTS))
def test_every_trainer_refuses_an_out_another_run_holds(trainer: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    games = _finished_games(tmp_path)
    lock = FileLock(out / "w.json") if trainer == "value" else RunLock(out, "training run")
    with lock:
        code, err = cli(_argv(trainer, out, games), capsys)
    assert_clear_error(code, err, f"pid {os.getpid()} on host", str(lock.path))
    assert code == 2 and sorted(p.name for p in out.iterdir()) == [lock.path.name]


@pytest.mark.fault("clear error")
@pytest.mark.parametrize("trainer", sorted(STARTS))
def test_every_trainer_refuses_an_out_it_cannot_write_naming_it(trainer: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "run"  # under a file: no one can write there, root included
    code, err = cli(_argv(trainer, out, _finished_games(tmp_path)), capsys)
    assert_clear_error(code, err, f"--out {out}", "cannot write there")
    assert code == 2


def _finished_games(tmp_path: Path) -> Path:
    """A games.jsonl with one finished random game of the base game."""
    import random

    from carcassonne_env.engine import Game, GameConfig

    path = tmp_path / "games.jsonl"
    if not path.exists():
        game, rng = Game(GameConfig(players=2), seed=1), random.Random(1)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        path.write_text(json.dumps({"index": 0, "record": game.record().to_dict()}) + "\n")
    return path


# ------------------------------------------------------------------------------------------ damaged inputs
@pytest.mark.fault("clear error")
def test_distill_resume_with_cut_short_samples_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) \
        -> None:
    pytest.importorskip("sb3_contrib")
    from training.distill.policy_distillation import PRESETS

    out = tmp_path / "run"
    samples = out / "round_000" / "samples.npz"
    samples.parent.mkdir(parents=True)
    samples.write_bytes(b"PK\x03\x04" + bytes(200))
    argv = _argv("distill", out)
    settings = replace(PRESETS["quick"][1], out=str(out), teacher="greedy:fast=1", anchors=("random",), progress=False,
                       expansions=())
    (out / "state.json").write_text(json.dumps({"settings": asdict(settings), "round": 0, "seconds": 0.0,
                                                "history": []}))
    code, err = cli([*argv, "--resume"], capsys)
    assert_clear_error(code, err, f"{samples} is damaged", "delete it: --resume plays the same samples again")
    assert code == 2


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("state", "settings", "needle"), [
    ('{"iteration": 1, "checkpoint": "fin', "{}", "state.json: not JSON"),
    ('{"iteration": "1", "checkpoint": "final"}', "{}", "field 'iteration' must be an integer ≥ 0"),
    ('{"iteration": 1, "checkpoint": "final"}', '{"seed": ', "settings.json: not JSON"),
    ('{"iteration": 1, "checkpoint": "gone"}', "{}", "names the checkpoint @/gone, which is missing"),
])
def test_a_damaged_rllib_state_is_refused_naming_the_file(tmp_path: Path, state: str, settings: str,
                                                          needle: str) -> None:
    """The resume's reader, called directly (the run itself needs Ray)."""
    from training.rllib.selfplay import Settings, _saved_run

    (tmp_path / "final").mkdir()
    (tmp_path / "state.json").write_text(state)
    (tmp_path / "settings.json").write_text(settings)
    with pytest.raises(SettingError, match=r"^--resume: ") as e:
        _saved_run(Settings(out=str(tmp_path), resume=True), tmp_path)
    assert needle.replace("@", str(tmp_path)) in str(e.value), e.value


@pytest.mark.fault("clear error")
@pytest.mark.parametrize(("change", "needle"), [({"settings": "x"}, "field 'settings' must be an object, got 'x'"),
                                                ({"pool": ...}, "field 'pool' is missing"),
                                                ({"rng": []}, "field 'rng' must be an object")])
def test_a_malformed_ppo_state_is_refused_by_name(tmp_path: Path, change: dict[str, Any], needle: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-edited state keeps its zip's checksum: its fields are checked before they are used."""
    pytest.importorskip("sb3_contrib")
    from training.common.checkpoints import save_checkpoint
    from training.sb3.selfplay import PRESETS

    out = tmp_path / "run"
    out.mkdir()
    settings = asdict(replace(PRESETS["quick"][1], out=str(out), expansions=(), eval_opponents=("random",),
                              imitation_decisions=0, total_steps=0))
    state = {"settings": settings, "pool": {}, "evaluations": [], "rng": {}, "num_timesteps": 8}
    save_checkpoint(out, lambda p: p.write_bytes(b"PK"),
                    {k: v for k, v in {**state, **change}.items() if v is not ...})
    code, err = cli([*_argv("ppo", out), "--resume"], capsys)
    assert_clear_error(code, err, f"--resume: the state of {out / 'checkpoint.zip'}: {needle}")


@pytest.mark.fault("handled")
def test_train_value_skips_a_line_cut_short_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = _finished_games(tmp_path)
    whole = games.read_text()
    games.write_text(whole + whole.replace('"index": 0', '"index": 1')[:500])
    code, err = cli(["train", "value", str(games), "-o", str(tmp_path / "w.json"), "--holdout", "0"], capsys)
    assert code == 0 and len(err.splitlines()) == 1, err
    assert err.startswith(f"skipping a line of {games}: line 2: not JSON"), err
    assert json.loads((tmp_path / "w.json").read_text())["train_games"] == 1


@pytest.mark.fault("clear error")
def test_train_value_never_writes_its_weights_over_a_games_file(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    games = _finished_games(tmp_path).rename(tmp_path / "games.json")
    before = games.read_bytes()
    code, err = cli(["train", "value", str(games), "-o", str(tmp_path / "." / "games.json")], capsys)
    assert_clear_error(code, err, "is one of the games files")
    assert games.read_bytes() == before, "data loss: the games file was replaced"

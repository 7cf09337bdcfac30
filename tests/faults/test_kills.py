"""Kill-and-resume loops: a tournament and a checkpointing trainer killed with SIGKILL after random
delays always resume, and a resumed tournament ends with the games of an uninterrupted one (item 1)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faults.helpers import in_a_fresh_process, tiny
from training.arena.tournament import load_games, run

TOURNAMENT_KILLS = 30
CHECKPOINT_KILLS = 30
MAX_ATTEMPTS = 200


def _fork(target: object) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            target()  # type: ignore[operator]
            code = 0
        except BaseException:
            code = 1
        os._exit(code)
    return pid


def _games(out: Path) -> list[tuple[int, list[int], list[list[int]]]]:
    return [(g["index"], g["scores"], g["record"]["actions"]) for g in load_games(out)]


@pytest.mark.fault("handled", count=TOURNAMENT_KILLS)
@pytest.mark.slow
def test_a_tournament_killed_at_random_moments_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    in_a_fresh_process(_kill_tournaments, tmp_path)


def _kill_tournaments(tmp_path: Path) -> None:
    settings = tiny(3, "random", "greedy")  # agents of this process: a kill lands mid-game, not in a start-up
    run(settings, tmp_path / "reference", progress=False)
    reference = _games(tmp_path / "reference")
    rng = random.Random(21)
    kills, runs = 0, 0
    while kills < TOURNAMENT_KILLS:
        out = tmp_path / f"run{runs}"
        runs += 1
        for _ in range(MAX_ATTEMPTS):  # a resume that never completes fails the test, not hangs it
            pid = _fork(lambda out=out: run(settings, out, resume=True, progress=False))
            time.sleep(rng.uniform(0.0, 0.25))
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status):
                kills += 1
            else:
                assert os.WEXITSTATUS(status) == 0, "a resume failed: an unrecoverable run (data loss)"
                break
        else:
            pytest.fail(f"{MAX_ATTEMPTS} resumes in a row were killed before they completed")
        assert _games(out) == reference, "data loss: the resumed run differs from the uninterrupted one"


def _save_forever(out: Path) -> None:
    from training.common.checkpoints import save_checkpoint

    step = 0
    while True:
        step += 1
        payload = f"step {step}\n".encode() * 20_000

        def write(path: Path, payload: bytes = payload) -> None:
            path.write_bytes(payload)

        save_checkpoint(out, write, {"num_timesteps": step})


@pytest.mark.fault("handled", count=CHECKPOINT_KILLS)
def test_a_checkpoint_killed_while_saving_leaves_a_matching_pair(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    in_a_fresh_process(_kill_checkpoints, tmp_path)


def _kill_checkpoints(tmp_path: Path) -> None:
    from training.common.checkpoints import find_checkpoint

    rng = random.Random(7)
    last = 0
    for _ in range(CHECKPOINT_KILLS):
        pid = _fork(lambda: _save_forever(tmp_path))
        time.sleep(rng.uniform(0.0, 0.05))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        found = find_checkpoint(tmp_path)
        if found is None:
            assert last == 0, "data loss: no checkpoint left"
            continue
        path, state = found
        assert path.read_bytes().startswith(f"step {state['num_timesteps']}\n".encode()), "data loss: mismatched pair"
        last = state["num_timesteps"]


TINY_TRAINER = ["--n-envs", "1", "--n-steps", "8", "--batch-size", "8", "--n-epochs", "1", "--imitation-decisions",
                "0", "--eval-seeds", "1", "--eval-opponents", "random", "--eval-workers", "1", "--checkpoint-every",
                "8", "--threads", "1", "--no-progress"]


@pytest.mark.fault("handled", count=2)
@pytest.mark.slow
def test_the_trainer_killed_twice_resumes_to_its_total_steps(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "training.sb3.selfplay", "quick", "--out", str(out), "--total-steps", "48",
           *TINY_TRAINER]
    root = Path(__file__).resolve().parents[2]
    rng = random.Random(3)
    for attempt in range(2):
        proc = subprocess.Popen(cmd + (["--resume"] if (out / "state.json").exists() or
                                       (out / "state.prev.json").exists() else []),
                                cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(5.0, 9.0) if attempt == 0 else rng.uniform(2.0, 6.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    resumed = [*cmd, "--resume"] if any((out / n).exists() for n in ("state.json", "state.prev.json",
                                                                      ".state.pending.json")) else cmd
    done = subprocess.run(resumed, cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"data loss: cannot resume: {done.stderr[-2000:]}"
    assert json.loads((out / "state.json").read_text())["num_timesteps"] == 48
    assert (out / "final.zip").is_file()

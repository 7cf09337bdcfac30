"""Two runs on one directory: the second is refused naming the first; a killed run's lock is taken
over (item 1)."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

from faults.helpers import assert_clear_error, cli, in_a_fresh_process, tiny
from training.arena.tournament import TournamentError, load_games, run
from training.common.storage import LOCK_FILE, RunLock


@pytest.mark.fault("clear error", count=2)
def test_a_second_run_on_the_same_out_is_refused_naming_the_first(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with RunLock(tmp_path, "tournament"):
        with pytest.raises(TournamentError, match=rf"pid {os.getpid()} on host {socket.gethostname()}, started"):
            run(tiny(1), tmp_path, progress=False)
        code, err = cli(["tournament", "random", "greedy", "--seeds", "1", "--out", str(tmp_path), "--no-progress"],
                        capsys)
        assert_clear_error(code, err, f"pid {os.getpid()}")
    assert not (tmp_path / "games.jsonl").exists() or not load_games(tmp_path)


@pytest.mark.fault("handled")
def test_the_lock_of_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    in_a_fresh_process(_take_over_a_killed_runs_lock, tmp_path)


def _take_over_a_killed_runs_lock(tmp_path: Path) -> None:
    pid = os.fork()
    if pid == 0:  # the killed run: takes the lock and waits
        RunLock(tmp_path).acquire()
        time.sleep(60)
        os._exit(0)
    deadline = time.monotonic() + 60
    while not (tmp_path / LOCK_FILE).exists() or not (tmp_path / LOCK_FILE).read_text():
        assert time.monotonic() < deadline, "the run to be killed took no lock in 60 s"
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    lock = RunLock(tmp_path).acquire()
    assert lock.took_over and lock.previous is not None and lock.previous["pid"] == pid
    lock.release()
    run(tiny(1), tmp_path, progress=False)
    assert len(load_games(tmp_path)) == 2

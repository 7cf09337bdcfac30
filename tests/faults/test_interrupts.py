"""Ctrl-C and lost workers end every command in one line (issue 51, point 5): ``tournament`` and
``evaluate`` say the command that resumes the run, exit 130 and leave no process behind, also with
games running in the pool and at a second Ctrl-C; a Ctrl-C during the imports is no traceback; a
worker killed under a tournament is one error naming its game and ``--resume``, the games written
before it kept; two outputs of ``play`` that are one file are refused."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from faults.helpers import assert_clear_error, cli
from training.arena import backends, ladder
from training.arena.tournament import Settings, load_games
from training.cli.interrupt import resume_command

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")

#: An agent that, at its first decision, says so (a file named by its pid in ``MARKS``) and then
#: waits; ``stubborn`` ones swallow every exception meanwhile. Written to a file per test: an agent
#: module must import without the test suite on the path.
_AGENT = '''
import os, time

MARKS = {marks!r}

class Sleeper:
    stubborn = False

    def choose_action(self, game):
        open(os.path.join(MARKS, str(os.getpid())), "w").close()
        end = time.monotonic() + 120
        while time.monotonic() < end:
            try:
                time.sleep(0.05)
            except BaseException:
                if not self.stubborn:
                    raise
        return game.legal_actions()[0]

class Stubborn(Sleeper):
    stubborn = True
'''


def _agents(tmp_path: Path) -> tuple[Path, Path]:
    """(the agent module, the folder its marks go to)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    module = tmp_path / "sleepy.py"
    module.write_text(_AGENT.format(marks=str(marks)))
    return module, marks


def _wait_for(predicate: object, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < end, "timed out waiting for the agents to start deciding"
        time.sleep(0.02)


def _session(sid: int) -> list[int]:
    """The live (not zombie) processes of session ``sid`` (every process a command started keeps its
    session; the pool's workers lead process groups of their own in it)."""
    alive = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def _left_behind(sid: int) -> list[int]:
    """The processes of the command's session still alive a few seconds after it exited."""
    end = time.monotonic() + 5
    while _session(sid) and time.monotonic() < end:
        time.sleep(0.05)
    return _session(sid)


@pytest.fixture
def command() -> Iterator[list[subprocess.Popen[str]]]:
    """Commands started in a session of their own; what is left of it is killed after the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        for pid in _session(process.pid):
            os.kill(pid, signal.SIGKILL)


def _start(started: list[subprocess.Popen[str]], argv: list[str]) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-m", "training.cli", *argv], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    started.append(process)
    return process


def _interrupted_line(argv: list[str]) -> str:
    return f"carcassonne {argv[0]}: interrupted — resume with: {resume_command(argv)}"


@pytest.mark.fault("handled", count=2)
@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_while_the_pool_plays_ends_in_one_line_with_no_process_left(
        presses: int, tmp_path: Path, command: list[subprocess.Popen[str]]) -> None:
    """The terminal's Ctrl-C (SIGINT to the whole group) while both workers are inside a game; the
    second press comes while the pool stops, whose workers' agents swallow the first."""
    module, marks = _agents(tmp_path)
    agent = f"{module}:{'Sleeper' if presses == 1 else 'Stubborn'}"
    argv = ["tournament", "random", agent, "--seeds", "1", "--workers", "2", "--out", str(tmp_path / "t"),
            "--no-progress"]
    process = _start(command, argv)
    _wait_for(lambda: len(list(marks.iterdir())) == 2)
    pressed = time.monotonic()
    for _ in range(presses):
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(0.2)
    _, err = process.communicate(timeout=30)
    assert time.monotonic() - pressed < backends.STOP_GRACE_SECONDS + 10, "slow to stop"
    assert "Traceback" not in err, err
    assert err.strip() == _interrupted_line(argv), err
    # a Ctrl-C that lands while Python itself shuts down, after the line, ends it by SIGINT: the
    # shell reports 130 for both
    assert process.returncode in (130, -signal.SIGINT), err
    assert not _left_behind(process.pid), "orphaned processes"


#: A Ctrl-C during the imports of the command (an import hook raises it), and the ImportError an
#: extension module's initialisation raises when a Ctrl-C interrupts it.
_STARTUP = '''
import sys

class CtrlC:
    def find_spec(self, name, path, target=None):
        if name == "scipy":
            {raise_}

sys.meta_path.insert(0, CtrlC())
sys.argv = ["carcassonne", *{argv!r}]
from training.cli import entry_point
entry_point()
'''
_RAISES = {
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "ImportError": "try:\n                raise KeyboardInterrupt\n            except KeyboardInterrupt:\n"
                   "                raise ImportError('initialization failed')",
}


@pytest.mark.fault("handled", count=2)
@pytest.mark.parametrize("raised", sorted(_RAISES))
def test_ctrl_c_during_the_imports_is_one_line(raised: str, tmp_path: Path) -> None:
    argv = ["tournament", "random", "greedy", "--seeds", "1", "--out", str(tmp_path / "my run")]
    code = _STARTUP.format(raise_=_RAISES[raised], argv=argv)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    assert (done.returncode, done.stderr.strip()) == (130, _interrupted_line(argv))
    assert shlex.split(_interrupted_line(argv).split("resume with: ")[1])[-3:] == [
        "--out", str(tmp_path / "my run"), "--resume"]


def _ctrl_c(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.fault("handled", count=5)
@pytest.mark.parametrize(("argv", "where"), [
    (["play", "random", "random", "--quiet"], "training.cli.main.play_out"),
    (["replay", "games.jsonl", "-o", "game.html"], "training.arena.tournament.find_game"),
    (["bench", "agent", "--specs", "random", "--games", "1"], "training.arena.decision_time.decision_times"),
    (["tournament", "random", "greedy", "--seeds", "1", "--no-resume"], "training.arena.tournament.run"),
    (["evaluate", "random", "--seeds", "1"], "training.cli.main.build_parser"),  # while parsing
])
def test_ctrl_c_in_every_command_is_one_line_and_130(argv: list[str], where: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(where, _ctrl_c)
    code, err = cli(argv, capsys)
    resume = {"tournament": " — resume with: carcassonne tournament random greedy --seeds 1 --resume",
              "evaluate": " — resume with: carcassonne evaluate random --seeds 1 --resume"}.get(argv[0], "")
    assert (code, err) == (130, f"carcassonne {argv[0]}: interrupted{resume}\n")


@pytest.mark.fault("clear error")
def test_a_worker_killed_under_a_tournament_is_one_error_and_the_written_games_stay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SIGKILL (what the out-of-memory killer sends) to the worker playing the sleeping agent's
    game, once the two games of the first table are written."""
    module, marks = _agents(tmp_path)
    out = tmp_path / "t"
    argv = ["tournament", "random", "greedy", f"{module}:Sleeper", "--seeds", "1", "--workers", "2", "--out",
            str(out), "--no-progress"]

    failed: list[BaseException] = []

    def kill_a_worker() -> None:
        try:
            _wait_for(lambda: any(marks.iterdir()) and len(load_games(out)) == 2)
            worker = int(next(marks.iterdir()).name)  # the worker, or a process below it
            while _parent(worker) != os.getpid():
                worker = _parent(worker)
            os.kill(worker, signal.SIGKILL)
        except BaseException as e:
            failed.append(e)

    killer = threading.Thread(target=kill_a_worker)
    killer.start()
    code, err = cli(argv, capsys)
    killer.join()
    assert not failed, failed
    assert_clear_error(code, err, "was killed by SIGKILL", f"resume with: {resume_command(argv)}")
    assert len(err.strip().splitlines()) == 1, err
    assert [g["index"] for g in load_games(out)] == [0, 1], "data loss: the finished games are gone"
    assert not [p for p in multiprocessing.active_children() if p.name == "carcassonne-worker"]


@pytest.mark.fault("handled")
def test_a_runner_killed_outright_leaves_workers_that_end_quietly(
        tmp_path: Path, command: list[subprocess.Popen[str]]) -> None:
    """SIGKILL to the tournament itself while a worker is in the middle of a game whose agent would
    think for two minutes: the worker sees its runner gone, unwinds the game at once and ends
    without a word (it used to play the game to its end for no one, then print a BrokenPipeError
    traceback), and nothing of the run is left running five seconds later."""
    module, marks = _agents(tmp_path)
    argv = ["tournament", "random", f"{module}:Sleeper", "--seeds", "2", "--workers", "2", "--out",
            str(tmp_path / "t"), "--no-progress"]
    process = _start(command, argv)
    _wait_for(lambda: any(marks.iterdir()))  # the worker is inside a game, its agent napping
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert not _left_behind(process.pid)
    assert process.stderr is not None
    err = process.stderr.read()
    assert "Traceback" not in err and "Error" not in err, err


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.fault("clear error", count=4)
@pytest.mark.parametrize("outputs", [
    ["human", "random", "--save", "x.html", "--html", "x.html"],
    ["human", "random", "--save", "./d/../x.html", "--html", "x.html"],
    ["--resume", "saved.html", "--html", "./saved.html"],
    ["random", "random", "--html", "x.html", "--gif", "link.gif"],  # a link to x.html
])
def test_two_outputs_of_play_that_are_one_file_are_refused(outputs: list[str], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("x.html").write_text("mine")
    Path("link.gif").symlink_to("x.html")
    code, err = cli(["play", *outputs], capsys)
    assert_clear_error(code, err, "give each output a file of its own")
    assert Path("x.html").read_text() == "mine", "data loss"


@pytest.mark.fault("clear error", count=5)
@pytest.mark.parametrize("argv", [
    ["tournament", "random", "greedy", "--out", "a" * 300],
    ["replay", "r.json", "-o", "a" * 300 + ".html"],
    ["play", "random", "random", "--html", "a" * 300 + ".html"],
    ["play", "human", "random", "--save", "a" * 300],
    ["tournament", "random", "greedy", "--out", "run", "--resume"],  # its tournament.json is /dev/zero
])
def test_names_the_system_refuses_and_endless_settings_are_one_line(argv: list[str], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("run").mkdir()
    Path("run/games.jsonl").write_text("{}\n")
    Path("run/tournament.json").symlink_to("/dev/zero")
    code, err = cli(argv, capsys)
    assert_clear_error(code, err)
    assert code == 2


def test_the_resume_command_replaces_resume_flags_and_keeps_positionals_after_a_double_dash() -> None:
    assert resume_command(["tournament", "a", "--no-resume", "--out", "my run"]) == \
        "carcassonne tournament a --out 'my run' --resume"
    assert resume_command(["evaluate", "--res", "x"]) == "carcassonne evaluate x --resume"
    assert resume_command(["tournament", "--seeds", "1", "--", "-odd"]) == \
        "carcassonne tournament --seeds 1 --resume -- -odd"
    assert resume_command(["play", "random", "random"]) is None


@pytest.mark.fault("handled")
def test_a_damaged_ladder_store_in_the_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store whose line is nested too deeply (``json`` raises RecursionError on it): not used, no
    traceback (its lines are read within jsonio's bounds); the evaluation plays the ladder's games."""
    monkeypatch.setenv("CARCASSONNE_CACHE", str(tmp_path))
    monkeypatch.setattr(ladder, "SHIPPED", tmp_path / "none.jsonl.gz")
    mine = ladder.fingerprint()
    settings = Settings(agents=("mcts:sims=1", *ladder.LADDER), seeds=1, config=ladder.ladder_config().to_dict())
    (tmp_path / f"ladder-{mine.key}-1.jsonl.gz").write_bytes(gzip.compress(b"[" * 100_000 + b"\n"))
    assert ladder.stored_games(settings, mine=mine)[0] == []

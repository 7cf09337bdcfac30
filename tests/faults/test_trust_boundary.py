"""Nothing runs that the user did not name (issue 74): a save is data, a hint stops at its cap, a spec
has ranges. Each planted file writes a mark when it runs; each test shows the plant is live where the
user names it, and that it never runs from a save, a request or a huge spec."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import signal
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from agents.hints import HintWorker
from agents.ppo import PPOAgent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.play import PlaySession
from carcassonne_env.play.server import PlayServer
from carcassonne_env.play.terminal import TerminalPlay
from faults.helpers import BASE_2P, assert_clear_error, cli
from training.arena.match import play_match

PLANTED_AGENT = "import pathlib\npathlib.Path({mark!r}).write_text('ran')\nclass Agent:\n" \
                "    def choose_action(self, game):\n        return game.legal_actions()[0]\n"


class _Payload:
    """A pickle that writes ``mark`` when it is loaded: what a replaced ``policy_class`` can do."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[Any, ...]:
        return (exec, (f"open({str(self.mark)!r}, 'w').write('ran')",))


def planted_zip(path: Path, mark: Path) -> Path:
    """An SB3 model zip whose cloudpickled ``policy_class`` runs code when the zip is loaded."""
    serialized = base64.b64encode(pickle.dumps(_Payload(mark))).decode()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":type:": "<class 'abc.ABCMeta'>",
                                                        ":serialized:": serialized}}))
    return path


def _save(tmp_path: Path, seats: list[str], capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> Path:
    """A save of a 2-player game (human vs greedy, one turn played) whose seats were edited to ``seats``."""
    path = tmp_path / "t.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli(["play", "human", "greedy", "--expansions", "", "--save", str(path)], capsys)[0] == 0
    data = json.loads(path.read_text())
    data["seats"] = seats
    path.write_text(json.dumps(data))
    return path


@pytest.mark.fault("clear error", count=4)
@pytest.mark.parametrize("seat", ["{tmp}/planted.py:Agent", "planted.py:Agent", "planted:Agent", "ppo:{tmp}/m.zip"])
def test_a_save_naming_a_planted_file_or_model_runs_nothing(tmp_path: Path, seat: str,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    mark = tmp_path / "ran.txt"
    (tmp_path / "planted.py").write_text(PLANTED_AGENT.format(mark=str(mark)))
    planted_zip(tmp_path / "m.zip", mark)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    seat = seat.format(tmp=tmp_path)
    path = _save(tmp_path, ["human", seat], capsys, monkeypatch)
    for web in ([], ["--web", "--port", "0"]):
        code, err = cli(["play", "--resume", str(path), *web], capsys)
        assert_clear_error(code, err, "seat 1", "nothing was loaded", "--trust-saved-seats",
                           f"carcassonne play --resume {path} human {seat}")
        assert not mark.exists(), "a seat of the save ran its code"


@pytest.mark.fault("handled")
def test_the_planted_zip_runs_its_pickle_when_a_user_names_it(tmp_path: Path) -> None:
    """The plant above is live: loading it (what the command line may ask) runs its pickle."""
    mark = tmp_path / "ran.txt"
    with pytest.raises(ValueError, match="not a loadable MaskablePPO model"):
        PPOAgent(planted_zip(tmp_path / "m.zip", mark))
    assert mark.exists()


@pytest.mark.fault("handled")
def test_a_trusted_save_seats_its_file_agent_in_a_process_of_its_own(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    mark = tmp_path / "ran.txt"
    (tmp_path / "planted.py").write_text(PLANTED_AGENT.format(mark=str(mark)))
    path = _save(tmp_path, ["human", f"{tmp_path}/planted.py:Agent"], capsys, monkeypatch)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cli(["play", "--resume", str(path), "--trust-saved-seats"], capsys)[0] == 0
    assert mark.exists()  # the flag says what it trusts, and does it


def _session() -> PlaySession:
    game = Game(GameConfig.from_dict(BASE_2P), seed=3)
    return PlaySession(game, ("human", "random"), [None, __import__("agents").make_agent("random", seed=1)])


@pytest.mark.fault("handled")
def test_a_runaway_terminal_hint_stops_at_its_cap_and_the_next_one_works(tmp_path: Path) -> None:
    out = io.StringIO()
    lines = io.StringIO("hint mcts:sims=100000\nhint greedy\nquit\n")
    started = time.monotonic()
    with HintWorker(seconds=2) as hints:
        assert not TerminalPlay(_session(), tmp_path / "t.json", hints.agent, lines, out).run()
    said = out.getvalue()
    assert "the hint took too long (more than 2 s for 'mcts:sims=100000') and was stopped" in said
    assert "hint (greedy):" in said and time.monotonic() - started < 30


@pytest.mark.fault("handled")
def test_ctrl_c_stops_the_hint_not_the_game(tmp_path: Path) -> None:
    out = io.StringIO()
    lines = io.StringIO("hint mcts:sims=100000\nhint greedy\nquit\n")
    with HintWorker(seconds=60) as hints:
        hints.agent("greedy").choose_action(_session().game)  # the worker is up: the Ctrl-C lands in the hint
        timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            assert not TerminalPlay(_session(), tmp_path / "t.json", hints.agent, lines, out).run()
        finally:
            timer.cancel()
    said = out.getvalue()
    assert "hint stopped (Ctrl-C); the game goes on" in said and "hint (greedy):" in said


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.fault("handled")
def test_a_runaway_web_hint_is_stopped_and_the_server_answers_the_next(tmp_path: Path) -> None:
    import http.client

    from carcassonne_env.play.server import TOKEN_HEADER

    with HintWorker(seconds=1.5) as hints:
        server = PlayServer(_session(), tmp_path / "g.json", hints.agent, hint_seconds=1.5).start()
        port = int(server.httpd.server_address[1])

        def post(body: bytes) -> tuple[int, dict[str, Any]]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("POST", "/api/hint", body, {"Host": f"127.0.0.1:{port}", TOKEN_HEADER: server.token,
                                                           "Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())

        try:
            assert post(b'{"agent": "greedy"}')[0] == 200
            pid = hints.process_id
            started = time.monotonic()
            status, answer = post(b'{"agent": "mcts:sims=100000"}')
            assert status == 503 and "took too long" in answer["error"]
            assert time.monotonic() - started < 1.5 + 2.5
            assert not _alive(pid)  # its CPU and memory are the kernel's again when the answer comes
            started = time.monotonic()
            assert post(b'{"agent": "greedy"}')[0] == 200
            assert time.monotonic() - started < 5  # at once: a fresh worker (imports included)
        finally:
            server.stop()


@pytest.mark.fault("clear error", count=2)
@pytest.mark.parametrize("spec", ["mcts:sims=100000000000000000000000000", "mcts:sims=1_0"])
def test_a_huge_or_malformed_spec_is_refused_before_any_game(tmp_path: Path, spec: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, err = cli(["tournament", spec, "random", "--seeds", "1", "--out", str(tmp_path / "t")], capsys)
    assert_clear_error(code, err, "sims=")
    assert time.monotonic() - started < 10 and not (tmp_path / "t" / "games.jsonl").exists()


@pytest.mark.fault("handled")
def test_a_search_over_the_move_limit_is_stopped_and_forfeits() -> None:
    started = time.monotonic()
    result = play_match(GameConfig.from_dict(BASE_2P), ["mcts:sims=100000", "random"], 5, on_error="forfeit",
                        move_time_limit=1.0)
    assert time.monotonic() - started < 10
    assert result.forfeit is not None and result.forfeit.kind == "timeout" and result.forfeit.seat == 0
    assert "stopped at the 1 s move time limit" in result.forfeit.message

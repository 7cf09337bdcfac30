"""The web table guards itself (issue 54, point 1): every attack comes from outside the page, as
plain ``http.client`` requests to a server started in this process on ``127.0.0.1``, port 0.

==========================================  ==========================================================
attack                                      answer
==========================================  ==========================================================
another ``Host`` (DNS rebinding)            403, the page (and its token) not served
another page's ``Origin``                   403
no token, a wrong one, a repeated one       403 (``GET /api/state`` too)
``text/plain`` / form / no Content-Type     415
a hint from a file, a module, ``human``     400 naming the built-in agents; nothing imported
a body over 64 KiB                          413
60 KB of nested brackets                    400 "nested too deeply", no traceback
a body shorter than its Content-Length      408 once the socket timeout passes
a request line, headers or body trickled    408 once the request's deadline passes, the server
a byte at a time                            serving on; a request trickled within it is answered
a client that hangs up                      nothing printed
a slow hint                                 ``GET /api/state`` answers at once; 503 "the hint took
                                            too long"; a second hint meanwhile 503; a move meanwhile
                                            409; a raising agent 500 in JSON
``hint subprocess:Popen`` at the terminal   one line; ``--resume`` on ``{"record": 5}`` one line;
                                            ``save DIR`` one line, no temporary file left
==========================================  ==========================================================

Each refused request leaves the game as it was.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import re
import select
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents import make_agent
from agents.hints import HintWorker
from agents.spec import Origin, UntrustedSpecError, check_spec
from carcassonne_env.engine import Action, Game, GameConfig
from carcassonne_env.play import PlaySession
from carcassonne_env.play.server import MAX_BODY, REQUEST_SECONDS, TOKEN_HEADER, PlayServer
from carcassonne_env.play.terminal import TerminalPlay
from training.cli.main import main


class Slow:
    """A hint agent that thinks until released (at most 5 s): the test holds it mid-thought."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def choose_action(self, game: Game) -> Action:
        self.started.set()
        self.release.wait(5)
        return game.legal_actions()[0]


class Boom:
    """A hint agent that raises."""

    def choose_action(self, game: Game) -> Action:
        raise RuntimeError("boom")


class Table:
    """A server on a base game (human vs random) whose hint agents are the test's own ``slow`` and
    ``boom`` and, for any other spec, those of ``carcassonne play`` (:class:`agents.hints.HintWorker`,
    started on the first such hint); the specs that passed its trust boundary are kept in ``built``."""

    def __init__(self, tmp_path: Path, hint_seconds: float, socket_timeout: float = 5,
                 request_seconds: float = REQUEST_SECONDS) -> None:
        self.slow = Slow()
        self.built: list[str] = []
        self.hint_seconds = hint_seconds
        self.hints: HintWorker | None = None
        game = Game(GameConfig(players=2, expansions=()), seed=3)
        session = PlaySession(game, ("human", "random"), [None, make_agent("random", seed=1)])
        self.server = PlayServer(session, tmp_path / "g.json", self._make_hint,
                                 hint_seconds=hint_seconds,
                                 request_seconds=request_seconds, socket_timeout=socket_timeout).start()
        self.port = int(self.server.httpd.server_address[1])

    def _make_hint(self, spec: str) -> Any:
        own = {"slow": self.slow, "boom": Boom()}.get(spec)
        if own is not None:
            return own
        if self.hints is None:
            self.hints = HintWorker(seconds=self.hint_seconds)
        agent = self.hints.agent(spec)  # the trust boundary: raises before anything is imported or read
        self.built.append(spec)
        return agent

    def stop(self) -> None:
        self.slow.release.set()
        self.server.stop()
        if self.hints is not None:
            self.hints.close()

    def history(self) -> int:
        return len(self.server.session.game.history)

    def legal(self) -> list[int]:
        return [int(v) for v in self.server.session.game.legal_actions()[0]]

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str | None] | None = None) -> tuple[int, Any]:
        """``method path`` with the page's headers (its Host, token, JSON), each replaced by one of
        ``headers`` (``None`` drops it); (status, JSON or text)."""
        sent: dict[str, str | None] = {"Host": f"127.0.0.1:{self.port}", "Content-Type": "application/json",
                                       TOKEN_HEADER: self.server.token, **(headers or {})}
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in sent.items():
                if value is not None:
                    connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            text = response.read().decode()
            kind = response.getheader("Content-Type") or ""
            return response.status, json.loads(text) if kind == "application/json" else text
        finally:
            connection.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path, hint_seconds=0.5, socket_timeout=0.3)
    yield t
    t.stop()


def _act(table: Table, headers: dict[str, str | None] | None = None) -> tuple[int, Any]:
    """Play the first legal move (a state-changing request) with ``headers``."""
    return table.request("POST", "/api/act", json.dumps({"action": table.legal()}).encode(), headers)


def _error(answer: Any) -> str:
    return str(answer["error"]) if isinstance(answer, dict) else str(answer)


# ---------------------------------------------------------------- Host and Origin
@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "127.0.0.1", "localhost.evil.example:{port}",
                                  "127.0.0.1:{port}.evil.example", None])
def test_a_foreign_host_is_refused(table: Table, host: str | None) -> None:
    forged = None if host is None else host.format(port=table.port)
    status, page = table.request("GET", "/", headers={"Host": forged})
    assert status == 403 and table.server.token not in str(page)  # a rebound name never reads the token
    status, answer = _act(table, {"Host": forged})
    assert status == 403 and "answers only at" in _error(answer) and table.history() == 0


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}"])
def test_the_tables_own_host_is_served(table: Table, host: str) -> None:
    status, page = table.request("GET", "/", headers={"Host": host.format(port=table.port)})
    assert status == 200 and table.server.token in str(page)  # the page, and only the page, holds it


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}",
                                    "http://127.0.0.1:{port}.evil.example"])
def test_another_pages_origin_is_refused(table: Table, origin: str) -> None:
    status, answer = _act(table, {"Origin": origin.format(port=table.port)})
    assert status == 403 and "another page" in _error(answer) and table.history() == 0


def test_the_pages_own_origin_plays(table: Table) -> None:
    assert _act(table, {"Origin": f"http://localhost:{table.port}"})[0] == 200 and table.history() == 1


# ---------------------------------------------------------------- token and JSON
@pytest.mark.parametrize(("method", "path", "token"), [
    ("GET", "/api/state", None), ("GET", "/api/state", "{token}x"), ("POST", "/api/act", None),
    ("POST", "/api/act", ""), ("POST", "/api/act", "é"), ("POST", "/api/hint", "wrong"), ("POST", "/api/save", None),
    ("POST", "/api/nothing", "x{token}")])
def test_a_request_without_the_pages_token_is_refused(table: Table, token: str | None, method: str, path: str) -> None:
    forged = None if token is None else token.format(token=table.server.token)
    body = json.dumps({"action": table.legal()}).encode() if method == "POST" else None
    status, answer = table.request(method, path, body, {TOKEN_HEADER: forged})
    assert status == 403 and TOKEN_HEADER in _error(answer)
    assert table.history() == 0 and table.server.saved is None and table.built == []


def test_the_token_comes_from_the_page_only(table: Table) -> None:
    status, page = table.request("GET", "/", headers={TOKEN_HEADER: None})
    found = re.search(r'id="play-data">(.*?)</script>', page, re.S)
    assert status == 200 and found is not None
    data = json.loads(found.group(1))
    assert data["token"] == table.server.token and data["token_header"] == TOKEN_HEADER
    status, state = table.request("GET", "/api/state", headers={TOKEN_HEADER: data["token"]})
    assert status == 200 and table.server.token not in json.dumps(state)
    other = PlayServer(table.server.session, table.server.save_path, table.server.make_hint)  # a token of its own
    other.httpd.server_close()
    assert other.token != table.server.token and len(other.token) >= 40


def test_a_repeated_token_is_refused(table: Table) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", table.port, timeout=5)
    connection.putrequest("GET", "/api/state")
    connection.putheader(TOKEN_HEADER, "wrong")
    connection.putheader(TOKEN_HEADER, table.server.token)
    connection.endheaders()
    assert connection.getresponse().status == 403
    connection.close()


@pytest.mark.parametrize("kind", ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", None])
def test_a_state_change_needs_a_json_content_type(table: Table, kind: str | None) -> None:
    status, answer = _act(table, {"Content-Type": kind})
    assert status == 415 and "application/json" in _error(answer) and table.history() == 0
    status, _ = _act(table, {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200 and table.history() == 1


# ---------------------------------------------------------------- hints from built-in agents only
@pytest.mark.parametrize("spec", ["{tmp}/evil_hint.py:Agent", "evil_hint:Agent", "subprocess:Popen", "os:system",
                                  "greedy:{tmp}/evil_hint.py", "greedy:evil_hint.py", "greedy:a:b",
                                  "greedy:value={tmp}/evil_hint.py", "ppo:{tmp}/evil_hint.py", "rllib:{tmp}",
                                  "human", "", 5, None, "greedy:" + "x" * 300, "random:..\\evil"])
def test_a_hint_never_imports_a_file_or_a_module(table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 spec: object) -> None:
    mark = tmp_path / "imported.txt"
    (tmp_path / "evil_hint.py").write_text(f"import pathlib\npathlib.Path({str(mark)!r}).write_text('x')\n"
                                           "class Agent:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = spec.format(tmp=tmp_path) if isinstance(spec, str) else spec
    status, answer = table.request("POST", "/api/hint", json.dumps({"agent": agent}).encode())
    assert status == 400 and _error(answer).startswith("no hint: ")
    assert table.built == [] and not mark.exists() and "evil_hint" not in sys.modules


@pytest.mark.parametrize("spec", ["greedy", " greedy ", "random", "greedy:fast=1", "mcts:sims=5,exploration=1.4",
                                  "greedy:value=linear", "afterstate", "afterstate:pretrained", "ppo:pooled",
                                  "mcts:pretrained"])
def test_a_built_in_spec_naming_no_file_is_allowed(spec: str) -> None:
    assert check_spec(spec, Origin.REQUEST) == spec.strip()


def test_a_hint_naming_a_file_is_refused_before_the_file_is_read(table: Table, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v.json").write_text("{not json")  # read, it would be a parse error naming the file's content
    with pytest.raises(UntrustedSpecError, match=r"value='v.json' names a file"):
        check_spec("greedy:value=v.json", Origin.REQUEST)
    status, answer = table.request("POST", "/api/hint", b'{"agent": "greedy:value=v.json"}')
    assert status == 400 and "names a file" in _error(answer) and table.built == []
    status, answer = table.request("POST", "/api/hint", b'{"agent": "greedy:value=nothere.json"}')
    assert status == 400 and "names a file" in _error(answer)  # the same answer: nothing tells it is missing


def test_a_hint_is_given(table: Table) -> None:
    status, hint = table.request("POST", "/api/hint", b'{"agent": "greedy"}')
    assert status == 200 and hint["agent"] == "greedy" and hint["action"] in [
        [int(v) for v in a] for a in table.server.session.game.legal_actions()]


# ---------------------------------------------------------------- bounded reads
def test_a_body_over_the_cap_is_refused_unread(table: Table) -> None:
    status, answer = table.request("POST", "/api/act", None, {"Content-Length": str(MAX_BODY + 1)})
    assert status == 413 and f"0 to {MAX_BODY} bytes" in _error(answer) and table.history() == 0


def test_deeply_nested_json_is_a_400_not_a_traceback(table: Table, capfd: pytest.CaptureFixture[str]) -> None:
    status, answer = table.request("POST", "/api/act", b"[" * 60_000)
    assert status == 400 and "nested too deeply" in _error(answer)
    status, answer = table.request("POST", "/api/act", b'{"action": NaN}')
    assert status == 400 and "not JSON" in _error(answer)
    assert "Traceback" not in capfd.readouterr().err and table.history() == 0


def _read_all(s: socket.socket) -> str:
    """What the server sends until it closes the connection."""
    chunks = []
    while chunk := s.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_a_body_shorter_than_its_length_times_out(table: Table, capfd: pytest.CaptureFixture[str]) -> None:
    with socket.create_connection(("127.0.0.1", table.port), timeout=5) as s:
        s.sendall(f"POST /api/act HTTP/1.1\r\nHost: 127.0.0.1:{table.port}\r\nContent-Type: application/json\r\n"
                  f"{TOKEN_HEADER}: {table.server.token}\r\nContent-Length: 100\r\n\r\n{{}}".encode())
        started = time.monotonic()
        answer = _read_all(s)
    assert answer.startswith("HTTP/1.0 408") and "nothing arrived for 0.3 s" in answer
    assert time.monotonic() - started < 3
    with socket.create_connection(("127.0.0.1", table.port), timeout=5) as s:  # not even a request line
        assert s.recv(4096) == b""
    assert table.request("GET", "/api/state")[0] == 200  # the server serves on
    assert "Traceback" not in capfd.readouterr().err


#: The trickling tables' bounds: a stall of 1 s, a request of 1.5 s; their clients send a byte every 0.2 s.
_STALL, _DEADLINE, _DRIP = 1.0, 1.5, 0.2


@pytest.fixture
def trickled(tmp_path: Path) -> Iterator[Table]:
    t = Table(tmp_path, hint_seconds=0.5, socket_timeout=_STALL, request_seconds=_DEADLINE)
    yield t
    t.stop()


def _trickle(port: int, sent: bytes, dripped: bytes, drip: float = _DRIP) -> tuple[str, float]:
    """Send ``sent`` at once, then ``dripped`` a byte every ``drip`` seconds until the server answers
    (or ``_DEADLINE + 2`` s have passed: a server with no deadline is not waited for); what the server
    sent until it closed, and the seconds from the first byte to the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        started = time.monotonic()
        s.sendall(sent)
        for byte in dripped:
            try:
                s.sendall(bytes([byte]))
            except OSError:  # the server closed the connection
                break
            if select.select([s], [], [], drip)[0] or time.monotonic() - started > _DEADLINE + 2:
                break  # answered (nothing more is sent), or never cut off
        select.select([s], [], [], 5)
        answered = time.monotonic() - started
        chunks = []
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(4096):
                chunks.append(chunk)
    return b"".join(chunks).decode(), answered


@pytest.mark.parametrize("part", ["request line", "headers", "body"])
def test_a_request_trickled_past_its_deadline_is_refused(trickled: Table, part: str,
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    head = (f"POST /api/act HTTP/1.1\r\nHost: 127.0.0.1:{trickled.port}\r\nContent-Type: application/json\r\n"
            f"{TOKEN_HEADER}: {trickled.server.token}\r\nContent-Length: 60\r\n\r\n").encode()
    request = head + b" " * 60
    cut = {"request line": 0, "headers": head.index(b"\r\n") + 2, "body": len(head)}[part]
    answer, seconds = _trickle(trickled.port, request[:cut], request[cut:])
    assert answer.startswith("HTTP/1.0 408") and f"did not arrive within {_DEADLINE:g} s" in answer, answer
    assert _DEADLINE - 0.1 < seconds < _DEADLINE + 1  # each byte came within the stall: the deadline cut it
    assert trickled.request("GET", "/api/state")[0] == 200 and trickled.history() == 0  # the server serves on
    assert "Traceback" not in capfd.readouterr().err


def test_a_request_trickled_within_its_deadline_is_answered(trickled: Table) -> None:
    request = f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{trickled.port}\r\n{TOKEN_HEADER}: {trickled.server.token}"
    answer, seconds = _trickle(trickled.port, request.encode(), b"\r\n\r\n")  # 0.8 s: within the deadline
    assert answer.startswith("HTTP/1.0 200") and '"waiting": "human"' in answer and seconds < _DEADLINE


def test_a_client_that_hangs_up_prints_nothing(table: Table, capfd: pytest.CaptureFixture[str]) -> None:
    body = '{"agent": "slow"}'
    with socket.create_connection(("127.0.0.1", table.port), timeout=5) as s:
        s.sendall(f"POST /api/hint HTTP/1.1\r\nHost: 127.0.0.1:{table.port}\r\nContent-Type: application/json\r\n"
                  f"{TOKEN_HEADER}: {table.server.token}\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode())
        assert table.slow.started.wait(5)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # hang up with a reset
    time.sleep(0.8)  # the hint times out (0.5 s) and its answer meets the reset
    assert table.request("GET", "/api/state")[0] == 200
    assert capfd.readouterr().err == ""


# ---------------------------------------------------------------- a hint never blocks the table
def test_a_slow_hint_leaves_the_table_answering(table: Table) -> None:
    answers: list[tuple[int, Any]] = []
    asking = threading.Thread(target=lambda: answers.append(table.request("POST", "/api/hint", b'{"agent": "slow"}')))
    asking.start()
    assert table.slow.started.wait(5)
    started = time.monotonic()
    assert table.request("GET", "/api/state")[0] == 200
    assert time.monotonic() - started < 2  # not held until the hint ends (5 s)
    asking.join(5)
    assert answers[0][0] == 503 and "the hint took too long" in _error(answers[0][1])
    status, answer = table.request("POST", "/api/hint", b'{"agent": "greedy"}')
    assert status == 503 and "still thinking" in _error(answer)  # one overrunning hint at most
    table.slow.release.set()
    deadline = time.monotonic() + 5
    while table.request("POST", "/api/hint", b'{"agent": "greedy"}')[0] != 200:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert table.history() == 0


def test_a_move_played_while_a_hint_thinks_makes_it_stale(tmp_path: Path) -> None:
    table = Table(tmp_path, hint_seconds=5)
    try:
        answers: list[tuple[int, Any]] = []
        asking = threading.Thread(target=lambda: answers.append(table.request("POST", "/api/hint",
                                                                              b'{"agent": "slow"}')))
        asking.start()
        assert table.slow.started.wait(5)
        assert _act(table)[0] == 200
        table.slow.release.set()
        asking.join(5)
        assert answers[0][0] == 409 and "the game moved on" in _error(answers[0][1])
    finally:
        table.stop()


def test_a_hint_agent_that_raises_is_a_json_error(table: Table, capfd: pytest.CaptureFixture[str]) -> None:
    status, answer = table.request("POST", "/api/hint", b'{"agent": "boom"}')
    assert status == 500 and _error(answer) == "no hint: the hint's agent failed: RuntimeError: boom"
    status, answer = table.request("POST", "/api/hint", b'{"agent": "greedy:nosuch=1"}')
    assert status == 400 and _error(answer).startswith("no hint: ")
    assert "Traceback" not in capfd.readouterr().err and table.history() == 0 and table.server.saved is None


# ---------------------------------------------------------------- the terminal and the save files
def _terminal(tmp_path: Path, lines: str) -> str:
    game = Game(GameConfig(players=2, expansions=()), seed=3)
    session = PlaySession(game, ("human", "random"), [None, make_agent("random", seed=1)])
    out = io.StringIO()
    with HintWorker(seconds=5) as hints:
        assert not TerminalPlay(session, tmp_path / "t.json", hints.agent, io.StringIO(lines), out).run()
    return out.getvalue()


def test_a_terminal_hint_from_a_module_is_one_line(tmp_path: Path) -> None:
    out = _terminal(tmp_path, "hint subprocess:Popen\nhint os:system\nhint ./x.py:X\nhint greedy\nquit\n")
    refusals = [line for line in out.splitlines() if "no hint" in line]
    assert len(refusals) == 3 and all("may name only a built-in agent" in line for line in refusals)
    assert "hint (greedy):" in out and "Traceback" not in out


def test_resuming_a_record_that_is_not_an_object_is_one_line(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"record": 5}')
    assert main(["play", "--resume", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'record' must be a JSON object" in err and "Traceback" not in err


def test_saving_onto_a_directory_is_one_line_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    folder = tmp_path / "D"
    folder.mkdir()
    out = _terminal(tmp_path, f"save {folder}\nquit\n")
    assert f"not saved: {folder} exists and is not a game saved by carcassonne play" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D", "t.json"] and not any(folder.iterdir())

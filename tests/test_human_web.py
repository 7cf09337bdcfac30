"""A human in the browser: ``carcassonne play human AGENT --web`` (carcassonne_env.play.server).

The server refuses forged requests (always tested, no browser needed). In real headless Chromium
(Debian's ``chromium`` and ``chromium-driver``, driven by Selenium as in test_viewer_browser.py) a
human game against random is clicked through to the end and its saved record replays to the same
scores. Without Chromium the browser test is skipped with the reason; with
``CARCASSONNE_REQUIRE_BROWSER=1`` it fails instead.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import chromium
from human_positions import position

from agents import make_agent
from carcassonne_env.engine import Action, ActionKind, Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.play import PlaySession, option_label
from carcassonne_env.play.server import TOKEN_HEADER, PlayServer
from carcassonne_env.viewer import load_document, replay_html, to_replayable

SHORT = ("base/RFr", "tower/C", "base/CFc+", "base/RRRR", "tower/F", "base/Rr", "base/L", "base/CcRr",
         "tower/RR", "base/Cc+")


def _server(tmp_path: Path, seats: tuple[str, str] = ("human", "random")) -> PlayServer:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), tile_order=SHORT)
    agents = [None if s == "human" else make_agent(s, seed=7) for s in seats]
    session = PlaySession(game, seats, agents)
    return PlayServer(session, tmp_path / "web_game.json", lambda spec: make_agent(spec, seed=0)).start()


def _post(server: PlayServer, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """POST ``body`` to ``path`` as the page does: JSON, with the session's token."""
    request = urllib.request.Request(server.url + path, data=body, method="POST", headers={
        "Content-Type": "application/json", TOKEN_HEADER: server.token})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _refused(tmp_path: Path, path: str, body: bytes, status: int, message: str) -> None:
    """POSTing ``body`` to ``path`` is answered ``status`` with ``message`` in its error, and changes nothing."""
    server = _server(tmp_path)
    try:
        before = server.session.game.to_dict()
        code, answer = _post(server, path, body)
        assert (code, message in answer.get("error", "")) == (status, True), answer
        assert server.session.game.to_dict() == before  # nothing changed
    finally:
        server.stop()


@pytest.mark.parametrize(("body", "message"), [
    (b"{not json", "not JSON"),
    (b"[1, 2]", "must be a JSON object"),
    (b"{}", "'action' must be a list of 4 integers"),
    (b'{"action": [0, 1, 0]}', "'action' must be a list of 4 integers"),
    (b'{"action": [0, 1.5, 0, 0]}', "'action' must be a list of 4 integers"),
    (b'{"action": [0, 40, 40, 0]}', "is not a legal action now"),
    (b'{"action": [1, 0, 0, 0]}', "is not a legal action now"),
    (b'{"action": [99, 0, 0, 0]}', "malformed action"),
])
def test_the_server_refuses_a_forged_action(tmp_path: Path, body: bytes, message: str) -> None:
    _refused(tmp_path, "api/act", body, 400, message)


@pytest.mark.parametrize(("path", "body", "status", "message"), [
    ("api/agent", b"", 400, "it is a human's turn"),
    ("api/undo", b"", 400, "nothing to undo"),
    ("api/hint", b'{"agent": "nosuchagent"}', 400, "no hint: unknown agent 'nosuchagent'"),
    ("api/hint", b'{"agent": "greedy:nosuch=1"}', 400, "no hint: "),
    ("api/nothing", b"", 404, "no such endpoint"),
])
def test_the_server_refuses_the_other_requests_it_cannot_serve(tmp_path: Path, path: str, body: bytes,
                                                                 status: int, message: str) -> None:
    _refused(tmp_path, path, body, status, message)


def test_the_server_plays_only_on_a_humans_turn_and_only_the_legal_list(tmp_path: Path) -> None:
    server = _server(tmp_path, ("random", "human"))
    try:
        code, answer = _post(server, "api/act", b'{"action": [0, 1, 0, 0]}')
        assert code == 400 and "not a human's turn" in answer["error"]
        code, state = _post(server, "api/agent", b"")
        while state["waiting"] == "agent":
            code, state = _post(server, "api/agent", b"")
        assert code == 200 and state["waiting"] == "human" and state["placements"]
        legal = server.session.game.legal_actions()
        assert sorted((x, y, r) for x, y, rs in state["placements"] for r in rs) == sorted(
            (a.x, a.y, a.arg) for a in legal)
        x, y, rotations = state["placements"][0]
        code, state = _post(server, "api/act", json.dumps({"action": [0, x, y, rotations[0]]}).encode())
        assert code == 200 and state["can_undo"]
        assert [o["action"] for o in state["options"]] == [list(a) for a in server.session.game.legal_actions()]
        code, state = _post(server, "api/undo", b"")
        assert code == 200 and state["placements"] and not state["can_undo"]
        code, hint = _post(server, "api/hint", b"{}")
        assert code == 200 and hint["agent"] == "greedy" and hint["action"][0] == 0
    finally:
        server.stop()


class Boom:
    """An agent that raises."""

    def choose_action(self, game: Game) -> object:
        raise RuntimeError("boom")


def test_a_failing_agent_is_a_json_error_and_the_game_is_saved(tmp_path: Path) -> None:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), tile_order=SHORT)
    session = PlaySession(game, ("random", "human"), [Boom(), None])  # type: ignore[list-item]
    server = PlayServer(session, tmp_path / "boom.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        code, answer = _post(server, "api/agent", b"")
        assert code == 500
        assert answer["error"].startswith("agent 'random' (seat 0, Red) failed: RuntimeError: boom")
        assert "the game is saved to" in answer["error"] and (tmp_path / "boom.json").exists()
        code, state = _post(server, "api/save", b"")
        assert code == 200 and state["waiting"] == "agent"  # the server serves on
    finally:
        server.stop()


@pytest.mark.parametrize("kind", [ActionKind.FLOOR, ActionKind.TOWER_TOP, ActionKind.CAPTURE, ActionKind.RANSOM])
def test_a_human_chooses_a_tower_option_through_the_api(kind: ActionKind, tmp_path: Path) -> None:
    game = position(kind)
    before = len(game.history)
    session = PlaySession(game, ("human", "human"), [None, None])
    server = PlayServer(session, tmp_path / "t.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        request = urllib.request.Request(server.url + "api/state", headers={TOKEN_HEADER: server.token})
        state = json.loads(urllib.request.urlopen(request, timeout=30).read())
        assert len(state["log"]) == min(before, 12)  # the moves so far, rebuilt from the record
        option = next(o for o in state["options"] if o["action"][0] == kind)
        assert option["label"] == option_label(game, Action.coerce(option["action"]))
        if kind is not ActionKind.RANSOM:
            assert option["point"] is not None  # a marker on the board
        code, state = _post(server, "api/act", json.dumps({"action": option["action"]}).encode())
        assert code == 200 and server.session.game.history[before] == Action.coerce(option["action"])
    finally:
        server.stop()


def test_two_undos_in_one_turn_leave_no_stale_move_in_the_log(tmp_path: Path) -> None:
    game = position(ActionKind.CAPTURE)  # Red placed a tile and a floor; now the capture
    session = PlaySession(game, ("human", "human"), [None, None])
    server = PlayServer(session, tmp_path / "u.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        turn = game.turn + 1
        ours = [line for line in server.log if line.startswith(f"turn {turn}:")]
        assert len(ours) == 2
        _post(server, "api/undo", b"")
        code, state = _post(server, "api/undo", b"")
        assert code == 200 and state["placements"] and not state["can_undo"]
        assert not [line for line in state["log"] if line.startswith(f"turn {turn}:")]
        assert state["log"][-2].startswith("undone: build a normal floor")
        assert state["log"][-1].startswith("undone: place “") and "Action" not in " ".join(state["log"])
    finally:
        server.stop()


def test_a_resumed_game_shows_its_moves(tmp_path: Path) -> None:
    game = position(ActionKind.RANSOM)
    session = PlaySession(game, ("human", "human"), [None, None])
    session.save(tmp_path / "r.json")
    resumed = PlaySession.resume(tmp_path / "r.json", None, lambda g, s, spec: None)
    server = PlayServer(resumed, tmp_path / "r.json", lambda spec: make_agent(spec, seed=0))
    try:
        log = server.state()["log"]
        assert log == [f"turn {n.turn}: {n.words} [human]" for n in session.notes()][-12:] and log
    finally:
        server.httpd.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chromium("THE PLAY PAGE", tmp_path_factory.mktemp("chromium-profile"))


def _wait(browser: Any, server: PlayServer, *states: str) -> str:
    """Wait until the page shows one of ``states`` for the server's current position.

    Both attributes are read by one script: read one by one, a response arriving in between paired
    the old page's ``human`` with the new position's count (an agent's turn), a flaky failure.
    """
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        waiting, decisions = browser.execute_script(
            "return [document.body.dataset.waiting, document.body.dataset.decisions];")
        if waiting in states and decisions == str(len(server.session.game.history)):
            return str(waiting)
        time.sleep(0.05)
    raise AssertionError(f"the page did not reach {states}")


def test_a_human_clicks_a_game_against_random_to_the_end(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    server = _server(tmp_path)
    try:
        browser.get(server.url)
        rotated = False
        for _ in range(200):
            if _wait(browser, server, "human", "over") == "over":
                break
            before = len(server.session.game.history)
            spots = browser.find_elements(By.CSS_SELECTOR, "#spots .spot")
            if spots:
                legal = {(a.x, a.y) for a in server.session.game.legal_actions()}
                shown = {(int(s.get_attribute("data-x")), int(s.get_attribute("data-y"))) for s in spots}
                assert shown == legal  # exactly the engine's spots are highlighted
                spots[-1].click()
                if not rotated and not browser.find_element(By.ID, "rotate").get_attribute("disabled"):
                    browser.find_element(By.ID, "rotate").click()
                    rotated = True
                browser.find_element(By.ID, "confirm").click()
            else:
                choices = browser.find_elements(By.CSS_SELECTOR, "#choices .choice")
                assert len(choices) == len(server.session.game.legal_actions())
                if len(choices) > 1:  # a forced choice the page plays itself (the box is ticked by default)
                    choices[0].click()
            deadline = time.monotonic() + 30
            while len(server.session.game.history) == before and time.monotonic() < deadline:
                time.sleep(0.05)
        assert server.session.game.is_over
        _wait(browser, server, "over")
        scores = server.session.game.scores
        shown_scores = [int(s.text) for s in browser.find_elements(By.CSS_SELECTOR, "#players .score")]
        assert shown_scores == list(scores)
        cells = browser.find_elements(By.CSS_SELECTOR, "#score-breakdown td[data-category]")
        by_category = [sum(int(c.text) for c in cells if c.get_dom_attribute("data-player") == str(p))
                       for p in range(2)]
        assert by_category == list(scores)  # the final breakdown the player reads sums to the scores
        assert "game over" in browser.find_element(By.ID, "status").text
        assert "saved to" in browser.find_element(By.ID, "message").text
        assert len(browser.find_elements(By.CSS_SELECTOR, "#tiles .tile")) == len(server.session.game.tiles())
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        # A forged request from the page itself is refused too: without the token, and with it.
        post = ("const done = arguments[0];"
                "fetch('/api/act', {method: 'POST', headers: HEADERS, body: JSON.stringify({action: [0, 0, 0, 0]})})"
                ".then(r => r.json().then(j => done([r.status, j.error])));")
        answer = browser.execute_async_script(post.replace("HEADERS", "{}"))
        assert answer[0] == 403 and TOKEN_HEADER in answer[1]
        headers = json.dumps({"Content-Type": "application/json", TOKEN_HEADER: server.token})
        answer = browser.execute_async_script(post.replace("HEADERS", headers))
        assert answer[0] == 400 and "the game is over" in answer[1]
    finally:
        server.stop()
    document = load_document(tmp_path / "web_game.json")  # as carcassonne replay reads it
    assert to_replayable(document).record.replay().scores == scores
    assert to_replayable(document).seats == ("human", "random")
    assert replay_html(document).startswith("<!DOCTYPE html>")


def test_the_play_page_fills_its_placeholders_in_one_pass(tmp_path: Path) -> None:
    from carcassonne_env.play.server import page_html

    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), tile_order=SHORT)
    session = PlaySession(game, ("human", "random"), [None, make_agent("random", seed=1)])
    text = page_html(session, "__JS__ __DATA__ </script><b>", "TOKEN")
    assert "<title>__JS__ __DATA__ &lt;/script&gt;&lt;b&gt;</title>" in text  # not filled in again, escaped
    assert text.count("</script>") == text.count("<script")  # the title's </script> ends nothing
    assert "__CSS__" not in text and "__SYMBOLS__" not in text

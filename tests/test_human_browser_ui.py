"""The play page's board and keys in headless Chromium (carcassonne_env/viewer/static/play.js).

The wheel zooms the board (its ``viewBox`` changes), an arrow key pans, the fit button restores
the whole board; the Moves list is oldest first, numbered by decision; one Enter is one action
(Enter on a focused button is that button's, not also the page's "place"); each seat's last tile
is marked; the hint is drawn on the board at a legal placement, every spot's coordinates painted
above it; at the end the breakdown by category sums to the scores and hovering a score line marks
its place on the board. The watchtower legend is shown with the watchtowers only; a hovered choice's
marker is styled unlike a tower's height badge; with a dozen choices at 1280×720 the score panels
stay in view. Skipped without Chromium as tests/test_human_web.py is
(``CARCASSONNE_REQUIRE_BROWSER=1``: fails instead).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import chromium, until

from agents import make_agent
from carcassonne_env.engine import Game, GameConfig, Phase
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.engine.tiles import WATCHTOWER_RATES
from carcassonne_env.play import PlaySession
from carcassonne_env.play.server import PlayServer
from carcassonne_env.viewer.palette import WATCHTOWER_LETTERS


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chromium("THE PLAY PAGE'S BOARD AND KEYS", tmp_path_factory.mktemp("chromium-profile"))



def _settled(browser: Any, server: PlayServer) -> bool:
    """The page shows the server's current position, a human's decision."""
    waiting, decisions = browser.execute_script(
        "return [document.body.dataset.waiting, document.body.dataset.decisions];")
    return bool(waiting == "human" and decisions == str(len(server.session.game.history)))


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether the element rectangles ``a`` and ``b`` (Selenium's ``rect``) overlap."""
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def _dozen_choices() -> Game:
    """A game of the tower variant at a follower's decision with 13 choices (six follower spots,
    six floors on two towers, a tower top, none a capture), played there by a seeded random agent."""
    game, agent = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=3), make_agent("random", seed=3)
    while game.phase is Phase.PLACE or len(game.legal_actions()) < 12:
        game.apply(agent.choose_action(game))
    return game


def _play_a_few_turns(session: PlaySession, turns: int) -> None:
    """The first ``turns`` turns of ``session``'s game, played by a random agent for both seats."""
    game, agent = session.game, make_agent("random", seed=3)
    while not game.is_over and game.turn < turns:
        session.play(list(agent.choose_action(game)))


def test_zoom_moves_and_one_action_per_key(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=5)
    session = PlaySession(game, ("human", "human"), [None, None])
    _play_a_few_turns(session, 8)  # Moves beyond 10 lines, a last tile for each seat
    server = PlayServer(session, tmp_path / "ui.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        browser.get(server.url)
        until(lambda: _settled(browser, server), "the human's decision")
        board = browser.find_element(By.ID, "board")

        def box() -> str:
            return str(board.get_dom_attribute("viewBox"))

        fitted = box()
        ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(board), 0, -300).perform()
        zoomed = until(lambda: box() != fitted and box(), "a zoom")
        assert float(zoomed.split()[2]) < float(fitted.split()[2])  # the wheel up zoomed in
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        assert float(box().split()[0]) > float(zoomed.split()[0])  # panned east
        browser.find_element(By.ID, "fit-board").click()
        assert box() == fitted

        numbers = [int(n.text.rstrip(".")) for n in browser.find_elements(By.CSS_SELECTOR, "#log .move .n")]
        assert numbers == list(range(len(game.history) - len(numbers) + 1, len(game.history) + 1))
        assert max(numbers) >= 10
        words = [w.text for w in browser.find_elements(By.CSS_SELECTOR, "#log .words")]
        assert words == server.log[-len(words):]  # oldest first
        marks = browser.find_elements(By.CSS_SELECTOR, "#last-moves .last-move")
        marked = {int(m.get_dom_attribute("data-seat")) for m in marks}
        assert marked == {0, 1}

        # Enter on a focused button is that button's only: rotate turns the tile, nothing is placed.
        before = len(game.history)
        spot = next(s for s in browser.find_elements(By.CSS_SELECTOR, "#spots .spot")
                    if len(next(r for x, y, r in server.state()["placements"]
                                if (x, y) == (int(s.get_attribute("data-x")), int(s.get_attribute("data-y"))))) > 1)
        spot.click()
        ghost = browser.find_element(By.CSS_SELECTOR, "#spots .ghost").get_attribute("href")
        browser.execute_script("document.getElementById('rotate').focus();")
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        assert browser.find_element(By.CSS_SELECTOR, "#spots .ghost").get_attribute("href") != ghost
        time.sleep(0.3)
        assert len(game.history) == before
        # Enter on the focused place button places once: one decision, then the follower's menu.
        browser.execute_script("document.getElementById('confirm').focus();")
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        until(lambda: _settled(browser, server) and len(game.history) > before, "the placement")
        time.sleep(0.3)
        assert len(game.history) == before + 1 and browser.find_elements(By.CSS_SELECTOR, "#choices .choice")
        # Enter with no button focused places nothing at a menu (the page's Enter is "place" only).
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)
        time.sleep(0.3)
        assert len(game.history) == before + 1
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
    finally:
        server.stop()


def test_the_hint_is_drawn_and_the_final_breakdown_sums_to_the_scores(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=9)
    session = PlaySession(game, ("human", "human"), [None, None])
    server = PlayServer(session, tmp_path / "hint.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        browser.get(server.url)
        until(lambda: _settled(browser, server), "the human's decision")
        browser.find_element(By.ID, "hint").click()
        cell = until(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-mark .hint-cell"), "the hint")[0]
        x, y, rotation = (int(cell.get_dom_attribute(a)) for a in ("data-x", "data-y", "data-rotation"))
        assert (0, x, y, rotation) in [tuple(a) for a in server.session.game.legal_actions()]  # a PLACE, legal
        # The spot's own label is painted after (above) the hint's faint tile; no label under the hint's.
        label = browser.find_element(By.CSS_SELECTOR, f'#spot-labels .spot-label[data-x="{x}"][data-y="{y}"]')
        ghost = browser.find_element(By.CSS_SELECTOR, "#hint-mark .hint-ghost")
        assert browser.execute_script(
            "return arguments[0].compareDocumentPosition(arguments[1]) & Node.DOCUMENT_POSITION_FOLLOWING;",
            ghost, label)
        assert label.text == f"{x},{y}"
        words = browser.find_element(By.CSS_SELECTOR, "#hint-mark .hint-label").rect
        assert not any(_overlap(words, spot.rect) for spot in browser.find_elements(By.CSS_SELECTOR, ".spot-label"))
        _play_a_few_turns(session, 10_000)  # to the end
        browser.refresh()
        until(lambda: browser.execute_script("return document.body.dataset.waiting") == "over", "the end")
        cells = browser.find_elements(By.CSS_SELECTOR, "#score-breakdown td[data-category]")
        sums = [sum(int(c.text) for c in cells if c.get_dom_attribute("data-player") == str(p)) for p in range(2)]
        shown = [int(s.text) for s in browser.find_elements(By.CSS_SELECTOR, "#players .score")]
        assert sums == list(game.scores) == shown
        located = browser.find_elements(By.CSS_SELECTOR, "#score-log li.located")[0]
        ActionChains(browser).move_to_element(located).perform()
        assert browser.find_elements(By.CSS_SELECTOR, "#score-where .score-cell")
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
    finally:
        server.stop()


def test_a_forced_choice_is_played_for_the_human(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    from carcassonne_env.engine import ActionKind, Phase

    game = Game(GameConfig(players=2), seed=3)
    while not (game.phase != Phase.PLACE and len(game.legal_actions()) == 1):  # deploy until no follower is left
        legal = game.legal_actions()
        game.apply(next((a for a in legal if a.kind != ActionKind.PASS), legal[0]))
    session = PlaySession(game, ("human", "human"), [None, None])
    server = PlayServer(session, tmp_path / "forced.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        before = len(server.session.game.history)
        browser.get(server.url)
        assert browser.find_element(By.ID, "auto-single").is_selected()  # on by default
        until(lambda: len(server.session.game.history) == before + 1, "the forced choice played")
        assert server.session.game.history[-1].kind == ActionKind.PASS
        assert "the only choice, played for you" in browser.find_element(By.ID, "message").text
    finally:
        server.stop()


@pytest.mark.parametrize("expansions", [TOWER_VARIANT, ("tower",)])
def test_the_watchtower_legend_only_with_the_watchtowers(browser: Any, tmp_path: Path,
                                                         expansions: tuple[str, ...]) -> None:
    from selenium.webdriver.common.by import By

    game = Game(GameConfig(players=2, expansions=expansions), seed=1)
    server = PlayServer(PlaySession(game, ("human", "human"), [None, None]), tmp_path / "legend.json",
                        lambda spec: make_agent(spec, seed=0)).start()
    try:
        browser.get(server.url)
        until(lambda: _settled(browser, server), "the human's decision")
        legend = browser.find_element(By.ID, "watchtower-legend")
        entries = legend.find_elements(By.CSS_SELECTOR, "li")
        if "watchtowers" not in expansions:
            assert not legend.is_displayed() and entries == []
            return
        assert legend.is_displayed()
        subjects = {letter: subject for subject, letter in WATCHTOWER_LETTERS.items()}
        assert sorted(e.get_dom_attribute("data-letter") for e in entries) == sorted(subjects)
        for entry in entries:
            letter = entry.get_dom_attribute("data-letter")
            assert entry.text.startswith(f"{WATCHTOWER_RATES[subjects[letter]]} per ")
            disc = entry.find_element(By.TAG_NAME, "use").get_dom_attribute("href")  # the tiles' own disc
            drawn = "return document.querySelector(arguments[0] + ' .watchtower text').textContent;"
            assert browser.execute_script(drawn, disc) == letter
    finally:
        server.stop()


def test_a_hovered_choice_is_marked_unlike_a_towers_height(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    server = PlayServer(PlaySession(_dozen_choices(), ("human", "human"), [None, None]), tmp_path / "hover.json",
                        lambda spec: make_agent(spec, seed=0)).start()
    try:
        browser.get(server.url)
        until(lambda: _settled(browser, server), "the human's decision")
        tower = browser.find_element(By.CSS_SELECTOR, "#option-marks .mark-tower")
        index = tower.get_dom_attribute("data-index")
        ActionChains(browser).move_to_element(
            browser.find_element(By.CSS_SELECTOR, f'#choices .choice[data-index="{index}"]')).perform()
        until(lambda: "lit" in str(tower.get_attribute("class")), "the hovered choice's marker lit")
        style = "const s = getComputedStyle(arguments[0]); return [s.fill, s.stroke];"
        lit = browser.execute_script(style, tower.find_element(By.CSS_SELECTOR, ".mark-dot"))
        badges = {tuple(browser.execute_script(style, b))
                  for b in browser.find_elements(By.CSS_SELECTOR, "#towers .tower-badge")}
        assert badges
        assert all(lit[0] != fill and lit[1] != stroke for fill, stroke in badges)
    finally:
        server.stop()


def test_the_scores_stay_in_view_with_a_dozen_choices_at_1280_by_720(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    server = PlayServer(PlaySession(_dozen_choices(), ("human", "human"), [None, None]), tmp_path / "fold.json",
                        lambda spec: make_agent(spec, seed=0)).start()
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
    try:
        browser.get(server.url)
        until(lambda: _settled(browser, server), "the human's decision")
        assert browser.execute_script("return [innerWidth, innerHeight];") == [1280, 720]
        choices = browser.find_elements(By.CSS_SELECTOR, "#choices .choice")
        assert len(choices) >= 12
        for score in browser.find_elements(By.CSS_SELECTOR, "#players .player"):
            assert score.rect["y"] >= 0 and score.rect["y"] + score.rect["height"] <= 720
        # The list scrolls instead: hovering the last marker brings its button into view.
        box = browser.find_element(By.ID, "choices")
        marker = browser.find_elements(By.CSS_SELECTOR, "#option-marks .option-mark")[-1]
        last = choices[int(marker.get_dom_attribute("data-index"))]
        assert not _overlap(last.rect, box.rect)
        ActionChains(browser).move_to_element(marker.find_element(By.CSS_SELECTOR, ".mark-dot")).perform()
        until(lambda: _overlap(last.rect, box.rect), "the hovered marker's button in view")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        server.stop()

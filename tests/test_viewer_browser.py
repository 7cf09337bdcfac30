"""The replay page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, installed by scripts/test.sh) driven by Selenium.

The test steps to the end with the End key, back and forth with the arrow keys and the next
button, reads the board, the scores and the watchtower legend from the DOM and saves a screenshot. Without Chromium it
is skipped with the reason; with ``CARCASSONNE_REQUIRE_BROWSER=1`` (set by scripts/test.sh as root
with apt-get, where it installs Chromium) it fails instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import chromium

from agents import make_agent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.viewer import Replayable, write_replay_html


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chromium("THE REPLAY VIEWER", tmp_path_factory.mktemp("chromium-profile"))


def test_the_page_steps_to_the_end_and_shows_the_engines_final_board(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    game = Game(config, seed=3)
    agents = [make_agent("greedy", seed=1), make_agent("random", seed=2)]
    while not game.is_over:
        game.apply(agents[game.current_player].choose_action(game))
    page = write_replay_html(Replayable(game.record(), ("greedy", "random")), tmp_path / "game.html")
    browser.get(page.as_uri())

    def shown(css: str) -> list[Any]:
        return list(browser.find_elements(By.CSS_SELECTOR, css))

    assert len(shown("#tiles .tile")) == 1  # the start tile
    assert shown("#watchtower-legend")[0].is_displayed() and len(shown("#watchtower-legend li")) == 5
    assert [s.text for s in shown(".score")] == ["0", "0"]
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    last = len(game.history)
    assert browser.find_element(By.ID, "slider").get_attribute("value") == str(last)
    assert len(shown("#tiles .tile")) == len(game.tiles())
    assert [int(s.text) for s in shown(".score")] == list(game.scores)
    towers = game.expansion_state("tower")
    tops = sum(towers.top(x, y) is not None for x, y in towers.foundations())
    assert len(shown("#followers .tower-top")) == tops
    assert len(shown("#followers .follower")) == len(game.followers()) + tops
    assert len(shown("#towers .tower")) == sum(towers.height(x, y) > 0 for x, y in towers.foundations())
    assert browser.find_element(By.ID, "next-decision").text.startswith("game over")
    assert "at the end" in browser.find_element(By.ID, "events").text
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    shown("#next")[0].click()
    assert browser.find_element(By.ID, "slider").get_attribute("value") == str(last - 1)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert [int(s.text) for s in shown(".score")] == list(game.scores)
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    assert browser.get_screenshot_as_file(str(tmp_path / "replay.png"))
    assert (tmp_path / "replay.png").stat().st_size > 10_000

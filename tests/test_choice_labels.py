"""Choices a player can tell apart (carcassonne_env/play/choices.py, issue 54 point 3).

Every segment of every tile, in every rotation, has its own words; at every decision of full
random games of the tower variant no two labels are alike; a capture names whose follower it
takes and where; the state the page draws lists, for each choice, the whole feature it joins (the
engine's feature, sub-cell by sub-cell). In headless Chromium (skipped without it, as
tests/test_human_web.py is): hovering a choice lights that feature, and no marker covers another,
a follower or a tower, a capture's marker sitting beside the follower it takes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import chromium, until

from agents import make_agent
from carcassonne_env.engine import TOWER_TOP_SLOT, ActionKind, Game, GameConfig, Phase, load_catalogue
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.engine.subcells import segment_cells
from carcassonne_env.play import PlaySession, option_label
from carcassonne_env.play.choices import feature_cells, segment_words
from carcassonne_env.play.server import PlayServer


def test_every_segment_of_every_tile_has_its_own_words() -> None:
    for tile in load_catalogue().types:
        for rotation in range(4):
            words = [segment_words(tile, rotation, s) for s in range(tile.segment_count)]
            assert len(set(words)) == len(words), (tile.id, rotation, words)


def test_the_words_name_the_sides() -> None:
    catalogue = load_catalogue()
    start = catalogue["base/RCr"]  # city N, road E-W, fields N (strip) and S
    assert [segment_words(start, 0, s) for s in range(4)] == [
        "the north city", "the east-west road", "the north field", "the south field"]
    corner = catalogue["base/CcRr"]  # city N+W, road curve E-S
    assert segment_words(corner, 1, 0) == "the city on the north and east sides"
    assert segment_words(corner, 0, 1) == "the road from east to south"
    junction = catalogue["base/RRR"]
    assert segment_words(junction, 0, 2) == "the road running west"
    assert segment_words(catalogue["base/L"], 0, 1) == "the field around the monastery"


def _random_games(seeds: range) -> Iterator[Game]:
    """Each game of a random agent on the tower variant, yielded at every non-PLACE decision."""
    for seed in seeds:
        game, rng = Game(GameConfig(players=3, expansions=TOWER_VARIANT), seed=seed), random.Random(seed)
        while not game.is_over:
            if game.phase is not Phase.PLACE:
                yield game
            game.apply(rng.choice(list(game.legal_actions())))


def test_no_two_choices_of_a_decision_read_alike() -> None:
    decisions = captures = 0
    for game in _random_games(range(8)):
        legal = game.legal_actions()
        labels = [option_label(game, a) for a in legal]
        assert len(set(labels)) == len(labels), labels
        decisions += 1
        for action, label in zip(legal, labels, strict=True):
            if action.kind is ActionKind.CAPTURE and action.arg != TOWER_TOP_SLOT:
                captures += 1
                owner = next(f.owner for f in game.followers() if (f.x, f.y, f.slot) == tuple(action)[1:])
                placed = game.tile_at(action.x, action.y)
                assert placed is not None
                where = segment_words(placed.tile, placed.rotation, action.arg)
                assert where in label and f"({action.x},{action.y})" in label
                assert ("your own" in label) if owner == game.current_player else ("'s " in label)
    assert decisions > 100 and captures > 0


def test_a_feature_is_the_engines_sub_cell_by_sub_cell() -> None:
    checked = 0
    for game in _random_games(range(2)):
        for action in game.legal_actions():
            if action.kind is not ActionKind.DEPLOY:
                continue
            cells = feature_cells(game, action.x, action.y, action.arg)
            feature = game.feature(action.x, action.y, action.arg)
            assert {(x, y) for x, y, _ in cells} == feature.positions
            placed = game.tile_at(action.x, action.y)
            assert placed is not None
            own = segment_cells(placed.tile, placed.rotation)[action.arg]
            assert set(own) <= set(next(c for x, y, c in cells if (x, y) == (action.x, action.y)))
            checked += 1
    assert checked > 50


def _position(want: Callable[[Game], bool], seed: int = 0) -> Game:
    """The first decision of a random tower-variant game (seeds from ``seed``) where ``want`` holds."""
    for game in _random_games(range(seed, seed + 40)):
        if want(game):
            return game.clone()
    raise AssertionError("no such position in 40 games")


def _captures_on_segments(game: Game) -> int:
    return sum(a.kind is ActionKind.CAPTURE and a.arg != TOWER_TOP_SLOT for a in game.legal_actions())


def test_the_state_lists_each_choices_feature_and_marker(tmp_path: Path) -> None:
    game = _position(lambda g: g.phase is Phase.CAPTURE and _captures_on_segments(g) >= 2)
    session = PlaySession(game, ("human",) * 3, [None] * 3)
    server = PlayServer(session, tmp_path / "s.json", lambda spec: make_agent(spec, seed=0))
    try:
        for option in server.state()["options"]:
            kind, x, y, arg = option["action"]
            if kind == ActionKind.CAPTURE and arg != TOWER_TOP_SLOT:
                assert option["marker"] == "follower"
                assert option["feature"] == feature_cells(session.game, x, y, arg)
            elif kind == ActionKind.NO_CAPTURE:
                assert option["marker"] is None and option["feature"] is None
    finally:
        server.httpd.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chromium("THE PLAY PAGE'S CHOICES", tmp_path_factory.mktemp("chromium-profile"))




_GEOMETRY = """
const marks = [...document.querySelectorAll('#option-marks .option-mark')].map((g) => ({
  i: +g.dataset.index, kind: g.classList[1], x: +g.dataset.x, y: +g.dataset.y,
  tx: +g.dataset.targetX, ty: +g.dataset.targetY, line: !!g.querySelector('line')}));
const followers = [...document.querySelectorAll('#followers .follower')].map((u) => {
  const w = +u.getAttribute('width'); return [+u.getAttribute('x') + w / 2, +u.getAttribute('y') + w / 2, w / 2]; });
const towers = [...document.querySelectorAll('#towers .tower')].map((t) => { const b = t.getBBox();
  return [b.x, b.y, b.x + b.width, b.y + b.height]; });
return [marks, followers, towers];
"""


@pytest.mark.parametrize("phase", [Phase.CAPTURE, Phase.ACTION], ids=["capture", "action"])
def test_markers_hide_nothing_and_a_hover_lights_the_feature(browser: Any, tmp_path: Path, phase: Phase) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    if phase is Phase.CAPTURE:
        game = _position(lambda g: g.phase is Phase.CAPTURE and _captures_on_segments(g) >= 2)
    else:  # a follower to put, a floor to build beside a standing tower
        game = _position(lambda g: g.phase is Phase.ACTION and g.turn > 20 and
                         sum(a.kind is ActionKind.FLOOR for a in g.legal_actions()) >= 3)
    session = PlaySession(game, ("human",) * 3, [None] * 3)
    server = PlayServer(session, tmp_path / "c.json", lambda spec: make_agent(spec, seed=0)).start()
    try:
        browser.get(server.url)
        until(lambda: browser.execute_script("return document.body.dataset.waiting") == "human", "the decision")
        options = server.state()["options"]
        marks, followers, towers = browser.execute_script(_GEOMETRY)
        assert sorted(m["i"] for m in marks) == [i for i, o in enumerate(options) if o["point"]]
        radius = 6
        for m in marks:
            for n in marks:
                assert m is n or math.dist((m["x"], m["y"]), (n["x"], n["y"])) >= 2 * radius, (m, n)
            for x, y, r in followers:
                assert math.dist((m["x"], m["y"]), (x, y)) >= r + radius, (m, (x, y))
            for x0, y0, x1, y1 in towers:
                nearest = (min(max(m["x"], x0), x1), min(max(m["y"], y0), y1))
                assert math.dist((m["x"], m["y"]), nearest) >= radius, (m, towers)
            if m["kind"] == "mark-follower":  # beside the follower it takes, a line to it
                assert m["line"] and math.dist((m["x"], m["y"]), (m["tx"], m["ty"])) > 10
        for i, option in enumerate(options):
            if not option["feature"]:
                continue
            ActionChains(browser).move_to_element(
                browser.find_element(By.CSS_SELECTOR, f'#choices .choice[data-index="{i}"]')).perform()
            lit = browser.find_elements(By.CSS_SELECTOR, "#choice-feature .feature-cell")
            assert len(lit) == sum(len(cells) for _, _, cells in option["feature"])
            assert browser.find_elements(By.CSS_SELECTOR, f'#option-marks .option-mark.lit[data-index="{i}"]') \
                or not option["point"]
        ActionChains(browser).move_to_element(browser.find_element(By.ID, "status")).perform()
        assert not browser.find_elements(By.CSS_SELECTOR, "#choice-feature .feature-cell")
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
    finally:
        server.stop()

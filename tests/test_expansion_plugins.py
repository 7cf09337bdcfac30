"""The expansion interface is public and small: the generic engine names no expansion, and a toy
expansion defined here plugs in — its state is set up, saved, parsed and checked through its own
hooks, which the validator of saved games calls (issue 18, "one home per concern")."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

import carcassonne_env.engine as engine
from carcassonne_env.engine import ActionKind, Game, GameConfig, SaveError, config, registry
from carcassonne_env.engine.actions import Action
from carcassonne_env.engine.black_tower import BlackTowerExpansion
from carcassonne_env.engine.expansion import BuilderSteps, Expansion, ExpansionHost, ExpansionState, PositionSetup
from carcassonne_env.engine.position import PositionBuilder, PositionError
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.engine.save_format import SavedPosition, fail, read_int, read_keys
from carcassonne_env.engine.tiles import TileType
from carcassonne_env.engine.tower import TowerExpansion
from carcassonne_env.engine.watchtowers import WatchtowersExpansion

ENGINE = Path(engine.__file__).parent
GENERIC = (
    "game.py", "persistence.py", "save_validation.py", "position.py", "text_board.py",
    # the game's job modules (game.py delegates to them)
    "board.py", "copying.py", "followers.py", "frontier.py", "game_setup.py", "pile.py", "record.py", "undo.py",
    "union_find.py", "valuation.py", "views.py",
)
#: Words that belong to one expansion: its name, its pieces, its actions.
EXPANSION_WORDS = re.compile(r"tower|prisoner|floor|ransom|capture|watchtower", re.IGNORECASE)


@pytest.mark.parametrize("module", GENERIC)
def test_the_generic_modules_name_no_expansion(module: str) -> None:
    source = (ENGINE / module).read_text()
    assert not EXPANSION_WORDS.findall(source), [
        line for line in source.splitlines() if EXPANSION_WORDS.search(line)
    ]
    for name in registry.PLUGINS:
        assert f'"{name}"' not in source and f"'{name}'" not in source


# ------------------------------------------------------------------ a toy expansion
@dataclass
class CounterState:
    """Counts the tiles on the board."""

    placed: int = 0

    def copy(self) -> CounterState:
        return CounterState(self.placed)

    def to_dict(self) -> dict[str, Any]:
        return {"placed": self.placed}


CALLS: list[str] = []


class CounterSteps(BuilderSteps):
    """A PositionBuilder step: count ``extra`` tiles more than the board holds."""

    steps = ("recount",)

    def __init__(self, config: GameConfig) -> None:
        super().__init__(config)
        self.extra = 0

    def recount(self, extra: int) -> None:
        self.extra += extra

    def apply(self, setup: PositionSetup) -> None:
        if self.extra < 0:
            setup.refuse("a count never falls below the board")
        setup.expansion_state(CounterExpansion.name).placed += self.extra


class CounterExpansion(Expansion):
    name = "toy_counter"
    builder_steps = CounterSteps

    @staticmethod
    def text_mark(tile: TileType) -> str | None:
        return "*"

    def text_lines(self, game: ExpansionHost) -> list[str]:
        return [f"counted {game.expansion_state(self.name).placed}"]

    def new_state(self, states: Mapping[str, ExpansionState]) -> CounterState:
        return CounterState()

    def state_from_dict(self, data: dict[str, Any]) -> CounterState:
        return CounterState(data["placed"])

    def on_tile_placed(self, game: ExpansionHost, pos: int, tile: TileType) -> None:
        game.expansion_state(self.name).placed += 1

    def parse_state(self, data: Any, at: str) -> CounterState:
        CALLS.append("parse_state")
        data = read_keys(data, at, frozenset({"placed"}))
        return CounterState(read_int(data["placed"], at + "placed", 0))

    def check_position(self, position: SavedPosition, state: CounterState) -> None:
        CALLS.append("check_position")
        if state.placed != len(position.tiles):
            fail(f"{position.at}expansions.{self.name}.placed",
                 f"{state.placed}, but {len(position.tiles)} tiles are on the board")


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> GameConfig:
    monkeypatch.setitem(registry.PLUGINS, CounterExpansion.name, CounterExpansion)
    monkeypatch.setattr(config, "EXPANSIONS", (*config.EXPANSIONS, CounterExpansion.name))
    CALLS.clear()
    return GameConfig(players=2, expansions=("tower", CounterExpansion.name))


def test_a_toy_expansion_plugs_in_and_the_validator_calls_its_hooks(toy: GameConfig) -> None:
    game, rng = Game(toy, seed=3), random.Random(3)
    for _ in range(30):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    doc = game.to_dict()
    assert doc["expansions"][CounterExpansion.name] == {"placed": game.tiles_placed}
    assert Game.from_dict(copy.deepcopy(doc)).to_dict() == doc
    assert CALLS == ["parse_state", "check_position"]

    doc["expansions"][CounterExpansion.name]["placed"] += 1
    with pytest.raises(SaveError) as info:
        Game.from_dict(doc)
    assert info.value.field == "expansions.toy_counter.placed"
    doc["expansions"][CounterExpansion.name] = {"placed": -1}
    with pytest.raises(SaveError, match="must be in") as info:
        Game.from_dict(doc)
    assert info.value.field == "expansions.toy_counter.placed"
    del doc["expansions"][CounterExpansion.name]
    with pytest.raises(SaveError, match="missing: the expansion is enabled"):
        Game.from_dict(doc)


def test_a_toy_expansion_draws_in_the_text_view(toy: GameConfig) -> None:
    game = PositionBuilder(toy).tile("base/RRRR", 0, 0).tile("base/L", 2, 0).tile("tower/F", 4, 0).build()
    lines = game.render_text().splitlines()
    # The centre of each tile: a monastery's M first, then the first plug-in's mark (the tower's T
    # before the toy's *), in registry order.
    assert [lines[1][1], lines[1][7], lines[1][13]] == ["*", "M", "T"]
    assert lines[-4:-1] == ["tower (4,0) h=0", "floors P0=(10, 0, 0) P1=(10, 0, 0)", "prisoners none"]
    assert lines[-1] == "counted 3"  # after the tower's lines: registry order


def test_a_toy_expansion_adds_a_builder_step(toy: GameConfig) -> None:
    builder = PositionBuilder(toy).tile("base/L", 0, 0)
    assert builder.recount(2) is builder and "recount" in dir(builder)
    assert builder.recount.__doc__ == CounterSteps.recount.__doc__
    assert builder.build().expansion_state(CounterExpansion.name).placed == 3
    with pytest.raises(PositionError, match="a count never falls below the board"):
        PositionBuilder(toy).recount(-1).build()
    with pytest.raises(PositionError, match=r"PositionBuilder.recount\(\) need the 'toy_counter' expansion"):
        PositionBuilder(GameConfig(players=2)).recount(1)
    with pytest.raises(AttributeError, match="no attribute 'recount_all'"):
        PositionBuilder(toy).recount_all(1)


def test_builder_steps_are_methods_with_names_of_their_own() -> None:
    own = set(dir(PositionBuilder))
    seen: set[str] = set()
    for plugin in registry.PLUGINS.values():
        steps = plugin.builder_steps
        for name in steps.steps if steps else ():
            assert callable(getattr(steps, name)) and name not in own and name not in seen, name
            seen.add(name)


# ------------------------------------------------------------------ Python subclasses of compiled plug-ins
# The plug-ins are compiled with the engine (setup.py, mypyc) and stay open to subclasses written in
# Python (``mypyc_attr(allow_interpreted_subclasses=True)``): the game calls the hooks a subclass
# overrides, whether the override is compiled or interpreted, and skips the others.


class CountingTower(TowerExpansion):
    """The tower with its T3 options counted: an interpreted override of a compiled hook."""

    calls: ClassVar[int] = 0

    def add_action_options(self, game: ExpansionHost, out: list[Action]) -> None:
        CountingTower.calls += 1
        super().add_action_options(game, out)


def test_overrides_sees_compiled_and_interpreted_hooks() -> None:
    assert TowerExpansion.overrides("add_action_options") and TowerExpansion.overrides("on_tile_placed")
    assert not TowerExpansion.overrides("before_scoring") and TowerExpansion.keeps_state()
    assert WatchtowersExpansion.overrides("before_scoring") and not WatchtowersExpansion.overrides("add_action_options")
    assert not WatchtowersExpansion.keeps_state() and not BlackTowerExpansion.overrides("on_tile_placed")
    assert CounterExpansion.overrides("on_tile_placed") and CounterExpansion.keeps_state()
    assert not CounterExpansion.overrides("add_action_options") and not CounterExpansion.overrides("before_scoring")
    assert CountingTower.overrides("add_action_options") and CountingTower.overrides("on_tile_placed")
    assert not CountingTower.overrides("before_scoring")


def _random_game(config: GameConfig, seed: int) -> Game:
    game, rng = Game(config, seed=seed), random.Random(seed)
    for _ in range(400):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def test_a_python_subclass_of_a_compiled_plugin_has_its_hooks_called(monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    expected = _random_game(config, 11).record().to_dict()
    registry.build_expansions.cache_clear()  # games with equal configs share their plug-ins
    monkeypatch.setitem(registry.PLUGINS, "tower", CountingTower)
    CountingTower.calls = 0
    try:
        game = _random_game(config, 11)
        assert isinstance(game.expansion("tower"), CountingTower)
        options = sum(1 for a in game.record().actions if a.kind in (ActionKind.PASS, ActionKind.DEPLOY))
        assert CountingTower.calls >= options > 0
        assert game.record().to_dict() == expected  # the same game as the compiled plug-in's
    finally:
        registry.build_expansions.cache_clear()

"""Build a game position directly: the way tests and analyses set up a rulebook example.

docs/rules.md §8: "A test may build the position directly with any tiles that carry those facts; it
need not grow the board from the start tile." A built board may have holes and need not contain
the start tile, but touching edges must still match (R11), so features stay well-formed.

>>> from carcassonne_env.engine import GameConfig
>>> b = PositionBuilder(GameConfig(players=2))
>>> b = b.tile("base/C", 0, 0).follower(1, 0, 0, slot=0)
>>> game = b.build(pile=["base/C"])
>>> game.supply, game.phase.name
((7, 6), 'PLACE')

Followers come out of their owner's supply. Nothing scores while building; the first tile of
``pile`` is drawn for ``current_player`` as in T1 (an empty pile ends the game at once, which runs
the final scoring).

The builder knows no expansion: an expansion adds its own steps through its
:class:`~.expansion.BuilderSteps` (``Expansion.builder_steps``), which chain like the builder's own
methods (``PositionBuilder(config).tile(…).<step>(…).build()``) and are set up after the tiles and
followers; their module documents them. A step of an expansion the config lacks raises
:class:`PositionError` naming that expansion.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .config import GameConfig
from .expansion import BuilderSteps
from .game import Game, GameSetup, PositionError
from .registry import PLUGINS

__all__ = ["PositionBuilder", "PositionError"]


@dataclass
class PositionBuilder:
    config: GameConfig = field(default_factory=GameConfig)
    _tiles: list[tuple[str, int, int, int]] = field(default_factory=list)
    _followers: list[tuple[int, int, int, int]] = field(default_factory=list)
    _scores: dict[int, int] = field(default_factory=dict)
    #: Expansion name → the steps recorded for it.
    _steps: dict[str, BuilderSteps] = field(default_factory=dict)

    def tile(self, tile_id: str, x: int, y: int, rotation: int = 0) -> PositionBuilder:
        """Put a tile at (x, y); its edges must match the tiles already next to it."""
        self._tiles.append((tile_id, x, y, rotation))
        return self

    def follower(self, player: int, x: int, y: int, slot: int) -> PositionBuilder:
        """A follower of ``player`` on segment ``slot`` of the tile at (x, y)."""
        self._followers.append((x, y, slot, player))
        return self

    def score(self, player: int, points: int) -> PositionBuilder:
        self._scores[player] = points
        return self

    def __getattr__(self, name: str) -> Callable[..., PositionBuilder]:
        """A step an expansion adds (``BuilderSteps.steps``), bound to this builder."""
        if name.startswith("_"):
            raise AttributeError(name)
        for plugin in PLUGINS.values():
            steps = plugin.builder_steps
            if steps is not None and name in steps.steps:
                break
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if plugin.name not in self.config.expansions:
            raise PositionError(f"positions with PositionBuilder.{name}() need the {plugin.name!r} expansion")
        recorder = self._steps.get(plugin.name)
        if recorder is None:
            recorder = self._steps[plugin.name] = steps(self.config)
        method = getattr(recorder, name)

        @functools.wraps(method)
        def step(*args: Any, **kwargs: Any) -> PositionBuilder:
            method(*args, **kwargs)
            return self

        return step

    def __dir__(self) -> list[str]:
        """The builder's own attributes and the steps of the config's expansions."""
        extra = [s for name in self.config.expansions if (b := PLUGINS[name].builder_steps) for s in b.steps]
        return sorted({*super().__dir__(), *extra})

    def build(self, pile: Sequence[str] = (), current_player: int = 0) -> Game:
        """The position as a game (through :class:`~.game.GameSetup`): ``current_player`` has drawn
        the first tile of ``pile``."""
        config = self.config
        setup = GameSetup(config, pile)
        for tid, x, y, rot in self._tiles:
            setup.put_tile(tid, x, y, rot)
        for x, y, slot, player in self._followers:
            setup.put_follower(player, x, y, slot)
        for name in config.expansions:
            recorder = self._steps.get(name)
            if recorder is not None:
                recorder.apply(setup)
        for player, points in self._scores.items():
            setup.set_score(player, points)
        return setup.start(current_player)

"""The record of a game: what it takes to replay it exactly (``Game.record``), and its JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import Action
from .config import GameConfig
from .game_setup import game_class

if TYPE_CHECKING:
    from .game import Game

__all__ = ["GameRecord"]


@dataclass(frozen=True)
class GameRecord:
    """What it takes to replay a game exactly: its config, its pile and its actions.

    A game set up by :class:`~.position.PositionBuilder` also keeps that start position
    (a ``Game.to_dict`` document), from which its replay starts.
    """

    config: GameConfig
    seed: int | None
    tile_order: tuple[str, ...] | None
    actions: tuple[Action, ...]
    start_position: dict[str, Any] | None = None

    def replay(self, upto: int | None = None) -> Game:
        """A fresh game with the first ``upto`` actions (all by default) applied."""
        game_type = game_class()  # the game module imports this one: the class it registered
        if self.start_position is not None:  # the built position, as the game that starts there
            game = game_type.from_dict({**self.start_position, "start_position": self.start_position})
        else:
            game = game_type(self.config, seed=self.seed, tile_order=self.tile_order)
        for action in self.actions[:upto]:
            game.apply(action)
        return game

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "seed": self.seed,
            "tile_order": None if self.tile_order is None else list(self.tile_order),
            "actions": [[int(v) for v in a] for a in self.actions],
            "start_position": self.start_position,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """The record of a :meth:`to_dict` document; a ValueError if it names no pile (a record
        without a seed, a tile order or a start position would replay on some other pile)."""
        order = data.get("tile_order")
        if data.get("seed") is None and order is None and data.get("start_position") is None:
            raise ValueError("a game record needs a seed, a tile_order or a start_position: it names no pile")
        return cls(
            config=GameConfig.from_dict(data["config"]),
            seed=data.get("seed"),
            tile_order=None if order is None else tuple(order),
            actions=tuple(Action.coerce(a) for a in data["actions"]),
            start_position=data.get("start_position"),
        )

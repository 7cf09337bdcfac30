"""Saving, loading and records of games: what ``Game.to_dict``/``from_dict``/``record`` do.

A saved game (``to_dict``) is the position, not the engine's internals: tiles in placement order,
followers, supplies, scores, whose turn and which decision, the tile in hand, the pile and how much
of it is drawn, the discarded tiles, the history, each expansion's state and, for a game set up by
:class:`~.position.PositionBuilder`, the start position. Loading (``from_dict``) checks the
document (:func:`~.save_validation.validate_document`), re-lays the tiles through
:class:`~.game.GameSetup`, the public construction path, so union-find roots never leak into saved
games and the loaded game continues exactly like the original, then checks what needs the rebuilt
features (:func:`~.save_validation.validate_loaded`). This module uses only public members of
``Game``.

A :class:`GameRecord` is (config, seed or tile order, actions), plus the start position of a
built game: :meth:`GameRecord.replay` rebuilds the identical game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import Action, Phase
from .config import GameConfig
from .save_validation import SaveError, validate_document, validate_loaded

if TYPE_CHECKING:
    from .game import Game

__all__ = ["FORMAT", "FORMAT_VERSION", "GameRecord", "game_from_dict", "game_from_json", "game_record",
           "game_to_dict", "game_to_json"]

#: The ``format`` and ``version`` every saved game carries.
FORMAT = "carcassonne_env/game"
FORMAT_VERSION = 1


def game_to_dict(game: Game) -> dict[str, Any]:
    """The whole state of ``game`` as JSON-safe data; :func:`game_from_dict` restores it exactly."""
    pile = game.pile_in_draw_order()
    seed = game.seed
    tile = game.current_tile
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "config": game.config.to_dict(),
        "seed": seed,
        "explicit_order": seed is None,
        "pile": [t.id for t in pile],
        "drawn": len(pile) - game.tiles_left,
        "tiles": [[t.id, x, y, r] for x, y, t, r in game.tiles()],
        "discarded": [t.id for t in game.discarded],
        "followers": [list(f) for f in game.followers()],
        "supply": list(game.supply),
        "scores": list(game.scores),
        "current_player": game.current_player,
        "turn": game.turn,
        "phase": game.phase.name,
        "tile": None if tile is None else tile.id,
        "history": [[int(v) for v in a] for a in game.history],
        "expansions": {k: v.to_dict() for k, v in game.expansion_states.items()},
        "start_position": game.start_position,
    }


def game_to_json(game: Game) -> str:
    return json.dumps(game_to_dict(game), separators=(",", ":"))


def game_from_dict(data: dict[str, Any]) -> Game:
    """Rebuild a game saved by :func:`game_to_dict`; continuing it equals continuing the original.

    A document that breaks a rule invariant raises :class:`~.save_validation.SaveError` naming
    the field (see :mod:`.save_validation`).
    """
    from .game import GameSetup

    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
        raise SaveError("format", f"not a {FORMAT} v{FORMAT_VERSION} document")
    validate_document(data)
    setup = GameSetup(GameConfig.from_dict(data["config"]), data["pile"], seed=data["seed"])
    for tile_id, x, y, rotation in data["tiles"]:
        setup.put_tile(tile_id, x, y, rotation)
    for x, y, slot, owner in data["followers"]:
        setup.put_follower(owner, x, y, slot)
    for player, (followers, points) in enumerate(zip(data["supply"], data["scores"], strict=True)):
        setup.set_supply(player, followers)
        setup.set_score(player, points)
    for name, state in data["expansions"].items():  # after the tiles, whose hooks fill a new state
        setup.load_expansion_state(name, state)
    game = setup.resume(
        drawn=data["drawn"],
        discarded=data["discarded"],
        current_player=data["current_player"],
        turn=data["turn"],
        phase=Phase[data["phase"]],
        tile=data["tile"],
        history=[Action.coerce(a) for a in data["history"]],
        start_position=data["start_position"],
    )
    validate_loaded(game)
    return game


def game_from_json(text: str) -> Game:
    return game_from_dict(json.loads(text))


def game_record(game: Game) -> GameRecord:
    """(config, seed or tile order, actions) of ``game``: replays to an identical game."""
    seed = game.seed
    return GameRecord(
        config=game.config,
        seed=seed,
        tile_order=tuple(t.id for t in game.pile_in_draw_order()) if seed is None else None,
        actions=game.history,
        start_position=game.start_position,
    )


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
        from .game import Game

        if self.start_position is not None:  # the built position, as the game that starts there
            game = game_from_dict({**self.start_position, "start_position": self.start_position})
        else:
            game = Game(self.config, seed=self.seed, tile_order=self.tile_order)
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
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
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

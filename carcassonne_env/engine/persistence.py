"""Saving and loading games: what ``Game.to_dict``/``from_dict`` do.

A saved game (``to_dict``) is the position, not the engine's internals: tiles in placement order,
followers, supplies, scores, whose turn and which decision, the tile in hand, the pile and how much
of it is drawn, the discarded tiles, the history, each expansion's state and, for a game set up by
:class:`~.position.PositionBuilder`, the start position. Loading (``from_dict``) checks the
document (:func:`~.save_validation.validate_document`), re-lays the tiles through
:class:`~.game.GameSetup`, the public construction path, so union-find roots never leak into saved
games and the loaded game continues exactly like the original, then checks what needs the rebuilt
features (:func:`~.save_validation.validate_loaded`). This module uses only public members of
``Game`` and sits below ``game.py``: it imports nothing of it at run time (``Game.from_dict`` hands
in ``GameSetup``). Records (``GameRecord``) live with the game in :mod:`.game`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .actions import Action, Phase
from .config import GameConfig
from .save_validation import SaveError, validate_document, validate_loaded

if TYPE_CHECKING:
    from .game import Game, GameSetup

__all__ = ["FORMAT", "FORMAT_VERSION", "game_from_dict", "game_from_json", "game_to_dict", "game_to_json"]

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


def game_from_dict(data: Mapping[str, Any], setup_class: type[GameSetup]) -> Game:
    """Rebuild a game saved by :func:`game_to_dict` through ``setup_class`` (``GameSetup``, which
    ``Game.from_dict`` hands in: this module sits below ``game.py`` and imports nothing of it);
    continuing it equals continuing the original.

    A document that breaks a rule invariant raises :class:`~.save_validation.SaveError` naming
    the field (see :mod:`.save_validation`).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
        raise SaveError("format", f"not a {FORMAT} v{FORMAT_VERSION} document")
    validate_document(data)
    setup = setup_class(GameConfig.from_dict(data["config"]), data["pile"], seed=data["seed"])
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


def game_from_json(text: str, setup_class: type[GameSetup]) -> Game:
    return game_from_dict(json.loads(text), setup_class)

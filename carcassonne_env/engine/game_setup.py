"""Setting a game up: the pile a new game draws from, and :class:`GameSetup`, the public way to
construct a game in a given position (docs/rules.md §8; the loader of saved games, :mod:`.persistence`).

The game module imports this one (``Game`` draws its pile here, and re-exports ``GameSetup``), so
this one names ``Game`` only in annotations; the class it builds is the one the game module
registers when it loads (:func:`register_game`, :func:`game_class`): no import cycle.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, SupportsIndex

from .actions import Action, Phase
from .board import completions, put_tile
from .config import GameConfig, as_int
from .frontier import REQ_MASK
from .geometry import DELTAS, pack
from .pile import draw
from .tiles import TileCatalogue, TileType, load_catalogue, seeded_pile

if TYPE_CHECKING:
    from .game import Game

__all__ = ["GameSetup", "PositionError", "game_class", "new_pile", "register_game"]

#: The game class, once its module has registered it (one entry).
_GAME: list[type[Game]] = []


def register_game(cls: type[Game]) -> None:
    """Name ``cls`` as the class of every game built here (the game module, as it loads)."""
    _GAME[:] = [cls]


def game_class() -> type[Game]:
    """The game class the game module registered (importing the engine package registers it)."""
    return _GAME[0]


class PositionError(ValueError):
    """The requested position cannot exist under the rules."""


def new_pile(
    config: GameConfig, catalogue: TileCatalogue, seed: SupportsIndex | None, tile_order: Sequence[str] | None
) -> tuple[int | None, list[TileType]]:
    """``(seed, pile)`` of a new game (R4): the pile of the config's tile sets shuffled by
    ``np.random.default_rng(seed)`` (a fresh random seed when both are None), or the explicit
    ``tile_order`` of tile ids, whose seed is None."""
    if seed is not None and tile_order is not None:
        raise ValueError("give a seed or a tile_order, not both")
    if tile_order is not None:
        allowed = {t.id for s in config.tile_sets or () for t in catalogue.sets[s]}
        for tid in tile_order:
            if tid not in allowed:
                raise ValueError(f"tile_order: {tid!r} is not a tile of the sets {config.tile_sets}")
        return None, [catalogue.by_id[tid] for tid in tile_order]
    number = secrets.randbits(63) if seed is None else as_int(seed)
    if number is None:
        raise TypeError(f"seed must be an int, got {seed!r}")
    if number < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return number, seeded_pile(catalogue, config.tile_sets or (), number)


class GameSetup:
    """The public way to construct a game in a given position, used by ``PositionBuilder`` (positions
    set up directly, docs/rules.md §8) and by the loader of saved games (:mod:`.persistence`).

    It starts from an empty board with full supplies and the config's expansion states, and
    nothing scores while setting up. Each ``put_…``/``take_…`` call checks what a position needs
    (R11 for touching edges, R2 and R15/R42 for followers) and raises :class:`PositionError` naming
    what is wrong. A built board may have holes and need not contain the start tile. :meth:`start`
    draws the first tile (T1) and hands out the game; :meth:`resume`, for loaders, hands it out in
    the middle of play exactly as saved. Either way the setup is then spent.
    """

    def __init__(self, config: GameConfig, pile: Sequence[str] = (), *, seed: int | None = None) -> None:
        """``pile``: tile ids in draw order. ``seed``: for loaders, the seed that shuffled this pile
        (``Game(config, seed=…)``); None means the pile is an explicit order."""
        catalogue = load_catalogue()
        game = game_class()(_blank=True)
        game._init_empty(config, catalogue, seed, [catalogue[t] for t in pile])
        self._game: Game | None = game

    def refuse(self, message: str) -> NoReturn:
        """Raise ``PositionError(message)``: the position cannot exist, for the reason ``message``
        (what expansion steps call on a ``PositionSetup``)."""
        raise PositionError(message)

    def _live(self) -> Game:
        if self._game is None:
            raise RuntimeError("this setup has already started its game")
        return self._game

    def expansion_state(self, name: str) -> Any:
        """The state of an enabled expansion, to set up (``Expansion.new_state`` made it)."""
        return self._live().expansion_state(name)

    def load_expansion_state(self, name: str, data: dict[str, Any]) -> None:
        """Replace the state of expansion ``name`` by one read from its ``to_dict`` data (loaders).

        Call it after the tiles are put: placing a tile may update the state (``on_tile_placed``)."""
        g = self._live()
        state = g.expansion(name).state_from_dict(data)
        if state is not None:
            g._ext[name] = state

    def put_tile(self, tile_id: str, x: int, y: int, rotation: int = 0) -> None:
        """Put a tile at (x, y): on an empty position, its edges matching its neighbours (R11)."""
        g = self._live()
        tile = g._catalogue[tile_id]
        p = pack(x, y)
        if p in g._board:
            raise PositionError(f"two tiles at ({x},{y})")
        req = g._frontier.get(p, 0) & REQ_MASK
        if req and rotation not in tile.fits[req]:
            raise PositionError(f"{tile_id} rotation {rotation} at ({x},{y}) does not match its neighbours (R11)")
        if not req and any(p + d in g._board for d in DELTAS):
            raise PositionError(f"({x},{y}) is not on the frontier")
        put_tile(g, tile, p, rotation)

    def put_follower(self, player: int, x: int, y: int, slot: int) -> None:
        """A follower of ``player``, from their supply, on segment ``slot`` of the tile at (x, y)."""
        g = self._live()
        i = g._board.get(pack(x, y))
        if i is None or not 0 <= slot < g._tile_type[i].segment_count:
            raise PositionError(f"no segment {slot} at ({x},{y})")
        node = g._tile_base[i] + slot
        if node in g._followers:
            raise PositionError(f"segment {slot} at ({x},{y}) already holds a follower (R42)")
        g._followers[node] = player
        g._occupants[g._find(node)] += 1
        g._final_memo = None
        self.take_follower(player, reason=f"follower at ({x},{y})")

    def take_follower(self, player: int, *, reason: str) -> None:
        """Take a follower out of ``player``'s supply for ``reason`` (one an expansion keeps off the
        segments)."""
        g = self._live()
        if g._supply[player] == 0:
            raise PositionError(f"player {player} has no follower left for the {reason} (R2)")
        g._supply[player] -= 1

    def set_supply(self, player: int, followers: int) -> None:
        """Set ``player``'s supply outright (loaders: the saved count, after the followers are put)."""
        self._live()._supply[player] = followers

    def set_score(self, player: int, points: int) -> None:
        self._live()._scores[player] = points

    def start(self, current_player: int = 0) -> Game:
        """Draw the first tile of the pile for ``current_player`` (T1; an empty pile ends the game
        at once, with the final scoring) and return the game, which records this start position."""
        g = self._live()
        g._current = current_player
        draw(g)
        g._start_position = g.to_dict()
        self._game = None
        return g

    def resume(
        self,
        *,
        drawn: int,
        discarded: Sequence[str],
        current_player: int,
        turn: int,
        phase: Phase,
        tile: str | None,
        history: Sequence[Action],
        start_position: dict[str, Any] | None,
    ) -> Game:
        """For loaders only: return the game in the middle of play, exactly as saved, drawing nothing.

        The first ``drawn`` tiles of the pile are gone (placed, ``discarded`` or ``tile``, the one in
        hand). In ACTION and DECISION the last tile put is this turn's: the features it completed
        score at the end of the turn, and DECISION is answered by the expansion whose action, the
        last of the history, opened it.
        ``start_position`` is the position a built game started from (``Game.start_position``).
        Nothing here is checked against the rules: the loader checks the document before
        (``save_validation.validate_document``) and the game after (``validate_loaded``).
        """
        g = self._live()
        catalogue = g._catalogue
        g._drawn = drawn
        g._remaining = [0] * len(catalogue.types)
        for t in g._pile[drawn:]:
            g._remaining[t.index] += 1
        g._discarded = [catalogue[t] for t in discarded]
        g._current = current_player
        g._turn = turn
        g._phase = phase
        g._tile = None if tile is None else catalogue[tile]
        g._history = list(history)
        g._start_position = start_position
        if phase in (Phase.ACTION, Phase.DECISION):
            g._completed = completions(g, len(g._tile_pos) - 1)
        if phase is Phase.DECISION:  # the last action opened the decision: its owner answers it
            g._decision_owner = g._action_owner[g._history[-1].kind]
        g._final_memo = None
        self._game = None
        return g

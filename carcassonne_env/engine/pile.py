"""The tile pile of a game: T1's draw (R10, R13, R26), what a player may know of it (R4), and a
copy of the game whose unseen pile is reshuffled (``Game.determinize``).

``_pile`` is the whole pile in draw order and never changes in place (clones share it);
``_drawn`` counts the tiles drawn; ``_remaining`` counts the undrawn ones per catalogue index
(invariant: it is the multiset of ``_pile[_drawn:]``); ``_discarded`` lists the tiles drawn and
put aside as unplaceable (R13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .actions import Phase
from .frontier import REQ_MASK
from .valuation import end_game

if TYPE_CHECKING:
    from .game import Game

__all__ = ["chance_outcomes", "determinized", "draw"]


def draw(game: Game) -> None:
    """T1: draw the next tile that fits somewhere on the frontier, discarding those that fit nowhere
    (R10, R13); an empty pile ends the game with the final scoring (R26)."""
    pile = game._pile
    while game._drawn < len(pile):
        tile = pile[game._drawn]
        game._drawn += 1
        game._remaining[tile.index] -= 1
        fits = tile.fits
        for cell in game._frontier.values():
            if fits[cell & REQ_MASK]:  # placeable: its legal list is built when asked (search lines rarely ask)
                game._tile = tile
                game._phase = Phase.PLACE
                game._legal = None
                return
        game._discarded.append(tile)
    end_game(game)


def determinized(game: Game, rng: np.random.Generator) -> Game:
    """A clone of ``game`` whose tiles not yet drawn are in a fresh uniform order drawn from ``rng``
    (a new list: the clone shares the old one); its pile is then an explicit order (no seed)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    g = game.clone()
    drawn = g._drawn
    pile = g._pile
    unseen = pile[drawn:]
    order: list[int] = rng.permutation(len(unseen)).tolist()  # typed: the compiled loop reads ints
    g._pile = pile[:drawn] + [unseen[i] for i in order]
    g._seed = None
    return g


def public_copied(game: Game) -> Game:
    """A clone of ``game`` whose unseen pile lists the tiles left in catalogue order (only their
    multiset is public, R4): a function of the public state alone; an explicit order (no seed)."""
    g = game.clone()
    types = game._catalogue.types
    g._pile = game._pile[:game._drawn] + [types[i] for i, count in enumerate(game._remaining) for _ in range(count)]
    g._seed = None
    return g


def with_drawn_next(game: Game, tile_id: str) -> Game:
    """A clone of ``game`` whose next draw is the first unseen tile of type ``tile_id`` (moved to the
    front of the unseen pile, the others keep their order); ValueError when none is left."""
    pile, drawn = game._pile, game._drawn
    for i in range(drawn, len(pile)):
        if pile[i].id == tile_id:
            g = game.clone()
            g._pile = [*pile[:drawn], pile[i], *pile[drawn:i], *pile[i + 1:]]
            g._seed = None
            return g
    raise ValueError(f"with_next_draw: no {tile_id!r} tile is left to draw")


def chance_outcomes(game: Game) -> dict[str, float]:
    """The distribution of the next draw: tile id → probability, from the tiles left (R4); empty when
    the pile is."""
    left = len(game._pile) - game._drawn
    if left == 0:
        return {}
    types = game._catalogue.types
    return {types[i].id: c / left for i, c in enumerate(game._remaining) if c}

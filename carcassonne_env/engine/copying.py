"""Copying a game (``Game.clone``): shallow copies of the state that play changes in place, the
rest shared.

Shared, and invisible: what never changes in place (the config, the pile, the expansion hooks; the
turn's plain values and the lists play replaces rather than changes) and the board group
(:data:`.board.BOARD_GROUP`), copy-on-write: both games share it until one of them puts a tile
(:func:`.board.put_tile` copies it first), which search lines that only make a turn's choices after
the placement never do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Game

__all__ = ["copy_into"]

#: This module runs compiled (mypyc): its file is the C extension, not the source.
_COMPILED = not __file__.endswith(".py")


def copy_into(g: Game, game: Game) -> None:
    """Make ``g``, a blank game (``Game(_blank=True)``), an independent copy of ``game``; copy-on-write
    of the board group turns on in both."""
    if _COMPILED:  # a compiled game keeps its attributes in a C struct, not in its __dict__
        _share(g, game)
    else:  # the Python source: the shared attributes in one step (2.5× faster)
        g.__dict__.update(game.__dict__)
        game._cow = g._cow = True
    # copied: changed in place by play
    g._remaining = game._remaining.copy()
    g._discarded = game._discarded.copy()
    g._occupants = game._occupants.copy()
    g._followers = game._followers.copy()
    g._supply = game._supply.copy()
    g._scores = game._scores.copy()
    g._completed = game._completed.copy()
    g._history = game._history.copy()
    g._ext = {k: v.copy() for k, v in game._ext.items()}
    log = game._score_log
    g._score_log = None if log is None else log.copy()
    g._root_log = g._parent_log = None
    if game._parent_log is not None:  # a placement is open: the copy's path compression must
        g._parent = game._parent.copy()  # not write, unlogged, into the list undo_place restores


def _share(g: Game, other: Game) -> None:
    """:func:`copy_into`'s first step when compiled (attributes in a C struct): take every attribute of
    ``other`` that a clone shares with it, and turn copy-on-write on in both (see :func:`.board.unshare`)."""
    # immutable, or never changed in place (the pile, the expansion hooks)
    g._config = other._config
    g._catalogue = other._catalogue
    g._seed = other._seed
    g._pile = other._pile
    g._drawn = other._drawn
    g._start_position = other._start_position
    g._expansions = other._expansions
    g._placed_hooks = other._placed_hooks
    g._option_hooks = other._option_hooks
    g._scoring_hooks = other._scoring_hooks
    g._figure_sources = other._figure_sources
    g._action_owner = other._action_owner
    g._neutral_endings = other._neutral_endings
    # the board group, copy-on-write (.board.unshare), and what is derived from it
    other._cow = g._cow = True
    g._board = other._board
    g._tile_pos = other._tile_pos
    g._tile_type = other._tile_type
    g._tile_rot = other._tile_rot
    g._tile_base = other._tile_base
    g._frontier = other._frontier
    g._monasteries = other._monasteries
    g._parent = other._parent
    g._kind = other._kind
    g._node_tile = other._node_tile
    g._open = other._open
    g._tiles = other._tiles
    g._pennants = other._pennants
    g._adj = other._adj
    g._value_cache = other._value_cache
    g._closed_nodes = other._closed_nodes
    g._closed_cities = other._closed_cities
    g._final_memo = other._final_memo
    # the turn: plain values, or lists no one changes in place (a new one each time)
    g._current = other._current
    g._turn = other._turn
    g._phase = other._phase
    g._tile = other._tile
    g._legal = other._legal
    g._decision_owner = other._decision_owner

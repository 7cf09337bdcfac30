"""The undo journal of a placement: ``Game.apply_place_undoable`` plays a PLACE in the game itself
and ``Game.undo_place`` takes it back, so that a search line valuing placements copies no board.

Invariant while a placement is open (``game._parent_log`` is not None): every write to the
union-find parents of the game (merges and path compression) is in its parent log, and every
root's totals before a merge are in its root log (:mod:`.union_find` writes both); the containers
the placement replaces or appends to are kept in a :class:`PlaceUndo`. A clone taken meanwhile
takes its own parents, so that its path compression stays out of the logs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import Action, ActionKind, IllegalActionError, Phase
from .board import place, unshare
from .union_find import restore_parents, restore_roots

if TYPE_CHECKING:
    from .game import Game

__all__ = ["PlaceUndo", "open_placement", "undo_placement"]


class PlaceUndo:
    """What :meth:`Game.apply_place_undoable` changes and :meth:`Game.undo_place` restores: the
    sizes of the board and union-find before the placement, the logs of what the placement wrote
    over, and the attributes it replaces (kept, not copied: the game works on copies meanwhile)."""

    def __init__(self, game: Game) -> None:
        self.tiles = len(game._tile_pos)
        self.nodes = len(game._parent)
        self.frontier = game._frontier
        self.value_cache = game._value_cache
        self.closed_nodes = game._closed_nodes
        self.closed_cities = game._closed_cities
        self.final_memo = game._final_memo
        self.completed = game._completed
        self.legal = game._legal
        self.history = len(game._history)
        #: (node, parent) per write to the union-find parents, oldest first.
        self.parent_log: list[int] = []
        #: (root, open, tiles, pennants, occupants, adj) per merge, oldest first.
        self.root_log: list[int] = []


def open_placement(game: Game, action: Action) -> PlaceUndo:
    """Play the PLACE ``action`` in ``game`` with the journal open and return it; a refused action
    (R11) leaves the game as it was and raises :class:`IllegalActionError`."""
    if action.kind != ActionKind.PLACE:
        raise IllegalActionError(f"{action}: the current decision is PLACE (T2)")
    if game._cow:
        unshare(game)
    undo = PlaceUndo(game)
    game._frontier = undo.frontier.copy()
    game._value_cache = undo.value_cache.copy()
    game._parent_log = undo.parent_log
    game._root_log = undo.root_log
    try:
        place(game, action)
    except IllegalActionError:  # refused before any change (R11): the game as it was
        game._parent_log = game._root_log = None
        game._frontier = undo.frontier
        game._value_cache = undo.value_cache
        raise
    game._final_memo = None
    game._legal = None
    game._history.append(action)
    return undo


def undo_placement(game: Game, undo: PlaceUndo) -> None:
    """Take back the open placement of ``game`` that :func:`open_placement` journalled in ``undo``:
    every attribute as it was, the order of the frontier (the order of the legal PLACE actions)
    included."""
    if undo.parent_log is not game._parent_log:
        raise ValueError("undo_place: not the placement open in this game")
    game._parent_log = game._root_log = None
    if game._cow:  # a clone taken while the placement was open shares the board group
        unshare(game)
    parent = game._parent
    open_ = game._open
    tiles = game._tiles
    pennants = game._pennants
    occupants = game._occupants
    adj = game._adj
    restore_roots(undo.root_log, open_, tiles, pennants, occupants, adj)
    restore_parents(undo.parent_log, parent)
    base = undo.nodes
    for nodes in (parent, game._kind, game._node_tile, open_, tiles, pennants, occupants, adj):
        del nodes[base:]
    idx = undo.tiles
    p = game._tile_pos[idx]
    del game._board[p]
    if game._tile_type[idx].monastery_slot >= 0:
        del game._monasteries[p]
    del game._tile_pos[idx:]
    del game._tile_type[idx:]
    del game._tile_rot[idx:]
    del game._tile_base[idx:]
    game._frontier = undo.frontier
    game._value_cache = undo.value_cache
    game._closed_nodes = undo.closed_nodes
    game._closed_cities = undo.closed_cities
    game._final_memo = undo.final_memo
    game._completed = undo.completed
    game._legal = undo.legal
    game._phase = Phase.PLACE
    del game._history[undo.history:]

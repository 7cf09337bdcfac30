"""Laying a tile: the board, the frontier and the features' union-find of a game, and which
features a tile completes (R11's edges, R6–R8's features, R19–R20's completions).

The board group (:data:`BOARD_GROUP`) is the state that only :func:`put_tile` changes: ``_board``
maps a packed position (see :mod:`.geometry`) to the placement index of its tile; per placement
index ``_tile_pos``, ``_tile_type``, ``_tile_rot``, ``_tile_base`` (the union-find node of the
tile's segment 0: segment ``s`` is node ``base + s``); ``_frontier`` (see :mod:`.frontier`);
``_monasteries`` (packed position → its monastery's node); per node ``_parent``, ``_kind``,
``_node_tile`` and the root totals ``_open``, ``_tiles``, ``_pennants``, ``_adj`` (see
:mod:`.union_find`; ``_occupants`` too, but followers change it, so it is not in the group); and
``_value_cache``, feature root → its end-game value (:mod:`.valuation`).

``Game.clone`` shares the group's containers and sets ``_cow`` on both games; :func:`put_tile`
copies them (:func:`unshare`) before its first change. Invariant: a game with ``_cow`` False owns
them alone. Path compression writes to a shared ``_parent``, which is harmless: games that share it
have the same forest, and compression keeps every root. Invariant of ``_value_cache``: every entry
keyed by a current root is that feature's value now; :func:`put_tile` drops the roots it merges
into, the monasteries around the tile, and everything when a city completes (fields bordering it
gain 3 points).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .actions import Action, IllegalActionError, Phase
from .frontier import REQ_MASK, place_slot
from .geometry import AREA, DELTAS, RING, check_coords
from .tiles import SegmentKind, TileType
from .union_find import find, join_edges, join_fields, log_root

if TYPE_CHECKING:
    from .game import Game

__all__ = ["BOARD_GROUP", "completions", "place", "put_tile", "unshare"]

_CITY: Final = SegmentKind.CITY
_ROAD: Final = SegmentKind.ROAD

#: The game attributes that only :func:`put_tile` changes, shared copy-on-write between clones.
BOARD_GROUP: Final[tuple[str, ...]] = (
    "_board", "_tile_pos", "_tile_type", "_tile_rot", "_tile_base", "_frontier", "_monasteries", "_parent",
    "_kind", "_node_tile", "_open", "_tiles", "_pennants", "_adj", "_value_cache",
)

#: Per tile type (catalogue index): the slots of its roads and cities, the segments that complete (R19).
_EDGE_SLOTS: Final[dict[int, tuple[int, ...]]] = {}


def unshare(game: Game) -> None:
    """Give ``game`` private copies of the board group (see ``Game.clone``) before changing it."""
    game._board = game._board.copy()
    game._tile_pos = game._tile_pos.copy()
    game._tile_type = game._tile_type.copy()
    game._tile_rot = game._tile_rot.copy()
    game._tile_base = game._tile_base.copy()
    game._frontier = game._frontier.copy()
    game._monasteries = game._monasteries.copy()
    game._parent = game._parent.copy()
    game._kind = game._kind.copy()
    game._node_tile = game._node_tile.copy()
    game._open = game._open.copy()
    game._tiles = game._tiles.copy()
    game._pennants = game._pennants.copy()
    game._adj = game._adj.copy()
    game._value_cache = game._value_cache.copy()
    game._cow = False


def place(game: Game, action: Action) -> None:
    """T2: lay the tile in hand where the PLACE ``action`` says and note the features it completes
    (scored in T5); the game moves on to T3. A placement that breaks R11 raises
    :class:`IllegalActionError` before anything changes."""
    _, x, y, rot = action
    p = check_coords(x, y)
    cell = game._frontier.get(p)
    tile = game._tile
    assert tile is not None
    if cell is None:
        where = "is occupied" if p in game._board else "has no orthogonal neighbour (R11)"
        raise IllegalActionError(f"{action}: position ({x},{y}) {where}")
    if rot not in tile.fits[cell & REQ_MASK]:
        raise IllegalActionError(
            f"{action}: {tile.id} with rotation {rot} does not match the "
            f"neighbouring edges at ({x},{y}) (R11)"
        )
    idx = put_tile(game, tile, p, rot)
    game._completed = completions(game, idx)
    game._phase = Phase.ACTION


def put_tile(game: Game, tile: TileType, p: int, rot: int) -> int:
    """Add ``tile`` at ``p`` to the board, frontier and union-find of ``game`` and return its
    placement index; no legality, no scoring.

    The only writer of the board group (:data:`BOARD_GROUP`), and of the completed-city masks
    ``_closed_nodes`` / ``_closed_cities`` (invariant: one mask of segment ids per city with no
    open edge, and their union; a completed city never changes again, R19). Every expansion's
    ``on_tile_placed`` hook runs last.
    """
    if game._cow:
        unshare(game)
    game._final_memo = None
    cache = game._value_cache
    board = game._board
    tile_pos = game._tile_pos
    idx = len(tile_pos)
    board[p] = idx
    tile_pos.append(p)
    game._tile_type.append(tile)
    game._tile_rot.append(rot)
    parent = game._parent
    base = len(parent)
    tile_base = game._tile_base
    tile_base.append(base)
    kind = game._kind
    kind.extend(tile.segment_kinds)
    open_ = game._open
    open_.extend(tile.segment_edge_counts)
    pennants = game._pennants
    pennants.extend(tile.segment_pennants)
    node_tile = game._node_tile
    tiles = game._tiles
    occupants = game._occupants
    adj = game._adj
    bit = 1 << idx
    for city_bits in tile.field_city_bits:  # one a segment: a loop, not temporary lists
        parent.append(len(parent))
        node_tile.append(idx)
        tiles.append(bit)
        occupants.append(0)
        adj.append(city_bits << base)
    monasteries = game._monasteries
    if tile.monastery_slot >= 0:
        monasteries[p] = base + tile.monastery_slot
    if cache and monasteries:
        for off in AREA:
            m = monasteries.get(p + off)
            if m is not None:
                cache.pop(m, None)

    frontier = game._frontier
    if p in frontier:  # not frontier.pop(p, None): compiled, that is a method call by name
        del frontier[p]
    code = tile.edge_code[rot]
    ports = tile.ports[rot]
    types = game._tile_type
    rots = game._tile_rot
    root_log = game._root_log
    parent_log = game._parent_log
    closed: list[int] = []
    for d in range(4):
        q = p + DELTAS[d]
        j = board.get(q)
        d2 = (d + 2) & 3
        if j is None:
            cell = frontier.get(q)
            if cell is None:
                cell = place_slot(q)
            frontier[q] = cell | (((code >> (2 * d)) & 3) << (2 * d2))
            continue
        jbase = tile_base[j]
        theirs = types[j].ports[rots[j]][d2]
        mine = ports[d]
        m = mine[0]
        if m >= 0:
            a = find(parent, jbase + theirs[0], parent_log)
            b = find(parent, base + m, parent_log)
            if cache:
                cache.pop(a, None)
            if root_log is not None and parent_log is not None:
                log_root(root_log, parent_log, a, b, open_, tiles, pennants, occupants, adj)
            join_edges(parent, open_, tiles, pennants, occupants, a, b)
            if not open_[a] and kind[a] is _CITY:
                closed.append(a)  # final: a feature at 0 open edges takes no more merges (R19)
        # the fields on either side of the edge (written out twice: compiled, ``mine`` and ``theirs``
        # are unboxed triples, read by constant index only)
        m = mine[1]
        if m >= 0:
            a = find(parent, jbase + theirs[2], parent_log)
            b = find(parent, base + m, parent_log)
            if a != b:
                if cache:
                    cache.pop(a, None)
                if root_log is not None and parent_log is not None:
                    log_root(root_log, parent_log, a, b, open_, tiles, pennants, occupants, adj)
                join_fields(parent, tiles, occupants, adj, a, b)
        m = mine[2]
        if m >= 0:
            a = find(parent, jbase + theirs[1], parent_log)
            b = find(parent, base + m, parent_log)
            if a != b:
                if cache:
                    cache.pop(a, None)
                if root_log is not None and parent_log is not None:
                    log_root(root_log, parent_log, a, b, open_, tiles, pennants, occupants, adj)
                join_fields(parent, tiles, occupants, adj, a, b)
    for root in closed:
        _close_city(game, root)
    for hook in game._placed_hooks:
        hook(game, p, tile)
    return idx


def _close_city(game: Game, root: int) -> None:
    """Record the city rooted at ``root``, just completed, in the completed-city masks."""
    kind = game._kind
    tile_base = game._tile_base
    types = game._tile_type
    parent = game._parent
    log = game._parent_log
    mask = 0
    tiles = game._tiles[root]
    while tiles:
        low = tiles & -tiles
        i = low.bit_length() - 1
        tiles ^= low
        base = tile_base[i]
        for node in range(base, base + types[i].segment_count):
            if kind[node] is _CITY and find(parent, node, log) == root:
                mask |= 1 << node
    game._closed_nodes |= mask
    game._closed_cities = (*game._closed_cities, mask)
    game._value_cache.clear()  # the fields bordering this city are worth more


def completions(game: Game, idx: int) -> list[int]:
    """Roots of the features that tile ``idx`` completes (R19, R20, R22)."""
    tile = game._tile_type[idx]
    base = game._tile_base[idx]
    out: list[int] = []
    open_ = game._open
    parent = game._parent
    log = game._parent_log
    slots = _EDGE_SLOTS.get(tile.index)
    if slots is None:
        slots = _EDGE_SLOTS[tile.index] = tuple(s for s, k in enumerate(tile.segment_kinds) if k <= _ROAD)
    for s in slots:
        root = find(parent, base + s, log)
        if open_[root] == 0 and root not in out:
            out.append(root)
    monasteries = game._monasteries
    if monasteries:
        board = game._board
        p = game._tile_pos[idx]
        for off in AREA:
            m = monasteries.get(p + off)
            if m is not None:
                q = p + off
                for d in RING:
                    if q + d not in board:
                        break
                else:
                    out.append(m)
    return out

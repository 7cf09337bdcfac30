"""The static board planes of a tile in the observation (:class:`Stamp`) and the links across tile
borders, from the sub-cell picture of :mod:`carcassonne_env.engine.subcells` (whose docstring
states which segment each of the 3×3 sub-cells of a tile shows, and when two sub-cells link).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..engine.subcells import EDGE_CELLS, segment_cells, slot_grid
from ..engine.tiles import TileType, load_catalogue

__all__ = ["EDGE_CELLS", "Stamp", "border_links", "slot_grid", "stamp"]

_NONE = -1


class Stamp:
    """The static planes of one tile type in one rotation, and where each segment shows.

    ``planes[k]`` (uint8, 3×3) for the static board planes in :data:`STATIC_PLANES` order;
    ``slots`` (3×3) the slot grid; ``cells[s]`` the flat indices ``3 * r + c`` of segment ``s``.
    """

    __slots__ = ("cells", "planes", "slots")

    #: Names of the planes a stamp fills, in order (the first planes of the board tensor).
    STATIC_PLANES = ("city", "road", "field", "monastery", "slot", "pennants", "link_east", "link_south")

    def __init__(self, tile: TileType, rot: int) -> None:
        grid = slot_grid(tile, rot)
        self.slots = grid
        planes = np.zeros((len(self.STATIC_PLANES), 3, 3), dtype=np.uint8)
        for r in range(3):
            for c in range(3):
                s = grid[r][c]
                if s == _NONE:
                    continue
                planes[int(tile.segment_kinds[s]), r, c] = 1
                planes[4, r, c] = s + 1
                planes[5, r, c] = tile.segment_pennants[s]
                if c < 2 and grid[r][c + 1] == s:
                    planes[6, r, c] = 1
                if r < 2 and grid[r + 1][c] == s:
                    planes[7, r, c] = 1
        self.planes = planes
        self.cells = segment_cells(tile, rot)


@cache
def _stamps() -> tuple[tuple[Stamp, Stamp, Stamp, Stamp], ...]:
    return tuple(
        (Stamp(t, 0), Stamp(t, 1), Stamp(t, 2), Stamp(t, 3)) for t in load_catalogue().types
    )


def stamp(tile: TileType, rot: int) -> Stamp:
    """The (cached) stamp of ``tile`` in rotation ``rot``."""
    return _stamps()[tile.index][rot]


@cache
def border_links(first: TileType, first_rot: int, second: TileType, second_rot: int, east: bool) -> tuple[int, ...]:
    """Links across the border between two touching tiles, one per sub-cell of the border.

    ``second`` lies east of ``first`` when ``east`` (the border is ``first``'s column 2 against
    ``second``'s column 0, read top to bottom), otherwise south of it (``first``'s row 2 against
    ``second``'s row 0, read west to east). Segments are joined when they own the touching edge or
    a touching pair of half-edges (L meets R, C2).
    """
    d = 1 if east else 2
    mine = first.ports[first_rot][d]
    theirs = second.ports[second_rot][(d + 2) % 4]
    joined = {(mine[0], theirs[0]), (mine[1], theirs[2]), (mine[2], theirs[1])}
    a = stamp(first, first_rot).slots
    b = stamp(second, second_rot).slots
    pairs = [(a[i][2], b[i][0]) if east else (a[2][i], b[0][i]) for i in range(3)]
    return tuple(int(sa != _NONE and sb != _NONE and (sa, sb) in joined) for sa, sb in pairs)

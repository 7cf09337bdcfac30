"""A text picture of the board for debugging and the env's ``ansi`` mode.

Every tile is a 3×3 block of characters, north up::

    f C f      edges: C city, R road, . field; a digit = the player whose follower stands on the
    . M R      road/city segment owning that edge. Corners: a digit = a farmer on the field at that
    f R f      corner. Centre: M monastery (digit = monk), else the mark of an expansion.

Empty positions are blank. Below the grid: scores, supplies, then the lines each expansion of the
game adds. The renderer knows no expansion: the centre mark of a tile is the first that a registered
plug-in gives (``Expansion.text_mark``, registry order, whatever the config), and the lines below
are those of the game's expansions (``Expansion.text_lines``, registry order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .registry import PLUGINS
from .tiles import SegmentKind, Terrain, TileType

if TYPE_CHECKING:
    from .game import Game

__all__ = ["render_board"]

_TERRAIN_CHAR = {Terrain.CITY: "C", Terrain.ROAD: "R", Terrain.FIELD: "."}
#: Row/column inside the 3×3 block of edge e and of the corner next to half-edge h.
_EDGE_CELL = ((0, 1), (1, 2), (2, 1), (1, 0))
_CORNER_CELL = ((0, 0), (0, 2), (2, 2), (2, 0))


def _corner_of_half(h: int) -> int:
    """Corner NW=0, NE=1, SE=2, SW=3 that half-edge h touches."""
    return ((h + 1) % 8) // 2


def _centre_mark(tile: TileType) -> str:
    """The centre of a tile's block before followers: M for a monastery, else an expansion's mark."""
    if tile.monastery_slot >= 0:
        return "M"
    for plugin in PLUGINS.values():
        mark = plugin.text_mark(tile)
        if mark is not None:
            return mark
    return " "


def render_board(game: Game) -> str:
    tiles = game.tiles()
    xs = [t.x for t in tiles]
    ys = [t.y for t in tiles]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    width = 3 * (x1 - x0 + 1)
    grid = [[" "] * width for _ in range(3 * (y1 - y0 + 1))]
    occupied = {(f.x, f.y, f.slot): f.owner for f in game.followers()}
    for t in tiles:
        block = [[" "] * 3 for _ in range(3)]
        for e, terrain in enumerate(t.tile.edge_terrain):
            r, c = _EDGE_CELL[(e + t.rotation) % 4]
            block[r][c] = _TERRAIN_CHAR[terrain]
        block[1][1] = _centre_mark(t.tile)
        for slot, kind in enumerate(t.tile.segment_kinds):
            owner = occupied.get((t.x, t.y, slot))
            if owner is None:
                continue
            if kind is SegmentKind.MONASTERY:
                cell = (1, 1)
            elif kind is SegmentKind.FIELD:
                halves = t.tile.segment_half_edges[t.rotation][slot]
                cell = _CORNER_CELL[_corner_of_half(halves[0])] if halves else (1, 1)
            else:
                cell = _EDGE_CELL[t.tile.segment_edges[t.rotation][slot][0]]
            block[cell[0]][cell[1]] = str(owner)
        top = 3 * (y1 - t.y)
        left = 3 * (t.x - x0)
        for r in range(3):
            grid[top + r][left:left + 3] = block[r]
    lines = ["".join(row).rstrip() for row in grid]
    lines.append(f"x {x0}..{x1}, y {y0}..{y1} (north up); tiles left {game.tiles_left}")
    lines.append("scores " + " ".join(f"P{p}={s}" for p, s in enumerate(game.scores)))
    lines.append("supply " + " ".join(f"P{p}={s}" for p, s in enumerate(game.supply)))
    for name in game.config.expansions:
        lines.extend(game.expansion(name).text_lines(game))
    return "\n".join(lines)

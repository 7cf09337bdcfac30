"""SVG pictures of tiles, drawn from the sub-cell picture of :mod:`carcassonne_env.engine.subcells`.

A tile is :data:`SIZE` × :data:`SIZE` SVG units, north up, sub-cell ``(r, c)`` at
``(c * CELL, r * CELL)``. Which segment shows where comes only from ``slot_grid``; this module
decides how each kind looks:

* the tile is field green; a city is brown-orange with a dark wall around it: a cap bulging in
  from each of its edge sub-cells (spanning the whole edge), a curved diagonal for a corner
  sub-cell between two of its edges, squares for its centre and the edge sub-cells joined to it;
* a road is a light band from the middle of each of its edges to the centre (one curve through
  the centre for a road with two edges); a road ending inside the tile meets a small house, a
  monastery, a tower foundation or a watchtower there;
* a monastery is a chapel on the centre, a pennant a blue shield on its city, a watchtower a dark
  disc with its subject's letter, a tower foundation a dashed square on the centre.

:func:`follower_point` is where a follower on a segment stands (its anchor sub-cell, the one the
``rgb_array`` picture uses too). :func:`watchtower_legend` is what the pages' legend of the
watchtower discs shows: each subject's disc, as on a tile, and what it scores (R60, R63).
"""

from __future__ import annotations

from ..engine import GameConfig, SegmentKind, TileType
from ..engine.subcells import anchor_cell, segment_cells
from ..engine.tiles import WATCHTOWER_RATES
from ..engine.watchtowers import WatchtowersExpansion
from .palette import TERRAIN, WATCHTOWER_LETTERS, css

__all__ = ["CELL", "SIZE", "follower_point", "symbol_id", "tile_svg", "watchtower_legend"]

#: SVG units per sub-cell and per tile.
CELL = 20
SIZE = 3 * CELL
_MID = SIZE // 2
_WALL = "#6b3d17"
_ROAD_EDGE = "#8a7a5c"
#: Flat sub-cell index of the edge sub-cell of edge N, E, S, W, and of the corner clockwise after it.
_EDGE_FLAT = (1, 5, 7, 3)
_CORNER_FLAT = (2, 8, 6, 0)
#: A city cap on the north edge, and the city between the north and east edges (NE corner);
#: other edges and corners are these turned by quarter-turns about the tile's centre.
_CAP = f"M0,0 H{SIZE} C{SIZE * 3 // 4},{CELL + 2} {SIZE // 4},{CELL + 2} 0,0 Z"
_CORNER = f"M0,0 H{SIZE} V{SIZE} Q{_MID + 6},{_MID - 6} 0,0 Z"
_EDGE_MIDPOINTS = ((_MID, 0), (SIZE, _MID), (_MID, SIZE), (0, _MID))
#: Half the side of the square a watchtower's disc (outline included) fits in, about the tile's centre.
_DISC_HALF = 10
#: What a watchtower of each subject counts in its 3×3 area (R63), as the legend says it: one word each.
_COUNTED = {"meeple": "follower", "coat-of-arms": "pennant", "road": "road tile", "monastery": "monastery",
            "city": "city tile"}


def symbol_id(tile: TileType, rot: int) -> str:
    """The id of the SVG ``<symbol>`` of ``tile`` in rotation ``rot``."""
    return f"t{tile.index}r{rot}"


def _centre_of(cell: int) -> tuple[int, int]:
    return (cell % 3) * CELL + CELL // 2, (cell // 3) * CELL + CELL // 2


def follower_point(tile: TileType, rot: int, slot: int) -> tuple[int, int]:
    """Where a follower on segment ``slot`` stands, in the tile's SVG units."""
    return _centre_of(anchor_cell(tile, rot, slot))


def _turned(path: str, quarter_turns: int) -> str:
    return f'<path d="{path}" transform="rotate({90 * quarter_turns} {_MID} {_MID})"/>'


def _city_shapes(cells: tuple[int, ...]) -> list[str]:
    shapes = []
    joined = 4 in cells
    if joined:
        shapes.append(f'<rect x="{CELL}" y="{CELL}" width="{CELL}" height="{CELL}"/>')
    for e, flat in enumerate(_EDGE_FLAT):
        if flat in cells:
            shapes.append(_turned(_CAP, e))
            if joined:
                x, y = _centre_of(flat)
                shapes.append(f'<rect x="{x - CELL // 2}" y="{y - CELL // 2}" width="{CELL}" height="{CELL}"/>')
    for e, flat in enumerate(_CORNER_FLAT):
        if flat in cells:
            shapes.append(_turned(_CORNER, e))
    return shapes


def _road(cells: tuple[int, ...]) -> str:
    ends = [_EDGE_MIDPOINTS[e] for e, flat in enumerate(_EDGE_FLAT) if flat in cells]
    if len(ends) == 2:
        (ax, ay), (bx, by) = ends
        return f"M{ax},{ay} Q{_MID},{_MID} {bx},{by}"
    return " ".join(f"M{x},{y} L{_MID},{_MID}" for x, y in ends)


def _pennant(x: int, y: int) -> str:
    return (f'<path class="pennant" d="M{x - 5},{y - 5} h10 v5 q0,5 -5,7 q-5,-2 -5,-7 Z" fill="#2349b8" '
            f'stroke="#f4f0e0" stroke-width="1.2"/>')


def _chapel() -> str:
    m = _MID
    return (f'<g class="monastery"><rect x="{m - 9}" y="{m - 5}" width="18" height="15" fill="#efe3cf" '
            f'stroke="#5b3a2a" stroke-width="1"/><path d="M{m - 11},{m - 4} L{m},{m - 14} L{m + 11},{m - 4} Z" '
            f'fill="{css(TERRAIN[SegmentKind.MONASTERY])}" stroke="#5b3a2a" stroke-width="1"/>'
            f'<path d="M{m},{m - 21} v7 M{m - 3},{m - 18} h6" stroke="#5b3a2a" stroke-width="1.5"/>'
            f'<rect x="{m - 2.5}" y="{m + 3}" width="5" height="7" fill="#5b3a2a"/></g>')


def _watchtower_disc(subject: str) -> str:
    """A watchtower of ``subject``: a dark disc with its letter on the tile's centre, within
    :data:`_DISC_HALF` of it."""
    return (f'<g class="watchtower"><circle cx="{_MID}" cy="{_MID}" r="8.5" fill="#34424a" stroke="#e8e8e8" '
            f'stroke-width="1.5"/><text x="{_MID}" y="{_MID + 3.5}" text-anchor="middle" font-size="10" '
            f'font-weight="bold" fill="#fff">{WATCHTOWER_LETTERS[subject]}</text></g>')


def watchtower_legend(config: GameConfig) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The legend of the watchtower discs of a game of ``config``: nothing without the watchtowers
    expansion, else per subject (in :data:`~.palette.WATCHTOWER_LETTERS` order) a symbol, its
    disc as a tile shows it, enlarged to fill a whole :data:`SIZE` square (the ``id: svg`` items of
    :func:`~.page.tile_symbols`), and an entry ``{"symbol", "letter", "subject", "words"}``, words
    such as ``1 per city tile``: the rate of R60 per item R63 counts in the 3×3 area."""
    if not config.has(WatchtowersExpansion.name):
        return {}, []
    symbols, entries = {}, []
    scale = _MID / _DISC_HALF
    for subject, letter in WATCHTOWER_LETTERS.items():
        key = f"watchtower-{letter}"
        symbols[key] = (f'<g transform="translate({_MID} {_MID}) scale({scale}) translate({-_MID} {-_MID})">'
                        f"{_watchtower_disc(subject)}</g>")
        entries.append({"symbol": key, "letter": letter, "subject": subject,
                        "words": f"{WATCHTOWER_RATES[subject]} per {_COUNTED[subject]}"})
    return symbols, entries


def tile_svg(tile: TileType, rot: int) -> str:
    """The inside of the ``<symbol>`` of ``tile`` in rotation ``rot`` (module docstring)."""
    cells = segment_cells(tile, rot)
    kinds = tile.segment_kinds
    out = [f'<rect width="{SIZE}" height="{SIZE}" fill="{css(TERRAIN[SegmentKind.FIELD])}"/>']
    city = [shape for s, k in enumerate(kinds) if k is SegmentKind.CITY for shape in _city_shapes(cells[s])]
    if city:
        out.append(f'<g fill="{_WALL}" stroke="{_WALL}" stroke-width="5">{"".join(city)}</g>')
        colour = css(TERRAIN[SegmentKind.CITY])  # its thin outline hides the seams between the shapes
        out.append(f'<g class="city" fill="{colour}" stroke="{colour}" stroke-width="0.8">{"".join(city)}</g>')
    roads = " ".join(_road(cells[s]) for s, k in enumerate(kinds) if k is SegmentKind.ROAD)
    if roads:
        out.append(f'<path d="{roads}" fill="none" stroke="{_ROAD_EDGE}" stroke-width="9"/>')
        out.append(f'<path class="road" d="{roads}" fill="none" stroke="{css(TERRAIN[SegmentKind.ROAD])}" '
                   'stroke-width="6"/>')
    for s, k in enumerate(kinds):
        if k is SegmentKind.CITY and tile.segment_pennants[s]:
            anchor = anchor_cell(tile, rot, s)
            others = [c for c in cells[s] if c != anchor]
            x, y = _centre_of(others[0]) if others else (_centre_of(anchor)[0] + 10, _centre_of(anchor)[1] - 3)
            out.append(_pennant(x, y))
    centre_free = all(4 not in c for c in cells)
    if tile.monastery_slot >= 0:
        out.append(_chapel())
    elif tile.watchtower is not None:
        out.append(_watchtower_disc(tile.watchtower.subject))
    elif tile.tower_foundation:
        out.append(f'<rect class="foundation" x="{_MID - 10}" y="{_MID - 10}" width="20" height="20" fill="#b9b4a8" '
                   'stroke="#444" stroke-width="1.2" stroke-dasharray="3 2"/>')
    elif centre_free and roads:
        m = _MID
        out.append(f'<path class="junction" d="M{m - 6},{m - 1} L{m},{m - 7} L{m + 6},{m - 1} V{m + 6} H{m - 6} Z" '
                   'fill="#e9dcc4" stroke="#5b3a2a" stroke-width="1"/>')
    out.append(f'<rect width="{SIZE}" height="{SIZE}" fill="none" stroke="#000" stroke-opacity="0.35"/>')
    return "".join(out)

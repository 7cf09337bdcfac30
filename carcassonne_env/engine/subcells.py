"""The 3×3 sub-cell picture of a tile: which segment each sub-cell shows, and how sub-cells link.

One definition for every picture of the board: the env's observation planes and ``rgb_array``
(:mod:`carcassonne_env.environment.subcell_planes`) and the replay viewer (:mod:`carcassonne_env.viewer`).

Sub-cell ``(r, c)`` of a tile, north up::

    (0,0) NW corner   (0,1) N edge   (0,2) NE corner
    (1,0) W edge      (1,1) centre   (1,2) E edge
    (2,0) SW corner   (2,1) S edge   (2,2) SE corner

Assignment, per tile type and rotation (:func:`slot_grid`):

* an edge sub-cell shows the road or city segment owning that edge, or the field owning both of
  its half-edges (a field edge never has two owners in the catalogue);
* a corner shows the field owning one of its two half-edges (if they differ, the one with fewer
  sub-cells so far, so no field is left without a sub-cell); without half-edges (two city edges)
  it shows the city when one city owns both edges, and nothing otherwise;
* the centre shows, in this order: the monastery; a field with no half-edge (enclosed); the first
  city, then road, whose other sub-cells are not 4-connected but would be through the centre;
  nothing when a road ends inside the tile (a junction, tower or watchtower stands there); the
  field with the most half-edges; the city with the most edges.

Every segment of every tile shows on at least one sub-cell (checked when the tables are built).
Two sub-cells of one tile show the same segment exactly when their ``slot`` values are equal.

Links: two 4-adjacent sub-cells are *linked* when they show the same segment or, across a tile
border, segments joined through the touching edge or half-edges (R6). Feature connectivity is
exactly "same slot within a tile, or linked across tiles", closed transitively.
"""

from __future__ import annotations

from functools import cache

from .tiles import SegmentKind, TileType

__all__ = ["EDGE_CELLS", "anchor_cell", "segment_cells", "slot_grid"]

#: Sub-cell of edge N, E, S, W.
EDGE_CELLS: tuple[tuple[int, int], ...] = ((0, 1), (1, 2), (2, 1), (1, 0))
#: Corner sub-cell, its two half-edges and its two edges (clockwise from NE).
_CORNERS: tuple[tuple[tuple[int, int], tuple[int, int], tuple[int, int]], ...] = (
    ((0, 2), (1, 2), (0, 1)),
    ((2, 2), (3, 4), (1, 2)),
    ((2, 0), (5, 6), (2, 3)),
    ((0, 0), (7, 0), (3, 0)),
)
_CENTRE = (1, 1)
_NONE = -1
_EDGE_FLAT = frozenset(3 * r + c for r, c in EDGE_CELLS)


def _owners(tile: TileType, rot: int) -> tuple[list[int], list[int]]:
    edge_owner = [_NONE] * 4
    half_owner = [_NONE] * 8
    for s in range(tile.segment_count):
        for e in tile.segment_edges[rot][s]:
            edge_owner[e] = s
        for h in tile.segment_half_edges[rot][s]:
            half_owner[h] = s
    return edge_owner, half_owner


def _connected(cells: list[tuple[int, int]]) -> bool:
    """Whether ``cells`` are 4-connected."""
    if not cells:
        return True
    todo = [cells[0]]
    seen = {cells[0]}
    members = set(cells)
    while todo:
        r, c = todo.pop()
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if q in members and q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen) == len(members)


def _centre(tile: TileType, rot: int, grid: list[list[int]]) -> int:
    kinds = tile.segment_kinds
    if tile.monastery_slot >= 0:
        return tile.monastery_slot
    halves = tile.segment_half_edges[rot]
    fields = [s for s, k in enumerate(kinds) if k is SegmentKind.FIELD]
    for s in fields:
        if not halves[s]:
            return s
    edges = tile.segment_edges[rot]
    for kind in (SegmentKind.CITY, SegmentKind.ROAD):
        for s, k in enumerate(kinds):
            if k is not kind:
                continue
            cells = [(r, c) for r in range(3) for c in range(3) if grid[r][c] == s]
            if len(cells) > 1 and not _connected(cells) and _connected([*cells, _CENTRE]):
                return s
    if any(k is SegmentKind.ROAD and len(edges[s]) == 1 for s, k in enumerate(kinds)):
        return _NONE
    if fields:
        return max(fields, key=lambda s: (len(halves[s]), -s))
    cities = [s for s, k in enumerate(kinds) if k is SegmentKind.CITY]
    return max(cities, key=lambda s: (len(edges[s]), -s)) if cities else _NONE


@cache
def slot_grid(tile: TileType, rot: int) -> tuple[tuple[int, ...], ...]:
    """The segment slot each sub-cell shows (-1 for none), by the rules of the module docstring."""
    edge_owner, half_owner = _owners(tile, rot)
    grid = [[_NONE] * 3 for _ in range(3)]
    for e, (r, c) in enumerate(EDGE_CELLS):
        grid[r][c] = edge_owner[e] if edge_owner[e] != _NONE else half_owner[2 * e]
    for (r, c), (ha, hb), (ea, eb) in _CORNERS:
        candidates = [s for s in dict.fromkeys((half_owner[ha], half_owner[hb])) if s != _NONE]
        if candidates:
            counts = [sum(row.count(s) for row in grid) for s in candidates]
            grid[r][c] = candidates[counts.index(min(counts))]
        elif edge_owner[ea] == edge_owner[eb]:
            grid[r][c] = edge_owner[ea]
    grid[1][1] = _centre(tile, rot, grid)
    shown = {s for row in grid for s in row}
    missing = [s for s in range(tile.segment_count) if s not in shown]
    if missing:
        raise AssertionError(f"{tile.id} rotation {rot}: segments {missing} show on no sub-cell")
    return tuple(tuple(row) for row in grid)




@cache
def segment_cells(tile: TileType, rot: int) -> tuple[tuple[int, ...], ...]:
    """``segment_cells(tile, rot)[s]``: the flat indices ``3 * r + c`` of the sub-cells segment ``s`` shows on."""
    grid = slot_grid(tile, rot)
    return tuple(
        tuple(3 * r + c for r in range(3) for c in range(3) if grid[r][c] == s) for s in range(tile.segment_count)
    )


def anchor_cell(tile: TileType, rot: int, slot: int) -> int:
    """The sub-cell (flat index) a picture puts a follower on segment ``slot`` on: its first edge
    sub-cell (on the road, inside the city cap), else the centre, else its first corner."""
    cells = segment_cells(tile, rot)[slot]
    for cell in cells:
        if cell in _EDGE_FLAT:
            return cell
    return 4 if 4 in cells else cells[0]

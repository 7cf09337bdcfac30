"""Choices a player can tell apart: the part of a tile a follower goes on, in words, and the
feature it joins, as the board draws it.

Invariants (docs/play.md, "Choices"):

* :func:`segment_words` names a segment of a tile in a rotation by where it lies, so that no two
  segments of one tile read alike: a city or a road by the compass sides it owns ("the north
  city", "the city on the north and east sides", "the road running west", "the north-south
  road"), a field by the compass direction of its sub-cells from the tile's centre ("the
  south-east field"; "the field around the monastery", "the middle field" or "the field" when
  they sit around the centre), a monastery as "the monastery". Cities own disjoint sides, roads
  too, and the catalogue's fields point apart (tests/test_choice_labels.py checks every tile in
  every rotation);
* :func:`feature_cells` is the whole feature a segment belongs to as ``[x, y, [sub-cells]]`` per
  tile (flat sub-cell ``3 * r + c`` of :mod:`carcassonne_env.engine.subcells`), from the engine's
  feature keys: exactly the sub-cells of the segments the rules count in that feature.

Engine only (its public API and sub-cell picture); the labels of :func:`~.session.option_label`
and the page's highlights (:mod:`.server`) are built on these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..engine import Game, SegmentKind, TileType
from ..engine.subcells import segment_cells

__all__ = ["ROLES", "FeatureCells", "feature_cells", "segment_words"]

#: A follower's name on each kind of segment.
ROLES = {SegmentKind.CITY: "knight", SegmentKind.ROAD: "thief", SegmentKind.FIELD: "farmer",
         SegmentKind.MONASTERY: "monk"}
#: A feature as the board draws it: ``(x, y, [flat sub-cells])`` per tile (a JSON ``[x, y, [...]]``).
FeatureCells = list[tuple[int, int, list[int]]]

_SIDES = ("north", "east", "south", "west")
#: Eight compass directions, counter-clockwise from east (the order of ``atan2``'s angle).
_DIRECTIONS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")
#: Below this distance (in sub-cells) from the tile's centre a field's sub-cells point nowhere.
_CENTRED = 0.3


def _listed(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _field_direction(cells: Sequence[int]) -> str | None:
    """The compass direction (of eight) of the mean of ``cells`` (flat sub-cells) from the tile's
    centre, or None when that mean lies within :data:`_CENTRED` of it."""
    dx = sum(c % 3 - 1 for c in cells) / len(cells)
    dy = sum(1 - c // 3 for c in cells) / len(cells)
    if math.hypot(dx, dy) < _CENTRED:
        return None
    return _DIRECTIONS[round(math.atan2(dy, dx) / (math.pi / 4)) % 8]


def _road_words(edges: Sequence[int]) -> str:
    sides = [_SIDES[e] for e in sorted(edges)]
    if len(sides) == 1:
        return f"the road running {sides[0]}"
    if sorted(edges) in ([0, 2], [1, 3]):
        return f"the {'-'.join(sides)} road"
    return f"the road from {_listed(sides)}" if len(sides) > 2 else f"the road from {sides[0]} to {sides[1]}"


def segment_words(tile: TileType, rotation: int, slot: int) -> str:
    """Segment ``slot`` of ``tile`` turned ``rotation`` quarter turns, in words (module docstring)."""
    kind = tile.segment_kinds[slot]
    if kind is SegmentKind.MONASTERY:
        return "the monastery"
    if kind is SegmentKind.ROAD:
        return _road_words(tile.segment_edges[rotation][slot])
    if kind is SegmentKind.CITY:
        sides = [_SIDES[e] for e in sorted(tile.segment_edges[rotation][slot])]
        if len(sides) == 1:
            return f"the {sides[0]} city"
        return "the city on all four sides" if len(sides) == 4 else f"the city on the {_listed(sides)} sides"
    direction = _field_direction(segment_cells(tile, rotation)[slot])
    if direction is not None:
        return f"the {direction} field"
    if tile.monastery_slot >= 0:
        return "the field around the monastery"
    return "the field" if tile.segment_kinds.count(SegmentKind.FIELD) == 1 else "the middle field"


def feature_cells(game: Game, x: int, y: int, slot: int) -> FeatureCells:
    """The feature of segment ``slot`` of the tile at (x, y): per tile of it, in placement order,
    ``[x, y, [flat sub-cells of its segments in that feature]]`` (module docstring). Raises
    KeyError when there is no such tile or segment."""
    game.feature(x, y, slot)  # the engine's check of (x, y, slot)
    tiles = game.tiles()
    index = next(i for i, t in enumerate(tiles) if (t.x, t.y) == (x, y))
    key = game.feature_key(game.segment_base(index) + slot)
    out: FeatureCells = []
    for i, placed in enumerate(tiles):
        base, cells = game.segment_base(i), segment_cells(placed.tile, placed.rotation)
        mine = sorted(c for s in range(placed.tile.segment_count) if game.feature_key(base + s) == key
                      for c in cells[s])
        if mine:
            out.append((placed.x, placed.y, mine))
    return out

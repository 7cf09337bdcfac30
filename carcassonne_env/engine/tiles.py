"""The tile catalogue: loaded once from package data, validated, precomputed per rotation.

The data file is a copy of ``shared/rules/tiles.json`` (see its README for the conventions, which
are kept unchanged here): edges N=0, E=1, S=2, W=3; half-edges NL=0 … WR=7 clockwise from the NW
corner; rotation k turns a tile k quarter-turns clockwise, mapping edge e to (e+k)%4 and half-edge
h to (h+2k)%8 (C2).

Everything the engine's hot path needs is precomputed here, per tile type and rotation, as tuples
of small ints:

* ``edge_code[r]``: the four edge terrains packed two bits per edge (bits 2e..2e+1), the same
  packing the board uses for the requirement of an empty cell;
* ``ports[r][e]``: ``(edge_segment, left_half_segment, right_half_segment)`` for edge e, each the
  local index of the owning segment or -1;
* ``fits[req]``: the rotations whose edges satisfy a packed requirement (R11).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

__all__ = [
    "CatalogueError",
    "SegmentKind",
    "Terrain",
    "TileCatalogue",
    "TileType",
    "WatchtowerBonus",
    "load_catalogue",
]

EDGE_NAMES = ("N", "E", "S", "W")
HALF_EDGE_NAMES = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")

#: Physical tiles and tile types per set (R1, R31, R60): facts the data must reproduce.
EXPECTED_SET_SIZES: dict[str, tuple[int, int]] = {
    "base": (24, 72),
    "tower": (17, 18),
    "watchtowers": (12, 12),
}
#: Watchtower points per subject (R60).
WATCHTOWER_RATES: dict[str, int] = {
    "meeple": 2,
    "coat-of-arms": 2,
    "road": 1,
    "monastery": 3,
    "city": 1,
}


class CatalogueError(ValueError):
    """The tile data file breaks the catalogue format or a fact the rules depend on."""


class Terrain(IntEnum):
    """Edge terrain; 0 is reserved for "no requirement" in packed edge codes."""

    CITY = 1
    ROAD = 2
    FIELD = 3


class SegmentKind(IntEnum):
    """Kind of a tile segment (R5)."""

    CITY = 0
    ROAD = 1
    FIELD = 2
    MONASTERY = 3


_TERRAIN_BY_NAME = {"city": Terrain.CITY, "road": Terrain.ROAD, "field": Terrain.FIELD}
_KIND_BY_NAME = {
    "city": SegmentKind.CITY,
    "road": SegmentKind.ROAD,
    "field": SegmentKind.FIELD,
    "monastery": SegmentKind.MONASTERY,
}


@dataclass(frozen=True)
class WatchtowerBonus:
    """A watchtower's bonus: ``rate`` points per ``subject`` counted in its 3×3 area (R63)."""

    subject: str
    rate: int


@dataclass(frozen=True, eq=False)
class TileType:
    """One tile type with its rotation tables. Identity is the catalogue ``index``."""

    index: int
    id: str
    set_id: str
    letter: str | None
    name: str
    count: int
    is_start: bool
    edge_terrain: tuple[Terrain, Terrain, Terrain, Terrain]
    segment_kinds: tuple[SegmentKind, ...]
    #: Edges owned by each road/city segment (0 for fields and monasteries): its open edges
    #: when the tile stands alone.
    segment_edge_counts: tuple[int, ...]
    segment_pennants: tuple[int, ...]
    #: For each segment, a bitmask over local segment indices of the cities it borders when it is a
    #: field (R28), 0 otherwise (one entry a segment).
    field_city_bits: tuple[int, ...]
    monastery_slot: int
    tower_foundation: bool
    watchtower: WatchtowerBonus | None
    edge_code: tuple[int, int, int, int]
    ports: tuple[tuple[tuple[int, int, int], ...], ...]
    #: ``segment_edges[r][s]``: edges (rotated) of segment s; ``segment_half_edges`` likewise.
    segment_edges: tuple[tuple[tuple[int, ...], ...], ...]
    segment_half_edges: tuple[tuple[tuple[int, ...], ...], ...]
    fits: tuple[tuple[int, ...], ...]

    @property
    def segment_count(self) -> int:
        return len(self.segment_kinds)

    @property
    def pennants(self) -> int:
        return sum(self.segment_pennants)

    def has_kind(self, kind: SegmentKind) -> bool:
        return kind in self.segment_kinds

    def __repr__(self) -> str:
        return f"TileType({self.id!r})"


@dataclass(frozen=True, eq=False)
class TileCatalogue:
    """All tile types of all sets, indexed by catalogue order and by id."""

    types: tuple[TileType, ...]
    by_id: dict[str, TileType]
    sets: dict[str, tuple[TileType, ...]]
    start: TileType

    @property
    def max_segments(self) -> int:
        return max(t.segment_count for t in self.types)

    def __getitem__(self, tile_id: str) -> TileType:
        try:
            return self.by_id[tile_id]
        except KeyError:
            raise KeyError(f"unknown tile id {tile_id!r}") from None


def _pack(terrains: tuple[int, ...]) -> int:
    return sum(int(t) << (2 * e) for e, t in enumerate(terrains))


def _fits(edge_code: tuple[int, int, int, int]) -> tuple[tuple[int, ...], ...]:
    table = []
    for req in range(256):
        mask = 0
        for e in range(4):
            if (req >> (2 * e)) & 3:
                mask |= 3 << (2 * e)
        table.append(tuple(r for r in range(4) if edge_code[r] & mask == req))
    return tuple(table)


def _build_type(index: int, set_id: str, raw: dict[str, Any]) -> TileType:
    tid = raw["id"]

    def fail(msg: str) -> CatalogueError:
        return CatalogueError(f"tile {tid}: {msg}")

    try:
        terrain0 = tuple(_TERRAIN_BY_NAME[t] for t in raw["edge_terrain"])
    except KeyError as exc:
        raise fail(f"unknown edge terrain {exc}") from None
    if len(terrain0) != 4:
        raise fail("edge_terrain needs 4 entries")
    kinds: list[SegmentKind] = []
    edges0: list[tuple[int, ...]] = []
    halves0: list[tuple[int, ...]] = []
    pennants: list[int] = []
    city_lists: list[tuple[int, ...]] = []
    for f in raw["features"]:
        kind = _KIND_BY_NAME.get(f["kind"])
        if kind is None:
            raise fail(f"unknown feature kind {f['kind']!r}")
        kinds.append(kind)
        edges0.append(tuple(EDGE_NAMES.index(e) for e in f.get("edges", ())))
        halves0.append(tuple(HALF_EDGE_NAMES.index(h) for h in f.get("half_edges", ())))
        pennants.append(int(f.get("pennants", 0)))
        city_lists.append(tuple(f.get("cities", ())))

    # Ports: every city/road edge owned by exactly one segment of its terrain, field edges by none;
    # every half of a road/field edge owned by exactly one field, city halves by none.
    edge_owner = [-1] * 4
    half_owner = [-1] * 8
    for s, kind in enumerate(kinds):
        for e in edges0[s]:
            if edge_owner[e] != -1:
                raise fail(f"edge {EDGE_NAMES[e]} owned twice")
            expected = Terrain.CITY if kind is SegmentKind.CITY else Terrain.ROAD
            if kind not in (SegmentKind.CITY, SegmentKind.ROAD) or terrain0[e] != expected:
                raise fail(f"edge {EDGE_NAMES[e]} terrain does not match its {kind.name} segment")
            edge_owner[e] = s
        for h in halves0[s]:
            if half_owner[h] != -1:
                raise fail(f"half-edge {HALF_EDGE_NAMES[h]} owned twice")
            half_owner[h] = s
        for c in city_lists[s]:
            if not 0 <= c < len(kinds) or kinds[c] is not SegmentKind.CITY:
                raise fail(f"field {s} borders {c}, which is not a city segment")
    for e in range(4):
        if (terrain0[e] == Terrain.FIELD) != (edge_owner[e] == -1):
            raise fail(f"edge {EDGE_NAMES[e]} ownership does not match its terrain")
        for h in (2 * e, 2 * e + 1):
            if (terrain0[e] == Terrain.CITY) != (half_owner[h] == -1):
                raise fail(f"half-edge {HALF_EDGE_NAMES[h]} ownership does not match its terrain")
    has_monastery = SegmentKind.MONASTERY in kinds
    if has_monastery != bool(raw["monastery"]) or kinds.count(SegmentKind.MONASTERY) > 1:
        raise fail("monastery flag and monastery segments disagree")

    watch = raw.get("watchtower")
    bonus = None
    if watch is not None:
        subject = watch["subject"]
        if WATCHTOWER_RATES.get(subject) != watch["points"]:
            raise fail(f"watchtower {subject!r} must pay {WATCHTOWER_RATES.get(subject)} points")
        bonus = WatchtowerBonus(subject=subject, rate=int(watch["points"]))

    edge_code = []
    ports = []
    seg_edges = []
    seg_halves = []
    for r in range(4):
        rot_terrain = tuple(terrain0[(e - r) % 4] for e in range(4))
        edge_code.append(_pack(rot_terrain))
        ports.append(
            tuple(
                (
                    edge_owner[(e - r) % 4],
                    half_owner[(2 * e - 2 * r) % 8],
                    half_owner[(2 * e + 1 - 2 * r) % 8],
                )
                for e in range(4)
            )
        )
        seg_edges.append(tuple(tuple(sorted((e + r) % 4 for e in es)) for es in edges0))
        seg_halves.append(tuple(tuple(sorted((h + 2 * r) % 8 for h in hs)) for hs in halves0))
    code4 = (edge_code[0], edge_code[1], edge_code[2], edge_code[3])

    return TileType(
        index=index,
        id=tid,
        set_id=set_id,
        letter=raw.get("letter"),
        name=raw["name"],
        count=int(raw["count"]),
        is_start=bool(raw["start"]),
        edge_terrain=(terrain0[0], terrain0[1], terrain0[2], terrain0[3]),
        segment_kinds=tuple(kinds),
        segment_edge_counts=tuple(len(es) for es in edges0),
        segment_pennants=tuple(pennants),
        field_city_bits=tuple(sum(1 << c for c in cl) for cl in city_lists),
        monastery_slot=kinds.index(SegmentKind.MONASTERY) if has_monastery else -1,
        tower_foundation=bool(raw["tower_foundation"]),
        watchtower=bonus,
        edge_code=code4,
        ports=tuple(ports),
        segment_edges=tuple(seg_edges),
        segment_half_edges=tuple(seg_halves),
        fits=_fits(code4),
    )


def parse_catalogue(data: dict[str, Any]) -> TileCatalogue:
    """Build and validate a catalogue from the decoded JSON document."""
    if data.get("format") != "carcassonne-tile-catalogue":
        raise CatalogueError("not a carcassonne-tile-catalogue document")
    types: list[TileType] = []
    sets: dict[str, tuple[TileType, ...]] = {}
    for raw_set in data["sets"]:
        set_id = raw_set["id"]
        members = []
        for raw in raw_set["tiles"]:
            tile = _build_type(len(types), set_id, raw)
            if tile.count < 1:
                raise CatalogueError(f"tile {tile.id}: count must be positive")
            types.append(tile)
            members.append(tile)
        sets[set_id] = tuple(members)
    for set_id, (n_types, n_tiles) in EXPECTED_SET_SIZES.items():
        members_of = sets.get(set_id)
        if members_of is None:
            raise CatalogueError(f"tile set {set_id!r} is missing")
        got = (len(members_of), sum(t.count for t in members_of))
        if got != (n_types, n_tiles):
            raise CatalogueError(f"tile set {set_id!r} has {got} (types, tiles), expected {(n_types, n_tiles)}")
    for tile in sets["tower"]:
        if not tile.tower_foundation:
            raise CatalogueError(f"tile {tile.id}: every tower tile carries a foundation (R31)")
    for tile in sets["watchtowers"]:
        if tile.watchtower is None:
            raise CatalogueError(f"tile {tile.id}: every watchtower tile carries a watchtower (R60)")
    by_id: dict[str, TileType] = {}
    for tile in types:
        if tile.id.lower() in {k.lower() for k in by_id}:
            raise CatalogueError(f"duplicate tile id {tile.id!r}")
        by_id[tile.id] = tile
    starts = [t for t in types if t.is_start]
    if len(starts) != 1 or starts[0].id != data.get("start_tile"):
        raise CatalogueError("exactly one start tile, named by start_tile, is required (R1)")
    return TileCatalogue(types=tuple(types), by_id=by_id, sets=sets, start=starts[0])


def seeded_pile(catalogue: TileCatalogue, tile_sets: tuple[str, ...], seed: int) -> list[TileType]:
    """The pile a game seeded with ``seed`` draws from, in draw order: every tile of ``tile_sets``
    once per copy, less the start tile (R1, R4), permuted by ``np.random.default_rng(seed)``. A
    saved seeded game must hold exactly this pile (:mod:`.save_validation`)."""
    pile = [t for s in tile_sets for t in catalogue.sets[s] for _ in range(t.count - t.is_start)]
    order = np.random.default_rng(seed).permutation(len(pile))
    return [pile[i] for i in order]


@cache
def load_catalogue() -> TileCatalogue:
    """The packaged catalogue, parsed and validated once per process."""
    text = resources.files("carcassonne_env.data").joinpath("tiles.json").read_text(encoding="utf-8")
    return parse_catalogue(json.loads(text))

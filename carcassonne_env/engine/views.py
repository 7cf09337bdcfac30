"""What the game's read API hands out: placed tiles, followers and features, as values (a copy of
what they describe, never a view of the game)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .geometry import pack, unpack
from .tiles import SegmentKind, TileType

if TYPE_CHECKING:
    from .game import Game

__all__ = ["Feature", "Follower", "PlacedTile", "feature_at", "followers_on_segments"]


class PlacedTile(NamedTuple):
    """A tile on the board: its tile type at (x, y), turned ``rotation`` quarter-turns clockwise (C2)."""

    x: int
    y: int
    tile: TileType
    rotation: int


class Follower(NamedTuple):
    """A follower on a segment: ``slot`` is the segment's index on the tile at (x, y)."""

    x: int
    y: int
    slot: int
    owner: int


@dataclass(frozen=True)
class Feature:
    """A feature as the rules see it (R6–R8): derived on request, never stored."""

    kind: SegmentKind
    positions: frozenset[tuple[int, int]]
    pennants: int
    open_edges: int
    followers: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.positions)

    @property
    def complete(self) -> bool:
        """Roads and cities complete at 0 open edges (R19); see ``Game.monastery_complete``."""
        return self.kind in (SegmentKind.CITY, SegmentKind.ROAD) and self.open_edges == 0


def followers_on_segments(game: Game) -> list[Follower]:
    """Every follower on a segment of ``game``, in the order they were put."""
    out = []
    tile_pos = game._tile_pos
    for node, owner in game._followers.items():
        i = game._node_tile[node]
        x, y = unpack(tile_pos[i])
        out.append(Follower(x, y, node - game._tile_base[i], owner))
    return out


def feature_at(game: Game, x: int, y: int, slot: int) -> Feature:
    """The feature of ``game`` containing segment ``slot`` of the tile at (x, y); a KeyError when
    there is no such segment."""
    i = game._board.get(pack(x, y))
    if i is None:
        raise KeyError(f"no tile at ({x},{y})")
    if not 0 <= slot < game._tile_type[i].segment_count:
        raise KeyError(f"tile at ({x},{y}) has no segment {slot}")
    root = game._find(game._tile_base[i] + slot)
    counts = [0] * game.num_players
    for node, owner in game._followers.items():
        if game._find(node) == root:
            counts[owner] += 1
    tiles = game._tiles[root]
    positions = frozenset(unpack(p) for j, p in enumerate(game._tile_pos) if tiles >> j & 1)
    return Feature(game._kind[root], positions, game._pennants[root], game._open[root], tuple(counts))

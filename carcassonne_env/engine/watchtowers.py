"""The Watchtowers (RULES.md §4): bonuses for followers on completed roads and cities.

In T5, before any feature scores or any follower returns (R64), every follower that stands on a
segment of a road or city completed this turn, on a watchtower tile, earns its owner that
watchtower's bonus once, whatever the majority (R62). The bonus is the rate times a count over
the 3×3 area around the watchtower (R63). Farmers, monks and tower-top followers never trigger
(R65); captured followers are gone before T5 (R67); nothing scores at the end (R66).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expansion import Expansion
from .geometry import AREA
from .tiles import SegmentKind, TileType

if TYPE_CHECKING:
    from .game import Game

__all__ = ["WatchtowersExpansion", "watchtower_count"]


def _tile_count(subject: str, tile: TileType) -> int:
    if subject == "coat-of-arms":
        return tile.pennants
    if subject == "road":
        return int(tile.has_kind(SegmentKind.ROAD))
    if subject == "city":
        return int(tile.has_kind(SegmentKind.CITY))
    if subject == "monastery":
        return int(tile.has_kind(SegmentKind.MONASTERY))
    raise ValueError(f"unknown watchtower subject {subject!r}")


def watchtower_count(game: Game, pos: int, subject: str, *, include_tower_tops: bool = True) -> int:
    """What a watchtower of ``subject`` at packed ``pos`` counts over its 3×3 area (R63)."""
    area = {pos + off for off in AREA}
    if subject == "meeple":
        tile_pos = game._tile_pos
        node_tile = game._node_tile
        count = sum(1 for node in game._followers if tile_pos[node_tile[node]] in area)
        if include_tower_tops:
            count += sum(1 for source in game._figure_sources for q, _ in source(game) if q in area)
        return count
    board = game._board
    types = game._tile_type
    return sum(_tile_count(subject, types[board[q]]) for q in area if q in board)


class WatchtowersExpansion(Expansion):
    name = "watchtowers"

    def before_scoring(self, game: Game, completed: list[int]) -> None:
        """R62–R64 (a): award every triggered bonus on the board as it stands after phase 2."""
        followers = game._followers
        if not followers:
            return
        done = set(completed)
        awards: list[tuple[int, int]] = []
        for node, owner in followers.items():
            i = game._node_tile[node]
            bonus = game._tile_type[i].watchtower
            if bonus is None or game._kind[node] > SegmentKind.ROAD or game._find(node) not in done:
                continue
            count = watchtower_count(
                game, game._tile_pos[i], bonus.subject,
                include_tower_tops=not self.config.watchtower_ignores_tower_followers,
            )
            awards.append((owner, bonus.rate * count))
        for owner, points in awards:
            game._scores[owner] += points

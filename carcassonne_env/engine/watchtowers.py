"""The Watchtowers (docs/rules.md §4): bonuses for followers on completed roads and cities.

In T5, before any feature scores or any follower returns (R64), every follower that stands on a
segment of a road or city completed this turn, on a watchtower tile, earns its owner that
watchtower's bonus once, whatever the majority (R62). The bonus is the rate times a count over
the 3×3 area around the watchtower (R63). Farmers, monks and tower-top followers never trigger
(R65); captured followers are gone before T5 (R67); nothing scores at the end (R66).

Text view: ``W`` in the centre of a watchtower tile.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from .expansion import Expansion, ExpansionHost
from .geometry import AREA, pack
from .tiles import SegmentKind, TileType

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


def watchtower_count(game: ExpansionHost, pos: int, subject: str, *, include_tower_tops: bool = True) -> int:
    """What a watchtower of ``subject`` at packed ``pos`` counts over its 3×3 area (R63)."""
    area = {pos + off for off in AREA}
    if subject == "meeple":
        tile_pos = game.tile_positions
        segment_tile = game.segment_tiles
        count = sum(1 for segment in game.segment_followers() if tile_pos[segment_tile[segment]] in area)
        if include_tower_tops:
            count += sum(1 for x, y, _ in game.board_figures() if pack(x, y) in area)
        return count
    board = game.board_index
    types = game.tile_types
    return sum(_tile_count(subject, types[board[q]]) for q in area if q in board)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class WatchtowersExpansion(Expansion):
    name = "watchtowers"
    tile_set = "watchtowers"

    @staticmethod
    def text_mark(tile: TileType) -> str | None:
        return "W" if tile.watchtower is not None else None

    def before_scoring(self, game: ExpansionHost, completed: list[int]) -> None:
        """R62–R64 (a): award every triggered bonus on the board as it stands after phase 2."""
        followers = game.segment_followers()
        if not followers:
            return
        done = set(completed)
        segment_tile = game.segment_tiles
        tile_types = game.tile_types
        kinds = game.segment_kinds
        awards: list[tuple[int, int, int]] = []
        for segment, owner in followers.items():
            i = segment_tile[segment]
            bonus = tile_types[i].watchtower
            if bonus is None or kinds[segment] > SegmentKind.ROAD or game.feature_key(segment) not in done:
                continue
            count = watchtower_count(
                game, game.tile_positions[i], bonus.subject,
                include_tower_tops=not self.config.watchtower_ignores_tower_followers,
            )
            awards.append((owner, bonus.rate * count, game.tile_positions[i]))
        for owner, points, pos in awards:
            game.add_score(owner, points, "watchtower", pos)

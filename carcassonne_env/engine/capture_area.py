"""Where a tower can capture after a floor is placed (R40, R55, R56 and the §6 range variants).

A pure function of the tower's position, height after the floor, colour of that floor, the range
variants and (only for ``blocked_by_holes``) which positions hold tiles.

======================  =========================================================================
colour                  area (reach r = h, or h − 1 with ``no_surprises``)
======================  =========================================================================
NORMAL                  the tower and (x±d, y), (x, y±d) for d = 1..r (R40); with ``manhattan``
                        every position with |dx|+|dy| ≤ r
BLACK                   the tower and (x±d, y±d) for d = 1..r (R55, D9); without the tower with
                        ``black_excludes_own_tile`` (D8); never ``manhattan`` (D26)
WHITE                   nothing (R56, D10)
======================  =========================================================================

With ``blocked_by_holes`` a ray stops after its first empty position (that position is still in
the area but holds no follower); with ``manhattan`` too, only paths through tiles count.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .actions import FloorColour
from .geometry import DELTAS, STRIDE, pack, unpack

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["CaptureRules", "capture_area", "capture_area_packed"]

_DIAGONALS: Final = (STRIDE + 1, STRIDE - 1, -STRIDE - 1, -STRIDE + 1)


@dataclass(frozen=True)
class CaptureRules:
    """The range variants of docs/rules.md §6 that shape a capture area."""

    no_surprises: bool = False
    manhattan: bool = False
    blocked_by_holes: bool = False
    black_excludes_own_tile: bool = False

    @classmethod
    def from_config(cls, config: GameConfig) -> CaptureRules:
        return cls(
            no_surprises=config.no_surprises,
            manhattan=config.tower_range_manhattan,
            blocked_by_holes=config.tower_blocked_by_holes,
            black_excludes_own_tile=config.black_tower_excludes_own_tile,
        )


def capture_area_packed(
    p: int, height: int, colour: int, rules: CaptureRules, occupied: Container[int]
) -> list[int]:
    """Packed positions of the area of the tower at packed ``p`` (see module docstring)."""
    if colour == FloorColour.WHITE:
        return []
    reach = height - 1 if rules.no_surprises else height
    blocked = rules.blocked_by_holes
    if colour == FloorColour.NORMAL and rules.manhattan:
        return _manhattan(p, reach, blocked, occupied)
    out = [] if colour == FloorColour.BLACK and rules.black_excludes_own_tile else [p]
    for delta in DELTAS if colour == FloorColour.NORMAL else _DIAGONALS:
        q = p
        for _ in range(reach):
            q += delta
            out.append(q)
            if blocked and q not in occupied:
                break
    return out


def _manhattan(p: int, reach: int, blocked: bool, occupied: Container[int]) -> list[int]:
    seen = {p: 0}
    layer = [p]
    for step in range(1, reach + 1):
        nxt = []
        for q in layer:
            if blocked and q != p and q not in occupied:
                continue
            for delta in DELTAS:
                r = q + delta
                if r not in seen:
                    seen[r] = step
                    nxt.append(r)
        layer = nxt
    return list(seen)


def capture_area(
    center: tuple[int, int],
    height: int,
    colour: FloorColour,
    rules: CaptureRules = CaptureRules(),
    occupied: Iterable[tuple[int, int]] = (),
) -> frozenset[tuple[int, int]]:
    """The area as (x, y) positions; ``occupied`` lists the positions holding tiles."""
    occ = {pack(x, y) for x, y in occupied}
    return frozenset(unpack(q) for q in capture_area_packed(pack(*center), height, colour, rules, occ))

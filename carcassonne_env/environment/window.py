"""The board window: which W×W block of the unbounded engine board the env shows and addresses.

The window is recentred on the bounding box of the placed tiles before every decision:

* centre ``cx = (x0 + x1) // 2`` and ``cy = (y0 + y1) // 2`` (floor division) of the bounding box
  ``x0..x1`` × ``y0..y1``;
* columns cover ``x = left .. left + W - 1`` with ``left = cx - W // 2``, rows cover
  ``y = top .. top - W + 1`` (north up) with ``top = bottom + W - 1`` and ``bottom = cy - W // 2``;
* the window is then clamped into ``[-limit, limit]`` on both axes, the extent of the env's
  master planes (see :mod:`.observation`). The clamp never moves a window whose bounding box,
  grown by the one-cell frontier, fits: it only matters after an overflow.

Cell ``c = row * W + col`` addresses the position ``(left + col, top - row)``. A legal action
whose position lies outside the window cannot be encoded; :func:`required_size` gives the smallest
W that encodes a set of positions, which is what :mod:`.measure_window` measures.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["BoundingBox", "Window", "required_size"]


class BoundingBox(NamedTuple):
    """Inclusive bounds of the placed tiles."""

    x0: int
    x1: int
    y0: int
    y1: int

    def grow(self, x: int, y: int) -> BoundingBox:
        """The smallest box holding this one and (x, y)."""
        return BoundingBox(min(self.x0, x), max(self.x1, x), min(self.y0, y), max(self.y1, y))

    @property
    def extent(self) -> int:
        """The larger of width and height, in cells."""
        return max(self.x1 - self.x0, self.y1 - self.y0) + 1


class Window(NamedTuple):
    """A ``size``×``size`` block: column 0 is ``x = left``, row 0 is ``y = top`` (north up)."""

    size: int
    left: int
    top: int

    @classmethod
    def around(cls, size: int, box: BoundingBox, limit: int) -> Window:
        """The window of ``size`` centred on ``box`` (module docstring), clamped into ±``limit``."""
        half = size // 2
        left = (box.x0 + box.x1) // 2 - half
        bottom = (box.y0 + box.y1) // 2 - half
        lo, hi = -limit, limit - size + 1
        left = min(max(left, lo), hi)
        bottom = min(max(bottom, lo), hi)
        return cls(size, left, bottom + size - 1)

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.left + self.size and self.top - self.size < y <= self.top

    def covers_frontier(self, box: BoundingBox) -> bool:
        """Whether every position within one cell of ``box`` (every possible PLACE) is inside."""
        return (
            self.left < box.x0 and box.x1 < self.left + self.size - 1
            and self.top - self.size + 1 < box.y0 and box.y1 < self.top
        )

    def cell(self, x: int, y: int) -> int:
        """Cell index of (x, y); only meaningful when :meth:`contains` holds."""
        return (self.top - y) * self.size + (x - self.left)

    def position(self, cell: int) -> tuple[int, int]:
        """(x, y) of cell index ``cell``."""
        row, col = divmod(cell, self.size)
        return self.left + col, self.top - row


def required_size(box: BoundingBox, positions: Iterable[tuple[int, int]]) -> int:
    """The smallest W whose unclamped window around ``box`` contains every one of ``positions``.

    With ``c`` the centre and ``a``/``b`` the largest distances below/above it on an axis, the
    window reaches ``W // 2`` below and ``(W - 1) // 2`` above, so W ≥ max(2a, 2b + 1) per axis.
    """
    cx = (box.x0 + box.x1) // 2
    cy = (box.y0 + box.y1) // 2
    need = 1
    for x, y in positions:
        need = max(need, 2 * (cx - x), 2 * (x - cx) + 1, 2 * (cy - y), 2 * (y - cy) + 1)
    return need

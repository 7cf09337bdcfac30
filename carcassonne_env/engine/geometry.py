"""Board coordinates (C1): positions are packed into single ints for fast dict keys.

A position (x, y) is stored as ``(x + OFFSET) * STRIDE + (y + OFFSET)``, so the neighbours of a
packed position ``p`` are ``p + 1`` (N), ``p + STRIDE`` (E), ``p - 1`` (S) and ``p - STRIDE`` (W).
``OFFSET`` leaves room for a straight line of every tile in every set in any direction.
"""

from __future__ import annotations

from typing import Final

from .actions import IllegalActionError

__all__ = [
    "AREA",
    "DELTAS",
    "OFFSET",
    "RING",
    "STRIDE",
    "check_coords",
    "pack",
    "unpack",
]

STRIDE: Final = 1024
OFFSET: Final = 512

# The offsets are typed as variable-length tuples: compiled (mypyc), a fixed-length tuple is kept
# unboxed and built again as a tuple object at every indexed read or loop over it.
#: Packed offsets of the N, E, S, W neighbours (index = edge).
DELTAS: Final[tuple[int, ...]] = (1, STRIDE, -1, -STRIDE)
#: Packed offsets of the 8 ring positions (C1).
RING: Final[tuple[int, ...]] = (1, STRIDE + 1, STRIDE, STRIDE - 1, -1, -STRIDE - 1, -STRIDE, -STRIDE + 1)
#: Packed offsets of the 3×3 area (C1): the ring and the centre.
AREA: Final[tuple[int, ...]] = (0, *RING)


def pack(x: int, y: int) -> int:
    """Packed position of (x, y)."""
    return (x + OFFSET) * STRIDE + (y + OFFSET)


def check_coords(x: int, y: int) -> int:
    """Packed (x, y), or IllegalActionError if (x, y) lies outside the representable board."""
    if not (-OFFSET < x < OFFSET and -OFFSET < y < OFFSET):
        raise IllegalActionError(f"position ({x},{y}) is outside the board's coordinate range")
    return pack(x, y)


def unpack(p: int) -> tuple[int, int]:
    """(x, y) of a packed position."""
    q, r = divmod(p, STRIDE)
    return q - OFFSET, r - OFFSET

"""The colours every picture of the game uses: the numpy ``rgb_array`` renderer, the GIF and the
replay viewer draw seats, terrain and tower floors from these tables, so a player is the same
colour everywhere. RGB triples; :func:`css` turns one into a CSS colour.
"""

from __future__ import annotations

from ..engine import FloorColour, SegmentKind

__all__ = ["FLOOR_COLOURS", "NO_SEGMENT", "SEAT_COLOURS", "SEAT_NAMES", "TERRAIN", "WATCHTOWER_LETTERS", "css"]

RGB = tuple[int, int, int]

#: Seat colours for players 0..5 (absolute seats) and their names.
SEAT_COLOURS: tuple[RGB, ...] = ((214, 39, 40), (31, 119, 180), (255, 200, 14), (44, 160, 44), (148, 103, 189),
                                 (23, 23, 23))
SEAT_NAMES = ("Red", "Blue", "Yellow", "Green", "Purple", "Black")
#: Terrain colour of each segment kind.
TERRAIN: dict[SegmentKind, RGB] = {
    SegmentKind.CITY: (196, 128, 64),
    SegmentKind.ROAD: (238, 232, 214),
    SegmentKind.FIELD: (112, 168, 82),
    SegmentKind.MONASTERY: (176, 58, 46),
}
#: A sub-cell that shows no segment (where a road ends inside a tile).
NO_SEGMENT: RGB = (128, 128, 128)
#: Tower floors by colour (normal stone, black, white).
FLOOR_COLOURS: dict[FloorColour, RGB] = {
    FloorColour.NORMAL: (150, 150, 156),
    FloorColour.BLACK: (20, 20, 20),
    FloorColour.WHITE: (250, 250, 250),
}
#: One letter per watchtower subject (R60): Meeple, coat of Arms, Road, mOnastery, City.
WATCHTOWER_LETTERS: dict[str, str] = {"meeple": "M", "coat-of-arms": "A", "road": "R", "monastery": "O", "city": "C"}


def css(rgb: RGB) -> str:
    """``rgb`` as a CSS hex colour, e.g. ``#d62728``."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)

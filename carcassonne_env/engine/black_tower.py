"""Black Tower fan variant: the floor supplies (R51, R52).

Everything else of the variant is colour-generic and lives where the colour matters: which
floor may go where (R54) in :mod:`.tower`, the diagonal and the empty areas (R55, R56) in
:mod:`.capture_area`. Without ``black_tower`` every floor is normal and the supply follows R32.
"""

from __future__ import annotations

from .actions import FloorColour
from .config import GameConfig

__all__ = ["BLACK_TOWER_FLOORS", "TOWER_FLOORS", "floor_supply"]

#: R32: normal floors per player by player count.
TOWER_FLOORS: dict[int, int] = {2: 10, 3: 9, 4: 7, 5: 6, 6: 5}
#: R51: (black, white, normal) floors per player by player count.
BLACK_TOWER_FLOORS: dict[int, tuple[int, int, int]] = {
    2: (4, 2, 8),
    3: (3, 2, 7),
    4: (3, 1, 6),
    5: (2, 1, 5),
    6: (2, 1, 4),
}
#: R52: no player ever holds more than this many white floors.
MAX_WHITE_FLOORS = 2


def floor_supply(config: GameConfig) -> tuple[int, int, int]:
    """Floors dealt to each player, indexed by :class:`FloorColour` (normal, black, white)."""
    n = config.players
    if not config.has("black_tower"):
        return (TOWER_FLOORS[n], 0, 0)
    black, white, normal = BLACK_TOWER_FLOORS[n]
    quarter = config.extra_foundation_tiles // 4
    black += quarter
    normal += 2 * quarter
    if config.extra_foundation_tiles >= 8 and 4 <= n <= 6:
        white = min(white + 1, MAX_WHITE_FLOORS)
    supply = [0, 0, 0]
    supply[FloorColour.NORMAL] = normal
    supply[FloorColour.BLACK] = black
    supply[FloorColour.WHITE] = white
    return (supply[0], supply[1], supply[2])

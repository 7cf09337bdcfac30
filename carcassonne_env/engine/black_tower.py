"""Black Tower fan variant (docs/rules.md §3): its plug-in and the floor supplies (R51, R52).

The plug-in requires ``tower`` and has no tile set, state or action of its own: at setup it deals
the floors of R51/R52 into the tower's fresh state instead of the normal floors of R32. Everything
else of the variant is colour-generic and lives where the colour matters: which floor may go where
(R54) in :mod:`.tower`, the diagonal and the empty areas (R55, R56) in :mod:`.capture_area`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from .actions import FloorColour
from .expansion import Expansion, ExpansionState
from .tiles import TileCatalogue
from .tower import TOWER_FLOORS, TowerState

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["BLACK_TOWER_FLOORS", "TOWER_FLOORS", "BlackTowerExpansion", "floor_supply"]

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
    """Floors dealt to each player, indexed by :class:`FloorColour` (normal, black, white): R32
    without ``black_tower``, R51 and R52 with it."""
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


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class BlackTowerExpansion(Expansion):
    """The Black Tower's plug-in: deals the floors of R51/R52 into the tower's state at setup."""

    name = "black_tower"
    requires = ("tower",)

    def __init__(self, config: GameConfig, catalogue: TileCatalogue) -> None:
        super().__init__(config, catalogue)
        self.floors_dealt = floor_supply(config)

    def new_state(self, states: Mapping[str, ExpansionState]) -> None:
        """R51, R52: every player's floors; the tower's state is fresh (``tower`` comes first)."""
        tower = states["tower"]
        assert isinstance(tower, TowerState)
        tower.floors = list(self.floors_dealt) * self.config.players
        return None

"""The expansion registry: the one place that maps an expansion name to its plug-in, and through
the plug-in's declarative spec (``Expansion.name``, ``tile_set``, ``requires``) to its tile set and
the expansions it requires.

``GameConfig`` validates expansion and tile-set names against this registry; the expansion modules
import ``GameConfig`` for annotations only, so the config can import the registry without a cycle.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from .black_tower import BlackTowerExpansion
from .expansion import Expansion
from .tiles import TileCatalogue
from .tower import TowerExpansion
from .watchtowers import WatchtowersExpansion

if TYPE_CHECKING:
    from .config import GameConfig

__all__ = ["EXPANSIONS", "PLUGINS", "TILE_SETS", "TOWER_VARIANT", "build_expansions", "with_requirements"]

#: Plug-in per expansion name, in the fixed order in which games build them and call their hooks
#: (an expansion comes after those it requires).
PLUGINS: dict[str, type[Expansion]] = {
    cls.name: cls for cls in (TowerExpansion, BlackTowerExpansion, WatchtowersExpansion)
}
#: The expansion names, in registry order.
EXPANSIONS: tuple[str, ...] = tuple(PLUGINS)
#: Tile-set names: the base game's, then those the expansions bring, in registry order.
TILE_SETS: tuple[str, ...] = ("base", *(s for cls in PLUGINS.values() if (s := cls.tile_set) is not None))
#: The tower variant: the base game with The Tower, Black Tower and The Watchtowers, the game the
#: trainers, the tournament, the benchmarks and the shipped models default to. Every list of two or more
#: expansions is named here (this, :func:`with_requirements`), never spelled out
#: (tests/test_expansion_names.py).
TOWER_VARIANT: tuple[str, ...] = (TowerExpansion.name, BlackTowerExpansion.name, WatchtowersExpansion.name)


def with_requirements(*names: str) -> tuple[str, ...]:
    """The expansions ``names`` and those they require (R50, transitively), in registry order: the
    expansion list of the smallest game that has them all (``with_requirements("black_tower")`` is
    tower and black tower). KeyError for a name that is no expansion."""
    needed: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(PLUGINS[name].requires)
    return tuple(name for name in EXPANSIONS if name in needed)


@cache
def build_expansions(config: GameConfig, catalogue: TileCatalogue) -> tuple[Expansion, ...]:
    """The expansion plug-ins of ``config``, in registry order. They are stateless, so games with
    equal configs share them."""
    return tuple(PLUGINS[name](config, catalogue) for name in config.expansions)

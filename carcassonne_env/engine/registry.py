"""Expansion registry: the only place that maps expansion names from the config to plug-ins."""

from __future__ import annotations

from functools import cache

from .config import GameConfig
from .expansion import Expansion
from .tiles import TileCatalogue
from .tower import TowerExpansion
from .watchtowers import WatchtowersExpansion

__all__ = ["build_expansions"]

#: Plug-in per expansion name. ``black_tower`` has none of its own: it changes the floor rules of
#: ``tower`` (see :mod:`.black_tower`), which reads it from the config.
PLUGINS: dict[str, type[Expansion] | None] = {
    "tower": TowerExpansion,
    "black_tower": None,
    "watchtowers": WatchtowersExpansion,
}


@cache
def build_expansions(config: GameConfig, catalogue: TileCatalogue) -> tuple[Expansion, ...]:
    """The expansion plug-ins of ``config``, in a fixed order. They are stateless, so games with
    equal configs share them."""
    return tuple(cls(config, catalogue) for name in config.expansions if (cls := PLUGINS[name]) is not None)

"""Print the generated tables of docs/env.md: ``python -m carcassonne_env.environment.doc_tables``.

The action segments for the default window and the observation layout for two players with every
expansion come straight from :class:`.codec.ActionCodec` and :class:`.layout.Layout`; a test checks
that docs/env.md contains this output verbatim, so the page cannot drift from the code.
"""

from __future__ import annotations

from ..engine import GameConfig
from ..engine.registry import TOWER_VARIANT
from .codec import ActionCodec
from .layout import Layout
from .options import DEFAULT_WINDOW

__all__ = ["DOCUMENTED_CONFIG", "tables"]

#: The config whose layout docs/env.md shows.
DOCUMENTED_CONFIG = GameConfig(players=2, expansions=TOWER_VARIANT)


def tables() -> str:
    """The generated Markdown, action table first."""
    return ActionCodec(DEFAULT_WINDOW).markdown() + "\n" + Layout(DOCUMENTED_CONFIG, DEFAULT_WINDOW).markdown()


if __name__ == "__main__":
    print(tables())

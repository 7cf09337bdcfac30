"""The engine-level random player: uniform over ``game.legal_actions()`` from its own seeded generator.

Stand-in until ``carcassonne_env.players.RandomAgent`` (usable at both levels) lands on main; the
``random`` spec then points there and this module goes.
"""

from __future__ import annotations

import numpy as np

from carcassonne_env.engine import Action, Game


class EngineRandomAgent:
    """Picks uniformly among the legal actions of the current decision."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def choose_action(self, game: Game) -> Action:
        legal = game.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


def make_random(seed: int) -> EngineRandomAgent:
    """The ``random`` spec: no options."""
    return EngineRandomAgent(seed)

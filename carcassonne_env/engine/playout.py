"""The uniformly random playout: every decision uniform over the legal actions.

The one loop behind the engine benchmark (:mod:`carcassonne_env.bench`), the demo
(:mod:`carcassonne_env.demo`) and the window measurement
(:mod:`carcassonne_env.environment.measure_window`). Each decision consumes exactly one
``rng.randrange(len(legal))``, so a seed gives the same game in all of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .actions import Action
from .game import Game

__all__ = ["random_playout"]


def random_playout(
    game: Game, rng: random.Random, on_decision: Callable[[Sequence[Action], Action], None] | None = None
) -> int:
    """Play ``game`` to its end, each action ``legal[rng.randrange(len(legal))]``; return the number
    of decisions made. ``on_decision(legal, action)``, if given, sees every decision before it is
    applied (``legal`` is the game's own list: read it, do not keep or change it)."""
    decisions = 0
    if on_decision is None:  # the timed loop of the benchmark: nothing but the choice
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        return decisions
    while not game.is_over:
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        on_decision(legal, action)
        game.apply(action)
        decisions += 1
    return decisions

"""The same public position with the tiles not yet drawn in another order (R4: only the multiset of
the pile is public), for the tests that show an agent never reads the true pile."""

from __future__ import annotations

import numpy as np

from carcassonne_env.engine import Game


def with_unseen_pile_permuted(game: Game, rng: np.random.Generator) -> Game:
    """``game`` reloaded with the undrawn part of its pile shuffled by ``rng``: a custom pile, since
    no seed gives that order (``Game.from_dict`` refuses a seeded pile its seed does not give)."""
    data = game.to_dict()
    data["seed"], data["explicit_order"] = None, True
    drawn = data["drawn"]
    unseen = data["pile"][drawn:]
    data["pile"][drawn:] = [unseen[i] for i in rng.permutation(len(unseen))]
    return Game.from_dict(data)

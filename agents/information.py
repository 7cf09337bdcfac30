"""What a player may know: a copy of the game built from public information only."""

from __future__ import annotations

from carcassonne_env.engine import Game

__all__ = ["public_state"]


def public_state(game: Game) -> Game:
    """A copy of ``game`` whose unseen pile lists the tiles left in catalogue order.

    Everything public is kept (board, followers, supplies, scores, this turn's tile, the multiset
    of tiles left, R4); the order of the unseen tiles is replaced by one built from
    ``game.remaining_counts``, so the copy is a function of the public state alone. A search that
    calls ``determinize(rng)`` on it therefore draws the same worlds, and takes the same decisions,
    whatever the true order of the pile (``determinize`` on the game itself would permute the true
    order, so its worlds, though uniformly distributed, would still depend on it).
    """
    return game.public_copy()

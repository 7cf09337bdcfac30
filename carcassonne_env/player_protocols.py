"""What a player is, at the two levels, and the uniformly random player; engine and numpy only.

* :class:`Policy` — observation level, what RL policies implement:
  ``act(observation, action_mask) -> int`` with the env's egocentric observation
  ``{"board", "cells", "vector"}`` and int8 mask of the player to move (docs/env.md).
* :class:`EngineAgent` — engine level, what search agents implement: ``choose_action(game) -> Action``
  for ``game.current_player``. It must not mutate ``game``, may read only public state and uses
  ``game.determinize(rng)`` for anything about future tiles.

:class:`RandomAgent` is the one uniformly random player, at both levels. The envs take players of
either kind from here; :mod:`carcassonne_env.players` adds the adapter from a policy to an engine
agent (which needs the env's encoder) and is the public home of all of these.
"""

from __future__ import annotations

from typing import Protocol, TypeGuard, runtime_checkable

import numpy as np

from .engine import Action, Game
from .engine.config import as_int

__all__ = ["EngineAgent", "Observation", "Player", "Policy", "RandomAgent", "is_player"]

#: The env's observation of one player: ``{"board", "cells", "vector"}`` (docs/env.md).
Observation = dict[str, np.ndarray]


@runtime_checkable
class Policy(Protocol):
    """Observation level: returns an action index whose ``action_mask`` entry is 1."""

    def act(self, observation: Observation, action_mask: np.ndarray) -> int: ...


@runtime_checkable
class EngineAgent(Protocol):
    """Engine level: returns one of ``game.legal_actions()`` for ``game.current_player``, leaving
    ``game`` untouched and reading only its public state."""

    def choose_action(self, game: Game) -> Action: ...


#: Either kind of player.
Player = Policy | EngineAgent


def is_player(obj: object) -> TypeGuard[Player]:
    """Whether ``obj`` is a player instance of either kind (a player class is not)."""
    return not isinstance(obj, type) and isinstance(obj, EngineAgent | Policy)


class RandomAgent:
    """Uniform over the legal actions, at both levels, from its own generator.

    ``seed`` is a non-negative int (the same seed gives the same choices) or a
    ``np.random.Generator`` to draw from (shared, not copied).
    """

    def __init__(self, seed: int | np.random.Generator) -> None:
        if isinstance(seed, np.random.Generator):
            self.rng = seed
            return
        number = as_int(seed)
        if number is None:
            raise TypeError(f"seed must be a non-negative int or a numpy Generator, got {seed!r}")
        if number < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed!r}")
        self.rng = np.random.default_rng(number)

    def act(self, observation: Observation, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])

    def choose_action(self, game: Game) -> Action:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game has no legal action (it is over)")
        return legal[int(self.rng.integers(len(legal)))]

"""The uniformly random agent: the baseline every other agent must beat."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


class RandomAgent:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: npt.NDArray[np.int8]) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])

"""The self-play opponent pool: fixed reference agents plus frozen snapshots of the learner.

Sampling rule (one draw per env per rollout, :meth:`OpponentPool.sample`):

* with probability ``snapshot_share`` — when the pool holds any snapshot — a snapshot, the
  ``i``-th oldest of ``k`` with weight ``i`` (recent snapshots are harder and more relevant, older
  ones keep the learner from forgetting how to beat earlier play);
* otherwise one of the fixed agents (e.g. ``random``, ``greedy``) by their ``fixed_weights``.

Promotion rule (:meth:`OpponentPool.consider`): after an evaluation of the learner against the
current *best* agent over paired games, the learner's snapshot joins the pool and becomes the new
best exactly when its score rate — (wins + draws / 2) / games — is at least ``0.5 + margin``.
The pool keeps at most ``max_snapshots`` snapshots (the oldest leaves first; the best never does).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["OpponentPool"]


@dataclass
class OpponentPool:
    """Agent specs the learner trains against (module docstring for the rules).

    ``fixed`` and ``snapshots`` hold agent specs (``"random"``, ``"greedy:fast=1"``,
    ``"ppo:runs/x/snapshots/000100000.zip"``); ``best`` is the spec the learner must beat to be
    promoted.
    """

    fixed: list[str]
    fixed_weights: list[float]
    best: str
    snapshot_share: float = 0.5
    margin: float = 0.05
    max_snapshots: int = 5
    snapshots: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.fixed:
            raise ValueError("fixed: the pool needs at least one fixed opponent")
        if len(self.fixed_weights) != len(self.fixed) or min(self.fixed_weights) < 0 or sum(self.fixed_weights) <= 0:
            raise ValueError(f"fixed_weights: need {len(self.fixed)} non-negative weights with a positive sum, "
                             f"got {self.fixed_weights}")
        if not 0.0 <= self.snapshot_share <= 1.0:
            raise ValueError(f"snapshot_share must be in [0, 1], got {self.snapshot_share}")
        if not 0.0 <= self.margin < 0.5:
            raise ValueError(f"margin must be in [0, 0.5), got {self.margin}")
        if self.max_snapshots < 1:
            raise ValueError(f"max_snapshots must be ≥ 1, got {self.max_snapshots}")

    def sample(self, rng: np.random.Generator) -> str:
        """One opponent spec by the sampling rule."""
        if self.snapshots and rng.random() < self.snapshot_share:
            k = len(self.snapshots)
            weights = np.arange(1, k + 1, dtype=np.float64)
            return self.snapshots[int(rng.choice(k, p=weights / weights.sum()))]
        w = np.asarray(self.fixed_weights, dtype=np.float64)
        return self.fixed[int(rng.choice(len(self.fixed), p=w / w.sum()))]

    def consider(self, snapshot: str, score_against_best: float) -> bool:
        """Promote ``snapshot`` if its score rate against :attr:`best` — (wins + draws / 2) / games
        over paired games — is ≥ 0.5 + margin; True if promoted."""
        if not 0.0 <= score_against_best <= 1.0:
            raise ValueError(f"score_against_best must be in [0, 1], got {score_against_best}")
        if score_against_best < 0.5 + self.margin:
            return False
        self.snapshots.append(snapshot)
        self.best = snapshot
        while len(self.snapshots) > self.max_snapshots:
            oldest = next(s for s in self.snapshots if s != self.best)
            self.snapshots.remove(oldest)
        return True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OpponentPool:
        return cls(**data)

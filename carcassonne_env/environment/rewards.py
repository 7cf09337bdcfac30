"""Rewards from scores: terminal outcome and optional per-step shaping (docs/env.md, Rewards).

* ``win_loss`` (default): at the end, +1 for the single player with the highest score, 0 for each
  of several players sharing the highest score (a shared win is a draw, R30), −1 for everyone else.
* ``score_diff``: at the end, (own score − best other score) / max(1, best score), in [−1, 1].
* shaping (weight c, default 0): after every step, c · (Δ own score − mean Δ of the other players)
  for the score changes that step caused (scoring, ransom, final scoring). With two players this is
  zero-sum. It is added to the terminal reward on the last step.
"""

from __future__ import annotations

from collections.abc import Sequence

from .options import RewardMode

__all__ = ["shaping_rewards", "terminal_rewards"]


def terminal_rewards(scores: Sequence[int], mode: RewardMode) -> list[float]:
    """Reward of each player for a finished game with final ``scores``."""
    best = max(scores)
    if mode == "score_diff":
        scale = max(1, best)
        out = []
        for p, s in enumerate(scores):
            other = max(t for q, t in enumerate(scores) if q != p)
            out.append((s - other) / scale)
        return out
    winners = sum(1 for s in scores if s == best)
    top = 1.0 if winners == 1 else 0.0
    return [top if s == best else -1.0 for s in scores]


def shaping_rewards(before: Sequence[int], after: Sequence[int], weight: float) -> list[float]:
    """Per-step shaping for the score change ``before`` → ``after`` (all zeros when unchanged)."""
    deltas = [a - b for a, b in zip(after, before, strict=True)]
    total = sum(deltas)
    others = len(deltas) - 1
    return [weight * (d - (total - d) / others) for d in deltas]

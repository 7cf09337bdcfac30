"""Aim at first place, not at the expected margin: a position value over a value's expected final scores.

A margin search (greedy, ``afterstate:``) maximises the expected final score minus the *best other
expected* final score. At 2 players that is the same as maximising the chance to win when the rest
of the game adds the same noise to both margins; at 3 or more it is not: the maximum of the others'
*final* scores is larger than the maximum of their expected ones, the more so the more players are
close, and a line that keeps one rival far behind but lets two others close in looks better than it
is. :class:`FirstPlaceChance` values a position by the chance that the player's final score is the
highest, each player's final score being its expected one plus independent normal noise of standard
deviation ``spread · √t`` (``t``: the share of the pile still to be drawn; the variance of what is left
to score shrinks with the pile):

    P(p first) = E_z [ Π_{q ≠ p} Φ((μ_p − μ_q) / s + z) ],  z ~ N(0, 1),  s = spread · √t,

computed by Gauss–Hermite quadrature (:data:`NODES` nodes). The value returned is that chance in
percent plus a hundredth of the expected margin, so lines of equal chance (all but certain wins and
losses) are still ranked by margin. With ``s = 0`` (the game over or the pile empty) the chance is 1
for a sole leader, 1/k for k tied leaders, else 0.

Only the one-turn searches read it (spec option ``spread=S`` of ``afterstate:``); the MCTS squashes
margins in points and keeps the margin.
"""

from __future__ import annotations

import math

import numpy as np

from carcassonne_env.engine import Game

from .shipped_values import FinalScoreValue
from .value import next_turn

__all__ = ["NODES", "FirstPlaceChance", "first_place_chance", "spread_of_residuals"]

#: Quadrature nodes (probabilists' Gauss–Hermite): exact for the product of normal CDFs to ~1e-4.
NODES = 24
_X, _W = np.polynomial.hermite_e.hermegauss(NODES)
#: (z / √2, weight / √(2π)) per node: Φ(a + z) = (1 + erf(a / √2 + z / √2)) / 2.
_POINTS: tuple[tuple[float, float], ...] = tuple(zip((_X / math.sqrt(2.0)).tolist(),
                                                     (_W / math.sqrt(2.0 * math.pi)).tolist(), strict=True))


def first_place_chance(expected: list[float], player: int, s: float) -> float:
    """The chance that ``player``'s final score is the highest, final scores being ``expected`` plus
    independent N(0, ``s``²) noise (module docstring); ``s`` = 0: 1 for a sole leader, 1/k for k tied."""
    mine = expected[player]
    others = [e for q, e in enumerate(expected) if q != player]
    if s <= 0.0:
        best = max(others)
        return 0.0 if mine < best else 1.0 if mine > best else 1.0 / (1 + others.count(best))
    scale = 1.0 / (s * math.sqrt(2.0))
    d = [(mine - e) * scale for e in others]
    total = 0.0
    for shift, w in _POINTS:
        product = w
        for di in d:
            product *= 0.5 * (1.0 + math.erf(di + shift))
        total += product
    return total


def spread_of_residuals(mse: float, mean_t: float, players: int, centred: bool) -> float:
    """The ``spread`` that explains a value's mean squared error ``mse`` (points²) on positions of mean
    pile share ``mean_t``: with noise of variance ``spread² · t`` per player, a residual has variance
    ``spread² · t``, or ``spread² · t · (1 − 1/players)`` once centred over the players, so
    ``spread = √(mse / (mean_t · (1 − 1/players)))`` (without the factor when not centred)."""
    share = mean_t * ((1.0 - 1.0 / players) if centred else 1.0)
    if not (mse >= 0 and share > 0):
        raise ValueError(f"spread_of_residuals: needs mse ≥ 0 and positions before the end, got mse {mse}, "
                         f"mean pile share {mean_t}")
    return math.sqrt(mse / share)


def _value(expected: list[float], player: int, s: float) -> float:
    """The chance of first place in percent plus a hundredth of the expected margin (module docstring)."""
    lead = expected[player] - max(e for q, e in enumerate(expected) if q != player)
    return 100.0 * first_place_chance(expected, player, s) + 0.01 * lead


class FirstPlaceChance:
    """A :class:`~agents.evaluation.PositionValue`: each player's chance of finishing first (in percent,
    plus a hundredth of the expected margin) under ``base``'s expected final scores and a final-score
    noise of ``spread · √t`` points (module docstring). ``spread`` > 0."""

    def __init__(self, base: FinalScoreValue, spread: float) -> None:
        if not (spread > 0 and math.isfinite(spread)):
            raise ValueError(f"FirstPlaceChance: spread must be a positive number of points, got {spread!r}")
        self.base = base
        self.spread = float(spread)

    def margins(self, game: Game) -> list[float]:
        expected, s = self.base.final_scores(game), self._noise(game)
        return [_value(expected, p, s) for p in range(len(expected))]

    def margin(self, game: Game, player: int) -> float:
        return _value(self.base.final_scores(game), player, self._noise(game))

    def _noise(self, game: Game) -> float:
        """The final scores' standard deviation still to come: ``spread · √t``, 0 once the game is over."""
        return 0.0 if game.is_over else self.spread * math.sqrt(next_turn(game)[1])

    def __repr__(self) -> str:
        return f"FirstPlaceChance(spread={self.spread})"  # the base's repr is its weights

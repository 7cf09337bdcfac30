"""Aim at first place, not at the expected margin: a position value over a value's expected final scores.

A margin search (greedy, ``afterstate:``) maximises the expected final score minus the *best other
expected* final score. At 2 players that is the same as maximising the chance to win when the rest
of the game adds the same noise to both margins; at 3 or more it is not: the maximum of the others'
*final* scores is larger than the maximum of their expected ones, the more so the more players are
close, and a line that keeps one rival far behind but lets two others close in looks better than it
is. :class:`FirstPlaceChance` values a position by the chance that the player's final score is the
highest, each player's final score being its expected one plus independent normal noise of standard
deviation ``s = noise(t)`` (``t``: the share of the pile still to be drawn):

    P(p first) = E_z [ Π_{q ≠ p} Φ((μ_p − μ_q) / s + z) ],  z ~ N(0, 1),

computed by Gauss–Hermite quadrature (:data:`NODES` nodes). The value returned is that chance in
percent plus a hundredth of the expected margin, so lines of equal chance (all but certain wins and
losses) are still ranked by margin. With ``s = 0`` (the game over or the pile empty) the chance is 1
for a sole leader, 1/k for k tied leaders, else 0.

Two noise models: :class:`MeasuredNoise`, the standard deviation of a value's errors on games it was
not fitted on, per pile share (what a trained network records), and :class:`SqrtNoise`, ``spread · √t``
(points still to come as a sum of independent turns; spec option ``spread=S``). Measured, the error
is far from ``√t``: at 4 players it is nearly flat over the first two thirds of the game and still
about 9 points over the last tenth, where ``√t`` shrinks it to a third.

Only the one-turn searches read it (``afterstate:``); the MCTS squashes margins in points and keeps
the margin.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from carcassonne_env.engine import Game

from .shipped_values import FinalScoreValue
from .value import next_turn

__all__ = ["NODES", "FirstPlaceChance", "MeasuredNoise", "SqrtNoise", "first_place_chance"]

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


@dataclass(frozen=True)
class SqrtNoise:
    """The final scores' standard deviation ``spread · √t`` at pile share ``t``: ``spread`` points at the
    start, shrinking as a sum of independent turns would. ``spread`` > 0."""

    spread: float

    def __post_init__(self) -> None:
        if not (self.spread > 0 and math.isfinite(self.spread)):
            raise ValueError(f"spread must be a positive number of points, got {self.spread!r}")

    def __call__(self, t: float) -> float:
        return self.spread * math.sqrt(t)


@dataclass(frozen=True)
class MeasuredNoise:
    """The final scores' standard deviation at pile share ``t`` as measured: piecewise linear through
    (0, 0) and the knots (``t[i]``, ``sd[i]``), constant after the last knot. ``t`` strictly increasing
    in (0, 1], ``sd`` ≥ 0, as many of each (at least one)."""

    t: tuple[float, ...]
    sd: tuple[float, ...]

    def __post_init__(self) -> None:
        knots_ok = len(self.t) == len(self.sd) >= 1 and all(math.isfinite(v) for v in (*self.t, *self.sd))
        if not (knots_ok and self.t[0] > 0.0 and self.t[-1] <= 1.0 and min(self.sd) >= 0.0
                and all(a < b for a, b in itertools.pairwise(self.t))):
            raise ValueError(f"a measured noise needs as many sd ≥ 0 as pile shares, increasing in (0, 1]; "
                             f"got t={list(self.t)}, sd={list(self.sd)}")

    def __call__(self, t: float) -> float:
        if t <= 0.0:
            return 0.0
        i = bisect.bisect_left(self.t, t)
        if i == len(self.t):
            return self.sd[-1]
        t0, s0 = (0.0, 0.0) if i == 0 else (self.t[i - 1], self.sd[i - 1])
        return s0 + (self.sd[i] - s0) * (t - t0) / (self.t[i] - t0)

    @classmethod
    def of_residuals(cls, residuals: npt.NDArray[np.float64], t: npt.NDArray[np.float64], centred: bool,
                     bins: int = 10) -> MeasuredNoise:
        """The noise that explains a value's errors ``residuals`` (positions × players, points: its
        expected minus the final scores, or the centred ones) at pile shares ``t`` (one per position):
        per bin of equal width in pile share, a knot at the bin's mean share with the root mean square
        residual, divided by √(1 − 1/players) when centred (a centred residual of N players' independent
        noise of variance σ² has variance σ²·(1 − 1/N)). Positions of the finished game (t = 0) are left
        out: their scores are exact."""
        residuals = np.asarray(residuals, dtype=np.float64)
        t = np.asarray(t, dtype=np.float64)
        if residuals.ndim != 2 or t.shape != residuals.shape[:1]:
            raise ValueError(f"residuals of shape (positions, players) and one pile share per position needed, "
                             f"got {residuals.shape} and {t.shape}")
        players = residuals.shape[1]
        factor = (1.0 - 1.0 / players) if centred else 1.0
        which = np.minimum((t * bins).astype(np.int64), bins - 1)
        knots: list[tuple[float, float]] = []
        for b in range(bins):
            rows = (which == b) & (t > 0.0)
            if rows.any():
                knots.append((float(t[rows].mean()), math.sqrt(float((residuals[rows] ** 2).mean()) / factor)))
        if not knots:
            raise ValueError("a measured noise needs positions before the end of the game (t > 0)")
        return cls(tuple(round(a, 4) for a, _ in knots), tuple(round(b, 3) for _, b in knots))

    def to_info(self) -> dict[str, list[float]]:
        """The knots as a network's ``info["noise"]``."""
        return {"t": list(self.t), "sd": list(self.sd)}

    @classmethod
    def from_info(cls, info: object) -> MeasuredNoise:
        """The noise a network recorded (:meth:`to_info`); ValueError naming what is wrong otherwise."""
        if not (isinstance(info, Mapping) and isinstance(info.get("t"), list) and isinstance(info.get("sd"), list)):
            raise ValueError(f"a network's recorded noise must be {{'t': [...], 'sd': [...]}}, got {info!r}")
        try:
            return cls(tuple(float(v) for v in info["t"]), tuple(float(v) for v in info["sd"]))
        except (TypeError, ValueError) as e:
            raise ValueError(f"a network's recorded noise is not valid: {e}") from None


def _value(expected: list[float], player: int, s: float) -> float:
    """The chance of first place in percent plus a hundredth of the expected margin (module docstring)."""
    lead = expected[player] - max(e for q, e in enumerate(expected) if q != player)
    return 100.0 * first_place_chance(expected, player, s) + 0.01 * lead


class FirstPlaceChance:
    """A :class:`~agents.evaluation.PositionValue`: each player's chance of finishing first (in percent,
    plus a hundredth of the expected margin) under ``base``'s expected final scores and a final-score
    noise of ``noise(t)`` points at pile share ``t`` (module docstring)."""

    def __init__(self, base: FinalScoreValue, noise: Callable[[float], float]) -> None:
        self.base = base
        self.noise = noise

    def margins(self, game: Game) -> list[float]:
        expected, s = self.base.final_scores(game), self._noise(game)
        return [_value(expected, p, s) for p in range(len(expected))]

    def margin(self, game: Game, player: int) -> float:
        return _value(self.base.final_scores(game), player, self._noise(game))

    def _noise(self, game: Game) -> float:
        """The final scores' standard deviation still to come, 0 once the game is over."""
        return 0.0 if game.is_over else self.noise(next_turn(game)[1])

    def __repr__(self) -> str:
        return f"FirstPlaceChance({self.noise!r})"  # the base's repr is its weights

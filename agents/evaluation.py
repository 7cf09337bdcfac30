"""Position values shared by the search agents: "own score minus the best opponent's score if the
game ended now" (:meth:`Game.scores_if_ended_now`: this turn's pending T5 scoring, then the end-game
scoring R27–R29).

``Evaluator`` is the pluggable leaf value of :class:`~agents.mcts.MCTSAgent`: a callable
``(game, player) -> float`` in [−1, 1], from ``player``'s point of view.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from carcassonne_env.engine import Game

__all__ = ["Evaluator", "end_now_margin", "margin", "margins", "squashed_margins"]

#: A leaf evaluator: ``(game, player) -> value in [−1, 1]`` from ``player``'s point of view.
Evaluator = Callable[[Game, int], float]


def margin(scores: Sequence[int], player: int) -> int:
    """``scores[player]`` minus the best score among the other players."""
    return scores[player] - max(s for q, s in enumerate(scores) if q != player)


def margins(scores: Sequence[int]) -> list[int]:
    """:func:`margin` of every player, in one pass (the best and second-best score)."""
    best = max(scores)
    if scores.count(best) > 1:
        return [s - best for s in scores]
    second = max(s for s in scores if s != best)
    return [s - second if s == best else s - best for s in scores]


def end_now_margin(game: Game, player: int) -> int:
    """:func:`margin` of the scores if the game ended now."""
    return margin(game.scores_if_ended_now(), player)


def squashed_margins(game: Game, scale: float, baseline: Sequence[int] | None = None) -> list[float]:
    """Every player's end-now margin, less its ``baseline`` (e.g. the margins at the root of a
    search), squashed into (−1, 1) as ``tanh((margin − baseline) / scale)``.

    A gain of ``scale`` points is worth 0.76: small differences stay nearly linear, large ones
    saturate near ±1. Centring on the root keeps a player who already leads (or trails) by far in
    the linear range, where the moves under search still differ.
    """
    ms = margins(game.scores_if_ended_now())
    if baseline is None:
        return [math.tanh(m / scale) for m in ms]
    return [math.tanh((m - b) / scale) for m, b in zip(ms, baseline, strict=True)]

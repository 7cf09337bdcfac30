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


def squashed_margins(game: Game, scale: float) -> list[float]:
    """Every player's end-now margin squashed into (−1, 1) as ``tanh(margin / scale)``.

    A margin of ``scale`` points is worth 0.76, so small margins stay nearly linear while a
    decided game saturates near ±1 (a win/loss signal with a margin tie-break).
    """
    return [math.tanh(m / scale) for m in margins(game.scores_if_ended_now())]

"""Position values shared by the search agents: "own score minus the best opponent's score if the
game ended now" (:meth:`Game.scores_if_ended_now`: this turn's pending T5 scoring, then the end-game
scoring R27–R29).

A :class:`PositionValue` is what the search agents maximise: every player's margin in some
units of points. :data:`END_NOW` is the end-now margin; :class:`~agents.value.LinearValue` the
learned expected final margin.

``Evaluator`` is the pluggable leaf value of :class:`~agents.mcts.MCTSAgent`: a callable
``(game, player) -> float`` in [−1, 1], from ``player``'s point of view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from carcassonne_env.engine import Game

__all__ = ["END_NOW", "EndNowValue", "Evaluator", "PositionValue", "end_now_margin", "margin", "margins"]

#: A leaf evaluator: ``(game, player) -> value in [−1, 1]`` from ``player``'s point of view.
Evaluator = Callable[[Game, int], float]


def margin(scores: Sequence[int], player: int) -> int:
    """``scores[player]`` minus the best score among the other players."""
    return scores[player] - max(s for q, s in enumerate(scores) if q != player)


def margins(scores: Sequence[float]) -> list[float]:
    """:func:`margin` of every player, in one pass (the best and second-best score)."""
    best = max(scores)
    if scores.count(best) > 1:
        return [s - best for s in scores]
    second = max(s for s in scores if s != best)
    return [s - second if s == best else s - best for s in scores]


def end_now_margin(game: Game, player: int) -> int:
    """:func:`margin` of the scores if the game ended now."""
    return margin(game.scores_if_ended_now(), player)


class PositionValue(Protocol):
    """A position's value for every player, as a margin over the best other player (points)."""

    def margins(self, game: Game) -> list[float]:
        """Every player's margin, in seat order."""
        ...

    def margin(self, game: Game, player: int) -> float:
        """``margins(game)[player]`` (may be cheaper)."""
        ...


class EndNowValue:
    """The end-now margin (:func:`end_now_margin`) as a :class:`PositionValue`."""

    def margins(self, game: Game) -> list[float]:
        return margins(game.scores_if_ended_now())

    def margin(self, game: Game, player: int) -> float:
        return end_now_margin(game, player)

    def __repr__(self) -> str:
        return "END_NOW"


#: The end-now margin, the reference greedy's value.
END_NOW = EndNowValue()

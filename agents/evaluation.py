"""Position values shared by the search agents: "own score minus the best opponent's score if the
game ended now" (:meth:`Game.scores_if_ended_now`: this turn's pending T5 scoring, then the end-game
scoring R27–R29).

A :class:`PositionValue` is what the search agents maximise: every player's margin in some
units of points. :data:`END_NOW` is the end-now margin; :class:`~agents.value.LinearValue` the
learned expected final margin.

A search that values many positions at once (the lines of :class:`~agents.greedy.GreedyAgent`'s
turn) collects them in :func:`leaf_values`: a value that offers a batched form (``leaf_values(game)``,
as :class:`~agents.nets.value_net.ValueNet` does) values them together, with the same numbers.

``Evaluator`` is the pluggable leaf value of :class:`~agents.mcts.MCTSAgent`: a callable
``(game, player) -> float`` in [−1, 1], from ``player``'s point of view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from mypy_extensions import mypyc_attr

from carcassonne_env.engine import Game

__all__ = ["END_NOW", "EndNowValue", "Evaluator", "LeafValues", "PositionValue", "end_now_margin", "leaf_values",
           "margin", "margins"]

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


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed by the network's batch
class LeafValues:
    """The margins of positions a search collects one at a time and reads together.

    ``add(game, player)`` reads ``game`` at once (the caller may change it afterwards) and returns the
    position's index in :meth:`values`; ``add_margin`` records a margin already known. This class values
    each position as it is added; a value's batched form (a subclass) keeps its inputs and values all
    of them in :meth:`values`, with the same numbers as its ``margin``."""

    def __init__(self, value: PositionValue) -> None:
        self._value = value
        self._margins: list[float] = []

    def add(self, game: Game, player: int) -> int:
        """Record ``player``'s margin in ``game``; its index in :meth:`values`."""
        return self.add_margin(self._value.margin(game, player))

    def add_margin(self, value: float) -> int:
        """Record a known margin; its index in :meth:`values`."""
        self._margins.append(value)
        return len(self._margins) - 1

    def values(self) -> list[float]:
        """The margins recorded so far, in the order of their indices (a copy: more may be added after)."""
        return list(self._margins)


def leaf_values(value: PositionValue, game: Game) -> LeafValues:
    """A :class:`LeafValues` for positions of ``game``'s kind (its player count): ``value``'s batched
    form when it offers one (a ``leaf_values(game)`` method, which must return a :class:`LeafValues`
    subclass), else one that values as it goes."""
    make: Callable[[Game], LeafValues] | None = getattr(value, "leaf_values", None)
    return make(game) if make is not None else LeafValues(value)

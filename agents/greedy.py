"""The greedy agent: one turn of look-ahead over all of its own decisions of the turn.

A turn is a line of decisions by one player: PLACE (T2), then the T3 choice (DEPLOY, FLOOR of any
colour, TOWER_TOP or PASS, after an optional RANSOM that keeps the T3 decision open, R48), then
CAPTURE or NO_CAPTURE when a floor has targets (T4). The turn is over when the current player
changes or the game ends; T5 scoring has then been applied. Every complete line is valued as the
agent's score minus the best opponent's score *if the game ended now*
(:func:`~agents.evaluation.end_now_margin`), and the agent plays the first decision of a best line,
breaking ties uniformly at random from its seeded generator.

Each decision re-searches the rest of the turn from the current state. Values are exact, so the
later decisions of a turn continue a best line of the earlier search (its value is the maximum
over its continuations), and only the tie-break may pick a different equally good continuation.

Exact shortcuts, which give the same values as playing the action out:

* PASS and NO_CAPTURE end the turn with the choices made so far, which is what
  ``scores_if_ended_now`` scores in T3/T4, so they need no copy of the game; with the end-now
  value, neither does a DEPLOY, nor a TOWER_TOP in most turns (``Game.scores_if_ended_after``);
* a FLOOR with no capture target ends the turn with the same scores as PASS, since floors score
  nothing (R35–R38, R66): the tower's ``capture_targets`` tells so before the floor is built, and
  such a floor is neither copied nor played; a FLOOR with targets opens T4 and is searched.

A PLACE line is played in the search's own copy and undone (``Game.apply_place_undoable``) where the
game allows it (no expansion with an ``on_tile_placed`` hook, such as the tower's): the same state
as a clone with the placement applied, without copying the board per placement.

The search works on ``game.determinize(rng)``: applying a turn's last action draws the next tile,
and a determinized copy draws it from a reshuffled pile, so nothing about the true pile can reach
the agent (end-now values do not depend on that tile; a learned value can, through a discarded
tile or the end of the pile, and then depends on the reshuffled pile only).

``fast=True`` prunes the tower look-ahead at PLACE: each placement is valued by its best DEPLOY or
PASS only; the T3 and T4 decisions themselves are still searched in full when they come.

The shortcuts are exact for the end-now margin. With another ``value`` they are approximations: a
FLOOR without a target is valued as PASS although it spends a floor, and PASS is valued in T3/T4
rather than at the turn's end (see :func:`agents.value.feature_rows`).

``value`` replaces the end-now margin as the value of a line's end: any
:class:`~agents.evaluation.PositionValue`, e.g. the learned expected final margin of
:mod:`agents.value` (spec ``greedy:value=linear``). The reference greedy of the tournaments is the
end-now one.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import index
from typing import Final, SupportsIndex

import numpy as np
from mypy_extensions import mypyc_attr

from carcassonne_env.engine import Action, ActionKind, FloorColour, Game, Phase
from carcassonne_env.engine.geometry import pack
from carcassonne_env.engine.tower import TowerExpansion
from carcassonne_env.engine.tower import state as tower_state

from .evaluation import END_NOW, EndNowValue, LeafValues, PositionValue, leaf_values, margin

__all__ = ["GreedyAgent", "best_ends"]

# Final: the compiled module reads these as constants, not from the module's dict at every use.
_DEPLOY: Final = ActionKind.DEPLOY
_PLACE: Final = ActionKind.PLACE
_FLOOR: Final = ActionKind.FLOOR
_PASS: Final = ActionKind.PASS
_NO_CAPTURE: Final = ActionKind.NO_CAPTURE
_WHITE: Final = FloorColour.WHITE
_TOWER_TOP: Final = ActionKind.TOWER_TOP


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class GreedyAgent:
    """Engine-level agent: ``choose_action(game)`` returns the first action of a best line of the turn.

    ``seed`` seeds the tie-break and the determinization; the same seed and the same sequence of
    games give the same actions. ``game`` is never modified. ``fast`` is a bool (or 0/1), checked
    here (typed ``SupportsIndex``: compiled, a ``bool`` parameter would refuse 0/1 with a bare TypeError).
    """

    def __init__(self, seed: SupportsIndex = 0, fast: SupportsIndex = False, value: PositionValue = END_NOW) -> None:
        if fast not in (True, False):  # also refuses strings such as "0", which bool() would take as True
            raise ValueError(f"GreedyAgent: fast must be a bool (or 0/1), got {fast!r}")
        if not callable(getattr(value, "margin", None)):
            raise ValueError(f"GreedyAgent: value must be a PositionValue (with a margin method), got {value!r}")
        self.fast = bool(fast)
        self.value = value
        #: The value is the end-now margin: a DEPLOY, which ends the turn, is valued by
        #: ``Game.scores_if_ended_after`` without a copy (the same scores as playing it out).
        self._end_now = isinstance(value, EndNowValue)
        self._rng = np.random.default_rng(index(seed))

    def choose_action(self, game: Game) -> Action:
        if game.is_over:
            raise ValueError("choose_action: the game is over, there is no decision to make")
        state = game.determinize(self._rng)
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(state)
        best = max(values)
        ties = [a for a, v in zip(legal, values, strict=True) if v == best]
        return ties[int(self._rng.integers(len(ties)))] if len(ties) > 1 else ties[0]

    def action_values(self, game: Game) -> list[float]:
        """The value of the best line of the turn that starts with each legal action, in the order
        of ``game.legal_actions()`` (with ``fast``, PLACE lines end at DEPLOY or PASS)."""
        return self.line_values(game, game.legal_actions())

    def line_values(self, game: Game, actions: Sequence[Action]) -> list[float]:
        """:meth:`action_values` of ``actions`` only (legal actions of ``game``), in their order: what a
        caller that ranks a few actions pays for those alone (``game`` is left as it was)."""
        leaves = leaf_values(self.value, game)
        lines = self.line_ends(game, actions, leaves)
        return best_ends(lines, leaves.values())

    def line_ends(self, game: Game, actions: Sequence[Action], leaves: LeafValues) -> list[list[int]]:
        """For each of ``actions`` (legal in ``game``), the indices in ``leaves`` of the positions where
        its lines end the turn: the action's value is the best of their values (:func:`best_ends`). A
        caller collects the lines of several positions in one ``leaves`` to value them in one batch
        (:func:`~agents.evaluation.leaf_values`); ``game`` is left as it was."""
        me = game.current_player
        prune = self.fast and game.phase is Phase.PLACE
        stop = _Stop(game, me, leaves)
        lines: list[list[int]] = []
        for a in actions:
            ends: list[int] = []
            self._line_ends(game, a, me, stop, prune, leaves, ends)
            lines.append(ends)
        return lines

    def _line_ends(self, state: Game, action: Action, me: int, stop: _Stop, prune: bool, leaves: LeafValues,
                   ends: list[int]) -> None:
        """Add to ``ends`` the indices in ``leaves`` of the positions where the lines that play ``action``
        in ``state`` end the turn (the line's value is their best)."""
        kind = action.kind
        if kind is _PASS or kind is _NO_CAPTURE or (kind is _FLOOR and not _floor_has_targets(state, action)):
            ends.append(stop.index())
            return
        if self._end_now and (kind is _DEPLOY or kind is _TOWER_TOP):
            ends.append(leaves.add_margin(margin(state.scores_if_ended_after(action), me)))
            return
        if kind is _PLACE and state.place_undoable:  # T3 follows, same player: searched in place
            undo = state.apply_place_undoable(action)
            try:
                self._best_ends(state, me, prune, leaves, ends)
            finally:
                state.undo_place(undo)
            return
        after = state.clone()
        after.apply(action)
        if after.is_over or after.current_player != me:
            ends.append(stop.index() if kind is _FLOOR else leaves.add(after, me))
            return
        self._best_ends(after, me, prune, leaves, ends)

    def _best_ends(self, state: Game, me: int, prune: bool, leaves: LeafValues, ends: list[int]) -> None:
        """:meth:`_line_ends` of every line from a decision of ``me`` within the turn."""
        stop = _Stop(state, me, leaves)
        legal = state.legal_actions()
        if prune:
            legal = [a for a in legal if a.kind is _DEPLOY or a.kind is _PASS]
        for a in legal:
            self._line_ends(state, a, me, stop, False, leaves, ends)


def best_ends(lines: Sequence[Sequence[int]], values: Sequence[float]) -> list[float]:
    """Each line's value: the best of ``values`` at its ends (:meth:`GreedyAgent.line_ends`)."""
    return [max([values[i] for i in ends]) for ends in lines]


def _floor_has_targets(state: Game, action: Action) -> bool:
    """Whether the legal FLOOR ``action`` opens the T4 capture decision, asked of the tower's own
    ``capture_targets`` before the floor is built (nothing else changes before it asks: the same
    board, followers, tower tops and player); a white floor never captures (R56)."""
    colour = action.arg
    if colour == _WHITE:
        return False
    tower = state.expansion("tower")
    assert isinstance(tower, TowerExpansion)
    st = tower_state(state)
    p = pack(action.x, action.y)
    return bool(tower.capture_targets(state, st, p, len(st.stacks[p]) + 1, colour))


class _Stop:
    """Ending the turn in ``state`` with the choices made so far (PASS or NO_CAPTURE): the position is
    added to the leaves once, on first use (while ``state`` is as it was given)."""

    __slots__ = ("_game", "_index", "_leaves", "_me")

    def __init__(self, game: Game, me: int, leaves: LeafValues) -> None:
        self._game = game
        self._me = me
        self._leaves = leaves
        self._index = -1

    def index(self) -> int:
        if self._index < 0:
            self._index = self._leaves.add(self._game, self._me)
        return self._index

"""The tree of the ``az`` search (:mod:`agents.az`) and its selection rules, after Gumbel MuZero
(Danihelka et al. 2022): completed Q-values, the improved policy and the deterministic selection below
the root. Plain numpy: no network here.

Two kinds of node, for a two-player game whose value is the margin (own score − the opponent's, points):

* :class:`Node`, a decision: the game (a public-state line, :func:`agents.information.public_state`),
  the player to move, its legal actions (ascending codec indices) with their prior logits and the
  node's value (the network's, or with the guide in the tree the guide's: :mod:`agents.az`),
  and per action the visits ``n``, the summed values ``w`` (for this node's mover) and the visits in
  flight ``pending`` (a batch's selections not yet backed up), and the child: None until first
  selected, then a :class:`Node` (the next decision of the same turn) or a :class:`Chance`.
* :class:`Chance`, the tile draw after an action that ends a turn: the outcomes and probabilities of
  ``Game.chance_outcomes()`` of the state before that action, exactly, and per outcome the decision
  node after that draw (made on first selection with ``Game.with_next_draw``). An outcome is selected
  deterministically by the largest deficit ``p(c) − N(c) / (1 + ΣN)``, so the visits follow the
  probabilities to within one visit and the mean of the backed-up values is the expectation over the
  draw (sampling without noise: no random number is drawn, and no outcome that a few hundred
  simulations cannot reach is expanded).

Values are backed up as seat 0's margin; each node keeps them from its own mover's side (the negation
for seat 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from carcassonne_env.engine import Action, Game

__all__ = ["Chance", "Node", "completed_q", "improved_policy", "select_child", "select_outcome", "sigma"]


@dataclass(eq=False)
class Node:
    """A decision node (module docstring). ``evaluated`` once the search has valued it; a game-over
    node is evaluated when made, with its exact margin and no actions."""

    game: Game
    player: int
    actions: list[Action] = field(default_factory=list)
    indices: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    logits: npt.NDArray[np.float64] = field(default_factory=lambda: np.empty(0))
    value: float = 0.0  # the mover's margin as the search values the node (points)
    n: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    w: npt.NDArray[np.float64] = field(default_factory=lambda: np.empty(0))
    pending: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    children: list[Node | Chance | None] = field(default_factory=list)
    evaluated: bool = False

    def set_actions(self, actions: list[Action], indices: npt.NDArray[np.int64]) -> None:
        """The legal actions (in ascending ``indices`` order) and empty statistics."""
        k = len(actions)
        self.actions, self.indices = actions, indices
        self.n = np.zeros(k, dtype=np.int64)
        self.w = np.zeros(k)
        self.pending = np.zeros(k, dtype=np.int64)
        self.children = [None] * k

    def seat0(self, value: float) -> float:
        """``value`` of this node's mover as seat 0's margin (and back: the map is its own inverse)."""
        return value if self.player == 0 else -value


@dataclass(eq=False)
class Chance:
    """The draw after a turn's last action (module docstring): ``before`` is the state before the action."""

    before: Game
    action: Action
    outcomes: list[str]
    probs: npt.NDArray[np.float64]
    n: npt.NDArray[np.int64]
    pending: npt.NDArray[np.int64]
    children: list[Node | None]

    @classmethod
    def of(cls, before: Game, action: Action) -> Chance:
        """The chance node of ``action`` from ``before``, weighted by ``before.chance_outcomes()``."""
        outcomes = before.chance_outcomes()
        k = len(outcomes)
        return cls(before, action, list(outcomes), np.fromiter(outcomes.values(), dtype=np.float64, count=k),
                   np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64), [None] * k)


def select_outcome(chance: Chance) -> int:
    """The outcome with the largest deficit ``p(c) − N(c) / (1 + ΣN)``, visits in flight counted (the
    first on ties)."""
    visits = chance.n + chance.pending
    return int(np.argmax(chance.probs - visits / (1 + visits.sum())))


def completed_q(node: Node) -> npt.NDArray[np.float64]:
    """Each action's Q for the mover (points): the mean backed-up value where visited, else the
    mixed value ``(v̂ + ΣN · Σ_visited π q / Σ_visited π) / (1 + ΣN)`` (π the softmax of the node's
    logits, v̂ its value)."""
    visited = node.n > 0
    q = np.where(visited, node.w / np.maximum(node.n, 1), 0.0)
    total = int(node.n.sum())
    if not total:
        return np.full(len(node.n), node.value)
    prior = _softmax(node.logits)
    mixed = (node.value + total * float((prior * q)[visited].sum() / prior[visited].sum())) / (1 + total)
    return np.where(visited, q, mixed)


def sigma(node: Node, c_visit: float, c_scale: float) -> npt.NDArray[np.float64]:
    """σ(q̂) = (c_visit + max N) · c_scale · q̂: the completed Q rescaled to [0, 1] over the node's
    actions (all 0 when they are equal)."""
    q = completed_q(node)
    low, high = q.min(), q.max()
    scaled = (q - low) / (high - low) if high > low else np.zeros_like(q)
    return (c_visit + float(node.n.max())) * c_scale * scaled


def improved_policy(node: Node, c_visit: float, c_scale: float) -> npt.NDArray[np.float64]:
    """π' = softmax(logits + σ(q̂)), Gumbel MuZero's policy improvement (the trainer's target)."""
    return _softmax(node.logits + sigma(node, c_visit, c_scale))


def select_child(node: Node, c_visit: float, c_scale: float) -> int:
    """Below the root: the action maximising ``π'(a) − (N(a) + in flight) / (1 + ΣN + in flight)``
    (Gumbel MuZero's deterministic selection; visits in flight spread a batch over actions)."""
    visits = node.n + node.pending
    return int(np.argmax(improved_policy(node, c_visit, c_scale) - visits / (1 + visits.sum())))


def _softmax(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    e: npt.NDArray[np.float64] = np.exp(x - x.max())
    out: npt.NDArray[np.float64] = e / e.sum()
    return out

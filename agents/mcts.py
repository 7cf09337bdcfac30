"""Monte Carlo tree search over determinized games (information-set MCTS with one tree).

Hidden information. The root is :func:`~agents.information.public_state` of the game (a copy made
from public information only), and every iteration plays on a fresh ``root.determinize(rng)``: the
same public state with the unseen pile reshuffled, so the search never reads the true pile, its
result does not depend on the pile's order, and each tile draw is a chance event sampled from the
tiles left (the distribution of ``Game.chance_outcomes()``).

The tree. A decision node holds the legal actions of one decision point, so the decisions of a
turn are separate levels: PLACE (T2), then the T3 choice (DEPLOY, FLOOR, TOWER_TOP, PASS, RANSOM),
then CAPTURE (T4). Each edge (an action) keeps the visits and the summed reward of the player who
chose it. An action that ends the turn leads to a chance level: one child decision node per tile
drawn next (keyed by tile id), reached by whichever tile the iteration's determinization draws.
Within a turn the public state is a function of the actions, and after a draw of the drawn tile
too, so a node's legal actions are the same in every determinization that reaches it (a closed-loop
tree over information sets; a tile discarded as unplaceable (R13) is the only public fact a key
does not carry, and it changes no legal action of that node).

Selection is UCT, ``Q + c·sqrt(ln N / n)`` on the mover's mean reward. The root's actions carry a
prior: they are ranked by the greedy agent's value (the best line of the turn after the action,
:class:`~agents.greedy.GreedyAgent`, towers and captures included) and each starts with ``prior_visits``
virtual visits at that value, so the search leaves the greedy choice only when its simulations
find a better one. Below the root, new actions are tried in random order, FLOORs after the other
T3 options. Nodes widen progressively: a node visited N times considers only its first
``ceil(widening · N^0.5)`` actions (at the root, the best by the prior), so a few hundred
simulations go to the likelier placements and follower choices rather than one visit to each of
~100 placements or ~40 floors.

Leaves. After the tree, ``rollout_turns`` turns are played by a cheap policy (a uniformly random
placement, then PASS or NO_CAPTURE: no follower is put out at random, which would only add noise
to the end-now value), then the leaf is valued for every player. The default value is
``tanh((margin − root margin) / scale)``: the gain in end-now margin (own score minus the best
opponent's, see :mod:`.evaluation`) since the root, squashed into (−1, 1); centring on the root
keeps a player far ahead or behind in the range where moves still differ. ``value`` replaces the
end-now margin there and in the greedy priors by another :class:`~agents.evaluation.PositionValue`,
e.g. the learned expected final margin of :mod:`agents.value` (spec ``mcts:value=linear``). A custom
``evaluator(game, player) -> float`` in [−1, 1] may replace the leaf value altogether (uncentred).
The move played is the most visited root action (random tie-break).

Guided search (``guide=True``). Every node, not only the root, is made with all its edges ranked
by the fast greedy agent's values and carrying the same virtual visits, so the opponent's replies in
the tree start from what a greedy player would do, and the widening admits the best-ranked actions
first. Leaves are then finished by the fast greedy agent (the rest of the turn, then the next
player's whole turn, captures included) before the cheap random turns of the rollout. Each new
node and greedy turn costs a greedy valuation (milliseconds), so it runs ~100 simulations/s
instead of thousands.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from operator import index
from typing import Final, SupportsFloat, SupportsIndex

import numpy as np
from mypy_extensions import mypyc_attr

from carcassonne_env.engine import Action, ActionKind, Game, Phase
from carcassonne_env.engine.actions import NO_CAPTURE, PASS

from .evaluation import END_NOW, Evaluator, PositionValue
from .greedy import GreedyAgent
from .information import public_state
from .thinking_limit import ThinkingTimeout, checked_limit

__all__ = ["MCTSAgent"]

# Final: the compiled module reads these as constants, not from the module's dict at every use.
_PLACE: Final = Phase.PLACE
_ACTION: Final = Phase.ACTION
_CAPTURE: Final = Phase.CAPTURE


class _Edge:
    """An action of a decision node: visits, the mover's summed reward, and what follows it."""

    __slots__ = ("action", "child", "outcomes", "total", "visits")

    def __init__(self, action: Action) -> None:
        self.action = action
        self.visits = 0
        self.total = 0.0
        #: The next decision of the same turn, if the action does not end the turn.
        self.child: _Node | None = None
        #: Tile id drawn next → the decision node after the draw (for an action that ends the turn).
        self.outcomes: dict[str, _Node] | None = None


class _Node:
    """A decision point: the player to move, its untried actions and its expanded edges."""

    __slots__ = ("edges", "is_place", "player", "untried", "visits")

    def __init__(self, player: int, untried: list[Action], is_place: bool) -> None:
        self.player = player
        self.untried = untried
        self.is_place = is_place
        self.edges: list[_Edge] = []
        self.visits = 0


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (setup.py), subclassed in Python
class MCTSAgent:
    """Engine-level agent searching ``sims`` simulations (or ``seconds`` of search) per decision.

    Parameters: ``seed`` (determinizations, tie-breaks and rollouts: with a ``sims`` budget the same
    seed and the same sequence of games give the same actions; a ``seconds`` budget also depends on
    the machine's speed), ``sims`` and/or ``seconds`` (the budget, the root's greedy prior
    included; with both, whichever ends first), ``exploration`` (UCT constant c), ``rollout_turns``
    (turns of cheap play before the leaf evaluation), ``scale`` (points of margin gain that the
    default value maps to tanh(1) ≈ 0.76), ``value`` (the position value of the leaves and the
    greedy priors: the end-now margin by default), ``widening`` (progressive widening coefficient; 0 turns
    it off), ``prior_visits`` (virtual visits of the greedy prior; 0: ranking only), ``guide`` (the
    guided search of the module docstring), ``evaluator`` (a custom leaf value, replacing the
    end-now margin). ``game`` is never modified.

    The options are annotated with the protocols they are read through (``SupportsIndex``,
    ``SupportsFloat``) and checked here, so a wrong one gets a ValueError naming it: compiled
    (``setup.py``), a parameter typed ``int`` or ``bool`` would be refused by a bare TypeError first.
    """

    def __init__(
        self,
        seed: SupportsIndex = 0,
        sims: SupportsIndex | None = 400,
        seconds: SupportsFloat | None = None,
        *,
        exploration: SupportsFloat = 0.5,
        rollout_turns: SupportsIndex = 2,
        scale: SupportsFloat = 10.0,
        widening: SupportsFloat = 2.0,
        prior_visits: SupportsIndex = 5,
        guide: SupportsIndex = False,
        value: PositionValue = END_NOW,
        evaluator: Evaluator | None = None,
    ) -> None:
        if sims is None and seconds is None:
            raise ValueError("MCTSAgent: give a budget, sims or seconds (or both)")
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, int) or sims < 1):
            raise ValueError(f"MCTSAgent: sims must be a positive int, got {sims!r}")
        if seconds is not None:
            _check_number("seconds", seconds, positive=True)
        _check_number("exploration", exploration)
        if isinstance(rollout_turns, bool) or not isinstance(rollout_turns, int) or rollout_turns < 0:
            raise ValueError(f"MCTSAgent: rollout_turns must be an int >= 0, got {rollout_turns!r}")
        _check_number("scale", scale, positive=True)
        _check_number("widening", widening)
        if isinstance(prior_visits, bool) or not isinstance(prior_visits, int) or prior_visits < 0:
            raise ValueError(f"MCTSAgent: prior_visits must be an int >= 0, got {prior_visits!r}")
        if guide not in (True, False):
            raise ValueError(f"MCTSAgent: guide must be a bool (or 0/1), got {guide!r}")
        self.sims = None if sims is None else index(sims)
        self.seconds = None if seconds is None else float(seconds)
        self.exploration = float(exploration)
        self.rollout_turns = index(rollout_turns)
        self.scale = float(scale)
        self.widening = float(widening)
        self.prior_visits = index(prior_visits)
        self.guide = bool(guide)
        self.evaluator = evaluator
        self.value = value
        self._rng = np.random.default_rng(index(seed))
        self._random = random.Random(int(self._rng.integers(2**63)))
        #: Values the root actions (its generator is never used: ``action_values`` draws nothing).
        self._greedy = GreedyAgent(seed=seed, value=value)
        #: With ``guide``: ranks the actions of every node below the root and plays the rollouts.
        self._fast_greedy = GreedyAgent(seed=seed, fast=True, value=value)
        #: Simulations run by the last ``choose_action`` (0 when the decision had one legal action).
        self.last_simulations = 0
        #: Simulations through each root action in the last ``choose_action`` (a policy target).
        self.last_root_visits: dict[Action, int] = {}
        #: Every player's margin (``value``) at the root of the current search (the reward's zero).
        self._baseline: list[float] = []
        #: The hard limit of a decision's thinking in seconds (:meth:`limit_thinking`), or None.
        self._hard_limit: float | None = None

    def limit_thinking(self, seconds: float | None) -> None:
        """Stop every later decision's search after ``seconds`` (None: no limit) by raising
        :class:`~agents.thinking_limit.ThinkingTimeout` between two simulations: unlike the
        ``seconds`` budget, which plays the best action found so far, this is a runner's move time
        limit, and passing it loses the decision (:mod:`agents.thinking_limit`)."""
        self._hard_limit = checked_limit("MCTSAgent", seconds)

    # ------------------------------------------------------------------ the decision
    def choose_action(self, game: Game) -> Action:
        if game.is_over:
            raise ValueError("choose_action: the game is over, there is no decision to make")
        start = time.perf_counter()
        deadline = None if self.seconds is None else start + self.seconds
        hard = None if self._hard_limit is None else start + self._hard_limit
        self.last_simulations = 0
        self.last_root_visits = {}
        if len(game.legal_actions()) == 1:
            return game.legal_actions()[0]
        root_state = self._public(game)
        legal = root_state.legal_actions()
        self._baseline = self.value.margins(root_state)
        root = self._root(root_state, legal)
        sims = 0
        while (self.sims is None or sims < self.sims) and (deadline is None or time.perf_counter() < deadline):
            self._simulate(root, root_state.determinize(self._rng))
            sims += 1
            if hard is not None and time.perf_counter() > hard:
                raise ThinkingTimeout(f"stopped after {sims} simulations at the {self._hard_limit:g} s thinking limit")
        self.last_simulations = sims
        self.last_root_visits = {e.action: e.visits - self.prior_visits for e in root.edges}
        most = max(e.visits for e in root.edges)
        best = [e.action for e in root.edges if e.visits == most]
        return best[self._random.randrange(len(best))] if len(best) > 1 else best[0]

    def _public(self, game: Game) -> Game:
        """The root of the search: a copy of ``game`` made from its public state only, which every
        simulation then determinizes."""
        return public_state(game)

    def _root(self, state: Game, legal: Sequence[Action]) -> _Node:
        """The root with an edge per legal action, best greedy value first, each edge starting with
        ``prior_visits`` virtual visits at that value (the greedy agent's value of the action's best
        line of the turn, see :class:`~agents.greedy.GreedyAgent`)."""
        return self._prior_node(state, legal, self._greedy)

    def _prior_node(self, state: Game, legal: Sequence[Action], greedy: GreedyAgent) -> _Node:
        """A node with every edge made, ranked by ``greedy``'s values (random tie-break), each
        starting with ``prior_visits`` virtual visits at its value relative to the root margin."""
        me = state.current_player
        values = greedy.action_values(state)
        node = _Node(me, [], state.phase is _PLACE)
        ranked = sorted(zip(values, [self._random.random() for _ in legal], legal, strict=True), reverse=True)
        base = self._baseline[me]
        for value, _, action in ranked:
            edge = _Edge(action)
            edge.visits = self.prior_visits
            edge.total = self.prior_visits * math.tanh((value - base) / self.scale)
            node.edges.append(edge)
        return node

    # ------------------------------------------------------------------ one simulation
    def _simulate(self, root: _Node, game: Game) -> None:
        """Select and expand down the tree on ``game`` (a determinization), roll out, back up."""
        path: list[tuple[int, _Edge]] = []
        node = root
        while True:
            node.visits += 1
            edge = self._select(node)
            path.append((node.player, edge))
            game.apply(edge.action)
            if edge.visits == 0 or game.is_over:
                break  # a new edge: its leaf is valued now, its node is made on the next visit
            if game.phase is _PLACE:  # the turn ended and the next tile was drawn: a chance level
                if edge.outcomes is None:
                    edge.outcomes = {}
                tile = game.current_tile
                assert tile is not None
                nxt = edge.outcomes.get(tile.id)
                if nxt is None:
                    edge.outcomes[tile.id] = self._new_node(game)
                    break  # first draw of this tile after this action: a new leaf
            else:
                nxt = edge.child
                if nxt is None:
                    nxt = edge.child = self._new_node(game)
            node = nxt
        rewards = self._leaf_values(game)
        for player, e in path:
            e.visits += 1
            e.total += rewards[player]

    def _new_node(self, game: Game) -> _Node:
        """A decision node with every legal action untried. PLACE actions are drawn at random when
        tried; the T3/T4 options are tried in a random order with every FLOOR after the others
        (``untried`` is popped from the end), since a floor without a capture target scores like
        PASS and there are up to ~40 of them: tried first, they would hide the follower choices."""
        actions = list(game.legal_actions())
        if self.guide:
            return self._prior_node(game, actions, self._fast_greedy)
        is_place = game.phase is _PLACE
        if not is_place:
            self._random.shuffle(actions)
            actions.sort(key=_is_floor, reverse=True)
        return _Node(game.current_player, actions, is_place)

    def _select(self, node: _Node) -> _Edge:
        """An untried action while the widening allows one, else the UCT-best edge among the first
        ``ceil(widening · sqrt(N))`` edges of the node."""
        edges = node.edges
        untried = node.untried
        limit = len(edges) + len(untried)
        if self.widening:
            limit = min(limit, math.ceil(self.widening * math.sqrt(node.visits)))
        if untried and len(edges) < limit:
            if node.is_place:  # a random untried placement, swapped to the end in O(1)
                i = self._random.randrange(len(untried))
                untried[i], untried[-1] = untried[-1], untried[i]
            edge = _Edge(untried.pop())
            edges.append(edge)
            return edge
        log_n = math.log(node.visits)
        c = self.exploration
        sqrt = math.sqrt
        best = edges[0]
        best_score = -math.inf
        for e in edges if limit >= len(edges) else edges[:limit]:
            n = e.visits
            if n == 0:
                return e
            score = e.total / n + c * sqrt(log_n / n)
            if score > best_score:
                best, best_score = e, score
        return best

    def _leaf_values(self, game: Game) -> list[float]:
        """Rollout of ``rollout_turns`` turns, then every player's value of the leaf.

        Unguided, a leaf inside a turn first ends that turn with PASS / NO_CAPTURE (what the
        end-now value of a T3/T4 state assumes anyway), and each rollout turn is a uniformly random
        placement and PASS / NO_CAPTURE. Guided, the fast greedy agent finishes the leaf's turn and
        plays the first rollout turn (the next player's reply, captures included); the others are
        the cheap random turns.
        """
        turns = self.rollout_turns
        if self.guide:
            if game.phase is not _PLACE:
                self._greedy_turn(game)
            if turns and not game.is_over:
                self._greedy_turn(game)
                turns -= 1
        elif turns:
            _end_turn(game)
        self._random_turns(game, turns)
        if self.evaluator is None:
            scale = self.scale
            return [math.tanh((m - b) / scale) for m, b in zip(self.value.margins(game), self._baseline, strict=True)]
        return [self.evaluator(game, p) for p in range(game.num_players)]

    def _random_turns(self, game: Game, turns: int) -> None:
        """Play up to ``turns`` turns from a turn's start: a uniformly random placement, then
        PASS / NO_CAPTURE (no follower put out at random, which would only add noise)."""
        rand = self._random
        while turns and not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rand.randrange(len(legal))])
            _end_turn(game)
            turns -= 1

    def _greedy_turn(self, game: Game) -> None:
        """Play the rest of the current player's turn as the fast greedy agent would (the first
        action of its best line, random tie-break) on this determinization."""
        player = game.current_player
        while not game.is_over and game.current_player == player:
            legal = game.legal_actions()
            if len(legal) > 1:
                values = self._fast_greedy.action_values(game)
                best = max(values)
                legal = [a for a, v in zip(legal, values, strict=True) if v == best]
            game.apply(legal[self._random.randrange(len(legal))] if len(legal) > 1 else legal[0])


def _end_turn(game: Game) -> None:
    """End the current turn without further choices: PASS in T3 (always legal, D25), NO_CAPTURE
    in T4 (always offered with the targets)."""
    while game.phase is _ACTION or game.phase is _CAPTURE:
        game.apply(PASS if game.phase is _ACTION else NO_CAPTURE)


def _is_floor(action: Action) -> bool:
    return action.kind is ActionKind.FLOOR


def _check_number(name: str, value: object, positive: bool = False) -> None:
    """A real number ``> 0`` (``positive``) or ``>= 0``, else a ValueError naming the option."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (value <= 0 if positive else value < 0):  # type: ignore[operator]
        raise ValueError(f"MCTSAgent: {name} must be a number {'>' if positive else '>='} 0, got {value!r}")

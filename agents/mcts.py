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

Selection is UCT, ``Q + c·sqrt(ln N / n)`` on the mover's mean reward. New actions are tried in
random order, except at the root, whose actions are tried best first by the greedy one-step value
(the end-now margin after the action and PASS). PLACE nodes widen progressively: a node visited N
times considers at most ``ceil(widening · N^0.5)`` of its actions, so with a few hundred
simulations the budget goes to the likelier placements rather than one visit to each of ~100.

Leaves. After the tree, ``rollout_turns`` turns are played by a cheap policy (a uniformly random
placement, then PASS or NO_CAPTURE: no follower is put out at random, which would only add noise
to the end-now value), then the leaf is valued for every player. The default value is
``tanh(margin / scale)`` of the end-now margin (own score minus the best opponent's, see
:mod:`.evaluation`), in (−1, 1); a custom ``evaluator(game, player) -> float`` in [−1, 1] may
replace it. The move played is the most visited root action (random tie-break).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

import numpy as np

from carcassonne_env.engine import Action, ActionKind, Game, Phase
from carcassonne_env.engine.actions import NO_CAPTURE, PASS

from .evaluation import Evaluator, end_now_margin, squashed_margins
from .information import public_state

__all__ = ["MCTSAgent"]

_PASS = ActionKind.PASS
_NO_CAPTURE = ActionKind.NO_CAPTURE
_PLACE = Phase.PLACE
_ACTION = Phase.ACTION
_CAPTURE = Phase.CAPTURE


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


class MCTSAgent:
    """Engine-level agent searching ``sims`` simulations (or ``seconds`` of search) per decision.

    Parameters: ``seed`` (determinizations, tie-breaks and rollouts: the same seed and the same
    sequence of games give the same actions), ``sims`` and/or ``seconds`` (the budget; with both,
    whichever ends first), ``exploration`` (UCT constant c), ``rollout_turns`` (turns of cheap play
    before the leaf evaluation), ``scale`` (points of margin that the default value maps to
    tanh(1) ≈ 0.76), ``widening`` (progressive widening coefficient of PLACE nodes; 0 turns it
    off), ``evaluator`` (a custom leaf value, replacing the end-now margin). ``game`` is never
    modified.
    """

    def __init__(
        self,
        seed: int = 0,
        sims: int | None = 400,
        seconds: float | None = None,
        *,
        exploration: float = 0.7,
        rollout_turns: int = 2,
        scale: float = 20.0,
        widening: float = 2.0,
        evaluator: Evaluator | None = None,
    ) -> None:
        if sims is None and seconds is None:
            raise ValueError("MCTSAgent: give a budget, sims or seconds (or both)")
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, int) or sims < 1):
            raise ValueError(f"MCTSAgent: sims must be a positive int, got {sims!r}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"MCTSAgent: seconds must be > 0, got {seconds!r}")
        if not exploration >= 0:
            raise ValueError(f"MCTSAgent: exploration must be >= 0, got {exploration!r}")
        if isinstance(rollout_turns, bool) or not isinstance(rollout_turns, int) or rollout_turns < 0:
            raise ValueError(f"MCTSAgent: rollout_turns must be an int >= 0, got {rollout_turns!r}")
        if not scale > 0:
            raise ValueError(f"MCTSAgent: scale must be > 0, got {scale!r}")
        if not widening >= 0:
            raise ValueError(f"MCTSAgent: widening must be >= 0, got {widening!r}")
        self.sims = sims
        self.seconds = seconds
        self.exploration = float(exploration)
        self.rollout_turns = rollout_turns
        self.scale = float(scale)
        self.widening = float(widening)
        self.evaluator = evaluator
        self._rng = np.random.default_rng(seed)
        self._random = random.Random(int(self._rng.integers(2**63)))
        #: Simulations run by the last ``choose_action`` (0 when the decision had one legal action).
        self.last_simulations = 0
        #: Visits of each root action searched by the last ``choose_action`` (a policy target).
        self.last_root_visits: dict[Action, int] = {}

    # ------------------------------------------------------------------ the decision
    def choose_action(self, game: Game) -> Action:
        if game.is_over:
            raise ValueError("choose_action: the game is over, there is no decision to make")
        root_state = self._public(game)
        legal = root_state.legal_actions()
        self.last_simulations = 0
        self.last_root_visits = {}
        if len(legal) == 1:
            return legal[0]
        root = _Node(root_state.current_player, self._root_order(root_state, legal), root_state.phase is _PLACE)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        sims = 0
        while (self.sims is None or sims < self.sims) and (deadline is None or time.perf_counter() < deadline):
            self._simulate(root, root_state.determinize(self._rng))
            sims += 1
        self.last_simulations = sims
        self.last_root_visits = {e.action: e.visits for e in root.edges}
        most = max(e.visits for e in root.edges)
        best = [e.action for e in root.edges if e.visits == most]
        return best[self._random.randrange(len(best))] if len(best) > 1 else best[0]

    def _public(self, game: Game) -> Game:
        """The root of the search: a copy of ``game`` made from its public state only, which every
        simulation then determinizes."""
        return public_state(game)

    def _root_order(self, state: Game, legal: Sequence[Action]) -> list[Action]:
        """Root actions, best greedy one-step value last (``untried`` is popped from the end)."""
        me = state.current_player
        stop: int | None = None
        keyed: list[tuple[int, float, Action]] = []
        for a in legal:
            if a.kind is _PASS or a.kind is _NO_CAPTURE:
                if stop is None:
                    stop = end_now_margin(state, me)
                value = stop
            else:
                after = state.clone()
                after.apply(a)
                value = end_now_margin(after, me)
            keyed.append((value, self._random.random(), a))
        keyed.sort()
        return [a for _, _, a in keyed]

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
        untried = list(game.legal_actions())
        self._random.shuffle(untried)
        return _Node(game.current_player, untried, game.phase is _PLACE)

    def _select(self, node: _Node) -> _Edge:
        """An untried action while the widening allows one, else the UCT-best edge."""
        untried = node.untried
        widening = self.widening
        if untried and (
            not node.is_place or not widening or len(node.edges) < math.ceil(widening * math.sqrt(node.visits))
        ):
            edge = _Edge(untried.pop())
            node.edges.append(edge)
            return edge
        log_n = math.log(node.visits)
        c = self.exploration
        best = node.edges[0]
        best_score = -math.inf
        for e in node.edges:
            n = e.visits
            if n == 0:
                return e
            score = e.total / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = e, score
        return best

    def _leaf_values(self, game: Game) -> list[float]:
        """Cheap rollout of ``rollout_turns`` turns, then every player's value of the leaf."""
        rand = self._random
        turns = self.rollout_turns
        while turns and not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rand.randrange(len(legal))])  # PLACE
            while game.phase is _ACTION or game.phase is _CAPTURE:
                game.apply(PASS if game.phase is _ACTION else NO_CAPTURE)
            turns -= 1
        if self.evaluator is None:
            return squashed_margins(game, self.scale)
        return [self.evaluator(game, p) for p in range(game.num_players)]


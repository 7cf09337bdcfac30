"""The ``az`` search: Gumbel MuZero's search (Danihelka et al. 2022) over the real engine, with
priors and leaf values from a policy-value network (:mod:`agents.nets.pv_net`) evaluated in batches.

**What it searches.** The root is :func:`~agents.information.public_state` of the game handed in (or
the kept node of the turn, below): every line of the tree is played on copies of that public state, so
the hidden order of the pile is never read. The tree (:mod:`agents.az_tree`) has a decision node per
decision of a turn (PLACE, then DEPLOY/FLOOR/…, then CAPTURE) and a chance node after each action that
ends a turn, whose outcomes are the next draw's tile types weighted exactly by
``Game.chance_outcomes()``; an outcome's line is made with ``Game.with_next_draw``. A drawn tile that
cannot be placed is discarded and the next one of the public (catalogue) order drawn (R13: rare; the
outcome keeps its probability).

**The root.** Sequential halving with Gumbel top-k: the ``k`` actions of largest ``g + logit``
(``g`` Gumbel noise × ``gumbel``; 0, the default for play, ranks by the logits alone) share the
``sims`` visits in ⌈log₂ k⌉ phases, each phase giving every remaining action the same visits (at
least one) and keeping the better half by ``g + logit + σ(q̂)``; the move is the best survivor by the
same score. **Below the root** Gumbel MuZero's deterministic selection (:func:`~agents.az_tree.select_child`).

**Values.** A new leaf's value is the mover's expected final margin: the network's base position value
(:mod:`agents.nets.pv_net`) plus its value head (with ``guide_tree``, the guide's best line's value:
below); a game end's is its final margin.

**Batches.** A phase's visits run ``batch`` at a time: each descends with the visits in flight counted
(so a batch spreads over the tree), the new leaves are encoded (a copy of the root's encoder synced
forward, :meth:`~carcassonne_env.environment.observation.Encoder.copy`) and valued by one network pass,
then every path is backed up. A path that meets a leaf of its own batch shares its value.

**Tree reuse.** After a move that does not end the turn, the node it leads to is kept; the next
decision, the same player's next choice of that turn, starts from it (its visits and values kept)
when the game handed in is that position.

**The guide** (``guide=τ`` points, 0: off). The root's prior may add the base value's one-turn
look-ahead to the network's logits: the network's ``guide_k`` actions of largest logit are each valued
by the best line of the turn that starts with it, ended by the base value (``greedy:fast=1``'s line
value, :meth:`agents.greedy.GreedyAgent.line_values`), and their prior is ``logit + value / τ``; the
root's other actions are not played (prior −∞). The network proposes, the base value's look-ahead
disposes: the look-ahead costs about what ``greedy`` pays for ``guide_k`` actions, not for all of them.
Without ``guide_tree`` it changes the root only (the prior of the halving, the move of ``sims=0``) and
the tree below is the network's. **With** ``guide_tree`` every node the search values is guided the
same way (its logits become that prior, so the selection below the root visits only its ``guide_k``
first actions) and its value is the best of those lines' values: the mover's margin after the best
line of the turn by the look-ahead, as ``mcts:pretrained`` ranks and values each new node with a greedy
valuation, but of ``guide_k`` actions instead of all. The lines of all the nodes of one network pass
end in one batch of the base value (:meth:`~agents.greedy.GreedyAgent.line_ends`: a network base
value runs once over every line's end, with the numbers it gives one position at a time). A recorded
π′ is over the root's visits, so with the guide it holds the actions the guide let the root play:
``carcassonne train az`` records with ``guide=0``. The look-ahead ends the turn on the public state,
whose next draw is the catalogue's order (never the hidden pile). ``AZAgent`` defaults to no guide;
the ``az:`` spec's default is :data:`agents.AZ_GUIDE`, in the tree too.

``last_simulations`` counts the leaves the last decision valued (network positions and new game ends),
the figure of ``carcassonne bench agent``'s simulations/s. ``sims=0`` plays without a tree: the legal
action of largest prior (the network's logit, plus the guide's term when it is on). Two players only
(the network's value is the margin over the opponent).

**Recording** (``record=DIR``, the self-play of ``carcassonne train az``): every decision with a root
(more than one legal action) appends one JSON line to ``DIR/SEED.jsonl`` (``SEED`` the agent's seed,
which a tournament derives from the game's seed and the seat) before
the action is returned: ``ply`` (the game's history length), ``player``, ``indices`` (the legal actions'
codec indices, ascending), ``policy`` (:func:`~agents.az_tree.improved_policy` of the root over them,
summing to 1) and ``base`` (the base value's margin of the mover there, points). The agent's first
decision truncates the file, so a game played again after a kill leaves only its own lines; a game a
tournament has recorded has all of them.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from carcassonne_env.engine import Action, Game, Phase
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.observation import Encoder

from .az_tree import Chance, Node, improved_policy, select_child, select_outcome, sigma
from .evaluation import leaf_values
from .extras import optional_imports
from .greedy import GreedyAgent, best_ends
from .information import public_state
from .manifest import PRETRAINED_DIR, verified
from .thinking_limit import ThinkingTimeout, checked_limit

if TYPE_CHECKING:
    from .evaluation import PositionValue
    from .nets.pv_net import PVNet

__all__ = ["MIN_GUIDE", "SHIPPED_AZ", "AZAgent", "load_net", "make_az"]

#: The shipped network of ``az:pretrained`` (scripts/maintainer/az_warm_start.py).
SHIPPED_AZ = PRETRAINED_DIR / "az_tower_2p.pt"

#: The smallest guide temperature (points) other than 0: a line value divided by it stays finite.
MIN_GUIDE = 1e-3

#: A batch's paths: each the (node, action) and (chance, outcome) pairs it went through, and its leaf.
_Paths = list[tuple[list[tuple[Node | Chance, int]], Node]]


class AZAgent:
    """Engine-level agent: the search of the module docstring with ``net`` correcting ``base`` (the
    position value the network's file names, :attr:`PVNet.base`).

    ``sims`` root visits per decision (0: no tree), ``k`` root actions considered (with the guide, at
    most ``guide_k``),
    ``batch`` leaves per network pass, ``gumbel`` the scale of the root's Gumbel noise (0: none),
    ``c_visit`` and ``c_scale`` the constants of σ (Gumbel MuZero's 50 and 0.1), ``guide`` the
    temperature (points, 0 or at least :data:`MIN_GUIDE`) of the root's look-ahead, ``guide_k`` the
    actions it values and ``guide_tree`` whether it guides and values every node (module docstring; 0:
    no guide). ``seed`` seeds the noise: with the same seed
    and the same public positions the agent makes the same decisions.
    ``record``: the file each decision's targets are appended to (module docstring), or None.
    """

    def __init__(self, net: PVNet, base: PositionValue, seed: int = 0, sims: int = 64, k: int = 16, batch: int = 16,
                 gumbel: float = 0.0, c_visit: float = 50.0, c_scale: float = 0.1, guide: float = 0.0,
                 guide_k: int = 8, guide_tree: bool = False, record: Path | None = None) -> None:
        for name, value, low in (("sims", sims, 0), ("k", k, 1), ("batch", batch, 1), ("guide_k", guide_k, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"AZAgent: {name} must be an int >= {low}, got {value!r}")
        for name, number in (("gumbel", gumbel), ("c_visit", c_visit), ("c_scale", c_scale), ("guide", guide)):
            if not (isinstance(number, (int, float)) and math.isfinite(number) and number >= 0):
                raise ValueError(f"AZAgent: {name} must be a number >= 0, got {number!r}")
        if 0 < guide < MIN_GUIDE:
            raise ValueError(f"AZAgent: guide must be 0 (none) or at least {MIN_GUIDE:g} points, got {guide!r}")
        self.net, self.base = net, base
        self.sims, self.k, self.batch = sims, k, batch
        self.gumbel, self.c_visit, self.c_scale = float(gumbel), float(c_visit), float(c_scale)
        if guide_tree and not guide:
            raise ValueError("AZAgent: guide_tree needs a guide (guide > 0): it guides every node as the root")
        self.guide, self.guide_k, self.guide_tree = float(guide), guide_k, guide_tree
        self._look_ahead = GreedyAgent(fast=True, value=base) if guide else None
        self.codec = ActionCodec(net.window)
        self._rng = np.random.default_rng(seed)
        #: Leaves valued by the last decision (module docstring).
        self.last_simulations = 0
        #: The root of the last decision (its statistics: a trainer's policy and value targets).
        self.last_root: Node | None = None
        self._kept: Node | None = None
        self._encoder: Encoder | None = None
        self._hard_limit: float | None = None
        self._record, self._recorded = record, False

    def limit_thinking(self, seconds: float | None) -> None:
        """Raise :class:`~agents.thinking_limit.ThinkingTimeout` between two batches once a decision has
        thought ``seconds`` (None: no limit): a runner's move time limit (:mod:`agents.thinking_limit`)."""
        self._hard_limit = checked_limit("AZAgent", seconds)

    # ------------------------------------------------------------------ the decision
    def choose_action(self, game: Game) -> Action:
        if game.is_over:
            raise ValueError("choose_action: the game is over, there is no decision to make")
        if game.config != self.net.config:
            raise ValueError(f"az: the network was trained on {self.net.config.to_dict()}, not on this game "
                             f"{game.config.to_dict()}")
        deadline = None if self._hard_limit is None else time.perf_counter() + self._hard_limit
        self.last_simulations = 0
        if len(game.legal_actions()) == 1:
            self._kept = self.last_root = None
            return game.legal_actions()[0]
        root = self.last_root = self._root(game)
        if not root.evaluated:
            self._evaluate([root])
        playable = len(root.actions) if self._look_ahead is None else min(self.guide_k, len(root.actions))
        guided_here = playable > 1 and self._look_ahead is not None and not self.guide_tree
        prior = self._guided([root])[0] if guided_here else root.logits
        if self.sims == 0 or playable == 1:
            choice = int(np.argmax(prior))
        else:
            choice = self._halving(root, prior, playable, deadline)
        if self._record is not None:
            self._write_record(root)
        child = root.children[choice]
        self._kept = child if isinstance(child, Node) and child.evaluated and not child.game.is_over else None
        return root.actions[choice]

    def _root(self, game: Game) -> Node:
        """The kept node when ``game`` is its position, else a new node on ``game``'s public state; the
        root encoder brought to it."""
        kept, self._kept = self._kept, None
        root = kept if kept is not None and _same_position(kept.game, game) else None
        if root is None:
            state = public_state(game)
            root = Node(state, state.current_player)
        encoder = self._encoder
        if encoder is not None and encoder.continues_into(root.game):
            encoder.sync(root.game)
        else:
            encoder = self._encoder = Encoder(root.game.config, self.net.window)
            encoder.reset(root.game)
        return root

    def _guided(self, nodes: Sequence[Node]) -> list[npt.NDArray[np.float64]]:
        """Each node's guided prior logits: the network's raised by the look-ahead's line values / τ for
        its ``guide_k`` first actions, −∞ for the others (module docstring; finite: τ ≥
        :data:`MIN_GUIDE`). With ``guide_tree`` a node's value becomes its best line's (the mover's
        margin at the end of the best of those lines). The lines of all ``nodes`` end in one batch of
        the base value (:meth:`GreedyAgent.line_ends`)."""
        look_ahead = self._look_ahead
        assert look_ahead is not None
        leaves = leaf_values(look_ahead.value, nodes[0].game)
        firsts = [np.argsort(-node.logits, kind="stable")[:self.guide_k] for node in nodes]
        lines = [look_ahead.line_ends(node.game, [node.actions[int(a)] for a in first], leaves)
                 for node, first in zip(nodes, firsts, strict=True)]
        ends = leaves.values()
        priors = []
        for node, first, node_lines in zip(nodes, firsts, lines, strict=True):
            values = np.asarray(best_ends(node_lines, ends), dtype=np.float64)
            prior = np.full(len(node.actions), -np.inf)
            prior[first] = node.logits[first] + values / self.guide
            if self.guide_tree:
                node.value = float(values.max())
            priors.append(prior)
        return priors

    def _halving(self, root: Node, logits: npt.NDArray[np.float64], playable: int, deadline: float | None) -> int:
        """Sequential halving over the top-k of the ``playable`` actions of largest ``logits`` (the root's
        prior, module docstring); the chosen action's index."""
        noise = self._rng.gumbel(size=len(root.actions)) * self.gumbel if self.gumbel else np.zeros(len(root.actions))
        prior = noise + logits
        remaining = [int(a) for a in np.argsort(-prior, kind="stable")[:min(self.k, playable)]]
        phases = max(1, math.ceil(math.log2(len(remaining))))
        spent = 0
        for phase in range(phases):
            per = max(1, (self.sims - spent) // (phases - phase) // len(remaining))
            visits = [a for _ in range(per) for a in remaining]
            for start in range(0, len(visits), self.batch):
                self._run_batch(root, visits[start:start + self.batch])
                if deadline is not None and time.perf_counter() > deadline:
                    raise ThinkingTimeout(f"stopped after {self.last_simulations} simulations at the "
                                          f"{self._hard_limit:g} s thinking limit")
            spent += len(visits)
            score = prior + sigma(root, self.c_visit, self.c_scale)
            remaining = sorted(remaining, key=lambda a: -score[a])[:max(1, math.ceil(len(remaining) / 2))]
        score = prior + sigma(root, self.c_visit, self.c_scale)
        return max(remaining, key=lambda a: score[a])

    def _write_record(self, root: Node) -> None:
        """Append ``root``'s targets to the record file (module docstring), flushed before returning."""
        assert self._record is not None
        policy = improved_policy(root, self.c_visit, self.c_scale)
        line = {"ply": len(root.game.history), "player": root.player, "indices": root.indices.tolist(),
                "policy": [float(f"{p:.7g}") for p in policy], "base": self.base.margin(root.game, root.player)}
        if not self._recorded:
            self._record.parent.mkdir(parents=True, exist_ok=True)
        with self._record.open("a" if self._recorded else "w") as f:
            f.write(json.dumps(line) + "\n")
        self._recorded = True

    # ------------------------------------------------------------------ one batch
    def _run_batch(self, root: Node, first: Sequence[int]) -> None:
        """One path per root action of ``first``, their new leaves valued in one pass, all backed up."""
        paths: _Paths = [self._descend(root, a) for a in first]
        fresh = list({id(leaf): leaf for _, leaf in paths if not leaf.evaluated}.values())
        if fresh:
            self._evaluate(fresh)
        for path, leaf in paths:
            value = leaf.seat0(leaf.value)
            for parent, i in path:
                parent.pending[i] -= 1
                parent.n[i] += 1
                if isinstance(parent, Node):
                    parent.w[i] += parent.seat0(value)

    def _descend(self, root: Node, first: int) -> tuple[list[tuple[Node | Chance, int]], Node]:
        """Select from ``root`` through action ``first`` down to a leaf (a node made now, one not yet
        valued, or a game end), counting the visits in flight."""
        path: list[tuple[Node | Chance, int]] = []
        node, i = root, first
        while True:
            node.pending[i] += 1
            path.append((node, i))
            child = node.children[i]
            if child is None:
                child = node.children[i] = self._expand(node, i)
                if isinstance(child, Node):
                    return path, child
            if isinstance(child, Chance):
                c = select_outcome(child)
                child.pending[c] += 1
                path.append((child, c))
                after = child.children[c]
                if after is None:
                    after = child.children[c] = self._node(_drawn(child, c))
                    return path, after
                child = after
            if not child.evaluated or child.game.is_over:
                return path, child
            node, i = child, select_child(child, self.c_visit, self.c_scale)

    def _expand(self, node: Node, i: int) -> Node | Chance:
        """What action ``i`` of ``node`` leads to: the next decision of the turn, a game end, or the
        draw that starts the next turn."""
        action = node.actions[i]
        after = node.game.clone()
        after.apply(action)
        ends_turn = after.is_over or after.phase is Phase.PLACE
        if ends_turn and node.game.chance_outcomes():
            return Chance.of(node.game, action)
        return self._node(after)

    def _node(self, game: Game) -> Node:
        """A node on ``game``; a game end is valued now, exactly (seat 0's final margin), and counted."""
        if not game.is_over:
            return Node(game, game.current_player)
        scores = game.scores
        self.last_simulations += 1
        return Node(game, 0, value=float(scores[0] - scores[1]), evaluated=True)

    def _evaluate(self, nodes: list[Node]) -> None:
        """Legal actions, logits and values of ``nodes`` from one network pass (each encoded by a copy
        of the root's encoder synced to it); with ``guide_tree`` the logits become the guide's prior and
        the values its best lines' (:meth:`_guided`, one batch of the base value)."""
        assert self._encoder is not None
        observations, legal = [], []
        for node in nodes:
            encoder = self._encoder.copy()
            encoder.sync(node.game)
            actions = list(node.game.legal_actions())
            players = node.game.num_players
            indices, dropped = self.codec.encode_all(actions, encoder.window, node.player, players,
                                                     encoder.frontier_inside)
            if dropped:  # keep the actions inside the window, paired with their indices
                pairs = [(self.codec.encode(a, encoder.window, node.player, players), a) for a in actions]
                actions = [a for index, a in pairs if index is not None]
                indices = [index for index, _ in pairs if index is not None]
            if not actions:
                raise ValueError(f"none of the {dropped} legal actions lies inside the "
                                 f"{self.net.window}×{self.net.window} window")
            order = np.argsort(indices, kind="stable")
            node.set_actions([actions[n] for n in order], np.asarray(indices, dtype=np.int64)[order])
            observations.append(encoder.observation(node.game, node.player))
            legal.append(node.indices)
        logits, values = self.net.evaluate(observations, legal)
        for node, node_logits, value in zip(nodes, logits, values, strict=True):
            node.logits = node_logits
            if not self.guide_tree:
                node.value = self.base.margin(node.game, node.player) + float(value)
            node.evaluated = True
        if self.guide_tree:  # the look-ahead's priors, and each node's best line's value
            for node, prior in zip(nodes, self._guided(nodes), strict=True):
                node.logits = prior
        self.last_simulations += len(nodes)


@functools.lru_cache(maxsize=4)
def load_net(path: Path) -> PVNet:
    """The network saved at ``path``, loaded once per process (as data: :meth:`PVNet.load`)."""
    with optional_imports("the az: agents", "train"):
        from .nets.pv_net import PVNet

    return PVNet.load(path)


def make_az(seed: int, model: str, sims: int, k: int, batch: int, gumbel: float, guide: float, guide_k: int,
            guide_tree: bool = False, record: str = "") -> AZAgent:
    """The ``az:MODEL`` spec: ``pretrained`` (:data:`SHIPPED_AZ`, once the manifest vouches for it) or
    the path of a file :meth:`PVNet.save` wrote; ``record``: a directory the decisions' targets are
    written to (``DIR/SEED.jsonl``, module docstring), empty for none."""
    from . import position_value

    net = load_net(verified(SHIPPED_AZ) if model == "pretrained" else Path(model))
    return AZAgent(net, position_value(net.base), seed=seed, sims=sims, k=k, batch=batch, gumbel=gumbel,
                   guide=guide, guide_k=guide_k, guide_tree=guide_tree,
                   record=Path(record) / f"{seed}.jsonl" if record else None)


def _drawn(chance: Chance, c: int) -> Game:
    """The line of ``chance``'s action when outcome ``c`` is drawn next."""
    game = chance.before.with_next_draw(chance.outcomes[c])
    game.apply(chance.action)
    return game


def _same_position(kept: Game, game: Game) -> bool:
    """Whether ``game`` is the public position of the kept line: the same actions, tiles and tiles left."""
    return (kept.history == game.history and kept.remaining_counts == game.remaining_counts
            and kept.current_tile == game.current_tile and kept.tiles_placed == game.tiles_placed
            and all(kept.placed_tile(i) == game.placed_tile(i) for i in range(game.tiles_placed)))

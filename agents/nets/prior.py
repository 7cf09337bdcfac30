"""A searching agent's action values as the policy's prior: the residual policy of ``--prior SPEC``.

With a prior, the policy of :mod:`agents.nets.policy` is

    π(a | s) ∝ exp(β · q(s, a) + f_θ(s, a))   over the legal actions a,

where q(s, a) is the value the agent SPEC gives each legal action (greedy's ``action_values``: the
best end-of-turn value of a line that starts with a, in points), shifted so that the best action
is 0; β is a learned inverse temperature (initially 1 / ``temperature``) and f_θ the board
network's logits. This is residual policy learning (Silver et al. 2018, "Residual Policy
Learning"; Johannink et al. 2019): PPO learns a correction f_θ to a hand-made controller instead of
a policy from nothing. At initialisation f_θ ≈ 0 (the action heads start at gain 0.01), so the
policy is the prior's softmax and its most probable action is one of SPEC's best.

The prior is an observation entry, ``prior`` (N,) float32: q − max q at the indices of the legal
actions inside the window, 0 elsewhere (masked actions get no probability anyway). It is computed
by the env wrapper :class:`PriorObservation` during training and by the ``ppo:`` agent at play time
(:class:`ActionPrior`), from the same determinized view of the game, so training and play see the
same function. SPEC values a ``game.determinize(rng)`` copy: nothing of the true pile reaches it.
A decision with one legal action needs no prior (its probability is 1): the vector is all 0.

Costs: SPEC's search at every learner decision (``greedy:value=linear``: ≈ 27 ms a decision on
average with all expansions on the 2-core machine, as measured by the tournament runner).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from carcassonne_env.engine import Action, Game
from carcassonne_env.environment.codec import ActionCodec
from carcassonne_env.environment.window import Window

if TYPE_CHECKING:
    from carcassonne_env.environment import SingleAgentEnv
    from carcassonne_env.players import Player

__all__ = ["PRIOR_KEY", "ActionPrior", "ActionValuer", "PriorObservation", "prior_space", "valued_indices"]

#: The observation entry that holds the prior.
PRIOR_KEY = "prior"


def prior_space(n_actions: int) -> spaces.Box:
    """The ``prior`` entry's space: (N,) float32, values ≤ 0."""
    return spaces.Box(-np.inf, 0.0, shape=(n_actions,), dtype=np.float32)


class ActionValuer(Protocol):
    """An agent that values every legal action (:class:`~agents.greedy.GreedyAgent`)."""

    def action_values(self, game: Game) -> Sequence[float]: ...


def valued_indices(
    agent: ActionValuer, game: Game, codec: ActionCodec, window: Window, pile_rng: np.random.Generator
) -> tuple[list[Action], npt.NDArray[np.float64], list[int | None]]:
    """``game``'s legal actions, ``agent``'s values of them and their indices in ``window`` (None
    outside it), for the player to move.

    The agent values ``game.determinize(pile_rng)``: a line that ends the turn draws the next tile,
    and a value that depends on the draw (a discard changes the pile left) must not see the true
    pile. A determinized copy has the same legal actions in the same order (tests/test_hidden_information.py).
    """
    legal = list(game.legal_actions())
    values = np.asarray(agent.action_values(game.determinize(pile_rng)), dtype=np.float64)
    seat, n = game.current_player, game.num_players
    return legal, values, [codec.encode(a, window, seat, n) for a in legal]


class ActionPrior:
    """The prior vector of the player to move, from the action values of the agent ``spec``.

    Raises ValueError naming ``spec`` when that agent does not value actions (it needs an
    ``action_values(game)`` method, as :class:`~agents.greedy.GreedyAgent` has); an unknown spec
    raises the spec parser's :class:`~agents.spec.AgentSpecError`. Pickles as (spec, window, seed,
    generator state).
    """

    def __init__(self, spec: str, window: int, seed: int = 0, *, from_file: bool = False) -> None:
        self.spec, self.seed, self.from_file = spec, seed, from_file
        self.codec = ActionCodec(window)
        self.agent = self._build(spec, seed, from_file)
        self.rng = np.random.default_rng(seed)

    @staticmethod
    def _build(spec: str, seed: int, from_file: bool) -> ActionValuer:
        """``spec``'s agent; ``from_file``: the spec was read from a model file, so it may name only a
        built-in agent naming no file (:class:`agents.spec.Origin`)."""
        from agents.spec import Origin, make_agent

        agent = make_agent(spec, seed=seed, origin=Origin.FILE if from_file else Origin.COMMAND_LINE)
        if not callable(getattr(agent, "action_values", None)):
            raise ValueError(f"prior {spec!r}: this agent gives no action values (a greedy agent does)")
        return agent  # type: ignore[return-value]

    def vector(self, game: Game, window: Window) -> npt.NDArray[np.float32]:
        """(N,) float32: q − max q at the legal actions' indices in ``window``, 0 elsewhere; all 0
        when the game is over or there is one legal action (its probability is 1 anyway)."""
        out = np.zeros(self.codec.n, dtype=np.float32)
        if game.is_over or len(game.legal_actions()) == 1:
            return out
        _, values, indices = valued_indices(self.agent, game, self.codec, window, self.rng)
        best = values.max()
        for index, value in zip(indices, values, strict=True):
            if index is not None:
                out[index] = value - best
        return out

    def observation(self, game: Game, window: Window) -> dict[str, npt.NDArray[np.float32]]:
        """``{"prior": vector}``: the extra observation entry (for :class:`~carcassonne_env.players.PolicyAgent`)."""
        return {PRIOR_KEY: self.vector(game, window)}

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "window": self.codec.size, "seed": self.seed, "rng": self.rng,
                "from_file": self.from_file}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.spec, self.seed, self.rng = state["spec"], state["seed"], state["rng"]
        self.from_file = bool(state.get("from_file", False))
        self.codec = ActionCodec(state["window"])
        self.agent = self._build(self.spec, self.seed, self.from_file)


class PriorObservation(gymnasium.Wrapper[dict[str, Any], np.int64, dict[str, Any], np.int64]):
    """:class:`~carcassonne_env.environment.SingleAgentEnv` with the ``prior`` entry of the
    learner's decision added to every observation (all 0 when the learner has no decision: the
    game is over, or the episode was cut on another seat's turn)."""

    def __init__(self, env: SingleAgentEnv, prior: ActionPrior) -> None:
        if prior.codec.n != env.aec.codec.n:
            raise ValueError(f"PriorObservation: the prior is for {prior.codec.n} actions (window "
                             f"{prior.codec.size}), the env has {env.aec.codec.n}")
        super().__init__(env)
        self.single = env
        self.prior = prior
        inner: spaces.Dict = env.observation_space  # type: ignore[assignment]
        self.observation_space = spaces.Dict({**inner.spaces, PRIOR_KEY: prior_space(prior.codec.n)})

    def _with_prior(self, obs: dict[str, Any]) -> dict[str, Any]:
        aec, seat = self.single.aec, self.single.seat
        if aec.game.is_over or aec.game.current_player != seat:
            return {**obs, PRIOR_KEY: np.zeros(self.prior.codec.n, dtype=np.float32)}
        return {**obs, PRIOR_KEY: self.prior.vector(aec.game, aec.encoder.window)}

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return self._with_prior(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._with_prior(obs), float(reward), terminated, truncated, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        return self.single.action_masks()

    def set_opponents(self, opponents: Player | Sequence[Player] | None) -> None:
        self.single.set_opponents(opponents)

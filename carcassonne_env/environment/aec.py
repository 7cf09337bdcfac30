"""
# Carcassonne (with The Tower, Black Tower and The Watchtowers)

| Creation           | `carcassonne_env.env(**config)` or `pettingzoo.make("aec", "carcassonne_v1", **config)` |
|--------------------|------------------------------------------------------------------------|
| Actions            | Discrete                                                               |
| Parallel API       | No                                                                     |
| Agents             | `agents = ['player_0', …, 'player_{n-1}']` (2–6, engine seat order)    |
| Action Values      | Discrete(17·W² + 15) = Discrete(16352) for the default W = 31          |
| Observation        | `{"observation": {"board", "cells", "vector"}, "action_mask"}`         |
| Observation Shapes | board uint8 (11+2n, 3W, 3W), cells uint8 (16+n, W, W), vector float32 (129+6n+n²,) |

Carcassonne for 2–6 players over the rules engine :mod:`carcassonne_env.engine` (docs/rules.md): every
decision of docs/rules.md §5 (T2 PLACE, T3 ACTION with ransom, T4 CAPTURE) is one step of the player
who makes it, so a turn takes one to four steps of the same agent. The full documentation, with
every plane and vector entry, the window measurement and the benchmark, is docs/env.md;
:mod:`.codec` has the action layout, :mod:`.layout` the observation layout, :mod:`.rewards` the
rewards, :mod:`.options` the options.

### Arguments
``env(render_mode=None, **config)``: the fields of :class:`~carcassonne_env.engine.GameConfig`
(``players``, ``expansions``, ``tile_sets`` and the variant flags) plus ``window``, ``reward`` and
``shaping``; without ``expansions`` the game is the tower variant (``expansions=()``: the base game).
``reset(seed=s)`` plays the game ``Game(config, seed=s)`` (``s`` a non-negative int);
``reset()`` without a seed draws the next game seed from the generator of the last seed.

### Engine-level agents
:meth:`raw_env.play` steps the agent to move with an engine ``Action`` instead of an index (for
agents that choose from :attr:`raw_env.game`; the action need not lie inside the window).

### Pickling
``raw_env`` pickles as its constructor arguments plus, once reset, the game in progress and the
bookkeeping of the current step: an unpickled env (in any process) continues the same game.

### Observation
Egocentric: seat k is the player k seats after the observer. ``action_mask`` (int8) has exactly
the legal actions of the current decision set for the agent to move and is all zeros for everyone
else. The pile order is never observed, only the multiset of tiles left.

### Illegal actions
``raw_env`` raises :class:`~carcassonne_env.engine.IllegalActionError` naming the action and the
rule it breaks; ``env()`` follows PettingZoo's TerminateIllegalWrapper (the offender gets −1, the
game ends for everyone).

### Window overflow
If a legal action lies outside the window (never seen in 10,000 random games with W = 31), the
mask holds the encodable legal actions only and the mover's ``info`` gets
``window_overflow=True`` and ``unencodable_actions=k``. If no legal action can be encoded, the game
is truncated for every agent (no terminal reward).

### Version History
* v0: initial release.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine import Action, Game, IllegalActionError
from ..registration import ENV_NAME
from .codec import ActionCodec
from .observation import Encoder
from .options import split_config
from .rewards import shaping_rewards, terminal_rewards

__all__ = ["ENV_NAME", "CarcassonneAEC", "env", "raw_env", "wrap"]

RENDER_MODES = ("ansi", "rgb_array", "human")
ObsDict = dict[str, Any]
#: The AEC env type of this package: agents are strings, observations dicts, actions ints.
CarcassonneAEC = AECEnv[str, ObsDict, Any]
#: What a reset env pickles besides its constructor arguments: the game and this step's bookkeeping.
_PROGRESS = (
    "_game", "_seeds", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
    "agent_selection", "_scores", "window_overflows",
)
#: gymnasium's EzPickle state methods, typed here (some gymnasium 1.x releases leave them unannotated).
_EZ_GETSTATE: Callable[[EzPickle], dict[str, Any]] = EzPickle.__getstate__
_EZ_SETSTATE: Callable[[EzPickle, dict[str, Any]], None] = EzPickle.__setstate__


def env(**config: Any) -> CarcassonneAEC:
    """The wrapped env: illegal-move termination (−1), action bounds and call-order checks."""
    return wrap(raw_env(**config))


def wrap(wrapped: CarcassonneAEC) -> CarcassonneAEC:
    """PettingZoo's wrappers of :func:`env` around a raw env."""
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(CarcassonneAEC, EzPickle):
    """The unwrapped AEC env (module docstring). Pickles as its constructor arguments (EzPickle) and
    the game in progress."""

    metadata = {  # noqa: RUF012 (AECEnv declares it an instance attribute)
        "render_modes": list(RENDER_MODES),
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, **config)
        super().__init__()  # type: ignore[no-untyped-call]
        self.game_config, self.options = split_config(config)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.render_mode = render_mode
        n = self.game_config.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.codec = ActionCodec(self.options.window)
        self.encoder = Encoder(self.game_config, self.options.window)
        obs_space = spaces.Dict({
            "observation": self.encoder.layout.observation_space(),
            "action_mask": spaces.Box(0, 1, (self.codec.n,), dtype=np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(self.codec.n) for a in self.possible_agents}
        self._game: Game | None = None
        self._seeds: np.random.Generator | None = None
        self._legal_indices: list[int] | None = None
        #: Decisions so far (all games) in which some legal action could not be encoded.
        self.window_overflows = 0

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The engine game being played (read it; never apply actions to it directly)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            game = Game(self.game_config, seed=seed)  # validates the seed, naming it
            self._seeds = np.random.default_rng(game.seed)
        else:
            if self._seeds is None:
                self._seeds = np.random.default_rng()
            game = Game(self.game_config, seed=int(self._seeds.integers(2**63)))
        self._game = game
        self.encoder.reset(game)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[game.current_player]
        self._scores = self._shaping_scores(game)
        self._new_decision()

    def observe(self, agent: str) -> ObsDict:
        return {
            "observation": self.encoder.observation(self.game, self._seat[agent]),
            "action_mask": self.action_mask(agent),
        }

    def seat_of(self, agent: str) -> int:
        """The engine seat of ``agent`` (``player_k`` is seat k)."""
        return self._seat[agent]

    def action_mask(self, agent: str) -> np.ndarray:
        """The int8 mask of ``agent``: its legal actions if it is to move, else all zeros (fresh)."""
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            return self.codec.mask(self._legal())
        return self.codec.mask([])

    def step(self, action: Any) -> None:
        """Apply ``action`` (an int index) for the agent to move; ``None`` for a done agent. A step
        after every agent is done, or a bool, raises IllegalActionError (never a KeyError)."""
        if not self.agents:
            raise IllegalActionError("the game is over and every agent is done: reset() before stepping again")
        agent = self.agent_selection
        if isinstance(action, bool | np.bool_):
            raise IllegalActionError(f"{agent}: an action is an integer index, got {action!r}")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        if action is None:
            raise IllegalActionError(f"{agent} is to move: None is the action of terminated or truncated agents only")
        try:
            index = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"{agent}: an action is an integer index, got {action!r}") from None
        try:
            game.apply(self.codec.decode_for(game, index, self.encoder.window))
        except IllegalActionError as exc:
            what = self.codec.describe(index, self.encoder.window) if 0 <= index < self.codec.n else "out of range"
            raise IllegalActionError(f"{agent} played illegal action {index} ({what}): {exc}") from None
        self._applied(agent)

    def play(self, action: Action) -> None:
        """Step the agent to move with the engine ``action`` (engine-level agents, module docstring).

        Raises IllegalActionError if ``action`` is not legal or the agent to move is done.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise IllegalActionError(f"{agent} is done: step(None) it instead of playing {action}")
        try:
            self.game.apply(action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"{agent} played illegal action {action}: {exc}") from None
        self._applied(agent)

    def _shaping_scores(self, game: Game) -> tuple[int, ...]:
        """The scores whose changes the shaping reward pays (option ``shaping_scores``)."""
        if self.options.shaping and self.options.shaping_scores == "end_now":
            return game.scores_if_ended_now()
        return game.scores

    def _applied(self, agent: str) -> None:
        """Bookkeeping after ``agent``'s action was applied to the game: rewards, infos, next agent."""
        game = self.game
        self.encoder.sync(game)
        self._cumulative_rewards[agent] = 0.0
        self.infos = {a: {} for a in self.agents}
        scores = game.scores
        rewards = [0.0] * game.num_players
        shaped = self._shaping_scores(game)
        if self.options.shaping and shaped != self._scores:
            rewards = shaping_rewards(self._scores, shaped, self.options.shaping)
        self._scores = shaped
        if game.is_over:
            rewards = [r + t for r, t in zip(rewards, terminal_rewards(scores, self.options.reward), strict=True)]
            self.terminations = dict.fromkeys(self.agents, True)
            winners = game.winners()
            for a in self.agents:
                self.infos[a] = {"final_scores": scores, "winners": winners}
        else:
            self.agent_selection = self.possible_agents[game.current_player]
            self._new_decision()
        self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> np.ndarray | str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode to the env")
            return None
        if self.render_mode == "rgb_array":
            from .render import render_rgb

            return render_rgb(self.game, self.encoder)
        text = self.game.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release (rendering opens no window)."""

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        state = _EZ_GETSTATE(self)
        if self._game is not None:
            state["progress"] = {name: getattr(self, name) for name in _PROGRESS}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        progress = state.get("progress")
        _EZ_SETSTATE(self, {k: v for k, v in state.items() if k != "progress"})
        if progress is not None:
            self.__dict__.update(progress)
            self.encoder.reset(self.game)

    # ------------------------------------------------------------------ internals
    def _legal(self) -> list[int]:
        """Indices of the current decision's encodable legal actions (cached per decision)."""
        if self._legal_indices is None:
            encoder = self.encoder
            self._legal_indices, _ = self.codec.legal_indices(self.game, encoder.window, encoder.frontier_inside)
        return self._legal_indices

    def _new_decision(self) -> None:
        """A new decision began: forget the cached mask; flag (and, if need be, truncate) an overflow."""
        self._legal_indices = None
        if self.encoder.frontier_inside:
            return
        self._legal_indices, dropped = self.codec.legal_indices(self.game, self.encoder.window, False)
        if dropped:
            self.window_overflows += 1
            self.infos[self.agent_selection].update(window_overflow=True, unencodable_actions=dropped)
            if not self._legal_indices:
                self.truncations = dict.fromkeys(self.agents, True)

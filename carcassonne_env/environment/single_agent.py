"""A single-agent Gymnasium view for Stable-Baselines3: the learner plays one seat, other players the rest.

``SingleAgentEnv(opponents=None, seat=0, render_mode=None, **config)`` wraps :class:`.aec.raw_env`.
Observations are the learner's ``{"board", "cells", "vector"}`` (a flat Dict, which SB3's
``MultiInputPolicy`` accepts); :meth:`SingleAgentEnv.action_masks` gives the learner's mask for
sb3-contrib's ``MaskablePPO``. After the learner's action the other seats play until it is the
learner's decision again or the game ends; the reward is everything the learner earned meanwhile
(terminal reward and, if enabled, shaping).

Opponents are players of :mod:`carcassonne_env.players`: engine agents (``choose_action(game)``,
handed the env's game; preferred when a player has both methods) or policies
(``act(observation, action_mask)``, shown their own egocentric observation). ``opponents`` is None
(uniformly random legal actions drawn from the env's ``np_random``), one player for every other
seat, or a sequence with one player per other seat in seat order after the learner.
:meth:`SingleAgentEnv.set_opponents` changes them between episodes, also inside vectorised envs:
``vec_env.env_method("set_opponents", opponents)`` (the opponents must pickle for ``SubprocVecEnv``).
``seat=None`` draws the learner's seat at every reset.

``reset(seed=s)`` plays the game ``Game(config, seed=s)``, the same as the AEC env's
``reset(seed=s)``. An illegal learner action ends the episode with reward −1 and
``info["illegal_action"]`` (so that unmasked algorithms and Gymnasium's checker can step it); a
masked learner never plays one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import player_protocols as players
from ..engine import IllegalActionError
from ..engine.config import as_int
from .aec import raw_env

__all__ = ["SingleAgentEnv"]

Observation = dict[str, Any]


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """The learner's view of one game (module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012 (Env declares the type)

    def __init__(
        self,
        opponents: players.Player | Sequence[players.Player] | None = None,
        seat: int | None = 0,
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.aec = raw_env(render_mode=render_mode, **config)
        self.render_mode = render_mode
        n = self.aec.game_config.players
        if seat is not None:
            number = as_int(seat)
            if number is None:
                raise TypeError(f"seat must be an int or None, got {seat!r}")
            if not 0 <= number < n:
                raise ValueError(f"seat must be in 0..{n - 1} or None, got {seat!r}")
            seat = number
        self._seat_option = seat
        self.seat = 0 if seat is None else seat
        self._opponents: tuple[players.Player, ...] | None = None
        self.set_opponents(opponents)
        self.observation_space = self.aec.encoder.layout.observation_space()
        self.action_space = spaces.Discrete(self.aec.codec.n)
        self._random = players.RandomAgent(np.random.default_rng())
        self._carried = 0.0

    def set_opponents(self, opponents: players.Player | Sequence[players.Player] | None) -> None:
        """Replace the opponents (module docstring) from the next decision on; call it between episodes.

        Raises TypeError naming ``opponents`` for anything that is not a player or a sequence of
        them, and ValueError for a sequence of the wrong length.
        """
        n = self.aec.game_config.players
        if opponents is None:
            self._opponents = None
            return
        if players.is_player(opponents):
            self._opponents = (opponents,) * (n - 1)
            return
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            raise TypeError(f"opponents must be None, a player or a sequence of players, got {opponents!r}")
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: give one player per other seat ({n - 1}), got {len(opponents)}")
        for k, player in enumerate(opponents):
            if not players.is_player(player):
                raise TypeError(
                    f"opponents[{k}] must have choose_action(game) or act(observation, action_mask), got {player!r}"
                )
        self._opponents = tuple(opponents)

    @property
    def learner(self) -> str:
        """The learner's agent name."""
        return self.aec.possible_agents[self.seat]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        self.aec.reset(seed=seed)  # validates the seed, naming it
        super().reset(seed=None if seed is None else self.aec.game.seed)
        self._random = players.RandomAgent(self.np_random)
        if self._seat_option is None:
            self.seat = int(self.np_random.integers(self.aec.game_config.players))
        self._play_others()
        # The opponents' opening moves may already have moved the learner's reward (shaping); it is
        # paid with the learner's first step, as gymnasium's reset returns no reward.
        self._carried = float(self.aec._cumulative_rewards[self.learner])
        return self._observation(), dict(self.aec.infos[self.learner])

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        learner = self.learner
        try:
            self.aec.step(action)
        except IllegalActionError as exc:
            return self._observation(), -1.0, True, False, {"illegal_action": str(exc)}
        self._play_others()
        aec = self.aec
        reward = float(aec._cumulative_rewards[learner]) + self._carried
        self._carried = 0.0
        info = dict(aec.infos[learner])
        return self._observation(), reward, aec.terminations[learner], aec.truncations[learner], info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the game is over)."""
        return self.aec.action_mask(self.learner).astype(bool)

    def render(self) -> Any:
        return self.aec.render()

    def _observation(self) -> Observation:
        return self.aec.encoder.observation(self.aec.game, self.seat)

    def _opponent(self, seat: int) -> players.Player:
        if self._opponents is None:
            return self._random
        return self._opponents[(seat - self.seat) % self.aec.game_config.players - 1]

    def _play_others(self) -> None:
        """Step the other seats until the learner decides or the game has ended."""
        aec = self.aec
        learner = self.learner
        while aec.agent_selection != learner and not (aec.terminations[learner] or aec.truncations[learner]):
            agent = aec.agent_selection
            player = self._opponent(aec.seat_of(agent))
            if isinstance(player, players.EngineAgent):
                aec.play(player.choose_action(aec.game))
            else:
                obs = aec.observe(agent)
                aec.step(player.act(obs["observation"], obs["action_mask"]))

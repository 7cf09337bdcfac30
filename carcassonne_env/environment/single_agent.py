"""A single-agent Gymnasium view for Stable-Baselines3: the learner plays one seat, policies the rest.

``SingleAgentEnv(opponents=None, seat=0, render_mode=None, **config)`` wraps :class:`.aec.raw_env`.
Observations are the learner's ``{"board", "cells", "vector"}`` (a flat Dict, which SB3's
``MultiInputPolicy`` accepts); :meth:`SingleAgentEnv.action_masks` gives the learner's mask for
sb3-contrib's ``MaskablePPO``. After the learner's action the other seats play until it is the
learner's decision again or the game ends; the reward is everything the learner earned meanwhile
(terminal reward and, if enabled, shaping).

Opponents are *policies*: callables ``policy(observation, action_mask) -> int`` or objects with
``act(observation, action_mask) -> int`` (the agents' protocol), seeing their own egocentric
observation. ``opponents`` is None (uniformly random legal actions, drawn from the env's
``np_random``), one policy for every other seat, or a sequence with one policy per other seat in
seat order after the learner. ``seat=None`` draws the learner's seat at every reset.

An illegal learner action ends the episode with reward −1 and ``info["illegal_action"]`` (so that
unmasked algorithms and Gymnasium's checker can step it); a masked learner never plays one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from ..engine import IllegalActionError
from .aec import raw_env

__all__ = ["Policy", "RandomPolicy", "SingleAgentEnv"]

Observation = dict[str, Any]


class _Agent(Protocol):
    def act(self, observation: Observation, action_mask: np.ndarray) -> int: ...


Policy = Callable[[Observation, np.ndarray], int] | _Agent


class RandomPolicy:
    """Uniform over the legal actions, drawing from ``rng``."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, observation: Observation, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


def _call(policy: Policy, observation: Observation, mask: np.ndarray) -> int:
    act = getattr(policy, "act", None)
    if act is not None:
        return int(act(observation, mask))
    return int(policy(observation, mask))  # type: ignore[operator]


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """The learner's view of one game (module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012 (Env declares the type)

    def __init__(
        self,
        opponents: Policy | Sequence[Policy] | None = None,
        seat: int | None = 0,
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.aec = raw_env(render_mode=render_mode, **config)
        self.render_mode = render_mode
        n = self.aec.game_config.players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1} or None, got {seat}")
        if isinstance(opponents, Sequence) and len(opponents) != n - 1:
            raise ValueError(f"give one policy per other seat ({n - 1}), got {len(opponents)}")
        self._opponents = opponents
        self._seat_option = seat
        self.seat = 0 if seat is None else seat
        self.observation_space = self.aec.encoder.layout.observation_space()
        self.action_space = spaces.Discrete(self.aec.codec.n)
        self._random = RandomPolicy(np.random.default_rng())
        self._carried = 0.0

    @property
    def learner(self) -> str:
        """The learner's agent name."""
        return self.aec.possible_agents[self.seat]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self._random.rng = self.np_random
        self.aec.reset(seed=int(self.np_random.integers(2**63)))
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

    def _policy(self, seat: int) -> Policy:
        opponents = self._opponents
        if opponents is None:
            return self._random
        if isinstance(opponents, Sequence):
            n = self.aec.game_config.players
            return opponents[(seat - self.seat) % n - 1]
        return opponents

    def _play_others(self) -> None:
        """Step the other seats until the learner decides or the game has ended."""
        aec = self.aec
        learner = self.learner
        while aec.agent_selection != learner and not (aec.terminations[learner] or aec.truncations[learner]):
            agent = aec.agent_selection
            obs = aec.observe(agent)
            aec.step(_call(self._policy(aec.seat_of(agent)), obs["observation"], obs["action_mask"]))

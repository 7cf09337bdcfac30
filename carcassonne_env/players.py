"""The two protocols players implement, the adapter between them, and the random player.

* :class:`Policy` — observation level, what RL policies implement:
  ``act(observation, action_mask) -> int`` with the env's egocentric observation
  ``{"board", "cells", "vector"}`` and int8 mask of the player to move (docs/env.md).
* :class:`EngineAgent` — engine level, what search agents implement: ``choose_action(game) -> Action``
  for ``game.current_player``. It must not mutate ``game``, may read only public state and uses
  ``game.determinize(rng)`` for anything about future tiles.

:class:`PolicyAgent` turns a policy into an engine agent through the env's observation encoder and
action codec; :func:`as_engine_agent` accepts either kind. The other direction needs no adapter: the
envs hand an engine agent their game (``SingleAgentEnv`` opponents, :meth:`raw_env.play`).
:class:`RandomAgent` is the one uniformly random player, at both levels. The protocols and
:class:`RandomAgent` are defined in :mod:`.player_protocols` (which the envs import: this module
imports the env's encoder, so the envs must not import it) and are public here.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from typing import Any, Protocol

from .engine import Action, Game, IllegalActionError
from .environment.codec import ActionCodec
from .environment.observation import Encoder
from .environment.options import DEFAULT_WINDOW, EnvOptions
from .environment.window import Window
from .player_protocols import EngineAgent, Observation, Player, Policy, RandomAgent, is_player

__all__ = [
    "ENCODERS_KEPT", "EngineAgent", "Observation", "ObservationExtras", "Player", "Policy", "PolicyAgent",
    "RandomAgent", "as_engine_agent", "is_player",
]


class ObservationExtras(Protocol):
    """More observation entries for a policy, computed from the game and the decision's window."""

    def observation(self, game: Game, window: Window) -> Observation: ...


#: How many games' incremental encoders a :class:`PolicyAgent` keeps.
ENCODERS_KEPT = 8


class PolicyAgent:
    """An :class:`EngineAgent` that asks ``policy`` through the env's encoder and codec.

    The policy sees exactly what the env would show the player to move (observation and mask for a
    ``window`` of W cells, the W it was trained with). Correct for any game it is handed, in any
    order: it keeps one incremental encoder per game object, for the :data:`ENCODERS_KEPT` games it
    was handed last (an older game gets a new encoder if it comes back), and a game object only
    ever moves forward. A game object it has not seen takes over the encoder
    used last when that one can catch up with it (:meth:`.Encoder.continues_into`): the tournament
    hands the agent a fresh copy of the game every decision, and rebuilding the planes of the whole
    board each time cost as much as the network. Pickles without the encoders.

    ``extras``, if given, adds entries to the observation: it is called as ``extras.observation(game,
    window)`` with the decision's window and returns a dict (a residual policy's ``prior``,
    :mod:`agents.nets.prior`).

    Raises IllegalActionError if the policy returns an index that is not legal, and ValueError if
    no legal action lies inside the window (never seen in 10,000 random games at W ≥ 29).
    """

    def __init__(self, policy: Policy, window: int = DEFAULT_WINDOW, extras: ObservationExtras | None = None) -> None:
        if isinstance(policy, type) or not isinstance(policy, Policy):
            raise TypeError(f"policy must have act(observation, action_mask) -> int, got {policy!r}")
        if extras is not None and not callable(getattr(extras, "observation", None)):
            raise TypeError(f"extras must have observation(game, window) -> dict, got {extras!r}")
        self.policy = policy
        self.extras = extras
        self.window = EnvOptions(window=window).window
        self.codec = ActionCodec(self.window)
        #: ``id(game)`` → (the game, its encoder), least recently used first. The games are held, so
        #: their ids stay theirs (a compiled Game cannot be weakly referenced).
        self._encoders: OrderedDict[int, tuple[Game, Encoder]] = OrderedDict()
        self._last: tuple[Game, Encoder] | None = None

    def choose_action(self, game: Game) -> Action:
        encoder = self._encoder(game)
        legal, dropped = self.codec.legal_indices(game, encoder.window, encoder.frontier_inside)
        if not legal:
            raise ValueError(f"none of the {dropped} legal actions lies inside the {self.window}×{self.window} window")
        mask = self.codec.mask(legal)
        observation = encoder.observation(game, game.current_player)
        if self.extras is not None:
            observation = {**observation, **self.extras.observation(game, encoder.window)}
        index = operator.index(self.policy.act(observation, mask))
        if not (0 <= index < self.codec.n and mask[index]):
            raise IllegalActionError(f"{self.policy!r} chose action {index}, which the mask does not allow")
        return self.codec.decode_for(game, index, encoder.window)

    def _encoder(self, game: Game) -> Encoder:
        """The encoder mirroring ``game``, brought up to date."""
        encoders = self._encoders
        kept = encoders.get(id(game))
        if kept is not None:
            encoder = kept[1]
            encoders.move_to_end(id(game))
            encoder.sync(game)
        elif self._last is not None and self._last[1].continues_into(game):
            mirrored, encoder = self._last
            encoders.pop(id(mirrored), None)  # that game gets a new encoder if it is ever handed in again
            encoders[id(game)] = (game, encoder)
            encoder.sync(game)
        else:
            encoder = Encoder(game.config, self.window)
            encoders[id(game)] = (game, encoder)
            encoder.reset(game)
        while len(encoders) > ENCODERS_KEPT:
            encoders.popitem(last=False)
        self._last = (game, encoder)
        return encoder

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_encoders", "_last")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._encoders = OrderedDict()
        self._last = None

    def __repr__(self) -> str:
        return f"PolicyAgent({self.policy!r}, window={self.window})"


def as_engine_agent(
    player: Player, window: int = DEFAULT_WINDOW, extras: ObservationExtras | None = None
) -> EngineAgent:
    """``player`` itself if it is an engine agent, else a :class:`PolicyAgent` over it for ``window``
    (with observation ``extras``)."""
    if is_player(player):
        if not isinstance(player, EngineAgent):
            return PolicyAgent(player, window, extras)
        if extras is not None:
            raise TypeError(f"extras are observation entries for a policy; {player!r} is an engine agent")
        return player
    raise TypeError(f"a player has choose_action(game) or act(observation, action_mask), got {player!r}")
